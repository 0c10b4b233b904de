import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTranscript, invariantsFor, type CheckRoute } from '../../lib/invariants/index.ts';
import { assistant, text, toolResult, user } from '../helpers/build.ts';
import type { ContentBlock, Message } from '../../lib/types.ts';

const ROUTES: Record<string, CheckRoute> = {
  anthropic: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  minimax: { provider: 'minimax', modelApi: 'anthropic-messages', modelId: 'MiniMax-M2' },
  bedrock: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
  gemini: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  antigravity: { provider: 'google-antigravity', modelApi: 'google-gemini-cli', modelId: 'claude-sonnet-4-5' },
  responses: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
  chat: { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' },
  mistral: { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' },
  openrouterClaude: { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'anthropic/claude-sonnet-4.5' },
};

const withName = (name: unknown): Message[] => [
  user('q'),
  assistant([{ type: 'toolCall', id: 'call1', name, arguments: {} } as unknown as ContentBlock]),
  toolResult('call1', [text('ok')]),
];
const nameRules = (name: unknown, route: CheckRoute): string[] =>
  checkTranscript(withName(name), route).filter((v) => v.rule.endsWith('/tool-name')).map((v) => `${v.index}:${v.block} ${v.rule}`);

test('every route with known rules reports a tool name its provider rejects, once, under its wire family', () => {
  const expected: Record<string, string> = {
    anthropic: 'anthropic', minimax: 'anthropic', bedrock: 'bedrock', gemini: 'gemini', antigravity: 'gemini',
    responses: 'openai-responses', chat: 'chat-completions', mistral: 'chat-completions', openrouterClaude: 'chat-completions',
  };
  for (const [key, route] of Object.entries(ROUTES)) {
    assert.deepEqual(nameRules('', route), [`1:0 ${expected[key]}/tool-name`], key);
    assert.deepEqual(nameRules('read', route), [], key);
  }
});

test('which names each route takes', () => {
  const cases: Array<[unknown, string[]]> = [
    // name, routes that reject it
    ['mcp.s3/list_objects', ['minimax', 'bedrock', 'gemini', 'antigravity', 'responses', 'chat', 'mistral', 'openrouterClaude']],
    ['ns:tool.v1', ['minimax', 'bedrock', 'responses', 'chat', 'mistral', 'openrouterClaude']],
    ['1read', ['gemini', 'antigravity']],
    ['x'.repeat(65), ['minimax', 'bedrock', 'gemini', 'antigravity', 'responses', 'chat', 'mistral', 'openrouterClaude']],
    ['x'.repeat(201), Object.keys(ROUTES)],
    [undefined, Object.keys(ROUTES)],
  ];
  for (const [name, rejecting] of cases) {
    for (const [key, route] of Object.entries(ROUTES)) {
      assert.equal(nameRules(name, route).length, rejecting.includes(key) ? 1 : 0, `${JSON.stringify(name)?.slice(0, 20)} on ${key}`);
    }
  }
});

test('the message names the name and the rule', () => {
  const [violation] = checkTranscript(withName('a/b'), ROUTES.bedrock!).filter((v) => v.rule === 'bedrock/tool-name');
  assert.equal(violation?.id, 'call1');
  assert.match(violation!.message, /"a\/b".*\^\[a-zA-Z0-9_-\]\{1,64\}\$/);
});

test('a route with no known rules reports nothing', () => {
  assert.deepEqual(invariantsFor({ provider: 'x', modelApi: 'mistral-conversations', modelId: 'm' }).rules, []);
});
