import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { buildSessionIndex, type SessionIndex } from '../../lib/session/index-pass.ts';
import { activePath, planEmission, resolveCanonicalName } from '../../lib/session/active-path.ts';
import { HEADER, entry, tempDir, user, writeSession } from './helpers/files.ts';

async function indexOf(lines: unknown[]): Promise<SessionIndex> {
  const { dir, cleanup } = await tempDir();
  try {
    return await buildSessionIndex(await writeSession(path.join(dir, 's.jsonl'), lines));
  } finally {
    await cleanup();
  }
}

/** The ids of entry numbers (entries are numbered in file order, the header excluded). */
function idsOf(index: SessionIndex, entries: ArrayLike<number>): string[] {
  const byEntry = new Map<number, string>();
  for (let name = 0; name < index.ids.size; name++) {
    const e = index.ids.entryOf.get(name);
    if (e >= 0) byEntry.set(e, index.ids.idOf(name));
  }
  return Array.from(entries, (e) => byEntry.get(e)!);
}

const compaction = (id: string, parentId: string, firstKeptEntryId: unknown): Record<string, unknown> => ({
  type: 'compaction',
  id,
  parentId,
  timestamp: '2026-07-23T10:00:09.000Z',
  summary: 'S-' + id,
  firstKeptEntryId,
  tokensBefore: 1,
});

test('without a compaction every emitting entry of the path; labels and settings emit nothing', async () => {
  const index = await indexOf([
    HEADER,
    entry('a', null, user('a')),
    { type: 'label', id: 'l', parentId: 'a', targetId: 'a', label: 'x' },
    { type: 'branch_summary', id: 'bs0', parentId: 'l', fromId: 'l', summary: '' },
    { type: 'branch_summary', id: 'bs1', parentId: 'bs0', fromId: 'bs0', summary: 'back' },
    entry('b', 'bs1', user('b')),
  ]);
  const plan = planEmission(index);
  assert.deepEqual(idsOf(index, plan.path), ['a', 'l', 'bs0', 'bs1', 'b']);
  assert.deepEqual(idsOf(index, plan.entries), ['a', 'bs1', 'b']);
  assert.equal(plan.compaction, -1);
});

test('the latest compaction: its kept range, then what follows it; an earlier compaction emits nothing', async () => {
  const lines = [
    HEADER,
    entry('a', null, user('a')),
    entry('b', 'a', user('b')),
    compaction('c1', 'b', 'a'),
    entry('d', 'c1', user('d')),
    compaction('c2', 'd', 'b'),
    entry('e', 'c2', user('e')),
  ];
  const index = await indexOf(lines);
  const plan = planEmission(index);
  assert.deepEqual(idsOf(index, [plan.compaction]), ['c2']);
  assert.deepEqual(idsOf(index, plan.entries), ['b', 'd', 'e']);
  assert.equal(plan.firstKept, 1);
});

test('a firstKeptEntryId not on the path before the compaction keeps nothing before it', async () => {
  for (const kept of ['e', 'elsewhere', 'missing', 42, undefined]) {
    const index = await indexOf([
      HEADER,
      entry('a', null, user('a')),
      entry('elsewhere', null, user('other branch')),
      entry('b', 'a', user('b')),
      compaction('c', 'b', kept),
      entry('e', 'c', user('e')),
    ]);
    const plan = planEmission(index);
    assert.equal(plan.firstKept, -1, String(kept));
    assert.deepEqual(idsOf(index, plan.entries), ['e']);
  }
});

test('a firstKeptEntryId naming an opaque link keeps from its nearest real ancestor (Errata 1)', async () => {
  const index = await indexOf([
    HEADER,
    entry('a', null, user('a')),
    entry('b', 'a', user('b')),
    { type: 'x-telemetry', id: 'o', parentId: 'b', data: {} },
    entry('d', 'o', user('d')),
    compaction('c', 'd', 'o'),
  ]);
  assert.equal(resolveCanonicalName(index, index.ids.lookup('o')), index.ids.lookup('b'));
  assert.deepEqual(idsOf(index, planEmission(index).entries), ['b', 'd']);
});

test('leaf records as parents: a valid one links to its target, an invalid one through its own parent (Errata 2, 3)', async () => {
  const valid = await indexOf([
    HEADER,
    entry('a', null, user('a')),
    entry('b', 'a', user('b')),
    { type: 'leaf', id: 'L', parentId: 'b', targetId: 'a' },
    entry('c', 'L', user('c')),
  ]);
  assert.deepEqual(idsOf(valid, activePath(valid)), ['a', 'c']);
  const invalid = await indexOf([
    HEADER,
    entry('a', null, user('a')),
    entry('b', 'a', user('b')),
    { type: 'leaf', id: 'L', parentId: 'b', targetId: 'not-yet' },
    entry('c', 'L', user('c')),
    entry('not-yet', 'c', user('later')),
  ]);
  // The leaf record is invalid (its target comes later): c links through it to b.
  assert.deepEqual(idsOf(invalid, activePath(invalid)), ['a', 'b', 'c', 'not-yet']);
});

test('cycles stop at the repeated id; an entry naming itself has no parent', async () => {
  const cycle = await indexOf([HEADER, entry('e1', 'e2', user('1')), entry('e2', 'e1', user('2'))]);
  assert.deepEqual(idsOf(cycle, activePath(cycle)), ['e1', 'e2']);
  const self = await indexOf([HEADER, entry('s', 's', user('self'))]);
  assert.deepEqual(idsOf(self, activePath(self)), ['s']);
  const opaqueLoop = await indexOf([HEADER, { type: 'x', id: 'o1', parentId: 'o2' }, { type: 'x', id: 'o2', parentId: 'o1' }, entry('a', 'o1', user('a'))]);
  assert.equal(resolveCanonicalName(opaqueLoop, opaqueLoop.ids.lookup('o1')), -1);
  assert.deepEqual(idsOf(opaqueLoop, activePath(opaqueLoop)), ['a']);
});

test('a leaf record with a null target: nothing is emitted', async () => {
  const index = await indexOf([HEADER, entry('a', null, user('a')), { type: 'leaf', id: 'L', parentId: 'a', targetId: null }]);
  assert.equal(index.leafName, -1);
  assert.equal(activePath(index).length, 0);
});

test('past several 64K blocks (kept as steps): a duplicate id and a branch back into the first block still give the path', { timeout: 60_000 }, async () => {
  const BLOCK = 65_536;
  const linear = 3 * BLOCK;
  // Distinct 8-hex-digit ids, as the writers make them (multiplying by an odd number is a bijection mod 2^32).
  const idOf = (i: number): string => (Math.imul(i + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0');
  const lines: unknown[] = [HEADER];
  // The last record with an id wins: its entry number and its parent.
  const byId = new Map<string, { entry: number; parentId: string | null }>();
  const add = (id: string, parentId: string | null): void => {
    byId.set(id, { entry: lines.length - 1, parentId });
    lines.push(entry(id, parentId, user('m')));
  };
  for (let i = 0; i < linear; i++) add(idOf(i), i === 0 ? null : i === 70_000 ? 'zzzzzzzz' : idOf(i - 1));
  // The id of entry 20 again, under entry 3, then 999 entries on it: the leaf's path jumps back into the first block.
  add(idOf(20), idOf(3));
  for (let i = 1; i < 1_000; i++) add(idOf(linear + i), i === 1 ? idOf(20) : idOf(linear + i - 1));
  const expected: number[] = [];
  for (let id: string | null = idOf(linear + 999); id !== null && byId.has(id); id = byId.get(id)!.parentId) expected.push(byId.get(id)!.entry);
  expected.reverse();
  assert.deepEqual(expected.slice(0, 6), [0, 1, 2, 3, linear, linear + 1]);

  const index = await indexOf(lines);
  assert.deepEqual([...activePath(index)], expected);
  // Three full blocks of parents and of entries by name kept as steps: the block being filled is the only array.
  assert.ok(index.parentName.byteLength < BLOCK * 4 + 1024, `parents: ${index.parentName.byteLength} bytes`);
  assert.ok(index.ids.entryOf.byteLength < BLOCK * 4 + 1024, `entries by name: ${index.ids.entryOf.byteLength} bytes`);
});

test('planned over the path (overwritePath), the entries, the compaction and the kept range are the same', async () => {
  const sessions = [
    [HEADER, entry('a', null, user('a')), { type: 'label', id: 'l', parentId: 'a', targetId: 'a', label: 'x' }, entry('b', 'l', user('b'))],
    [HEADER, entry('a', null, user('a')), entry('b', 'a', user('b')), compaction('c1', 'b', 'a'), entry('d', 'c1', user('d')), compaction('c2', 'd', 'b'), entry('e', 'c2', user('e'))],
    // Kept from the root: the entry after the compaction comes to stand where the compaction was.
    [HEADER, entry('a', null, user('a')), entry('b', 'a', user('b')), compaction('c', 'b', 'a'), entry('e', 'c', user('e'))],
  ];
  for (const lines of sessions) {
    const index = await indexOf(lines);
    const apart = planEmission(index);
    const path = activePath(index);
    const over = planEmission(index, path, { overwritePath: true });
    assert.deepEqual([...over.entries], [...apart.entries]);
    assert.equal(over.entries.buffer, path.buffer, 'written over the path');
    assert.deepEqual([over.compaction, over.retained, over.firstKept], [apart.compaction, apart.retained, apart.firstKept]);
  }
});
