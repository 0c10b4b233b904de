import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isPrefillAssistant,
  stripTrailingPrefill,
  stripTrailingPrefillEnabled,
  stripTrailingPrefillRule,
} from '../../transforms/strip-trailing-prefill.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import type { Message } from '../../lib/types.ts';
import { deepFreeze } from '../helpers/build.ts';
import { emissionTrace, randomThinkingTranscript, runRule } from '../helpers/thinking-rules.ts';

const U = (content: string): Message => ({ role: 'user', content });
const A = (content: unknown[] | string, extra: Record<string, unknown> = {}): Message => ({ role: 'assistant', content, stopReason: 'stop', ...extra }) as Message;
const R = (id: string): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text: 'ok' }], isError: false });
const roles = (messages: readonly Message[]) => messages.map((m) => String(m.role) + (isPrefillAssistant(m) || m.role !== 'assistant' ? '' : '(tool)'));

function both(messages: Message[]): { input: Message[]; out: Message[]; counts: Record<string, number> } {
  const input = deepFreeze(structuredClone(messages));
  const out = stripTrailingPrefill(input);
  const run = runRule(stripTrailingPrefillRule, input, { policy: { stripTrailingPrefillWhenThinking: true }, options: { thinking: true } });
  assert.deepEqual(run.output, out, 'streaming equals whole-array');
  run.output.forEach((message, i) => assert.equal(message, input[i], `message ${i} is the same object`));
  return { input, out, counts: run.counts };
}

test('E20 (Anthropic, thinking enabled): ["user","assistant","assistant"] -> removed 2 -> ["user"]', () => {
  const { out, counts } = both([U('q'), A([{ type: 'text', text: 'prefill' }]), A('more')]);
  assert.deepEqual(roles(out), ['user']);
  assert.deepEqual(counts, { removedTurns: 2 });
});

test('E20: a trailing assistant with a tool call the runtime sends stops the strip (toolCall, toolUse, functionCall)', () => {
  for (const type of ['toolCall', 'toolUse', 'functionCall']) {
    const { out, counts } = both([U('q'), A([{ type, id: 'c', name: 'n', input: {} }])]);
    assert.deepEqual(roles(out), ['user', 'assistant(tool)'], type);
    assert.deepEqual(counts, {});
  }
});

// Ours, not the reference's (E20 counts them as calls): the runtime sends no snake-case
// `tool_use` block and no `tool_calls` field, so such a turn goes out as a prefill, which a
// thinking request to Claude rejects.
test('a snake-case tool_use block or a tool_calls field is not a call the runtime sends: the turn is a prefill', () => {
  const { out, counts } = both([U('q'), A([{ type: 'tool_use', id: 'c', name: 'n', input: {} }]), A([{ type: 'text', text: 'x' }])]);
  assert.deepEqual(roles(out), ['user']);
  assert.deepEqual(counts, { removedTurns: 2 });
  assert.deepEqual(roles(both([U('q'), A('', { tool_calls: [{ id: 'c' }] })]).out), ['user']);
});

test('only trailing assistants go: earlier ones, and any run followed by another role, stay', () => {
  const { out } = both([A('a'), U('q'), A('b'), A('c'), R('x'), A([{ type: 'thinking', thinking: 't' }]), A([])]);
  assert.deepEqual(roles(out), ['assistant', 'user', 'assistant', 'assistant', 'toolResult']);
});

test('nothing to strip: no trailing assistant, an empty list, a tool-calling run with prefill before it', () => {
  assert.deepEqual(both([U('q'), A('a'), U('q2')]).out.length, 3);
  assert.deepEqual(both([]).out, []);
  const { out } = both([U('q'), A('p'), A([{ type: 'toolCall', id: 'c', name: 'n', arguments: {} }])]);
  assert.deepEqual(roles(out), ['user', 'assistant', 'assistant(tool)']);
});

test('all-assistant input is emptied', () => {
  assert.deepEqual(both([A('a'), A('b')]).out, []);
});

test('stream: holds only the trailing run of tool-less assistants', () => {
  const messages = deepFreeze([U('q'), A('a'), A('b'), R('x'), A('c'), A([{ type: 'toolCall', id: 'c', name: 'n', arguments: {} }]), A('d')]);
  const { output, emittedAfter } = emissionTrace(stripTrailingPrefillRule, messages);
  assert.deepEqual(emittedAfter, [1, 1, 1, 4, 4, 6, 6, 6]);
  assert.deepEqual(output, stripTrailingPrefill(messages));
});

test('stream equals the whole-array core on generated transcripts (default budget and 1024 bytes)', () => {
  let removed = 0;
  for (let seed = 0; seed < 40; seed++) {
    const input = deepFreeze(randomThinkingTranscript(seed, 2 + (seed % 8) * 4));
    const expected = stripTrailingPrefill(input);
    removed += input.length - expected.length;
    assert.deepEqual(runRule(stripTrailingPrefillRule, input).output, expected, `seed ${seed}`);
    assert.deepEqual(runRule(stripTrailingPrefillRule, input, { options: { memoryBudgetBytes: 1024 } }).output, expected, `seed ${seed}, 1 KiB`);
  }
  assert.ok(removed > 5, `the generated inputs exercise the rule (${removed} removed)`);
});

test('stream: a long trailing run spills and is dropped; a long run followed by a user is kept whole', () => {
  const run = Array.from({ length: 40 }, (_, i) => A([{ type: 'text', text: `${i}`.repeat(100) }]));
  const trailing = deepFreeze([U('q'), ...run]);
  const a = runRule(stripTrailingPrefillRule, trailing, { options: { memoryBudgetBytes: 1024 } });
  assert.deepEqual(a.output, [trailing[0]]);
  assert.deepEqual(a.counts, { removedTurns: 40 });
  const kept = deepFreeze([U('q'), ...run, U('q2')]);
  assert.deepEqual(runRule(stripTrailingPrefillRule, kept, { options: { memoryBudgetBytes: 1024 } }).output, kept);
});

test('rule: meta', () => {
  assert.equal(stripTrailingPrefillRule.unit, 'buffered');
  assert.equal(stripTrailingPrefillRule.meta.name, 'strip-trailing-prefill');
  assert.deepEqual(stripTrailingPrefillRule.meta.counters, ['removedTurns']);
});

test('enabled only when thinking is on and the route is Anthropic Messages or verified OpenRouter Anthropic', () => {
  const enabled = (provider: string, modelApi: string, modelId: string, thinking: boolean) => {
    const options = resolveHygieneOptions({ provider, modelApi, modelId, thinking });
    return stripTrailingPrefillEnabled(resolveTranscriptPolicy(options), options);
  };
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-opus-4-6', true), true);
  assert.equal(enabled('anthropic', 'anthropic-messages', 'claude-opus-4-6', false), false, 'thinking off: removed 0');
  assert.equal(enabled('cloudflare-ai-gateway', 'anthropic-messages', 'claude-sonnet-4-5', true), true);
  assert.equal(enabled('openrouter', 'openai-completions', 'anthropic/claude-sonnet-4.5', true), true);
  assert.equal(enabled('openrouter', 'openai-completions', 'openrouter/~anthropic/claude-sonnet-4.5', true), true);
  assert.equal(enabled('openrouter', 'openai-completions', 'google/gemini-2.5-pro', true), false);
  assert.equal(enabled('amazon-bedrock', 'bedrock-converse-stream', 'us.anthropic.claude-sonnet-4-5-v1:0', true), false);
  assert.equal(enabled('google', 'google-generative-ai', 'gemini-2.5-pro', true), false, 'the reference strips here too at request time (§4.15a); the seed does not');
});
