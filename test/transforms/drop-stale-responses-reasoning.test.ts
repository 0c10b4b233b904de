import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dropStaleResponsesReasoning,
  dropStaleResponsesReasoningEnabled,
  dropStaleResponsesReasoningFromMessages,
  dropStaleResponsesReasoningRule,
  parseOpenAIReasoningSignature,
  replaceCompactionReplayOwnerContent,
} from '../../transforms/drop-stale-responses-reasoning.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import type { Message } from '../../lib/types.ts';
import { deepFreeze, fakeContext } from '../helpers/build.ts';
import { runRule } from '../helpers/thinking-rules.ts';

const RS = (id: string, extra = '') => `{"type":"reasoning","id":"${id}","summary":[]${extra}}`;
const OPENAI = { provider: 'openai', api: 'openai-responses', model: 'gpt-5' };

const E17_IN: Message[] = [
  { role: 'user', content: 'q1', timestamp: 100 },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'r1', thinkingSignature: RS('rs_1', ',"encrypted_content":"ENC"') },
      { type: 'text', text: 'a1', textSignature: '{"v":1,"id":"msg_1","phase":"final_answer"}' },
    ],
    stopReason: 'stop',
    timestamp: 150,
    ...OPENAI,
  },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'r2', thinkingSignature: RS('rs_2') }], stopReason: 'stop', timestamp: 160, ...OPENAI },
  {
    role: 'assistant',
    content: [{ type: 'thinking', thinking: 'plain', thinkingSignature: 'opaque' }, { type: 'text', text: 'x', textSignature: 'msg_legacy' }],
    stopReason: 'stop',
    timestamp: 170,
    ...OPENAI,
  },
  {
    role: 'assistant',
    content: [{ type: 'thinking', thinking: 'r3', thinkingSignature: RS('rs_3') }, { type: 'text', text: 'a3', textSignature: '{"v":1,"id":"msg_3"}' }],
    stopReason: 'stop',
    ...OPENAI,
  },
  { role: 'user', content: 'q2', timestamp: 300 },
  {
    role: 'assistant',
    content: [{ type: 'thinking', thinking: 'r4', thinkingSignature: RS('rs_4') }, { type: 'text', text: 'a4' }],
    stopReason: 'stop',
    timestamp: 400,
    ...OPENAI,
  },
];

test('E17: S = 200 drops rs_ reasoning before the switch, unpairs text signatures, removes emptied turns', () => {
  const input = deepFreeze(structuredClone(E17_IN));
  const out = dropStaleResponsesReasoningFromMessages(input, 200);
  assert.deepEqual(out, [
    { role: 'user', content: 'q1', timestamp: 100 },
    { role: 'assistant', content: [{ type: 'text', text: 'a1', textSignature: '{"v":1,"phase":"final_answer"}' }], stopReason: 'stop', timestamp: 150, ...OPENAI },
    {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'plain', thinkingSignature: 'opaque' }, { type: 'text', text: 'x', textSignature: 'msg_legacy' }],
      stopReason: 'stop',
      timestamp: 170,
      ...OPENAI,
    },
    { role: 'assistant', content: [{ type: 'text', text: 'a3' }], stopReason: 'stop', ...OPENAI },
    { role: 'user', content: 'q2', timestamp: 300 },
    {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'r4', thinkingSignature: RS('rs_4') }, { type: 'text', text: 'a4' }],
      stopReason: 'stop',
      timestamp: 400,
      ...OPENAI,
    },
  ]);
  assert.equal(out[2], input[3], 'a turn without replayable reasoning is the same object');
  assert.equal(out[5], input[6], 'a turn after the switch is the same object');
});

test('E17, model changed now (S = now): every assistant loses its rs_ reasoning, the one at 400 included', () => {
  const out = dropStaleResponsesReasoningFromMessages(deepFreeze(structuredClone(E17_IN)), 1798761600000);
  assert.deepEqual(
    out.filter((m) => m.role === 'assistant').map((m) => [m.timestamp ?? null, (m.content as Array<{ type: string }>).map((b) => b.type)]),
    [[150, ['text']], [170, ['thinking', 'text']], [null, ['text']], [400, ['text']]],
  );
});

test('E17 without a switch time (no snapshots): a no-op', () => {
  const input = deepFreeze(structuredClone(E17_IN));
  const out = dropStaleResponsesReasoningFromMessages(input, undefined);
  out.forEach((message, i) => assert.equal(message, input[i]));
  const { output } = runRule(dropStaleResponsesReasoningRule, input, { policy: { responsesFamily: true } });
  output.forEach((message, i) => assert.equal(message, input[i]));
});

test('E18b (its §4.11 part): S = 200 removes the reasoning of both tool-call turns', () => {
  const input = deepFreeze<Message[]>([
    { role: 'user', content: 'q', timestamp: 100 },
    { role: 'assistant', content: [{ type: 'thinking', thinking: '', thinkingSignature: RS('rs_1') }, { type: 'toolCall', id: 'call_a|fc_b', name: 'read', arguments: {} }], stopReason: 'toolUse', timestamp: 150 },
    { role: 'toolResult', toolCallId: 'call_a|fc_b', toolName: 'read', content: [{ type: 'text', text: 'ok' }], isError: false, timestamp: 151 },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call_c|fc_d', name: 'read', arguments: {} }, { type: 'thinking', thinking: '', thinkingSignature: RS('rs_2') }], stopReason: 'toolUse', timestamp: 160 },
  ]);
  const out = dropStaleResponsesReasoningFromMessages(input, 200);
  assert.deepEqual(out[1]!.content, [{ type: 'toolCall', id: 'call_a|fc_b', name: 'read', arguments: {} }]);
  assert.deepEqual(out[3]!.content, [{ type: 'toolCall', id: 'call_c|fc_d', name: 'read', arguments: {} }]);
  assert.equal(out[2], input[2]);
});

test('parseOpenAIReasoningSignature: objects or {…} JSON strings with an rs_ id and a reasoning type', () => {
  assert.ok(parseOpenAIReasoningSignature(RS('rs_1')));
  assert.ok(parseOpenAIReasoningSignature(`  ${RS('rs_1')}\n`));
  assert.ok(parseOpenAIReasoningSignature({ type: 'reasoning', id: 'rs_x' }));
  assert.ok(parseOpenAIReasoningSignature({ type: 'reasoning.encrypted', id: 'rs_x' }));
  for (const bad of [
    undefined,
    null,
    'opaque',
    'reasoning_content',
    '{"type":"reasoning","id":"rs_1"',
    '{not json}',
    '["reasoning"]',
    '{"type":"reasoning","id":"msg_1"}',
    '{"type":"reasonings","id":"rs_1"}',
    '{"type":"message","id":"rs_1"}',
    '{"id":"rs_1"}',
    { type: 'reasoning', id: 5 },
    ['rs_1'],
    42,
  ]) {
    assert.equal(parseOpenAIReasoningSignature(bad), undefined, JSON.stringify(bad));
  }
});

const A = (content: unknown[], extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content, stopReason: 'stop', ...extra }) as Message;
const think = (id: string) => ({ type: 'thinking', thinking: 'r', thinkingSignature: RS(id) });

interface Case {
  name: string;
  input: Message;
  expected: Message | null | 'same';
}

const cases: Case[] = [
  { name: 'after the switch: untouched', input: A([think('rs_1')], { timestamp: 201 }), expected: 'same' },
  { name: 'at the switch: dropped like before it', input: A([think('rs_1'), { type: 'text', text: 'a' }], { timestamp: 200 }), expected: A([{ type: 'text', text: 'a' }], { timestamp: 200 }) },
  { name: 'ISO timestamp before the switch', input: A([think('rs_1'), { type: 'text', text: 'a' }], { timestamp: '1970-01-01T00:00:00.100Z' }), expected: A([{ type: 'text', text: 'a' }], { timestamp: '1970-01-01T00:00:00.100Z' }) },
  { name: 'unparseable timestamp counts as before', input: A([think('rs_1'), { type: 'text', text: 'a' }], { timestamp: 'later' }), expected: A([{ type: 'text', text: 'a' }], { timestamp: 'later' }) },
  { name: 'only reasoning: the turn is removed, no placeholder', input: A([think('rs_1'), think('rs_2')]), expected: null },
  { name: 'falsy blocks are removed even without reasoning; text signatures stay then', input: A([null, { type: 'text', text: 'a', textSignature: 'msg_1' }, 0, false, '']), expected: A([{ type: 'text', text: 'a', textSignature: 'msg_1' }]) },
  { name: 'only falsy blocks: removed', input: A([null]), expected: null },
  { name: 'no reasoning, no falsy blocks: untouched (opaque signatures, unsigned thinking)', input: A([{ type: 'thinking', thinking: 'x', thinkingSignature: 'opaque' }, { type: 'thinking', thinking: 'y' }, { type: 'text', text: 'a', textSignature: 'msg_1' }]), expected: 'same' },
  { name: 'content [] is untouched (a checkpoint owner is not removed)', input: A([], { providerReplay: { type: 'openai-responses-compaction' } }), expected: 'same' },
  { name: 'redacted_thinking is not an OpenAI reasoning block', input: A([{ type: 'redacted_thinking', thinkingSignature: RS('rs_1') }]), expected: 'same' },
  {
    name: 'text signatures: phase kept as exactly {v,phase}; others and phase-less deleted; non-text blocks untouched',
    input: A([
      think('rs_1'),
      { type: 'text', text: 'c', textSignature: '{"v":1,"id":"msg_c","phase":"commentary","x":2}' },
      { type: 'text', text: 'f', textSignature: { v: 1, id: 'msg_f', phase: 'final_answer' } },
      { type: 'text', text: 'p', textSignature: '{"v":1,"id":"msg_p","phase":"other"}' },
      { type: 'text', text: 'v', textSignature: '{"v":2,"phase":"commentary"}' },
      { type: 'text', text: 'l', textSignature: 'msg_legacy' },
      { type: 'text', text: 'n' },
      { type: 'toolCall', id: 'c', name: 'n', arguments: {}, textSignature: 'msg_x' },
    ]),
    expected: A([
      { type: 'text', text: 'c', textSignature: '{"v":1,"phase":"commentary"}' },
      { type: 'text', text: 'f', textSignature: '{"v":1,"phase":"final_answer"}' },
      { type: 'text', text: 'p' },
      { type: 'text', text: 'v' },
      { type: 'text', text: 'l' },
      { type: 'text', text: 'n' },
      { type: 'toolCall', id: 'c', name: 'n', arguments: {}, textSignature: 'msg_x' },
    ]),
  },
  { name: 'users, results and string assistants are untouched', input: { role: 'user', content: [think('rs_1')] }, expected: 'same' },
  { name: 'string assistant untouched', input: A('text' as never), expected: 'same' },
  // §4.3 through this rule.
  {
    name: '§4.3: an anthropic-compaction owner whose kept blocks are unchanged gets its replayIndex moved',
    input: A([think('rs_1'), { type: 'text', text: 'a' }, { type: 'text', text: 'b' }], { providerReplay: { type: 'anthropic-compaction', replayIndex: 2, summary: 'S' } }),
    expected: A([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], { providerReplay: { type: 'anthropic-compaction', replayIndex: 1, summary: 'S' } }),
  },
  {
    name: '§4.3: a rewritten text signature is a new block, so the checkpoint is removed',
    input: A([think('rs_1'), { type: 'text', text: 'a', textSignature: 'msg_1' }], { providerReplay: { type: 'openai-responses-compaction', replayIndex: 1 } }),
    expected: A([{ type: 'text', text: 'a' }]),
  },
  {
    name: '§4.3: the retained checkpoint is left as it is',
    input: A([think('rs_1'), { type: 'text', text: 'a', textSignature: 'msg_1' }], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 1 } }),
    expected: A([{ type: 'text', text: 'a' }], { providerReplay: { type: 'openai-responses-retained-compaction', replayIndex: 1 } }),
  },
];

for (const c of cases) {
  test(`dropStaleResponsesReasoning (S = 200): ${c.name}`, () => {
    const input = deepFreeze(structuredClone(c.input));
    const out = dropStaleResponsesReasoning(input, 200);
    if (c.expected === 'same') assert.equal(out, input);
    else assert.deepEqual(out, c.expected);
    if (out !== null && out !== input) assert.equal(dropStaleResponsesReasoning(out, 200), out, 'idempotent');
  });
}

test('§4.3 replaceCompactionReplayOwnerContent: E07-style cases', () => {
  const a = { type: 'text', text: 'a' };
  const img = { type: 'image', data: 'QUJD', mimeType: 'image/png' };
  const silent = { type: 'text', text: 'NO_REPLY' };
  const c = { type: 'text', text: 'c' };
  const owner = A([a, img, silent, c], { providerReplay: { type: 'anthropic-compaction', replayIndex: 3, summary: 'S' } });
  assert.deepEqual(replaceCompactionReplayOwnerContent(owner, owner.content as unknown[], [a, c]).message, A([a, c], { providerReplay: { type: 'anthropic-compaction', replayIndex: 1, summary: 'S' } }));
  const tooFar = A([a, img], { providerReplay: { type: 'openai-responses-compaction', replayIndex: 9 } });
  const dropped = replaceCompactionReplayOwnerContent(tooFar, tooFar.content as unknown[], [a]);
  assert.equal(dropped.dropped, true);
  assert.deepEqual(dropped.message, A([a]));
  const emptied = replaceCompactionReplayOwnerContent(tooFar, tooFar.content as unknown[], []);
  assert.equal(emptied.dropped, true);
  const unchangedIndex = A([a, img], { providerReplay: { type: 'anthropic-compaction' } });
  const kept = replaceCompactionReplayOwnerContent(unchangedIndex, unchangedIndex.content as unknown[], [a]);
  assert.equal(kept.message.providerReplay, unchangedIndex.providerReplay, 'replayIndex 0 (absent) is not written back');
  const outOfOrder = A([a, c], { providerReplay: { type: 'anthropic-compaction', replayIndex: 1 } });
  assert.equal(replaceCompactionReplayOwnerContent(outOfOrder, outOfOrder.content as unknown[], [c, a]).dropped, true);
  const plain = A([a, c], { providerReplay: { id: 'x' } });
  assert.deepEqual(replaceCompactionReplayOwnerContent(plain, plain.content as unknown[], []).message, A([], { providerReplay: { id: 'x' } }));
});

test('rule: reads modelSwitchedAt from the options and counts', () => {
  const input = deepFreeze(structuredClone(E17_IN));
  const { output, counts } = runRule(dropStaleResponsesReasoningRule, input, { policy: { responsesFamily: true }, options: { modelSwitchedAt: 200 } });
  assert.deepEqual(output, dropStaleResponsesReasoningFromMessages(input, 200));
  assert.deepEqual(counts, { removedReasoning: 3, droppedTurns: 1, textSignatures: 2 });
  const ctx = fakeContext({ options: { modelSwitchedAt: 200 } });
  assert.equal(dropStaleResponsesReasoningRule.apply(A([null, think('rs_1')]), ctx), null);
  assert.deepEqual(ctx.counts, { removedReasoning: 1, removedFalsyBlocks: 1, droppedTurns: 1 });
  const ctx2 = fakeContext({ options: { modelSwitchedAt: 200 } });
  dropStaleResponsesReasoningRule.apply(A([think('rs_1'), { type: 'text', text: 'a', textSignature: 'x' }], { providerReplay: { type: 'anthropic-compaction', replayIndex: 2 } }), ctx2);
  assert.deepEqual(ctx2.counts, { removedReasoning: 1, textSignatures: 1, droppedCheckpoints: 1 });
});

test('rule: meta and enable condition (Responses family with a switch time)', () => {
  assert.equal(dropStaleResponsesReasoningRule.unit, 'message');
  assert.equal(dropStaleResponsesReasoningRule.meta.name, 'drop-stale-responses-reasoning');
  assert.deepEqual(dropStaleResponsesReasoningRule.meta.counters, ['removedReasoning', 'removedFalsyBlocks', 'droppedTurns', 'textSignatures', 'droppedCheckpoints']);
  const enabled = (provider: string, modelApi: string, modelSwitchedAt?: number) => {
    const options = resolveHygieneOptions({ provider, modelApi, modelId: 'gpt-5', modelSwitchedAt });
    return dropStaleResponsesReasoningEnabled(resolveTranscriptPolicy(options), options);
  };
  assert.equal(enabled('openai', 'openai-responses', 200), true);
  assert.equal(enabled('openai-codex', 'openai-chatgpt-responses', 200), true);
  assert.equal(enabled('azure-openai', 'azure-openai-responses', 0), true);
  assert.equal(enabled('openai', 'openai-responses'), false);
  assert.equal(enabled('openai', 'openai-completions', 200), false);
  assert.equal(enabled('anthropic', 'anthropic-messages', 200), false);
});
