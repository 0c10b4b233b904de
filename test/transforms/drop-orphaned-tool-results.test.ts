import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropOrphanedToolResults, dropOrphanedToolResultsEnabled, dropOrphanedToolResultsRule } from '../../transforms/drop-orphaned-tool-results.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { runRule } from '../helpers/run-rule.ts';
import { deepFreeze } from '../helpers/build.ts';
import type { Message } from '../../lib/types.ts';

const call = (id: string): Record<string, unknown> => ({ type: 'toolCall', id, name: 'read', arguments: {} });
const A = (...content: Array<Record<string, unknown>>): Message => ({ role: 'assistant', content, stopReason: 'toolUse' });
const R = (id: unknown, extra: Record<string, unknown> = {}): Message => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [], ...extra });
const U = (text: string): Message => ({ role: 'user', content: text });

const cases: Array<[string, Message[], Message[]]> = [
  ['answered results stay, in any order', [U('q'), A(call('a'), call('b')), R('b'), R('a'), U('next')], [U('q'), A(call('a'), call('b')), R('b'), R('a'), U('next')]],
  [
    'results left behind by "[tool calls omitted]" go (spec E13)',
    [U('q'), { role: 'assistant', content: [{ type: 'text', text: '[tool calls omitted]' }], stopReason: 'toolUse' }, R('c1', { toolName: 'write' }), U('next')],
    [U('q'), { role: 'assistant', content: [{ type: 'text', text: '[tool calls omitted]' }], stopReason: 'toolUse' }, U('next')],
  ],
  ['a result whose id is only in an alias field goes', [A(call('a')), R(undefined, { toolUseId: 'a' })], [A(call('a'))]],
  ['a result after a user turn goes', [A(call('a')), U('interjection'), R('a')], [A(call('a')), U('interjection')]],
  ['a repeated id is answered as many times as it was called, no more', [A(call('x'), call('x')), R('x'), R('x'), R('x')], [A(call('x'), call('x')), R('x'), R('x')]],
  ['a result after a role-less object (never sent to the model) goes', [A(call('a')), { content: 'x' }, R('a')], [A(call('a')), { content: 'x' }]],
];

for (const [name, input, expected] of cases) {
  test(`dropOrphanedToolResults: ${name}`, () => {
    assert.deepEqual(dropOrphanedToolResults(deepFreeze(structuredClone(input))).messages, expected);
  });
}

test('the rule keeps the same objects and counts what it drops', () => {
  const input = deepFreeze([A(call('a')), R('a'), R('zz')]);
  const { output, counts } = runRule(dropOrphanedToolResultsRule, input);
  assert.equal(output[0], input[0]);
  assert.equal(output[1], input[1]);
  assert.equal(output.length, 2);
  assert.deepEqual(counts, { dropped: 1 });
});

test('on every route but OpenAI Responses, whose replay invariant refuses such transcripts instead', () => {
  assert.equal(dropOrphanedToolResultsEnabled(resolveTranscriptPolicy({ provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' })), true);
  assert.equal(dropOrphanedToolResultsEnabled(resolveTranscriptPolicy({ provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3' })), true);
  assert.equal(dropOrphanedToolResultsEnabled(resolveTranscriptPolicy({ provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' })), false);
});
