import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultIdsOfMessage, scanResultIdBytes } from '../../lib/session/result-ids.ts';

test('resultIdsOfMessage: every non-empty trimmed key, once, in priority order', () => {
  assert.deepEqual(resultIdsOfMessage({ role: 'toolResult', toolCallId: ' a ', toolUseId: 'a', call_id: 'b', callId: '', tool_use_id: 5 }), ['a', 'b']);
  assert.deepEqual(resultIdsOfMessage({ role: 'toolResult' }), []);
});

test('scanResultIdBytes finds the six keys anywhere, escaped values too', () => {
  const line = Buffer.from('xx{"toolCallId" : "a1","nested":{"call_id":"b\\u0032"},"toolUseId":5,"callId":"  ","tool_use_id":"c3"}yy');
  const ids: string[] = [];
  scanResultIdBytes(line, 2, line.length - 2, (id) => ids.push(id));
  assert.deepEqual(ids.sort(), ['a1', 'b2', 'c3']);
  const broken = Buffer.from('{"toolCallId":"unterminated');
  const none: string[] = [];
  scanResultIdBytes(broken, 0, broken.length, (id) => none.push(id));
  assert.deepEqual(none, []);
});
