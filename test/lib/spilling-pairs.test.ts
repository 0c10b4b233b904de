import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpillingPairs } from '../../lib/spilling-pairs.ts';

const keyOf = (n: number): number => Math.imul(n + 3, 0x9e3779b1) >>> 0;

test('pairs past spillAt move to disk and are still found, by key and by value', () => {
  const pairs = new SpillingPairs(100, 16);
  for (let n = 0; n < 1_000; n++) {
    const at = pairs.find(keyOf(n));
    assert.equal(pairs.valueAt(at), 0);
    assert.equal(pairs.spilledValue(keyOf(n)), -1, `key ${n} is new`);
    pairs.insert(at, keyOf(n), n + 1);
  }
  assert.equal(pairs.size, 1_000);
  assert.equal(pairs.spilled, 1_000, 'ten runs of 100');
  // The table stops at 256 slots (2 KiB); 1,000 pairs all in memory would take 2,048 (16 KiB).
  assert.ok(pairs.byteLength < 8_000, `${pairs.byteLength} bytes for 1,000 pairs`);
  for (let n = 0; n < 1_000; n++) assert.equal(pairs.spilledValue(keyOf(n)), n + 1);
  assert.equal(pairs.keyOf(517), keyOf(516));
  assert.equal(pairs.keyOf(5_000), -1);
  // A new pair stays in the table; its value can change there.
  const at = pairs.find(7);
  pairs.insert(at, 7, 3);
  pairs.setValue(pairs.find(7), 9);
  assert.equal(pairs.valueAt(pairs.find(7)), 9);
  assert.equal(pairs.keyOf(9), 7);
  pairs.dispose();
  assert.equal(pairs.valueAt(pairs.find(7)), 0, 'nothing after dispose');
  assert.equal(pairs.spilledValue(keyOf(3)), -1);
});

test('a spill sorts the table in place: no pair is lost or made twice across growth and spills', () => {
  const pairs = new SpillingPairs(3 << 10, 4);
  const seen = new Map<number, number>();
  for (let n = 0; n < 20_000; n++) {
    const key = keyOf(n % 9_000); // repeats: the first value stays where the key is on disk
    const at = pairs.find(key);
    if (pairs.valueAt(at) !== 0 || pairs.spilledValue(key) >= 0) continue;
    pairs.insert(at, key, n + 1);
    seen.set(key, n + 1);
  }
  assert.equal(seen.size, 9_000);
  for (const [key, value] of seen) assert.equal(Math.max(pairs.valueAt(pairs.find(key)), pairs.spilledValue(key)), value);
});
