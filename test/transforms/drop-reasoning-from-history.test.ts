import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dropReasoningFromHistory,
  dropReasoningFromHistoryEnabled,
  dropReasoningFromHistoryRule,
} from '../../transforms/drop-reasoning-from-history.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import type { Message } from '../../lib/types.ts';
import { deepFreeze, testPolicy } from '../helpers/build.ts';
import { emissionTrace, randomThinkingTranscript, runRule } from '../helpers/thinking-rules.ts';

const OMITTED = [{ type: 'text', text: '[assistant reasoning omitted]' }];
const U = (content: string, extra: Record<string, unknown> = {}): Message => ({ role: 'user', content, ...extra });
const A = (content: unknown[], extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content, stopReason: 'stop', ...extra }) as Message;
const R = (id: string): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'ok' }], isError: false });
const call = (id: string, type = 'toolCall') => ({ type, id, name: 'read', arguments: {} });
const reasoning = (thinking: string) => ({ type: 'thinking', thinking, thinkingSignature: 'reasoning_content' });

/** Runs the whole-array core and the streaming rule, checks they agree, and returns the output. */
function both(messages: Message[]): { input: Message[]; out: Message[]; counts: Record<string, number> } {
  const input = deepFreeze(structuredClone(messages));
  const out = dropReasoningFromHistory(input);
  const run = runRule(dropReasoningFromHistoryRule, input);
  assert.deepEqual(run.output, out, 'streaming equals whole-array');
  run.output.forEach((message, i) => assert.equal(message === input[i], out[i] === input[i], `identity of message ${i}`));
  return { input, out, counts: run.counts };
}

const E14_IN: Message[] = [
  U('q1'),
  A([reasoning('old'), { type: 'text', text: 'a1' }]),
  A([reasoning('only')]),
  U('q2'),
  A([reasoning('t1'), call('c1')]),
  R('c1'),
  A([reasoning('t2'), call('c2')]),
  R('c2'),
  A([reasoning('t3'), { type: 'text', text: 'done' }]),
];

test('E14: only the first tool-call assistant of the current turn keeps reasoning', () => {
  const { input, out, counts } = both(E14_IN);
  assert.deepEqual(out, [
    U('q1'),
    A([{ type: 'text', text: 'a1' }]),
    A(OMITTED),
    U('q2'),
    A([reasoning('t1'), call('c1')]),
    R('c1'),
    A([call('c2')]),
    R('c2'),
    A([{ type: 'text', text: 'done' }]),
  ]);
  for (const i of [0, 3, 4, 5, 7]) assert.equal(out[i], input[i]);
  assert.deepEqual(counts, { removedBlocks: 4, placeholders: 1, keptCurrentToolTurn: 1 });
});

test('E14b: a tool-call turn whose result has not been appended yet loses its reasoning', () => {
  const { out } = both([U('q1'), A([reasoning('t1'), call('c1')])]);
  assert.deepEqual(out[1], A([call('c1')]));
});

test('E15 vllm / qwen3: earlier reasoning dropped; off for reasoning:true and for replay-list model ids', () => {
  const input = [U('q1'), A([reasoning('old'), { type: 'text', text: 'a1' }]), U('q2')];
  assert.equal(dropReasoningFromHistoryEnabled(resolveTranscriptPolicy({ provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3' })), true);
  assert.deepEqual(both(input).out[1], A([{ type: 'text', text: 'a1' }]));
  assert.equal(dropReasoningFromHistoryEnabled(resolveTranscriptPolicy({ provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3', reasoning: true })), false);
  assert.equal(dropReasoningFromHistoryEnabled(resolveTranscriptPolicy({ provider: 'mycustom', modelApi: 'openai-completions', modelId: 'kimi-k2-thinking' })), false);
});

test('E11 on vllm: every assistant loses its reasoning, the latest included (no signature steps on this route)', () => {
  const { out } = both([
    { role: 'user', content: 'q1', timestamp: 10 },
    A([{ type: 'thinking', thinking: 'pre', thinkingSignature: 'SIGpre' }, { type: 'text', text: 'a1' }], { timestamp: 20 }),
    { role: 'compactionSummary', summary: 'sum', tokensBefore: 100, timestamp: 30 },
    { role: 'user', content: 'q2', timestamp: 40 },
    A([{ type: 'thinking', thinking: 'unsigned' }, { type: 'text', text: 'a2' }], { timestamp: 50 }),
    A([{ type: 'thinking', thinking: 'only', thinkingSignature: ' ' }], { timestamp: 55 }),
    { role: 'user', content: 'q3', timestamp: 60 },
    A([{ type: 'thinking', thinking: 'latest', thinkingSignature: '' }, { type: 'text', text: 'a3' }], { timestamp: 70 }),
  ]);
  assert.deepEqual(out.filter((m) => m.role === 'assistant').map((m) => m.content), [
    [{ type: 'text', text: 'a1' }],
    [{ type: 'text', text: 'a2' }],
    OMITTED,
    [{ type: 'text', text: 'a3' }],
  ]);
});

interface Case {
  name: string;
  input: Message[];
  expected: Message[];
}

const cases: Case[] = [
  {
    name: 'signed or unsigned, thinking and redacted_thinking all go; redactedThinking and unknown reasoning types stay (oracle)',
    input: [U('q'), A([{ type: 'redacted_thinking', data: 'd' }, { type: 'redactedThinking', data: 'e' }, { type: 'reasoning', text: 'r' }, { type: 'thinking', thinking: 'x', thinkingSignature: 'SIG' }]), U('q2')],
    expected: [U('q'), A([{ type: 'redactedThinking', data: 'e' }, { type: 'reasoning', text: 'r' }]), U('q2')],
  },
  {
    name: 'content [] stays as it is, no placeholder (oracle)',
    input: [U('q'), A([], { providerReplay: { id: 'x' } }), U('q2')],
    expected: [U('q'), A([], { providerReplay: { id: 'x' } }), U('q2')],
  },
  {
    name: 'no user at all: the first assistant with a tool call and a result is the current tool turn (oracle)',
    input: [A([{ type: 'thinking', thinking: 't1' }, call('c1')], { stopReason: 'toolUse' }), R('c1')],
    expected: [A([{ type: 'thinking', thinking: 't1' }, call('c1')], { stopReason: 'toolUse' }), R('c1')],
  },
  {
    name: 'tool_use and function_call blocks count; toolUse and functionCall do not',
    input: [U('q'), A([reasoning('a'), call('c1', 'tool_use')]), R('c1'), U('q2'), A([reasoning('b'), call('c2', 'toolUse')]), R('c2')],
    expected: [U('q'), A([call('c1', 'tool_use')]), R('c1'), U('q2'), A([call('c2', 'toolUse')]), R('c2')],
  },
  {
    name: 'function_call turn of the current user turn is kept',
    input: [U('q'), A([reasoning('a'), call('c1', 'function_call')]), R('c1')],
    expected: [U('q'), A([reasoning('a'), call('c1', 'function_call')]), R('c1')],
  },
  {
    name: 'a string assistant first in the turn makes the tool-call turn after it "not first"',
    input: [U('q'), { role: 'assistant', content: 'hm', stopReason: 'stop' }, A([reasoning('a'), call('c1')]), R('c1')],
    expected: [U('q'), { role: 'assistant', content: 'hm', stopReason: 'stop' }, A([call('c1')]), R('c1')],
  },
  {
    name: 'a first tool-call turn settled by a later user message loses its reasoning',
    input: [U('q'), A([reasoning('a'), call('c1')]), R('c1'), U('q2')],
    expected: [U('q'), A([call('c1')]), R('c1'), U('q2')],
  },
  {
    name: 'other roles, string content and error turns: only array assistants change',
    input: [U('q'), { role: 'custom', content: [reasoning('x')] }, A([reasoning('e')], { stopReason: 'error' }), U('q2')],
    expected: [U('q'), { role: 'custom', content: [reasoning('x')] }, A(OMITTED, { stopReason: 'error' }), U('q2')],
  },
];

for (const c of cases) {
  test(`dropReasoningFromHistory: ${c.name}`, () => {
    assert.deepEqual(both(c.input).out, c.expected);
  });
}

test('stream: the first tool-calling assistant after a user is held, with what follows, until the next user or the end', () => {
  const messages = deepFreeze([
    U('q'), // out
    A([reasoning('a'), { type: 'text', text: 'x' }]), // first, no tool call: cleaned at once
    U('q2'), // out
    A([reasoning('b'), call('c1')]), // held
    R('c1'), // held
    A([reasoning('c'), call('c2')]), // not first: cleaned, held behind
    R('c2'),
    U('q3'), // settles: b loses its reasoning
    A([reasoning('d'), call('c3')]), // held to the end
    R('c3'),
  ]);
  const { output, emittedAfter } = emissionTrace(dropReasoningFromHistoryRule, messages);
  assert.deepEqual(emittedAfter, [1, 2, 3, 3, 3, 3, 3, 8, 8, 8, 10]);
  assert.deepEqual(output, dropReasoningFromHistory(messages));
  assert.equal(output[8], messages[8]);
});

test('stream equals the whole-array core on generated transcripts (default budget and 1024 bytes)', () => {
  let changed = 0;
  let kept = 0;
  for (let seed = 0; seed < 40; seed++) {
    const input = deepFreeze(randomThinkingTranscript(seed, 3 + (seed % 8) * 5));
    const expected = dropReasoningFromHistory(input);
    changed += expected.filter((m, i) => m !== input[i]).length;
    const run = runRule(dropReasoningFromHistoryRule, input);
    kept += run.counts.keptCurrentToolTurn ?? 0;
    assert.deepEqual(run.output, expected, `seed ${seed}`);
    assert.deepEqual(runRule(dropReasoningFromHistoryRule, input, { options: { memoryBudgetBytes: 1024 } }).output, expected, `seed ${seed}, 1 KiB`);
  }
  assert.ok(changed > 20 && kept > 0, `the generated inputs exercise the rule (${changed} changed, ${kept} kept)`);
});

test('stream: a whole agent loop is held and spills past the budget', () => {
  const input: Message[] = [U('q'), A([reasoning('first'), call('c0')])];
  for (let i = 0; i < 60; i++) input.push({ ...R(`c${i}`), content: [{ type: 'text', text: 'z'.repeat(100) }] }, A([reasoning(`t${i}`), call(`c${i + 1}`)]));
  input.push(R('c60'));
  deepFreeze(input);
  const { output, counts } = runRule(dropReasoningFromHistoryRule, input, { options: { memoryBudgetBytes: 1024 } });
  assert.deepEqual(output, dropReasoningFromHistory(input));
  assert.deepEqual(output[1], input[1]);
  assert.ok((counts.spilledEntries ?? 0) > 0);
  assert.equal(counts.keptCurrentToolTurn, 1);
  assert.equal(counts.removedBlocks, 60);
});

test('rule: meta and enable condition', () => {
  assert.equal(dropReasoningFromHistoryRule.unit, 'buffered');
  assert.equal(dropReasoningFromHistoryRule.meta.name, 'drop-reasoning-from-history');
  assert.deepEqual(dropReasoningFromHistoryRule.meta.counters, ['removedBlocks', 'placeholders', 'keptCurrentToolTurn', 'spilledEntries']);
  const enabled = (provider: string, modelApi: string, modelId: string, reasoning = false) =>
    dropReasoningFromHistoryEnabled(resolveTranscriptPolicy({ provider, modelApi, modelId, reasoning }));
  assert.equal(enabled('ollama', 'openai-completions', 'kimi-k2.5', true), true);
  assert.equal(enabled('xai', 'openai-completions', 'grok-4', true), true);
  assert.equal(enabled('lmstudio', 'openai-completions', 'qwen3'), true);
  assert.equal(enabled('openai', 'openai-completions', 'gpt-4o'), false);
  assert.equal(enabled('sglang', 'openai-completions', 'qwen3'), false);
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-opus-4-6'), false);
  assert.equal(dropReasoningFromHistoryEnabled(testPolicy({ dropReasoningFromHistory: true })), true);
});
