/**
 * Tool-result pairing as OpenClaw 2026.9's classifyToolUseResultPairing decides it (what a reset
 * keeps of its window): the cases the fixture sessions do not reach.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairedToolResults, pairingFacts } from '../../lib/session/tool-pairing.ts';

const call = (...ids: string[]): unknown => ({ role: 'assistant', content: ids.map((id) => ({ type: 'toolCall', id, name: 'bash', arguments: {} })) });
const result = (id: string | undefined, extra: Record<string, unknown> = {}): unknown => ({ role: 'toolResult', ...(id === undefined ? {} : { toolCallId: id }), toolName: 'bash', content: [{ type: 'text', text: 'out' }], isError: false, ...extra });
const SYNTHETIC = { isError: true, details: { openclawSyntheticMissingToolResult: true } };
const paired = (messages: unknown[]): number[] => [...pairedToolResults(messages.map(pairingFacts))].sort((a, b) => a - b);

test('a result pairs with its call in the frame; a second result for it, or one with no call, does not', () => {
  assert.deepEqual(paired([call('a'), result('a'), result('a'), result('nope')]), [1]);
});

test('a result before any tool call pairs with nothing', () => {
  assert.deepEqual(paired([result('a'), call('a')]), []);
});

test('a result after the next call pairs with the still unanswered call of an earlier frame', () => {
  assert.deepEqual(paired([call('a'), call('b'), result('b'), result('a')]), [2, 3]);
});

test('with two unanswered calls of that id in earlier frames, the late result is an orphan', () => {
  assert.deepEqual(paired([call('a'), call('a'), call('b'), result('a')]), []);
});

test("an id-less result takes the frame's only call unless the tool names differ", () => {
  assert.deepEqual(paired([call('a'), result(undefined)]), [1]);
  assert.deepEqual(paired([call('a'), result(undefined, { toolName: 'read' })]), []);
  assert.deepEqual(paired([call('a', 'b'), result(undefined)]), []);
});

test("a real result replaces OpenClaw's synthetic stand-in for the same call; a second stand-in does not", () => {
  assert.deepEqual(paired([call('a'), result('a', SYNTHETIC), result('a')]), [2]);
  assert.deepEqual(paired([call('a'), result('a', SYNTHETIC), result('a', SYNTHETIC)]), [1]);
  // The marker counts only on an error result.
  assert.deepEqual(paired([call('a'), result('a', { details: { openclawSyntheticMissingToolResult: true } }), result('a')]), [1]);
});

test('calls are toolCall, toolUse and functionCall blocks with a non-empty string id; result ids come from six fields, trimmed', () => {
  const assistant = { role: 'assistant', content: [{ type: 'toolUse', id: 'u' }, { type: 'functionCall', id: 'f' }, { type: 'toolCall', id: '' }, { type: 'text', id: 't' }] };
  assert.deepEqual(pairingFacts(assistant).calls.map((c) => c.id), ['u', 'f']);
  assert.deepEqual(paired([assistant, { role: 'toolResult', tool_use_id: ' u ' }, { role: 'toolResult', call_id: 'f' }]), [1, 2]);
});
