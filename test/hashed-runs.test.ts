import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HashedRuns } from '../lib/hashed-runs.ts';

function keys(n: number, seed: number): Uint32Array {
  let state = seed;
  const next = (): number => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
  const out = new Uint32Array(n * 2);
  for (let i = 0; i < n; i++) {
    out[i * 2] = next();
    out[i * 2 + 1] = next() || 1;
  }
  return out;
}

test('runs hold every key written, and the filters send few absent keys to disk', () => {
  const runs = new HashedRuns();
  try {
    const written = [keys(3000, 1), keys(5000, 2), keys(1, 3)];
    for (const run of written) runs.write(run.slice(), run.length / 2);
    for (const run of written) for (let i = 0; i < run.length; i += 2) assert.equal(runs.has(run[i]!, run[i + 1]!), true);
    const absent = keys(20_000, 99);
    for (let i = 0; i < absent.length; i += 2) assert.equal(runs.has(absent[i]!, absent[i + 1]!), false);
    // 3 runs: about 1 in 1,000 a run at most (9 here); more means the filter is not doing its job.
    assert.ok(runs.falseMaybes < 120, `${runs.falseMaybes} disk reads for 20,000 absent keys`);
    assert.equal(runs.keys, 8001);
  } finally {
    runs.dispose();
  }
});

test('a run\'s filter takes 16 bits a key, whatever the key count, and still sends few absent keys to disk', () => {
  const runs = new HashedRuns();
  try {
    // 5000 keys: 156.25 blocks of 512 bits. A count rounded up to a power of two (256 blocks) would take 26 bits a key.
    const written = keys(5000, 5);
    runs.write(written.slice(), 5000);
    const fenceBytes = Math.ceil(5000 / 256) * 8;
    assert.equal(runs.byteLength, 157 * 64 + fenceBytes);
    const absent = keys(50_000, 77);
    for (let i = 0; i < absent.length; i += 2) assert.equal(runs.has(absent[i]!, absent[i + 1]!), false);
    // About 1 in 1,000 at 16 bits a key (50 expected); a filter that hashed onto too few blocks would pass far more.
    assert.ok(runs.falseMaybes < 150, `${runs.falseMaybes} disk reads for 50,000 absent keys`);
  } finally {
    runs.dispose();
  }
});
