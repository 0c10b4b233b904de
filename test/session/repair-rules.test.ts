import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BLANK_USER_FALLBACK_TEXT,
  STREAM_ERROR_FALLBACK_TEXT,
  isCodeModeCandidate,
  isDeliveryMirror,
  isMessageToolName,
  isMirrorCandidate,
  isRepairHeader,
  messageOf,
  repairLine,
  repairSummary,
  syntheticResultEntry,
  toolCallsOf,
  toolResultIdOf,
} from '../../lib/session/repair-rules.ts';

const line = (value: unknown): string => JSON.stringify(value);
const msg = (message: unknown): Record<string, unknown> => ({ type: 'message', id: 'm', parentId: null, message });

test('blank lines are skipped, lines that are not JSON and invalid messages dropped; other JSON kept', () => {
  assert.equal(repairLine('   ').kind, 'skip');
  assert.equal(repairLine('{"torn":').kind, 'drop');
  assert.equal(repairLine('\uFEFF{"type":"session","id":"x"}').kind, 'drop');
  for (const message of [null, undefined, 0, '', [], { role: null }, { role: '  ' }, { role: 5 }, {}]) {
    assert.equal(repairLine(line(msg(message))).kind, 'drop', JSON.stringify(message));
  }
  for (const kept of ['null', '42', '"x"', '[1]', line({ type: 'x-telemetry' }), line({ type: 'leaf', id: 'l', targetId: 'gone' })]) {
    const result = repairLine(kept);
    assert.equal(result.kind, 'keep', kept);
    assert.deepEqual(result.entry, JSON.parse(kept));
  }
});

test('the Bedrock empty error turn is rewritten, keeping key positions; other empty assistants are kept', () => {
  const result = repairLine(line(msg({ role: 'assistant', content: [], stopReason: 'error', errorMessage: 'x' })));
  assert.equal(result.rewroteAssistant, true);
  assert.deepEqual(Object.keys((result.entry as Record<string, Record<string, unknown>>).message!), ['role', 'content', 'stopReason', 'errorMessage']);
  assert.deepEqual((result.entry as Record<string, Record<string, unknown>>).message!.content, [{ type: 'text', text: STREAM_ERROR_FALLBACK_TEXT }]);
  for (const message of [
    { role: 'assistant', content: [], stopReason: 'stop' },
    { role: 'assistant', content: [], stopReason: 'aborted' },
    { role: 'assistant', content: '', stopReason: 'error' },
    { role: 'assistant', content: [{ type: 'text', text: ' ' }], stopReason: 'error' },
  ]) {
    assert.equal(repairLine(line(msg(message))).rewroteAssistant, false);
  }
});

test('blank user content: (continue), blank text blocks removed, other blocks kept', () => {
  const content = (value: unknown): unknown => ((repairLine(line(msg({ role: 'user', content: value }))).entry as Record<string, Record<string, unknown>>).message!.content);
  assert.equal(content('  \n'), BLANK_USER_FALLBACK_TEXT);
  assert.deepEqual(content([]), [{ type: 'text', text: BLANK_USER_FALLBACK_TEXT }]);
  assert.deepEqual(content([{ type: 'text', text: '' }, { type: 'text', text: 'x' }]), [{ type: 'text', text: 'x' }]);
  assert.deepEqual(content([{ type: 'text', text: '' }, 'odd', { type: 'text', text: 5 }]), ['odd', { type: 'text', text: 5 }]);
  assert.equal(content('hi'), 'hi');
  assert.equal(content(7), 7);
  assert.equal(repairLine(line(msg({ role: 'user', content: 'hi' }))).rewroteUser, false);
  assert.equal(repairLine(line(msg({ role: 'user', content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }))).removedImages, 1);
  // The image goes first, then the user rule sees a text block that is not blank.
  const both = repairLine(line(msg({ role: 'user', content: [{ type: 'text', text: ' ' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }] })));
  assert.equal(both.removedImages, 1);
  assert.equal(both.rewroteUser, true);
});

test('headers, tool calls and results, candidates, synthetic entries, summaries', () => {
  assert.equal(isRepairHeader({ type: 'session', id: 'x' }), true);
  assert.equal(isRepairHeader({ type: 'session', id: '' }), false);
  assert.equal(isRepairHeader(null), false);
  assert.equal(messageOf({ type: 'message', message: [] }) !== undefined, true);
  assert.equal(messageOf({ type: 'custom' }), undefined);
  assert.equal(toolResultIdOf({ role: 'toolResult', toolCallId: ' ', call_id: ' c ' }), 'c');
  assert.equal(toolResultIdOf({ role: 'user', toolCallId: 'x' }), undefined);
  assert.equal(toolResultIdOf({ role: 'toolResult' }), undefined);
  assert.deepEqual(
    toolCallsOf({ content: [{ type: 'toolCall', id: 'a', name: 'x' }, { type: 'functionCall', id: 'b' }, { type: 'toolUse', id: '' }, { type: 'text', id: 'c' }, null] }),
    [
      { id: 'a', name: 'x' },
      { id: 'b', name: undefined },
    ],
  );
  assert.deepEqual(toolCallsOf({ content: 'x' }), []);
  const codex = { role: 'assistant', api: 'openai-chatgpt-responses', provider: 'openai', stopReason: 'toolUse' };
  assert.equal(isCodeModeCandidate(codex), true);
  assert.equal(isCodeModeCandidate({ ...codex, stopReason: 'aborted' }), false);
  assert.equal(isMirrorCandidate({ role: 'assistant', api: ' openai-responses ', stopReason: 'stop' }), true);
  assert.equal(isMirrorCandidate({ role: 'assistant', api: 'openai-chatgpt-responses', stopReason: 'stop' }), false);
  assert.equal(isDeliveryMirror({ role: 'assistant', provider: 'openclaw', model: ' gateway-injected' }), true);
  assert.equal(isDeliveryMirror({ role: 'assistant', provider: 'openclaw', model: 'x' }), false);
  assert.equal(isMessageToolName(' Message '), true);
  assert.equal(isMessageToolName(undefined), false);
  assert.deepEqual(syntheticResultEntry({ id: 'a1' }, { id: 'c1', name: undefined }, 'repair-x', 1798761600000), {
    type: 'message',
    id: 'repair-x',
    parentId: 'a1',
    timestamp: '2027-01-01T00:00:00.000Z',
    message: {
      role: 'toolResult',
      toolCallId: 'c1',
      toolName: 'unknown',
      content: [{ type: 'text', text: 'aborted' }],
      details: { openclawSyntheticMissingToolResult: true },
      isError: true,
      timestamp: 1798761600000,
    },
  });
  assert.equal('parentId' in syntheticResultEntry({ id: 5 }, { id: 'c', name: 'n' }, 'r', 0), false);
  const zero = { droppedLines: 0, rewrittenAssistantMessages: 0, droppedBlankUserMessages: 0, rewrittenUserMessages: 0, removedCorruptedImageBlocks: 0, insertedToolResults: 0 };
  assert.equal(repairSummary(zero), 'no changes');
  assert.equal(repairSummary({ ...zero, droppedBlankUserMessages: 1, insertedToolResults: 2 }), 'dropped 1 blank user message(s), inserted 2 missing tool result(s)');
});
