import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TOOL_CALLS_OMITTED_TEXT,
  hasIdentifiedToolCall,
  stripDanglingToolCalls,
  stripDanglingToolCallsRule,
} from '../../transforms/strip-dangling-tool-calls.ts';
import { createRuleChain } from '../../lib/stage.ts';
import { StatsRecorder } from '../../lib/stats.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import type { Message } from '../../lib/types.ts';
import { TEST_NOW, assistant, deepFreeze, testPolicy, text, thinking, toolCall, toolResult, user } from '../helpers/build.ts';
import { runRule } from '../helpers/run-rule.ts';
import { generateTurns } from '../helpers/random-turns.ts';

const OMITTED = [{ type: 'text', text: TOOL_CALLS_OMITTED_TEXT }];
const calls = (...ids: string[]) => ids.map((id) => toolCall(id));
const A = (content: unknown[], extra: Record<string, unknown> = {}): Message => assistant(content as never, { stopReason: 'toolUse', ...extra });
const R = (id: string, extra: Record<string, unknown> = {}): Message => toolResult(id, [text('ok')], extra);
const signed = thinking('plan', 'sig');

interface Case {
  name: string;
  input: Message[];
  expected: Message[];
  same?: Array<[input: number, output: number]>;
  counts: Record<string, number>;
}

const cases: Case[] = [
  {
    name: 'E12: an unanswered call dropped beside an answered one; a turn of only dangling calls gets the placeholder; aborted gets []',
    input: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: 't' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }, { type: 'toolCall', id: 'c2', name: 'read', arguments: {} }], stopReason: 'toolUse' },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: [{ type: 'toolCall', id: 'c3', name: 'read', arguments: {} }], stopReason: 'toolUse' },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: [{ type: 'toolCall', id: 'c4', name: 'read', arguments: {} }], stopReason: 'aborted' },
    ],
    expected: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: 't' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }], stopReason: 'toolUse' },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: [{ type: 'text', text: '[tool calls omitted]' }], stopReason: 'toolUse' },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: [], stopReason: 'aborted' },
    ],
    same: [[0, 0], [2, 2], [3, 3], [5, 5]],
    counts: { droppedCalls: 1, omittedTurns: 2 },
  },
  {
    name: 'E13: thinking turn with one unanswered call: whole content replaced, the answered result stays orphaned',
    input: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'plan', thinkingSignature: 'sig' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }, { type: 'toolCall', id: 'c2', name: 'write', arguments: {} }], stopReason: 'toolUse' },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: 'next' },
    ],
    expected: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: '[tool calls omitted]' }], stopReason: 'toolUse' },
      { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: 'next' },
    ],
    same: [[0, 0], [2, 2], [3, 3]],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'every call answered: the same object',
    input: [A(calls('c1', 'c2')), R('c2'), user('interjection'), R('c1')],
    expected: [A(calls('c1', 'c2')), R('c2'), user('interjection'), R('c1')],
    same: [[0, 0], [1, 1], [2, 2], [3, 3]],
    counts: {},
  },
  {
    name: 'an assistant whose call blocks all lack an id is left alone, calls included',
    input: [A([{ type: 'toolCall', name: 'read', arguments: {} }, { type: 'toolUse', id: '', name: 'read' }]), user('u')],
    expected: [A([{ type: 'toolCall', name: 'read', arguments: {} }, { type: 'toolUse', id: '', name: 'read' }]), user('u')],
    same: [[0, 0], [1, 1]],
    counts: {},
  },
  {
    name: 'a call without an id beside a call with one is dropped (even with every id answered)',
    input: [A([text('t'), { type: 'toolCall', id: '', name: 'read', arguments: {} }, toolCall('c1'), { type: 'functionCall', name: 'x' }]), R('c1')],
    expected: [A([text('t'), toolCall('c1')]), R('c1')],
    counts: { droppedCalls: 2 },
  },
  {
    name: 'a blank or non-string id is no id',
    input: [A([toolCall('c1'), { type: 'toolCall', id: '  ', name: 'read' }, { type: 'toolCall', id: 7, name: 'read' }]), R('c1')],
    expected: [A([toolCall('c1')]), R('c1')],
    counts: { droppedCalls: 2 },
  },
  {
    name: 'ids are compared trimmed on both sides',
    input: [A([toolCall(' c1 '), toolCall('c2')]), R('c1'), R(' c2\n')],
    expected: [A([toolCall(' c1 '), toolCall('c2')]), R('c1'), R(' c2\n')],
    same: [[0, 0]],
    counts: {},
  },
  {
    name: 'toolUse and functionCall blocks are calls too',
    input: [A([{ type: 'toolUse', id: 'u1', name: 'read', input: {} }, { type: 'functionCall', id: 'f1', name: 'read', arguments: {} }]), R('f1')],
    expected: [A([{ type: 'functionCall', id: 'f1', name: 'read', arguments: {} }]), R('f1')],
    counts: { droppedCalls: 1 },
  },
  {
    name: 'a toolResult resolves only by its first id field',
    input: [A(calls('c1', 'c2')), { role: 'toolResult', toolCallId: 'c1', call_id: 'c2', content: [] }, user('u')],
    expected: [A(calls('c1')), { role: 'toolResult', toolCallId: 'c1', call_id: 'c2', content: [] }, user('u')],
    counts: { droppedCalls: 1 },
  },
  {
    name: 'a toolResult whose first id field is blank resolves by the next one',
    input: [A(calls('c1')), { role: 'toolResult', toolCallId: ' ', toolUseId: 'c1', content: [] }],
    expected: [A(calls('c1')), { role: 'toolResult', toolCallId: ' ', toolUseId: 'c1', content: [] }],
    same: [[0, 0]],
    counts: {},
  },
  {
    name: 'a tool message resolves by every id field',
    input: [A(calls('c1', 'c2', 'c3')), { role: 'tool', tool_call_id: 'c1', callId: 'c2', content: 'x' }],
    expected: [A(calls('c1', 'c2')), { role: 'tool', tool_call_id: 'c1', callId: 'c2', content: 'x' }],
    counts: { droppedCalls: 1 },
  },
  {
    name: 'toolResult and tool content blocks inside any span message resolve (every id field)',
    input: [
      A(calls('c1', 'c2', 'c3', 'c4')),
      user([{ type: 'toolResult', toolUseId: 'c1', tool_use_id: 'c2' }] as never),
      { role: 'custom', content: [{ type: 'tool', call_id: 'c3' }] },
      user([{ type: 'tool_result', toolCallId: 'c4' }] as never),
    ],
    expected: [
      A(calls('c1', 'c2', 'c3')),
      user([{ type: 'toolResult', toolUseId: 'c1', tool_use_id: 'c2' }] as never),
      { role: 'custom', content: [{ type: 'tool', call_id: 'c3' }] },
      user([{ type: 'tool_result', toolCallId: 'c4' }] as never),
    ],
    counts: { droppedCalls: 1 },
  },
  {
    name: 'the span ends at the next assistant: a result after it does not count',
    input: [A(calls('c1')), user('u'), assistant([text('later')]), R('c1')],
    expected: [A(OMITTED), user('u'), assistant([text('later')]), R('c1')],
    same: [[1, 1], [2, 2], [3, 3]],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'a result before the assistant does not count',
    input: [R('c1'), A(calls('c1'))],
    expected: [R('c1'), A(OMITTED)],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'stopReason error empties to []',
    input: [A(calls('c1'), { stopReason: 'error' }), user('u')],
    expected: [A([], { stopReason: 'error' }), user('u')],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'consecutive assistants with calls: each is judged on its own span',
    input: [A(calls('c1')), A(calls('c2')), R('c1'), R('c2')],
    expected: [A(OMITTED), A(calls('c2')), R('c1'), R('c2')],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'thinking: every call answered, names matching: the same object',
    input: [A([signed, toolCall('c1', 'read'), toolCall('c2', 'write')]), R('c1'), R('c2', { toolName: 'write' })],
    expected: [A([signed, toolCall('c1', 'read'), toolCall('c2', 'write')]), R('c1'), R('c2', { toolName: 'write' })],
    same: [[0, 0]],
    counts: {},
  },
  {
    name: 'thinking: a result naming another tool omits the whole turn (oracle)',
    input: [A([signed, text('t'), toolCall('c1', 'read')]), R('c1', { toolName: 'write' }), user('next')],
    expected: [A(OMITTED), R('c1', { toolName: 'write' }), user('next')],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'thinking: tool names compare case-sensitively (oracle)',
    input: [A([signed, toolCall('c1', 'read')]), R('c1', { toolName: 'READ' })],
    expected: [A(OMITTED), R('c1', { toolName: 'READ' })],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'thinking: results without a tool name accept any call name',
    input: [A([signed, toolCall('c1', 'read')]), { role: 'toolResult', toolCallId: 'c1', content: [] }],
    expected: [A([signed, toolCall('c1', 'read')]), { role: 'toolResult', toolCallId: 'c1', content: [] }],
    same: [[0, 0]],
    counts: {},
  },
  {
    name: 'thinking: the call name needs only to be among the names of its results (oracle)',
    input: [A([signed, toolCall('c1', 'read')]), R('c1'), { role: 'tool', tool_call_id: 'c1', name: 'write', content: 'x' }],
    expected: [A([signed, toolCall('c1', 'read')]), R('c1'), { role: 'tool', tool_call_id: 'c1', name: 'write', content: 'x' }],
    same: [[0, 0]],
    counts: {},
  },
  {
    name: 'thinking: `name` is read only when there is no `toolName` (oracle)',
    input: [A([signed, toolCall('c1', 'read')]), R('c1', { toolName: 'write', name: 'read' })],
    expected: [A(OMITTED), R('c1', { toolName: 'write', name: 'read' })],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'thinking: `name` counts when `toolName` is missing',
    input: [A([signed, toolCall('c1', 'read')]), { role: 'toolResult', toolCallId: 'c1', name: 'write', content: [] }],
    expected: [A(OMITTED), { role: 'toolResult', toolCallId: 'c1', name: 'write', content: [] }],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'thinking: a toolResult resolves by any of its id fields',
    input: [A([signed, toolCall('c1'), toolCall('c2')]), { role: 'toolResult', toolCallId: 'c1', call_id: 'c2', toolName: 'read', content: [] }],
    expected: [A([signed, toolCall('c1'), toolCall('c2')]), { role: 'toolResult', toolCallId: 'c1', call_id: 'c2', toolName: 'read', content: [] }],
    same: [[0, 0]],
    counts: {},
  },
  {
    name: 'thinking: content blocks do not resolve',
    input: [A([signed, toolCall('c1')]), user([{ type: 'toolResult', toolCallId: 'c1' }] as never)],
    expected: [A(OMITTED), user([{ type: 'toolResult', toolCallId: 'c1' }] as never)],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'thinking: a call without a name fails the turn',
    input: [A([signed, toolCall('c1'), { type: 'toolCall', id: 'c2', arguments: {} }]), R('c1'), R('c2')],
    expected: [A(OMITTED), R('c1'), R('c2')],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'thinking: a call without an id fails the turn',
    input: [A([signed, toolCall('c1'), { type: 'toolCall', id: '', name: 'read' }]), R('c1')],
    expected: [A(OMITTED), R('c1')],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'thinking: aborted empties to []',
    input: [A([signed, toolCall('c1')], { stopReason: 'aborted' }), user('u')],
    expected: [A([], { stopReason: 'aborted' }), user('u')],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'redacted_thinking is thinking',
    input: [A([{ type: 'redacted_thinking', data: 'x' }, toolCall('c1')]), R('c1', { toolName: 'write' })],
    expected: [A(OMITTED), R('c1', { toolName: 'write' })],
    counts: { omittedTurns: 1 },
  },
  {
    name: 'redactedThinking (camel case) is not thinking (oracle)',
    input: [A([{ type: 'redactedThinking', data: 'x' }, toolCall('c1')]), R('c1', { toolName: 'write' })],
    expected: [A([{ type: 'redactedThinking', data: 'x' }, toolCall('c1')]), R('c1', { toolName: 'write' })],
    same: [[0, 0]],
    counts: {},
  },
  {
    name: 'assistants with string content and other roles pass',
    input: [assistant('text'), { role: 'custom' }, { content: 'roleless' }],
    expected: [assistant('text'), { role: 'custom' }, { content: 'roleless' }],
    same: [[0, 0], [1, 1], [2, 2]],
    counts: {},
  },
];

describe('core and stream', () => {
  for (const c of cases) {
    test(c.name, () => {
      const input = deepFreeze(structuredClone(c.input));
      const pure = stripDanglingToolCalls(input);
      assert.deepStrictEqual(pure, c.expected);
      const { output, counts } = runRule(stripDanglingToolCallsRule, input);
      assert.deepStrictEqual(output, c.expected);
      assert.deepStrictEqual(counts, c.counts);
      for (const [i, o] of c.same ?? []) {
        assert.equal(pure[o], input[i]);
        assert.equal(output[o], input[i]);
      }
    });
  }
});

test('hasIdentifiedToolCall: a call block with a non-empty string id, untrimmed', () => {
  assert.equal(hasIdentifiedToolCall(A(calls('c1'))), true);
  assert.equal(hasIdentifiedToolCall(A([{ type: 'toolCall', id: ' ' }])), true);
  assert.equal(hasIdentifiedToolCall(A([{ type: 'toolCall', id: '' }, { type: 'tool_use', id: 'x' }])), false);
  assert.equal(hasIdentifiedToolCall(user([toolCall('c1')] as never)), false);
  assert.equal(hasIdentifiedToolCall(assistant('c1')), false);
});

test('the whole-array core drops falsy entries and keeps other non-objects, as the reference strip does', () => {
  const input = [null, user('q'), 0, '', 'str', A(calls('c1')), R('c1')] as unknown as Message[];
  assert.deepStrictEqual(stripDanglingToolCalls(input), [user('q'), 'str', A(calls('c1')), R('c1')]);
});

test('a placeholder is a fresh array each time', () => {
  const out = stripDanglingToolCalls([A(calls('c1')), A(calls('c2'))]);
  assert.notEqual(out[0]!.content, out[1]!.content);
});

describe('holding', () => {
  /** Feeds messages one by one and records how many were emitted after each write. */
  function emittedAfterEachWrite(messages: Message[], memoryBudgetBytes?: number): { after: number[]; output: Message[] } {
    const output: Message[] = [];
    const chain = createRuleChain(
      [stripDanglingToolCallsRule],
      { policy: testPolicy(), options: resolveHygieneOptions({ now: () => TEST_NOW, memoryBudgetBytes }), stats: new StatsRecorder() },
      (message) => output.push(message),
    );
    const after: number[] = [];
    try {
      for (const message of messages) {
        chain.write(message);
        after.push(output.length);
      }
      chain.end();
    } finally {
      chain.dispose();
    }
    return { after, output };
  }

  const holdCases: Array<{ name: string; input: Message[]; after: number[] }> = [
    { name: 'nothing is held outside a span', input: [user('a'), assistant([text('b')]), user('c')], after: [1, 2, 3] },
    { name: 'released as soon as every call is answered', input: [user('q'), A(calls('c1', 'c2')), R('c1'), R('c2'), user('n')], after: [1, 1, 1, 4, 5] },
    { name: 'an unanswered call holds the span until the next assistant', input: [A(calls('c1')), user('u1'), user('u2'), assistant([text('a')])], after: [0, 0, 0, 4] },
    { name: 'an unanswered call holds the span to the end', input: [A(calls('c1')), user('u1')], after: [0, 0] },
    { name: 'only id-less calls beside an id: decided at once', input: [A([toolCall('c1'), { type: 'toolCall', id: '  ' }]), R('c1'), user('u')], after: [0, 2, 3] },
    { name: 'thinking: a call without a name decides at once', input: [A([signed, { type: 'toolCall', id: 'c1' }]), R('c1')], after: [1, 2] },
    { name: 'thinking: released when every call has a result of its name', input: [A([signed, toolCall('c1')]), R('c1'), user('u')], after: [0, 2, 3] },
    {
      name: 'thinking: a result without a name does not settle it (a later one may name another tool)',
      input: [A([signed, toolCall('c1')]), { role: 'toolResult', toolCallId: 'c1', content: [] }, user('u'), assistant([text('x')])],
      after: [0, 0, 0, 4],
    },
  ];
  for (const c of holdCases) {
    test(c.name, () => {
      const input = deepFreeze(structuredClone(c.input));
      const { after, output } = emittedAfterEachWrite(input);
      assert.deepEqual(after, c.after);
      assert.deepStrictEqual(output, stripDanglingToolCalls(input));
    });
  }

  test('a long span spills past the memory budget and comes back in order', () => {
    const span: Message[] = [];
    for (let i = 0; i < 200; i++) span.push(user(`interjection ${i} ${'x'.repeat(50)}`, { timestamp: i }));
    const input = deepFreeze([A(calls('c1', 'c2')), ...span, R('c1'), assistant([text('after')])]);
    const { output, counts } = runRule(stripDanglingToolCallsRule, input, { options: { memoryBudgetBytes: 1024 } });
    assert.deepStrictEqual(output, stripDanglingToolCalls(input));
    assert.deepStrictEqual(output[0], A(calls('c1')));
    assert.ok((counts.spilledEntries ?? 0) > 100, `spilled ${counts.spilledEntries}`);
    assert.equal(counts.droppedCalls, 1);
  });
});

describe('stream equals the whole-array core on generated inputs', () => {
  for (const budget of [undefined, 1024]) {
    test(`memoryBudgetBytes ${budget ?? 'default'}`, () => {
      const totals: Record<string, number> = {};
      for (let seed = 0; seed < 80; seed++) {
        const input = deepFreeze(generateTurns(seed, { nonObjects: true }));
        const pure = stripDanglingToolCalls(input);
        const { output, counts } = runRule(stripDanglingToolCallsRule, input, { options: { memoryBudgetBytes: budget } });
        assert.deepStrictEqual(output, pure, `seed ${seed}`);
        if (budget === undefined) {
          output.forEach((message, i) => {
            if (input.includes(pure[i]!)) assert.equal(message, pure[i], `seed ${seed}: an untouched message is the same object (${i})`);
          });
        }
        for (const [key, n] of Object.entries(counts)) totals[key] = (totals[key] ?? 0) + n;
      }
      assert.ok((totals.droppedCalls ?? 0) > 5 && (totals.omittedTurns ?? 0) > 5, `the inputs exercise the strip: ${JSON.stringify(totals)}`);
      if (budget === 1024) assert.ok((totals.spilledEntries ?? 0) > 0, 'the small budget spills');
    });
  }
});

test('rule meta', () => {
  assert.equal(stripDanglingToolCallsRule.unit, 'buffered');
  assert.equal(stripDanglingToolCallsRule.meta.name, 'strip-dangling-tool-calls');
  assert.deepEqual(stripDanglingToolCallsRule.meta.counters, ['droppedCalls', 'omittedTurns', 'spilledEntries']);
});
