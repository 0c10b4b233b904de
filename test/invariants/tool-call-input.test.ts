import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTranscript, type CheckRoute } from '../../lib/invariants/index.ts';
import { assistant, text, toolResult, user } from '../helpers/build.ts';
import type { ContentBlock, Message } from '../../lib/types.ts';

const ANTHROPIC: CheckRoute = { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' };
const BEDROCK: CheckRoute = { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' };
const GEMINI: CheckRoute = { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' };
const OPENROUTER_CLAUDE: CheckRoute = { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'anthropic/claude-sonnet-4.5' };

const withCall = (call: Record<string, unknown>): Message[] => [
  user('q'),
  assistant([{ type: 'toolCall', id: 't1', name: 'read', ...call } as unknown as ContentBlock]),
  toolResult('t1', [text('ok')]),
];
const inputRules = (messages: readonly unknown[], route: CheckRoute): string[] =>
  checkTranscript(messages, route).filter((v) => /input|args/.test(v.rule)).map((v) => `${v.index}:${v.block} ${v.rule}`);

test('object arguments are fine everywhere', () => {
  for (const route of [ANTHROPIC, BEDROCK, GEMINI, OPENROUTER_CLAUDE]) assert.deepEqual(checkTranscript(withCall({ arguments: { path: 'a' } }), route), [], route.modelApi);
});

test('a string, array, number or boolean is not an input object', () => {
  for (const value of ['{"path":"a"}', 'a', [1], 0, true]) {
    const messages = withCall({ arguments: value });
    assert.deepEqual(inputRules(messages, ANTHROPIC), ['1:0 anthropic/tool-use-input'], JSON.stringify(value));
    assert.deepEqual(inputRules(messages, BEDROCK), ['1:0 bedrock/tool-use-input'], JSON.stringify(value));
    assert.deepEqual(inputRules(messages, GEMINI), ['1:0 gemini/function-call-args'], JSON.stringify(value));
    assert.deepEqual(inputRules(messages, OPENROUTER_CLAUDE), ['1:0 anthropic/tool-use-input'], JSON.stringify(value));
  }
});

test('absent arguments: Anthropic and Gemini get {} from the runtime, Bedrock gets no input field', () => {
  for (const call of [{}, { arguments: null }, { input: { path: 'a' } }]) {
    const messages = withCall(call);
    assert.deepEqual(inputRules(messages, ANTHROPIC), [], JSON.stringify(call));
    assert.deepEqual(inputRules(messages, GEMINI), [], JSON.stringify(call));
    assert.deepEqual(inputRules(messages, BEDROCK), ['1:0 bedrock/tool-use-input'], JSON.stringify(call));
  }
});

test('the violation names the call and what its arguments are', () => {
  const [violation] = checkTranscript(withCall({ arguments: [1] }), ANTHROPIC);
  assert.equal(violation?.id, 't1');
  assert.match(violation?.message ?? '', /valid dictionary \(arguments are an array\)/);
});
