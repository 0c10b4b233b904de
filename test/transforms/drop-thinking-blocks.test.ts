import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropThinkingBlocks, dropThinkingBlocksEnabled, dropThinkingBlocksRule } from '../../transforms/drop-thinking-blocks.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import type { Message } from '../../lib/types.ts';
import { deepFreeze, testPolicy } from '../helpers/build.ts';
import { emissionTrace, randomThinkingTranscript, runRule } from '../helpers/thinking-rules.ts';

const OMITTED = [{ type: 'text', text: '[assistant reasoning omitted]' }];
const U = (content: string): Message => ({ role: 'user', content });
const A = (content: unknown[], extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content, stopReason: 'stop', ...extra }) as Message;
const R = (id: string): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'ok' }], isError: false });

function both(messages: Message[]): { input: Message[]; out: Message[]; counts: Record<string, number> } {
  const input = deepFreeze(structuredClone(messages));
  const out = dropThinkingBlocks(input);
  const run = runRule(dropThinkingBlocksRule, input);
  assert.deepEqual(run.output, out, 'streaming equals whole-array');
  run.output.forEach((message, i) => assert.equal(message === input[i], out[i] === input[i], `identity of message ${i}`));
  return { input, out, counts: run.counts };
}

test('E13: the latest array assistant is kept even though a user message follows', () => {
  const { input, out, counts } = both([
    U('q1'),
    A([{ type: 'thinking', thinking: 'old', thinkingSignature: 'S' }, { type: 'text', text: 'a1' }]),
    A([{ type: 'redacted_thinking', data: 'd' }]),
    U('q2'),
    A([{ type: 'thinking', thinking: 'cur', thinkingSignature: 'S' }, { type: 'text', text: 'a2' }]),
    U('q3'),
  ]);
  assert.deepEqual(out, [
    U('q1'),
    A([{ type: 'text', text: 'a1' }]),
    A(OMITTED),
    U('q2'),
    A([{ type: 'thinking', thinking: 'cur', thinkingSignature: 'S' }, { type: 'text', text: 'a2' }]),
    U('q3'),
  ]);
  for (const i of [0, 3, 4, 5]) assert.equal(out[i], input[i]);
  assert.deepEqual(counts, { removedBlocks: 2, placeholders: 1 });
});

interface Case {
  name: string;
  input: Message[];
  expected: Message[];
}

const cases: Case[] = [
  {
    name: 'signed and unsigned thinking, redacted_thinking all go; other blocks stay',
    input: [A([{ type: 'thinking', thinking: 'a', thinkingSignature: 'S' }, { type: 'thinking', thinking: 'b' }, { type: 'redacted_thinking' }, { type: 'toolCall', id: 'c', name: 'n', arguments: {} }, { type: 'redactedThinking' }, null]), R('c'), A([{ type: 'text', text: 'z' }])],
    expected: [A([{ type: 'toolCall', id: 'c', name: 'n', arguments: {} }, { type: 'redactedThinking' }, null]), R('c'), A([{ type: 'text', text: 'z' }])],
  },
  {
    name: 'the latest is the last array assistant, not a later string assistant',
    input: [A([{ type: 'thinking', thinking: 'a' }]), { role: 'assistant', content: 'text', stopReason: 'stop' }, U('q')],
    expected: [A([{ type: 'thinking', thinking: 'a' }]), { role: 'assistant', content: 'text', stopReason: 'stop' }, U('q')],
  },
  {
    name: 'emptied turns get the placeholder and keep their fields; [] stays as it is',
    input: [A([{ type: 'thinking', thinking: 'a' }], { timestamp: 3, providerReplay: { type: 'anthropic-compaction' } }), A([], { providerReplay: { id: 'x' } }), A([{ type: 'text', text: 'last' }])],
    expected: [A(OMITTED, { timestamp: 3, providerReplay: { type: 'anthropic-compaction' } }), A([], { providerReplay: { id: 'x' } }), A([{ type: 'text', text: 'last' }])],
  },
  {
    name: 'a single assistant is the latest: untouched',
    input: [U('q'), A([{ type: 'thinking', thinking: 'a' }]), R('x'), U('q2')],
    expected: [U('q'), A([{ type: 'thinking', thinking: 'a' }]), R('x'), U('q2')],
  },
  {
    name: 'no assistant at all',
    input: [U('q'), { role: 'custom', content: [{ type: 'thinking', thinking: 'x' }] }],
    expected: [U('q'), { role: 'custom', content: [{ type: 'thinking', thinking: 'x' }] }],
  },
];

for (const c of cases) {
  test(`dropThinkingBlocks: ${c.name}`, () => {
    assert.deepEqual(both(c.input).out, c.expected);
  });
}

test('stream: held from each array assistant to the next one; user messages do not settle it', () => {
  const messages = deepFreeze([
    U('q'),
    A([{ type: 'thinking', thinking: 'a' }]), // held
    U('q2'), // held
    R('c'), // held
    A([{ type: 'text', text: 'b' }]), // settles: 4 out, held
    U('q3'), // held to the end
  ]);
  const { output, emittedAfter } = emissionTrace(dropThinkingBlocksRule, messages);
  assert.deepEqual(emittedAfter, [1, 1, 1, 1, 4, 4, 6]);
  assert.deepEqual(output, dropThinkingBlocks(messages));
});

test('stream equals the whole-array core on generated transcripts (default budget and 1024 bytes)', () => {
  let changed = 0;
  for (let seed = 0; seed < 40; seed++) {
    const input = deepFreeze(randomThinkingTranscript(seed, 3 + (seed % 8) * 5));
    const expected = dropThinkingBlocks(input);
    changed += expected.filter((m, i) => m !== input[i]).length;
    assert.deepEqual(runRule(dropThinkingBlocksRule, input).output, expected, `seed ${seed}`);
    assert.deepEqual(runRule(dropThinkingBlocksRule, input, { options: { memoryBudgetBytes: 1024 } }).output, expected, `seed ${seed}, 1 KiB`);
  }
  assert.ok(changed > 20, `the generated inputs exercise the rule (${changed} changed)`);
});

test('stream: a long tail after the latest assistant spills and still matches', () => {
  const input: Message[] = [A([{ type: 'thinking', thinking: 'x' }]), A([{ type: 'thinking', thinking: 'y' }])];
  for (let i = 0; i < 80; i++) input.push({ role: 'user', content: 'u'.repeat(100) });
  deepFreeze(input);
  const { output, counts } = runRule(dropThinkingBlocksRule, input, { options: { memoryBudgetBytes: 1024 } });
  assert.deepEqual(output, dropThinkingBlocks(input));
  assert.ok((counts.spilledEntries ?? 0) > 0);
});

test('rule: meta and enable condition', () => {
  assert.equal(dropThinkingBlocksRule.unit, 'buffered');
  assert.equal(dropThinkingBlocksRule.meta.name, 'drop-thinking-blocks');
  assert.deepEqual(dropThinkingBlocksRule.meta.counters, ['removedBlocks', 'placeholders', 'spilledEntries']);
  const enabled = (provider: string, modelApi: string, modelId: string) => dropThinkingBlocksEnabled(resolveTranscriptPolicy({ provider, modelApi, modelId }));
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-sonnet-4-5'), true);
  assert.equal(enabled('amazon-bedrock', 'bedrock-converse-stream', 'us.anthropic.claude-sonnet-4-5-v1:0'), true);
  assert.equal(enabled('github-copilot', 'anthropic-messages', 'claude-sonnet-4-5'), true);
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-opus-4-6'), false);
  assert.equal(enabled('minimax', 'anthropic-messages', 'MiniMax-M2'), false);
  assert.equal(enabled('google', 'google-generative-ai', 'gemini-2.5-pro'), false);
  assert.equal(dropThinkingBlocksEnabled(testPolicy({ dropThinkingBlocks: true })), true);
});

test('E12b (its §4.8 part, sonnet-4-5): the signed tool turn is the latest array assistant, so it keeps its thinking', () => {
  const { input, out } = both([
    U('q'),
    A([{ type: 'thinking', thinking: 'plan', thinkingSignature: 'SIG' }, { type: 'toolCall', id: 'toolu_1', name: 'read', arguments: { p: 1 } }], { stopReason: 'toolUse' }),
    R('toolu_1'),
    U('next'),
  ]);
  out.forEach((message, i) => assert.equal(message, input[i]));
});
