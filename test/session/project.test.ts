import { test } from 'node:test';
import assert from 'node:assert/strict';
import { branchSummaryMessage, compactionSummaryMessage, customMessage, entryTimestampMs, lineOf, normalizeEntryMessage } from '../../lib/session/project.ts';

const where = { source: 's.jsonl', line: 7 };

test('the three synthetic messages of §6, with their keys in the reference order', () => {
  const ts = '2026-07-20T09:00:09.000Z';
  assert.deepEqual(Object.entries(compactionSummaryMessage({ summary: 'S', tokensBefore: 5, timestamp: ts }, where)), [
    ['role', 'compactionSummary'],
    ['summary', 'S'],
    ['tokensBefore', 5],
    ['timestamp', Date.parse(ts)],
  ]);
  assert.deepEqual(branchSummaryMessage({ summary: 'B', fromId: 'x', timestamp: ts }, where), { role: 'branchSummary', summary: 'B', fromId: 'x', timestamp: Date.parse(ts) });
  assert.deepEqual(customMessage({ customType: 'c', content: 'hi', display: false, details: { a: 1 }, timestamp: ts }, where), {
    role: 'custom',
    customType: 'c',
    content: 'hi',
    display: false,
    details: { a: 1 },
    timestamp: Date.parse(ts),
  });
});

test('an unparsable or numeric timestamp throws, naming file and line (Errata 7)', () => {
  assert.throws(() => compactionSummaryMessage({ summary: 'S', timestamp: 'yesterday' }, where), { code: 'invalid_session', message: 's.jsonl:7: compaction summary timestamp must be a valid timestamp' });
  assert.throws(() => branchSummaryMessage({ summary: 'B', timestamp: 1784538009000 }, where), /branch summary timestamp must be a valid timestamp/);
  assert.throws(() => customMessage({ timestamp: undefined }, { source: 's', line: () => 12 }), { message: 's:12: custom message timestamp must be a valid timestamp', line: 12 });
  assert.equal(entryTimestampMs('2026-07-20T09:00:09Z'), Date.parse('2026-07-20T09:00:09Z'));
  assert.equal(entryTimestampMs('+300000-01-01T00:00:00Z'), undefined);
  assert.equal(lineOf(3), 3);
});

test('load-time normalisation and the v2 -> v3 role rename; untouched messages are the same object', () => {
  const userMessage = { role: 'user', content: 'hi' };
  assert.equal(normalizeEntryMessage(userMessage, true), userMessage);
  assert.deepEqual(normalizeEntryMessage({ role: 'assistant', content: 'a' }, false), { role: 'assistant', content: [{ type: 'text', text: 'a' }] });
  assert.deepEqual(normalizeEntryMessage({ role: 'toolResult', content: { type: 'text', text: 'r' } }, false), { role: 'toolResult', content: [{ type: 'text', text: 'r' }] });
  const arrayContent = { role: 'toolResult', content: [] };
  assert.equal(normalizeEntryMessage(arrayContent, false), arrayContent);
  assert.deepEqual(normalizeEntryMessage({ role: 'hookMessage', content: 'h' }, true), { role: 'custom', content: 'h' });
  assert.deepEqual(normalizeEntryMessage({ role: 'hookMessage', content: 'h' }, false), { role: 'hookMessage', content: 'h' });
  assert.equal(normalizeEntryMessage(null, true), null);
  const keyOrder = normalizeEntryMessage({ z: 1, role: 'hookMessage', a: 2 }, true) as Record<string, unknown>;
  assert.deepEqual(Object.keys(keyOrder), ['z', 'role', 'a']);
});
