import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResultIdIndex } from '../../lib/result-index.ts';
import { SessionResultIndex, hashResultId, resultIdsOfMessage, scanResultIdBytes } from '../../lib/session/result-ids.ts';

test('the session index is a ResultIdIndex: last position per trimmed id', () => {
  const index = new SessionResultIndex();
  assert.ok(index instanceof ResultIdIndex);
  index.record(' call_1 ', 3);
  index.record('call_1', 2);
  index.recordHash(hashResultId('call_2'), 9);
  assert.equal(index.lastLineOf('call_1'), 3);
  assert.equal(index.lastLineOf('call_2 '), 9);
  assert.equal(index.lastLineOf('nope'), 0);
  assert.equal(index.size, 2);
});

test('grows past its first table and keeps every id', () => {
  const index = new SessionResultIndex();
  for (let i = 1; i <= 50_000; i++) index.record(`toolu_${i}`, i);
  for (let i = 1; i <= 50_000; i += 997) assert.equal(index.lastLineOf(`toolu_${i}`), i);
  assert.equal(index.size, 50_000);
});

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
