import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeToolCallArguments, normalizeToolCallArgumentsRule } from '../../transforms/normalize-tool-call-arguments.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';
import { JsonlLineParser, stringifyMessage } from '../../lib/jsonl.ts';

const A = (...content: Array<Record<string, unknown>>): Message => ({ role: 'assistant', content, stopReason: 'toolUse', timestamp: 2 });
const call = (fields: Record<string, unknown>): Record<string, unknown> => ({ type: 'toolCall', id: 't1', name: 'read', ...fields });

const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string[]]> = [
  ['a string holding an object becomes that object', call({ arguments: '{"path":"a"}' }), call({ arguments: { path: 'a' } }), ['parsed']],
  ['a string holding an array becomes {}', call({ arguments: '[1,2]' }), call({ arguments: {} }), ['emptied']],
  ['any other string becomes {}', call({ arguments: 'ls -la' }), call({ arguments: {} }), ['emptied']],
  ['an empty string becomes {}', call({ arguments: '' }), call({ arguments: {} }), ['emptied']],
  ['an array becomes {}', call({ arguments: ['a'] }), call({ arguments: {} }), ['emptied']],
  ['a number becomes {}', call({ arguments: 0 }), call({ arguments: {} }), ['emptied']],
  ['a boolean becomes {}', call({ arguments: false }), call({ arguments: {} }), ['emptied']],
  ['input alone moves to arguments', { type: 'toolUse', id: 't1', name: 'read', input: { path: 'a' } }, { type: 'toolUse', id: 't1', name: 'read', arguments: { path: 'a' } }, ['moved']],
  ['input as a JSON string is moved and parsed', call({ input: '{"n":1}', arguments: null }), call({ arguments: { n: 1 } }), ['moved', 'parsed']],
  ['an object stays as it is', call({ arguments: { path: 'a' }, input: 'ignored' }), call({ arguments: { path: 'a' }, input: 'ignored' }), []],
  ['neither field: left alone', call({}), call({}), []],
  ['a snake-case tool_use block is not a call the runtime sends', { type: 'tool_use', id: 't1', name: 'read', input: 'x' }, { type: 'tool_use', id: 't1', name: 'read', input: 'x' }, []],
];

for (const [name, block, expected, repairs] of cases) {
  test(`normalizeToolCallArguments: ${name}`, () => {
    const out = normalizeToolCallArguments(deepFreeze(A(structuredClone(block))));
    assert.deepEqual(out.message, A(expected));
    assert.deepEqual(out.repairs, repairs);
  });
}

test('thinking blocks are untouched and an untouched message is the same object', () => {
  const signed = { type: 'thinking', thinking: 'plan', thinkingSignature: 'sig' };
  const keep = A(signed, call({ arguments: {} }));
  const input = deepFreeze([keep, A(signed, call({ arguments: '{"a":1}' }), call({ id: 't2', arguments: 5 }))]);
  const { output, counts } = runRule(normalizeToolCallArgumentsRule, input);
  assert.equal(output[0], keep);
  assert.deepEqual((output[1]!.content as unknown[])[0], signed);
  assert.deepEqual(counts, { parsed: 1, emptied: 1 });
});

test('through the pipeline: Anthropic, Bedrock and Gemini get object inputs', async () => {
  const session: Message[] = [
    { role: 'user', content: 'q', timestamp: 1 },
    A(call({ id: 'toolu_1', arguments: '{"path":"a"}' }), call({ id: 'toolu_2', arguments: [1] }), { type: 'toolUse', id: 'toolu_3', name: 'read', input: { path: 'b' } }),
    ...['toolu_1', 'toolu_2', 'toolu_3'].map((id): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'ok' }], timestamp: 3 })),
    { role: 'user', content: 'next', timestamp: 4 },
  ];
  for (const route of [
    { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
    { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
    { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
  ]) {
    assert.ok(checkTranscript(session, route).length > 0, `${route.modelApi}: the input breaks the rule`);
    const out = await sanitizeSessionHistory(structuredClone(session), route);
    assert.deepEqual(checkTranscript(out, route), [], route.modelApi);
    const calls = (out.find((m) => m.role === 'assistant')!.content as Array<Record<string, unknown>>).map((block) => block.arguments);
    assert.deepEqual(calls, [{ path: 'a' }, {}, { path: 'b' }], route.modelApi);
  }
});

test('the output line is the edited message, whether the writer patches the input line or stringifies', () => {
  const lines = [
    '{"role":"assistant","content":[{"type":"text","text":"go"},{"type":"toolCall","id":"t1","name":"bash","arguments":"{\\"cmd\\":\\"ls\\"}"}],"stopReason":"toolUse"}',
    '{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":[1]}],"stopReason":"toolUse"}',
    '{"role":"assistant","content":[{"type":"toolUse","id":"t1","name":"bash","input":{"cmd":"ls"}}],"stopReason":"toolUse"}',
  ];
  for (const line of lines) {
    const parsed = new JsonlLineParser().parse(line)!;
    const { output } = runRule(normalizeToolCallArgumentsRule, [parsed]);
    assert.equal(stringifyMessage(output[0]!), JSON.stringify(output[0]) + '\n', line);
    assert.ok(isRecordObject((output[0]!.content as Array<Record<string, unknown>>).at(-1)!.arguments), line);
  }
});

function isRecordObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
