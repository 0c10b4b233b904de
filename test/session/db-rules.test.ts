/**
 * The index pass under the database rules (OpenClaw 2026.9's tree scan) against the file rules,
 * on records written here (not OpenClaw's: the fixture databases cover what its importer keeps),
 * each read both by the prefix scan and parsed whole.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { activePath } from '../../lib/session/active-path.ts';
import { buildRecordIndex, type SessionIndex, type SessionRules } from '../../lib/session/index-pass.ts';

const HEADER = { type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' };
const message = (id: string, parentId: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: id, timestamp: 1 }, ...extra });

function index(records: unknown[], rules: SessionRules, fullParse: boolean): SessionIndex {
  const texts = [HEADER, ...records].map((record) => JSON.stringify(record));
  return buildRecordIndex({
    path: 'mem',
    source: 'mem',
    records: () => texts.map((text, i) => ({ bytes: Buffer.from(text), offset: i, line: i + 1 })),
    reader: { text: (offset) => texts[offset]! },
    size: texts.length + 1,
    fullParse,
    rules,
  });
}

const pathIds = (records: unknown[], rules: SessionRules, fullParse: boolean): string[] => {
  const built = index(records, rules, fullParse);
  return Array.from(activePath(built), (entry) => built.ids.idOf(nameOf(built, entry)));
};
function nameOf(built: SessionIndex, entry: number): number {
  for (let name = 0; name < built.ids.size; name++) if (built.ids.entryOf.get(name) === entry) return name;
  return -1;
}

for (const fullParse of [false, true]) {
  const how = fullParse ? 'parsed whole' : 'prefix-scanned';
  test(`an unknown parent in the middle: the file rules cut the path there, the database rules re-attach to the leaf (${how})`, () => {
    const records = [message('a', null), message('b', 'a'), message('c', 'nobody'), message('d', 'c')];
    assert.deepEqual(pathIds(records, 'file', fullParse), ['c', 'd']);
    assert.deepEqual(pathIds(records, 'openclaw-2026.9', fullParse), ['a', 'b', 'c', 'd']);
  });

  test(`a blank id or parentId: the database rules skip the record (${how})`, () => {
    // Not skipped, either would become the leaf (a blank parent is unknown: re-attached to the leaf).
    assert.deepEqual(pathIds([message('a', null), message('b', 'a'), message('  ', 'b')], 'openclaw-2026.9', fullParse), ['a', 'b']);
    assert.deepEqual(pathIds([message('a', null), message('b', 'a'), message('c', ' ')], 'openclaw-2026.9', fullParse), ['a', 'b']);
  });

  test(`excludeFromContext is flagged under the database rules only (${how})`, () => {
    const records = [message('a', null), { ...message('b', 'a'), message: { role: 'user', content: 'x', excludeFromContext: true } }];
    const flagged = (rules: SessionRules): boolean => (index(records, rules, fullParse).flags.get(1) & 64) !== 0;
    assert.deepEqual([flagged('file'), flagged('openclaw-2026.9')], [false, true]);
  });
}

test('a cycle on the path: the file rules keep what was walked, the database rules give no path (as 2026.9 does)', () => {
  // The second record of id b names c, whose parent is b: a cycle.
  const records = [message('a', null), message('b', 'a'), message('c', 'b'), message('b', 'c')];
  assert.deepEqual(pathIds(records, 'file', true), ['c', 'b']);
  assert.deepEqual(pathIds(records, 'openclaw-2026.9', true), []);
  // A first entry naming itself: under the file rules a root.
  assert.deepEqual(pathIds([message('s', 's')], 'file', true), ['s']);
  assert.deepEqual(pathIds([message('s', 's')], 'openclaw-2026.9', true), []);
});

test('a `leaf` record of another shape: an opaque link under the file rules, ignored under the database rules', () => {
  // Under the file rules it becomes the append parent, so the next entry naming it goes under the leaf.
  const records = [message('a', null), message('b', 'a'), { type: 'leaf', id: 'l', parentId: 'a', targetId: 'a', appendMode: 'other' }, message('c', 'l')];
  assert.deepEqual(pathIds(records, 'file', true), ['a', 'b', 'c']);
  assert.deepEqual(pathIds(records, 'openclaw-2026.9', true), ['a', 'b', 'c']);
  // Named when it is not the append parent: the file rules follow the link to a; to 2026.9 the parent is unknown, so the leaf.
  const later = [message('a', null), message('b', 'a'), { type: 'leaf', id: 'l', parentId: 'a', targetId: 'a', appendMode: 'other' }, message('c', 'b'), message('d', 'l')];
  assert.deepEqual(pathIds(later, 'file', true), ['a', 'd']);
  assert.deepEqual(pathIds(later, 'openclaw-2026.9', true), ['a', 'b', 'c', 'd']);
});
