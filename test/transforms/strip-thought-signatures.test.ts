import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isBase64Signature,
  stripThoughtSignatures,
  stripThoughtSignaturesEnabled,
  stripThoughtSignaturesFromMessages,
  stripThoughtSignaturesRule,
} from '../../transforms/strip-thought-signatures.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import type { ThoughtSignatureSanitizing } from '../../lib/policy.ts';
import type { Message } from '../../lib/types.ts';
import { deepFreeze, fakeContext, testPolicy } from '../helpers/build.ts';
import { runRule } from '../helpers/thinking-rules.ts';

const BASE64: ThoughtSignatureSanitizing = { allowBase64Only: true, includeCamelCase: true };
const SAME = Symbol('same object');

test('isBase64Signature: the §4.9 / E16 table', () => {
  const table: Record<string, boolean> = {
    Zm9v: true,
    YQ: true,
    YR: false,
    abc: true,
    a: false,
    ab_c: true,
    'ab+_': false,
    msg_abc: true,
    msg_123: false,
    ' YWJj ZA== ': true,
    'abcd====': true,
    '====': false,
    '': false,
  };
  for (const [value, expected] of Object.entries(table)) assert.equal(isBase64Signature(value), expected, JSON.stringify(value));
});

test('isBase64Signature: non-strings, blanks and foreign characters are not base64', () => {
  for (const value of [undefined, null, 12, {}, ['Zm9v'], '   ', 'not base64!', 'Zm9v.', 'Zm9v\u00e9']) {
    assert.equal(isBase64Signature(value), false, JSON.stringify(value));
  }
});

interface Case {
  name: string;
  options: ThoughtSignatureSanitizing | undefined;
  input: Message;
  expected: Message | typeof SAME;
}

const A = (content: unknown[], extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content, stopReason: 'stop', ...extra }) as Message;

const cases: Case[] = [
  // Default options: only snake_case msg_ values.
  {
    name: 'default: msg_ thought_signature removed, camelCase kept',
    options: undefined,
    input: A([{ type: 'text', text: 'a', thought_signature: 'msg_1', thoughtSignature: 'msg_2' }]),
    expected: A([{ type: 'text', text: 'a', thoughtSignature: 'msg_2' }]),
  },
  {
    name: 'default: non-msg_ values kept ("xmsg_1", "msg", base64, numbers)',
    options: undefined,
    input: A([
      { type: 'text', text: 'b', thought_signature: 'xmsg_1' },
      { type: 'text', text: 'c', thought_signature: 'msg' },
      { type: 'toolCall', id: 'c', name: 'n', arguments: {}, thought_signature: 'Zm9v' },
      { type: 'thinking', thinking: 't', thought_signature: 12 },
    ]),
    expected: SAME,
  },
  {
    name: 'default: every object block is looked at, whatever its type',
    options: undefined,
    input: A([{ type: 'toolCall', id: 'c', name: 'n', arguments: {}, thought_signature: 'msg_x' }, { type: 'weird', thought_signature: 'msg_y' }, null, 'str']),
    expected: A([{ type: 'toolCall', id: 'c', name: 'n', arguments: {} }, { type: 'weird' }, null, 'str']),
  },
  {
    name: 'explicit {allowBase64Only:false, includeCamelCase:true}: msg_ removed in both fields',
    options: { allowBase64Only: false, includeCamelCase: true },
    input: A([{ type: 'text', text: 'a', thought_signature: 'msg_1', thoughtSignature: 'msg_2' }]),
    expected: A([{ type: 'text', text: 'a' }]),
  },
  // Base64 options.
  {
    name: 'base64: invalid values in both fields removed, valid kept',
    options: BASE64,
    input: A([{ type: 'text', text: 'b', thought_signature: 'YQ', thoughtSignature: 'YR' }]),
    expected: A([{ type: 'text', text: 'b', thought_signature: 'YQ' }]),
  },
  {
    name: 'base64: null, "" and numbers are removed (oracle)',
    options: BASE64,
    input: A([{ type: 'text', text: 'a', thought_signature: null, thoughtSignature: '' }, { type: 'thinking', thinking: 't', thought_signature: 12 }]),
    expected: A([{ type: 'text', text: 'a' }, { type: 'thinking', thinking: 't' }]),
  },
  {
    name: 'base64 without camelCase: thoughtSignature left alone',
    options: { allowBase64Only: true, includeCamelCase: false },
    input: A([{ type: 'text', text: 'a', thought_signature: 'not base64!', thoughtSignature: 'not base64!' }]),
    expected: A([{ type: 'text', text: 'a', thoughtSignature: 'not base64!' }]),
  },
  {
    name: 'base64: blocks without signature fields are untouched',
    options: BASE64,
    input: A([{ type: 'text', text: 'c' }, { type: 'thinking', thinking: 't', thinkingSignature: 'bad sig' }]),
    expected: SAME,
  },
  // Skips.
  {
    name: 'error turns are skipped (E16)',
    options: undefined,
    input: A([{ type: 'text', text: 'e', thought_signature: 'msg_1' }], { stopReason: 'error' }),
    expected: SAME,
  },
  {
    name: 'user blocks are not touched (oracle)',
    options: undefined,
    input: { role: 'user', content: [{ type: 'text', text: 'q', thought_signature: 'msg_1' }] },
    expected: SAME,
  },
  {
    name: 'tool results are not touched (oracle)',
    options: BASE64,
    input: { role: 'toolResult', toolCallId: 'x', content: [{ type: 'text', text: 'r', thought_signature: 'msg_1' }] },
    expected: SAME,
  },
  { name: 'string assistant content is untouched', options: BASE64, input: A('hi' as never), expected: SAME },
  { name: 'other roles are untouched', options: undefined, input: { role: 'custom', content: [{ thought_signature: 'msg_1' }] }, expected: SAME },
];

for (const c of cases) {
  test(`stripThoughtSignatures: ${c.name}`, () => {
    const input = deepFreeze(structuredClone(c.input));
    const out = stripThoughtSignatures(input, c.options);
    if (c.expected === SAME) {
      assert.equal(out, input);
      return;
    }
    assert.notEqual(out, input);
    assert.deepEqual(out, c.expected);
    assert.equal(stripThoughtSignatures(out, c.options), out, 'idempotent');
  });
}

test('stripThoughtSignatures: untouched blocks keep their identity', () => {
  const keep = { type: 'text', text: 'keep' };
  const input = deepFreeze(A([keep, { type: 'text', text: 'x', thought_signature: 'msg_1' }]));
  const out = stripThoughtSignatures(input, undefined);
  assert.equal((out.content as unknown[])[0], keep);
});

const E16_INPUT: Message[] = [
  { role: 'user', content: 'q' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'a', thought_signature: 'msg_123', thoughtSignature: 'msg_456' },
      { type: 'toolCall', id: 'c', name: 'n', arguments: {}, thought_signature: 'Zm9v', thoughtSignature: 'not base64!' },
      { type: 'thinking', thinking: 't', thought_signature: 12, thoughtSignature: 'msg_abc' },
    ],
    stopReason: 'stop',
  },
  { role: 'assistant', content: [{ type: 'text', text: 'e', thought_signature: 'msg_1' }], stopReason: 'error' },
  { role: 'user', content: 'q2' },
];

test('E16 openrouter / openai-completions / google/gemini-2.5-pro (assistant contents)', () => {
  const policy = resolveTranscriptPolicy({ provider: 'openrouter', modelApi: 'openai-completions', modelId: 'google/gemini-2.5-pro' });
  assert.ok(stripThoughtSignaturesEnabled(policy));
  const input = deepFreeze(structuredClone(E16_INPUT));
  const out = stripThoughtSignaturesFromMessages(input, policy.sanitizeThoughtSignatures);
  assert.deepEqual(out.filter((m) => m.role === 'assistant').map((m) => m.content), [
    [
      { type: 'text', text: 'a' },
      { type: 'toolCall', id: 'c', name: 'n', arguments: {}, thought_signature: 'Zm9v' },
      { type: 'thinking', thinking: 't', thoughtSignature: 'msg_abc' },
    ],
    [{ type: 'text', text: 'e', thought_signature: 'msg_1' }],
  ]);
  assert.equal(out[0], input[0]);
  assert.equal(out[2], input[2]);
  assert.equal(out[3], input[3]);
});

test('E16 openai / openai-completions / gpt-4o (default: only msg_* snake_case removed)', () => {
  const policy = resolveTranscriptPolicy({ provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' });
  assert.equal(policy.sanitizeThoughtSignatures, undefined);
  assert.ok(stripThoughtSignaturesEnabled(policy));
  const out = stripThoughtSignaturesFromMessages(deepFreeze(structuredClone(E16_INPUT)), policy.sanitizeThoughtSignatures);
  assert.deepEqual(out.filter((m) => m.role === 'assistant').map((m) => m.content), [
    [
      { type: 'text', text: 'a', thoughtSignature: 'msg_456' },
      { type: 'toolCall', id: 'c', name: 'n', arguments: {}, thought_signature: 'Zm9v', thoughtSignature: 'not base64!' },
      { type: 'thinking', thinking: 't', thought_signature: 12, thoughtSignature: 'msg_abc' },
    ],
    [{ type: 'text', text: 'e', thought_signature: 'msg_1' }],
  ]);
});

test('E21 google-antigravity: the base64 cleanup removes the non-base64 thought_signature only', () => {
  const policy = resolveTranscriptPolicy({ provider: 'google-antigravity', modelApi: 'google-generative-ai', modelId: 'claude-sonnet-4-5-thinking' });
  const input = deepFreeze<Message>({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'unsigned' },
      { type: 'thinking', thinking: 'snake', thought_signature: 'not base64!' },
      { type: 'thinking', thinking: 'tsig', thinkingSignature: 'bad sig' },
      { type: 'text', text: 'answer' },
    ],
    stopReason: 'stop',
  });
  assert.deepEqual(stripThoughtSignatures(input, policy.sanitizeThoughtSignatures).content, [
    { type: 'thinking', thinking: 'unsigned' },
    { type: 'thinking', thinking: 'snake' },
    { type: 'thinking', thinking: 'tsig', thinkingSignature: 'bad sig' },
    { type: 'text', text: 'answer' },
  ]);
});

test('enabled exactly when the policy does not preserve signatures', () => {
  const route = (provider: string, modelApi: string, modelId: string) => stripThoughtSignaturesEnabled(resolveTranscriptPolicy({ provider, modelApi, modelId }));
  assert.equal(route('anthropic', 'anthropic-messages', 'claude-opus-4-6'), false);
  assert.equal(route('amazon-bedrock', 'bedrock-converse-stream', 'amazon.nova-pro-v1:0'), false);
  assert.equal(route('minimax', 'anthropic-messages', 'MiniMax-M2'), false);
  assert.equal(route('openai', 'openai-responses', 'gpt-5'), true);
  assert.equal(route('google', 'google-generative-ai', 'gemini-2.5-pro'), true);
  assert.equal(route('vllm', 'openai-completions', 'qwen3'), true);
  assert.equal(stripThoughtSignaturesEnabled(testPolicy({ preserveSignatures: true })), false);
  assert.equal(stripThoughtSignaturesEnabled(testPolicy()), true);
});

test('rule: meta, counters and the policy options', () => {
  assert.equal(stripThoughtSignaturesRule.unit, 'message');
  assert.equal(stripThoughtSignaturesRule.meta.name, 'strip-thought-signatures');
  assert.deepEqual(stripThoughtSignaturesRule.meta.counters, ['strippedSignatures']);
  const ctx = fakeContext({ policy: { sanitizeThoughtSignatures: BASE64 } });
  const untouched = deepFreeze(A([{ type: 'text', text: 'a', thought_signature: 'Zm9v' }]));
  assert.equal(stripThoughtSignaturesRule.apply(untouched, ctx), untouched);
  assert.deepEqual(ctx.counts, {});
  const changed = deepFreeze(A([{ type: 'text', text: 'a', thought_signature: 'x!', thoughtSignature: 'y!' }, { type: 'text', text: 'b', thoughtSignature: 1 }]));
  assert.deepEqual(stripThoughtSignaturesRule.apply(changed, ctx), A([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]));
  assert.deepEqual(ctx.counts, { strippedSignatures: 3 });
});

test('rule: through the chain, same objects for untouched messages', () => {
  const input = deepFreeze(structuredClone(E16_INPUT));
  const { output, counts } = runRule(stripThoughtSignaturesRule, input);
  assert.equal(output[0], input[0]);
  assert.notEqual(output[1], input[1]);
  assert.equal(output[2], input[2]);
  assert.deepEqual(counts, { strippedSignatures: 1 });
});
