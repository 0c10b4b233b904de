import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HashedIdCounter, HashedIdSet } from '../lib/hashed-ids.ts';

/** Ids shaped like real ones (toolu_…, call_…, Kimi, unicode, empty), many near-duplicates. */
function ids(n: number, seed: number): string[] {
  let state = seed;
  const next = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = next() % 5;
    const token = next().toString(36) + (next() % 7).toString();
    out.push(kind === 0 ? `toolu_01${token}` : kind === 1 ? `call_${token}|fc_${i % 97}` : kind === 2 ? `functions.read:${next() % 50}` : kind === 3 ? `ід-${token}-✓` : token.slice(0, next() % 3));
  }
  return out;
}

test('HashedIdSet answers as a Set<string> does, across growth', () => {
  const set = new HashedIdSet();
  const reference = new Set<string>();
  for (const id of ids(50_000, 7)) {
    assert.equal(set.has(id), reference.has(id), id);
    const added = set.claim(id);
    assert.equal(added, !reference.has(id), id);
    reference.add(id);
    assert.equal(set.size, reference.size);
  }
  for (const id of ids(5_000, 8)) assert.equal(set.has(id), reference.has(id), id);
  assert.ok(set.byteLength < reference.size * 48, `${set.byteLength} bytes for ${reference.size} ids`);
});

test('HashedIdSet takes its first ids from the constructor; add is idempotent', () => {
  const set = new HashedIdSet(['a', 'b', 'a']);
  assert.equal(set.size, 2);
  set.add('a');
  assert.equal(set.size, 2);
  assert.equal(set.claim('b'), false);
  assert.equal(set.claim(''), true);
  assert.equal(set.has(''), true);
  assert.equal(set.has('c'), false);
});

test('HashedIdCounter counts as a Map<string, number> does', () => {
  const counter = new HashedIdCounter();
  const reference = new Map<string, number>();
  for (const id of ids(40_000, 11)) {
    const n = (reference.get(id) ?? 0) + 1;
    reference.set(id, n);
    assert.equal(counter.increment(id), n, id);
  }
  for (const [id, n] of reference) assert.equal(counter.count(id), n);
  assert.equal(counter.count('never seen'), 0);
  assert.equal(counter.size, reference.size);
});

test('past its bound the set moves keys to disk and still answers as a Set<string> does', () => {
  const set = new HashedIdSet([], 1000);
  const reference = new Set<string>();
  try {
    for (const id of ids(30_000, 21)) {
      assert.equal(set.has(id), reference.has(id), id);
      assert.equal(set.claim(id), !reference.has(id), id);
      reference.add(id);
    }
    assert.equal(set.size, reference.size);
    for (const id of reference) assert.equal(set.has(id), true, id);
    for (const id of ids(5_000, 22)) assert.equal(set.has(id), reference.has(id), id);
    // The table stays at its bound; what moved out costs a few bytes a key.
    assert.ok(set.byteLength < 16 * 1024 + reference.size * 4, `${set.byteLength} bytes for ${reference.size} ids`);
  } finally {
    set.dispose();
  }
});

test('past its bound the counter still counts as a Map<string, number> does', () => {
  const counter = new HashedIdCounter(500);
  const reference = new Map<string, number>();
  try {
    for (const id of ids(20_000, 31)) {
      const n = (reference.get(id) ?? 0) + 1;
      reference.set(id, n);
      assert.equal(counter.increment(id), n, id);
    }
    for (const [id, n] of reference) assert.equal(counter.count(id), n);
    assert.equal(counter.count('never seen'), 0);
  } finally {
    counter.dispose();
  }
});
