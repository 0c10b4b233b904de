import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ROLE_ASSISTANT,
  ROLE_COMPACTION_SUMMARY,
  ROLE_HOOK_MESSAGE,
  ROLE_OTHER,
  ROLE_TOOL_RESULT,
  ROLE_UNKNOWN,
  ROLE_USER,
  roleCode,
  scanMessagePrefix,
  type MessagePrefix,
} from '../../lib/session/prefix-scan.ts';

function scan(line: string): (MessagePrefix & { id: string; parent: string | null; result: string | undefined }) | undefined {
  const buffer = Buffer.from(line);
  const out: MessagePrefix = { idStart: 0, idEnd: 0, parentStart: 0, parentEnd: 0, role: 0, resultStart: 0, resultEnd: 0, plainEnvelope: false };
  if (!scanMessagePrefix(buffer, 0, buffer.length, out)) return undefined;
  return {
    ...out,
    id: buffer.toString('utf8', out.idStart, out.idEnd),
    parent: out.parentStart < 0 ? null : buffer.toString('utf8', out.parentStart, out.parentEnd),
    result: out.resultStart < 0 ? undefined : buffer.toString('utf8', out.resultStart, out.resultEnd),
  };
}

test('the writers shape: id, parent, role and a tool result id, without parsing', () => {
  const line = JSON.stringify({ type: 'message', id: 'd6dd2b31', parentId: '520a7433', timestamp: '2026-07-20T09:00:04.000Z', message: { role: 'toolResult', toolCallId: 'toolu_01', content: [] } });
  assert.deepEqual(
    (({ id, parent, role, result }) => ({ id, parent, role, result }))(scan(line)!),
    { id: 'd6dd2b31', parent: '520a7433', role: ROLE_TOOL_RESULT, result: 'toolu_01' },
  );
  const root = scan('{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}')!;
  assert.equal(root.parent, null);
  assert.equal(root.role, ROLE_USER);
  assert.equal(scan('{"type":"message","id":"a","parentId":"","message":{"role":"assistant"}}')!.parent, '');
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"message":{"role":"assistant"}}')!.role, ROLE_ASSISTANT);
});

test('roles and tool result ids the prefix cannot settle are left unknown', () => {
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"content":"x","role":"user"}}')!.role, ROLE_UNKNOWN);
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"timestamp":"t","extra":1,"message":{"role":"user"}}')!.role, ROLE_UNKNOWN);
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"timestamp":"t\\u0041","message":{"role":"user"}}')!.role, ROLE_UNKNOWN);
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"message":{"role":"us\\u0065r"}}')!.role, ROLE_UNKNOWN);
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"message":{"role":"custom"}}')!.role, ROLE_OTHER);
  const spaced = scan('{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":" x "}}')!;
  assert.equal(spaced.role, ROLE_TOOL_RESULT);
  assert.equal(spaced.result, undefined, 'an id trim() would change is not taken');
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":""}}')!.result, undefined);
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolUseId":"x"}}')!.result, undefined);
});

test('the envelope is plain when the scan read it up to the message, in ASCII', () => {
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"é"}}')!.plainEnvelope, true, 'what follows the envelope does not count');
  assert.equal(scan('{"type":"message","id":"a","parentId":"b","message":{"role":"assistant"}}')!.plainEnvelope, true);
  assert.equal(scan('{"type":"message","id":"é","parentId":null,"message":{"role":"user"}}')!.plainEnvelope, false);
  assert.equal(scan('{"type":"message","id":"a","parentId":"é","message":{"role":"user"}}')!.plainEnvelope, false);
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"timestamp":"é","message":{"role":"user"}}')!.plainEnvelope, false);
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"timestamp":"t","extra":1,"message":{"role":"user"}}')!.plainEnvelope, false, 'a member the scan does not read');
  assert.equal(scan('{"type":"message","id":"a","parentId":null,"message":{"content":"x","role":"user"}}')!.plainEnvelope, false, 'a message that does not start with its role');
});

test('anything else is left to a full parse', () => {
  for (const line of [
    '{"type":"custom","id":"a","parentId":null}',
    '{"id":"a","type":"message","parentId":null,"message":{}}',
    '{"type":"message","id":"","parentId":null,"message":{}}',
    '{"type":"message","id":"a\\"b","parentId":null,"message":{}}',
    '{"type":"message","id":"a","parentId":"b\\u0063","message":{}}',
    '{"type":"message","id":"a","parentId":7,"message":{}}',
    '{"type":"message","id":"a","parentId":null}',
    '{"type":"message","id":"a","message":{}}',
    '{"type":"message","id":"a\u0001","parentId":null,"message":{}}',
    '{"type": "message","id":"a","parentId":null,"message":{}}',
    '{"type":"message","id":"torn',
  ]) {
    assert.equal(scan(line), undefined, line);
  }
});

test('roleCode', () => {
  assert.equal(roleCode('user'), ROLE_USER);
  assert.equal(roleCode('compactionSummary'), ROLE_COMPACTION_SUMMARY);
  assert.equal(roleCode('hookMessage'), ROLE_HOOK_MESSAGE);
  assert.equal(roleCode(null), ROLE_OTHER);
});
