import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  normalizeResponsesToolCallId,
  normalizeResponsesToolCallIds,
  normalizeResponsesToolCallIdsInMessage,
  normalizeResponsesToolCallIdsRule,
  splitResponsesToolCallId,
} from '../../transforms/normalize-responses-tool-call-ids.ts';
import { sha256Hex } from '../../transforms/tool-call-shapes.ts';
import type { Message } from '../../lib/types.ts';
import { assistant, deepFreeze, text, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';

const parse = (json: string): Message[] => deepFreeze(JSON.parse(json) as Message[]);
const ok = [text('ok')];
const ids = (message: Message): unknown[] => (message.content as { id?: unknown }[]).map((block) => block.id);

const EX21_IN = '[{"role":"assistant","content":[{"type":"toolCall","id":"call_ok|fc_ok","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"toolu_01X|fc_ok","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_abc|fc bad!","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_ok|fc_ok","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"toolu_01X|fc_ok","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"call_abc|fc bad!","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"call_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]';
const EX21_OUT = '[{"role":"assistant","content":[{"type":"toolCall","id":"call_ok|fc_ok","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_toolu_01X_fc_ok_71bf42eb56|fc_ok","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_abc_fc_bad_c48f4d0ab9|fc_fc_bad_c7baaf3f51","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"call_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_dad1e17556","name":"read","arguments":{"p":1}}],"stopReason":"toolUse"},{"role":"toolResult","toolCallId":"call_ok|fc_ok","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"call_toolu_01X_fc_ok_71bf42eb56|fc_ok","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"call_abc_fc_bad_c48f4d0ab9|fc_fc_bad_c7baaf3f51","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false},{"role":"toolResult","toolCallId":"call_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_dad1e17556","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}]';

test('Ex 21 (verbatim)', () => {
  const input = parse(EX21_IN);
  const out = normalizeResponsesToolCallIds(input);
  assert.equal(JSON.stringify(out), JSON.stringify(JSON.parse(EX21_OUT)));
  // The valid pair's result is untouched.
  assert.equal(out[1], input[1]);
});

test('Ex 21 through the rule, with counters', () => {
  const { output, counts } = runRule(normalizeResponsesToolCallIdsRule, parse(EX21_IN), { policy: { responsesFamily: true } });
  assert.equal(JSON.stringify(output), JSON.stringify(JSON.parse(EX21_OUT)));
  assert.deepEqual(counts, { idsNormalized: 3, resultsRewritten: 3 });
});

const splitCases: { id: string; callId: string; itemId: string | undefined }[] = [
  { id: 'call_1|fc_1', callId: 'call_1', itemId: 'fc_1' },
  { id: 'a|b', callId: 'a', itemId: 'b' },
  { id: 'a|b|c', callId: 'a', itemId: 'b|c' },
  { id: '|fc_1', callId: '|fc_1', itemId: undefined },
  { id: 'call_1|', callId: 'call_1|', itemId: undefined },
  { id: 'call_1', callId: 'call_1', itemId: undefined },
  { id: '', callId: '', itemId: undefined },
];

for (const c of splitCases) {
  test(`split ${JSON.stringify(c.id)}`, () => {
    assert.deepEqual(splitResponsesToolCallId(c.id), { callId: c.callId, itemId: c.itemId });
  });
}

const h = (value: string): string => sha256Hex(value).slice(0, 10);

const idCases: { id: string; expected: string }[] = [
  { id: 'call_ok', expected: 'call_ok' },
  { id: 'call_ok|fc_ok', expected: 'call_ok|fc_ok' },
  { id: `call_${'a'.repeat(59)}`, expected: `call_${'a'.repeat(59)}` },
  { id: `call_1|fc_${'b'.repeat(61)}`, expected: `call_1|fc_${'b'.repeat(61)}` },
  { id: '', expected: `call_id_${h('call_')}` },
  { id: '   ', expected: `call_id_${h('call_')}` },
  { id: ' call_1 ', expected: 'call_1' },
  // Oracle (openai / openai-responses).
  { id: 'bad id', expected: 'call_bad_id_4b2d2ff66c' },
  { id: 'bad2', expected: 'call_bad2_1df50324cf' },
  { id: 'x.y', expected: `call_x_y_${h('x.y')}` },
  { id: 'call_', expected: `call_id_${h('call_')}` },
  { id: '___', expected: `call_id_${h('___')}` },
  { id: '|fc_1', expected: `call_fc_1_${h('|fc_1')}` },
  // The call part is normalised from the whole pair string even when it is valid alone.
  { id: 'call_abc|fc bad!', expected: `call_abc_fc_bad_${h('call_abc|fc bad!')}|fc_fc_bad_${h('fc bad!')}` },
  { id: 'call_1|fc_', expected: `call_1_fc_${h('call_1|fc_')}|fc_id_${h('fc_')}` },
  { id: `call_1|fc_${'b'.repeat(62)}`, expected: `call_1_fc_${'b'.repeat(43)}_${h(`call_1|fc_${'b'.repeat(62)}`)}|fc_${'b'.repeat(50)}_${h(`fc_${'b'.repeat(62)}`)}` },
  { id: `call_${'a'.repeat(60)}`, expected: `call_${'a'.repeat(48)}_${h(`call_${'a'.repeat(60)}`)}` },
  { id: `call_${'a'.repeat(60)}`, expected: 'call_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_dad1e17556' },
];

for (const c of idCases) {
  test(`normalize ${JSON.stringify(c.id)}`, () => {
    const out = normalizeResponsesToolCallId(c.id);
    assert.equal(out, c.expected);
    for (const part of out.split('|')) assert.ok(part.length <= 64);
    assert.equal(normalizeResponsesToolCallId(out), out, 'a normalized id is kept');
  });
}

test('a long pair: "call_1|fc_" + 62 b (each part within 64)', () => {
  const out = normalizeResponsesToolCallId(`call_1|fc_${'b'.repeat(62)}`);
  const [call, item] = out.split('|');
  assert.match(call!, /^call_[A-Za-z0-9_-]{1,59}$/);
  assert.match(item!, /^fc_[A-Za-z0-9_-]{1,61}$/);
});

test('cached: the same raw id always maps to the same string', () => {
  assert.equal(normalizeResponsesToolCallId('bad id'), normalizeResponsesToolCallId('bad id'));
});

const messageCases: { name: string; input: Message; expected: Message | 'same' }[] = [
  { name: 'valid ids: same object', input: assistant([text('a'), toolCall('call_1|fc_1'), toolCall('call_2')]), expected: 'same' },
  { name: 'user: same object', input: user('bad id'), expected: 'same' },
  { name: 'string content: same object', input: assistant('x'), expected: 'same' },
  {
    name: 'toolUse and functionCall blocks too; tool_use and non-string ids left alone',
    input: assistant([
      { type: 'toolUse', id: 'a b', name: 'r', input: {} },
      { type: 'functionCall', id: '', name: 'r', arguments: {} },
      { type: 'tool_use', id: 'a b', name: 'r', input: {} },
      { type: 'toolCall', id: 5, name: 'r', arguments: {} },
    ]),
    expected: assistant([
      { type: 'toolUse', id: `call_a_b_${h('a b')}`, name: 'r', input: {} },
      { type: 'functionCall', id: `call_id_${h('call_')}`, name: 'r', arguments: {} },
      { type: 'tool_use', id: 'a b', name: 'r', input: {} },
      { type: 'toolCall', id: 5, name: 'r', arguments: {} },
    ]),
  },
  // Oracle: a valid raw id still overwrites a differing alias and adds a missing toolCallId.
  { name: 'result alias overwritten', input: toolResult('call_1', ok, { toolUseId: 'zzz' }), expected: toolResult('call_1', ok, { toolUseId: 'call_1' }) },
  { name: 'result: toolCallId added', input: { role: 'toolResult', call_id: 'call_3', content: ok }, expected: { role: 'toolResult', call_id: 'call_3', content: ok, toolCallId: 'call_3' } },
  { name: 'result: empty toolCallId stays', input: { role: 'toolResult', toolCallId: '', call_id: 'call_3', content: ok }, expected: 'same' },
  { name: 'result: non-string aliases stay', input: toolResult('call_2', ok, { toolUseId: 5, tool_use_id: null }), expected: 'same' },
  { name: 'result: call_id wins the rewrite priority', input: { role: 'toolResult', toolCallId: 'call_1', call_id: 'bad id', content: ok }, expected: { role: 'toolResult', toolCallId: 'call_bad_id_4b2d2ff66c', call_id: 'call_bad_id_4b2d2ff66c', content: ok } },
  { name: 'result without ids: same object', input: { role: 'toolResult', content: ok }, expected: 'same' },
];

for (const c of messageCases) {
  test(`message: ${c.name}`, () => {
    const input = deepFreeze(structuredClone(c.input));
    const out = normalizeResponsesToolCallIdsInMessage(input);
    if (c.expected === 'same') assert.equal(out, input);
    else {
      assert.deepEqual(out, c.expected);
      assert.deepEqual(Object.keys(out), Object.keys(c.expected));
    }
  });
}

test('§6 half pair: a result holding only the call part is not re-linked', () => {
  const out = normalizeResponsesToolCallIds(deepFreeze([assistant([toolCall('call_1|fc bad')]), toolResult('call_1', ok)]));
  assert.deepEqual(ids(out[0]!), [`call_1_fc_bad_${h('call_1|fc bad')}|fc_fc_bad_${h('fc bad')}`]);
  assert.equal(out[1]!.toolCallId, 'call_1');
});

test('§3.3 checkpoints (oracle): compaction checkpoints removed on copy, retained kept, untouched kept', () => {
  const input = deepFreeze([
    assistant([text('a'), toolCall('bad id')], { providerReplay: { type: 'anthropic-compaction', replayIndex: 1 } }),
    assistant([text('a'), toolCall('bad2')], { providerReplay: { type: 'openai-responses-compaction', replayIndex: 1 } }),
    assistant([text('a'), toolCall('bad3')], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 1 } }),
    assistant([text('a'), toolCall('bad4')], { providerReplay: { id: 'rs_1' } }),
    assistant([text('a'), toolCall('call_ok')], { providerReplay: { type: 'openai-responses-compaction', replayIndex: 1 } }),
  ]);
  const { output, counts } = runRule(normalizeResponsesToolCallIdsRule, input);
  assert.equal('providerReplay' in output[0]!, false);
  assert.equal('providerReplay' in output[1]!, false);
  assert.deepEqual(output[2]!.providerReplay, { type: 'openai-responses-retained-compaction', replayIndex: 1 });
  assert.deepEqual(output[3]!.providerReplay, { id: 'rs_1' });
  assert.equal(output[4], input[4]);
  assert.equal((output[0]!.content as unknown[])[0], (input[0]!.content as unknown[])[0], 'untouched blocks keep identity');
  assert.deepEqual(counts, { idsNormalized: 4, checkpointsRemoved: 2 });
});

test('identity: nothing to normalize returns the same array', () => {
  const input = deepFreeze([user('q'), assistant([toolCall('call_1|fc_1')]), toolResult('call_1|fc_1', ok)]);
  assert.equal(normalizeResponsesToolCallIds(input), input);
  const { output, counts } = runRule(normalizeResponsesToolCallIdsRule, input);
  output.forEach((m, i) => assert.equal(m, input[i]));
  assert.deepEqual(counts, {});
});

test('rule: meta', () => {
  assert.equal(normalizeResponsesToolCallIdsRule.unit, 'message');
  assert.equal(normalizeResponsesToolCallIdsRule.meta.name, 'normalize-responses-tool-call-ids');
  assert.deepEqual(normalizeResponsesToolCallIdsRule.meta.counters, ['idsNormalized', 'resultsRewritten', 'checkpointsRemoved']);
});
