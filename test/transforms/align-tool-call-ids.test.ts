import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignToolCallIds, alignToolCallIdsRule } from '../../transforms/align-tool-call-ids.ts';
import { sanitizeSessionHistory } from '../../lib/index.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';
import { JsonlLineParser, stringifyMessage } from '../../lib/jsonl.ts';

const A = (...content: Array<Record<string, unknown>>): Message => ({ role: 'assistant', content, stopReason: 'toolUse', timestamp: 2 });
const call = (fields: Record<string, unknown>): Record<string, unknown> => ({ type: 'toolCall', name: 'read', arguments: {}, ...fields });
const signed = { type: 'thinking', thinking: 'plan', thinkingSignature: 'sig' };

const cases: Array<[string, Message, Message]> = [
  ['an empty id takes the alias', A(call({ id: '', call_id: 'x1' })), A(call({ id: 'x1', call_id: 'x1' }))],
  ['a missing id takes the first non-blank alias, trimmed', A(call({ toolCallId: ' ', tool_use_id: ' t9 ' })), A(call({ toolCallId: ' ', tool_use_id: ' t9 ', id: 't9' }))],
  ['toolUse and functionCall blocks too; the thinking block is untouched', A(signed, { type: 'functionCall', id: '', toolUseId: 'f1', name: 'a', arguments: {} }), A(signed, { type: 'functionCall', id: 'f1', toolUseId: 'f1', name: 'a', arguments: {} })],
  ['a call with an id keeps it, whatever its aliases', A(call({ id: 'a', call_id: 'b' })), A(call({ id: 'a', call_id: 'b' }))],
  ['no alias: nothing to take (validation drops the call)', A(call({ id: '' })), A(call({ id: '' }))],
  ['snake-case blocks are not calls the runtime sends', A({ type: 'tool_use', id: '', call_id: 'x' }), A({ type: 'tool_use', id: '', call_id: 'x' })],
];

for (const [name, input, expected] of cases) {
  test(`alignToolCallIds: ${name}`, () => {
    assert.deepEqual(alignToolCallIds(deepFreeze(structuredClone(input))), expected);
  });
}

test('the rule returns untouched messages as the same objects and counts calls', () => {
  const keep = A(call({ id: 'a' }));
  const input = deepFreeze([keep, A(call({ id: '', call_id: 'x' }), call({ callId: 'no', call_id: 'y' }))]);
  const { output, counts } = runRule(alignToolCallIdsRule, input);
  assert.equal(output[0], keep);
  assert.deepEqual(counts, { aligned: 2 });
});

test('through the pipeline: a blank-id call beside a signed thinking block goes out with an id and a result', async () => {
  const session: Message[] = [
    { role: 'user', content: 'q', timestamp: 1 },
    A(signed, call({ id: 't1' }), call({ id: '', call_id: 'x1' })),
    { role: 'toolResult', toolCallId: 't1', toolName: 'read', content: [{ type: 'text', text: 'one' }], timestamp: 3 },
    { role: 'toolResult', toolCallId: 'x1', toolName: 'read', content: [{ type: 'text', text: 'two' }], timestamp: 3 },
    { role: 'user', content: 'next', timestamp: 4 },
  ];
  for (const route of [
    { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
    { provider: 'mistral', modelApi: 'openai-completions', modelId: 'mistral-large-latest' },
    { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' },
    { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' },
    { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  ]) {
    const out = await sanitizeSessionHistory(structuredClone(session), route);
    assert.deepEqual(checkTranscript(out, route), [], `${route.provider} ${route.modelApi}`);
    const results = out.filter((m) => m.role === 'toolResult').map((m) => (m.content as Array<{ text: string }>)[0]!.text);
    assert.deepEqual(results, ['one', 'two'], `${route.provider} ${route.modelApi}: both real outputs`);
    // Where the route keeps thinking at all (chat completions drop it from history), it is untouched.
    const kept = (out.find((m) => m.role === 'assistant')!.content as Array<{ type: string }>).filter((block) => block.type === 'thinking');
    if (route.modelApi !== 'openai-completions') assert.deepEqual(kept, [signed], `${route.provider} ${route.modelApi}: thinking untouched`);
  }
});

test('the output line is the edited message, whether the writer patches the input line or stringifies', () => {
  for (const line of [
    '{"role":"assistant","content":[{"type":"toolCall","id":"","call_id":"x1","name":"read","arguments":{}}],"stopReason":"toolUse"}',
    '{"role":"assistant","content":[{"type":"toolCall","toolCallId":"x1","name":"read","arguments":{}}],"stopReason":"toolUse"}',
  ]) {
    const parsed = new JsonlLineParser().parse(line)!;
    const { output } = runRule(alignToolCallIdsRule, [parsed]);
    assert.equal(stringifyMessage(output[0]!), JSON.stringify(output[0]) + '\n', line);
    assert.equal((output[0]!.content as Array<{ id: string }>)[0]!.id, 'x1');
  }
});
