import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ReasoningPairDowngrader,
  downgradeResponsesReasoningPairs,
  downgradeResponsesReasoningPairsRule,
  isReplayableReasoningBlock,
} from '../../transforms/downgrade-responses-reasoning-pairs.ts';
import { normalizeResponsesToolCallIds } from '../../transforms/normalize-responses-tool-call-ids.ts';
import { assertResponsesReplayInvariant } from '../../transforms/assert-responses-replay-invariant.ts';
import type { ContentBlock, Message } from '../../lib/types.ts';
import { assistant, deepFreeze, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

const parse = (json: string): Message[] => deepFreeze(JSON.parse(json) as Message[]);
const ok = [text('ok')];
const ids = (message: Message): unknown[] => (message.content as { id?: unknown }[]).map((block) => block.id);
const RS = '{"type":"reasoning","id":"rs_1"}';

const EX22_IN = '[{"role":"assistant","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{"p":1}},{"type":"thinking","thinking":"","thinkingSignature":"{\\"type\\":\\"reasoning\\",\\"id\\":\\"rs_1\\"}"},{"type":"toolCall","id":"call_2|fc_2","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_1|fc_1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"call_2|fc_2","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"call_3|fc_3","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"user","content":"u"},{"role":"toolResult","toolCallId":"call_3|fc_3","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]';
const EX22_OUT = '[{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"read","arguments":{"p":1}},{"type":"thinking","thinking":"","thinkingSignature":"{\\"type\\":\\"reasoning\\",\\"id\\":\\"rs_1\\"}"},{"type":"toolCall","id":"call_2|fc_2","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"call_2|fc_2","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"assistant","content":[{"type":"toolCall","id":"call_3","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"user","content":"u"},{"role":"toolResult","toolCallId":"call_3|fc_3","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]';

test('Ex 22 (verbatim)', () => {
  const input = parse(EX22_IN);
  const out = downgradeResponsesReasoningPairs(input);
  assert.equal(JSON.stringify(out), JSON.stringify(JSON.parse(EX22_OUT)));
  assert.equal(out[2], input[2]);
  assert.equal(out[4], input[4]);
  assert.equal(out[5], input[5]);
});

test('Ex 22 through the rule, with counters', () => {
  const { output, counts } = runRule(downgradeResponsesReasoningPairsRule, parse(EX22_IN), { policy: { responsesFamily: true } });
  assert.equal(JSON.stringify(output), JSON.stringify(JSON.parse(EX22_OUT)));
  assert.deepEqual(counts, { downgraded: 2, resultsRewritten: 1 });
});

test('Ex 24 core: the downgrade gives duplicate call_a ids, then the invariant throws orphan_tool_result at index 3', () => {
  const input = parse('[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"call_a|fc_1","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_a|fc_2","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_a|fc_1","toolName":"read","content":[{"type":"text","text":"a"}],"isError":false},{"role":"toolResult","toolCallId":"call_a|fc_2","toolName":"read","content":[{"type":"text","text":"b"}],"isError":false}]');
  const normalized = normalizeResponsesToolCallIds(input);
  assert.equal(normalized, input, 'ids already fit the Responses shapes');
  const downgraded = downgradeResponsesReasoningPairs(normalized);
  assert.deepEqual(ids(downgraded[1]!), ['call_a', 'call_a']);
  assert.deepEqual(downgraded.slice(2).map((m) => m.toolCallId), ['call_a', 'call_a']);
  assert.throws(() => assertResponsesReplayInvariant(downgraded), {
    code: 'invalid_replay_transcript',
    message: 'invalid_replay_transcript: OpenAI Responses replay contains orphan_tool_result toolCallId=call_a at message index 3',
  });
});

const reasoningCases: { name: string; block: unknown; expected: boolean }[] = [
  { name: 'string signature', block: thinking('', RS), expected: true },
  { name: 'padded string signature', block: thinking('', `  ${RS}\n`), expected: true },
  { name: 'object signature', block: { type: 'thinking', thinking: '', thinkingSignature: { type: 'reasoning', id: 'rs_1' } }, expected: true },
  { name: 'reasoning.* type', block: thinking('', '{"type":"reasoning.encrypted","id":"rs_x"}'), expected: true },
  { name: 'reasoningX type', block: thinking('', '{"type":"reasoningX","id":"rs_x"}'), expected: false },
  { name: 'id not rs_', block: thinking('', '{"type":"reasoning","id":"msg_1"}'), expected: false },
  { name: 'id not a string', block: thinking('', '{"type":"reasoning","id":1}'), expected: false },
  { name: 'invalid JSON', block: thinking('', '{"type":"reasoning",'), expected: false },
  { name: 'braces but not JSON', block: thinking('', '{nope}'), expected: false },
  { name: 'plain signature', block: thinking('', 'sig'), expected: false },
  { name: 'no signature', block: thinking(''), expected: false },
  { name: 'redacted_thinking with a reasoning signature', block: { type: 'redacted_thinking', thinkingSignature: RS }, expected: false },
  { name: 'array signature', block: { type: 'thinking', thinking: '', thinkingSignature: [] }, expected: false },
  { name: 'not an object', block: 'thinking', expected: false },
];

for (const c of reasoningCases) {
  test(`isReplayableReasoningBlock: ${c.name}`, () => {
    assert.equal(isReplayableReasoningBlock(c.block), c.expected);
  });
}

const assistantCases: { name: string; content: ContentBlock[]; expected: unknown[] | 'same' }[] = [
  { name: 'reasoning first protects every call', content: [thinking('', RS), toolCall('call_1|fc_1'), toolCall('call_2|fc_2')], expected: 'same' },
  { name: 'no fc item: same object', content: [toolCall('call_1'), toolCall('call_2|x_2'), toolCall('|fc_1'), toolCall('call_1|')], expected: 'same' },
  { name: 'non-reasoning thinking does not protect', content: [thinking('t', 'sig'), toolCall('call_1|fc_1')], expected: [undefined, 'call_1'] },
  { name: 'only the first | splits', content: [toolCall('a|fc_1|fc_2')], expected: ['a'] },
  { name: 'toolUse and functionCall blocks too', content: [{ type: 'toolUse', id: 'c|fc_1', name: 'r', input: {} }, { type: 'functionCall', id: 'd|fc_2', name: 'r', arguments: {} }], expected: ['c', 'd'] },
  { name: 'tool_use blocks are not calls', content: [{ type: 'tool_use', id: 'c|fc_1', name: 'r', input: {} }], expected: 'same' },
  { name: 'reasoning between calls protects only later ones', content: [toolCall('a|fc_1'), thinking('', RS), toolCall('b|fc_2')], expected: ['a', undefined, 'b|fc_2'] },
];

for (const c of assistantCases) {
  test(`assistant: ${c.name}`, () => {
    const input = deepFreeze(assistant(c.content));
    const out = new ReasoningPairDowngrader().apply(input);
    if (c.expected === 'same') assert.equal(out, input);
    else assert.deepEqual(ids(out), c.expected);
  });
}

test('results: only toolCallId and toolUseId follow; call_id stays stale; the run ends at any other message', () => {
  const input = deepFreeze([
    assistant([toolCall('call_1|fc_1'), toolCall('call_2|fc_2')]),
    toolResult('call_1|fc_1', ok, { toolUseId: 'call_1|fc_1', call_id: 'call_1|fc_1' }),
    toolResult('other', ok, { toolUseId: 'call_2|fc_2' }),
    assistant([text('no calls')]),
    toolResult('call_2|fc_2', ok),
  ]);
  const out = downgradeResponsesReasoningPairs(input);
  assert.deepEqual(out[1], toolResult('call_1', ok, { toolUseId: 'call_1', call_id: 'call_1|fc_1' }));
  assert.deepEqual(out[2], toolResult('other', ok, { toolUseId: 'call_2' }));
  assert.equal(out[3], input[3]);
  assert.equal(out[4], input[4], 'an assistant clears the record');
});

test('results after an assistant that rewrote nothing are untouched', () => {
  const input = deepFreeze([assistant([thinking('', RS), toolCall('call_1|fc_1')]), toolResult('call_1|fc_1', ok)]);
  assert.equal(downgradeResponsesReasoningPairs(input), input);
});

test('the record is per stream: a new processor starts empty', () => {
  const first = runRule(downgradeResponsesReasoningPairsRule, [assistant([toolCall('call_1|fc_1')])]);
  assert.deepEqual(ids(first.output[0]!), ['call_1']);
  const second = runRule(downgradeResponsesReasoningPairsRule, deepFreeze([toolResult('call_1|fc_1', ok)]));
  assert.equal(second.output[0]!.toolCallId, 'call_1|fc_1');
});

test('§3.3: a downgraded assistant loses a compaction checkpoint; retained ones stay (oracle)', () => {
  const input = deepFreeze([
    assistant([text('a'), toolCall('call_1|fc_1')], { providerReplay: { type: 'openai-responses-compaction', replayIndex: 1 } }),
    toolResult('call_1|fc_1', ok),
    assistant([text('a'), toolCall('call_2|fc_2')], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 1 } }),
  ]);
  const { output, counts } = runRule(downgradeResponsesReasoningPairsRule, input);
  assert.deepEqual(output[0], assistant([text('a'), toolCall('call_1')]));
  assert.equal(output[1]!.toolCallId, 'call_1');
  assert.deepEqual(output[2]!.providerReplay, { type: 'openai-responses-retained-compaction', replayIndex: 1 });
  assert.deepEqual(counts, { downgraded: 2, resultsRewritten: 1, checkpointsRemoved: 1 });
});

test('identity: nothing to downgrade returns the same array and objects', () => {
  const input = deepFreeze([user('q'), assistant([toolCall('call_1')]), toolResult('call_1', ok), assistant('text')]);
  assert.equal(downgradeResponsesReasoningPairs(input), input);
  const { output, counts } = runRule(downgradeResponsesReasoningPairsRule, input);
  output.forEach((m, i) => assert.equal(m, input[i]));
  assert.deepEqual(counts, {});
});

test('rule: meta', () => {
  assert.equal(downgradeResponsesReasoningPairsRule.unit, 'buffered');
  assert.equal(downgradeResponsesReasoningPairsRule.meta.name, 'downgrade-responses-reasoning-pairs');
  assert.deepEqual(downgradeResponsesReasoningPairsRule.meta.counters, ['downgraded', 'resultsRewritten', 'checkpointsRemoved']);
});
