/**
 * `npm run bench` checks before it generates anything that the disk holds its largest case
 * (bench/disk-need.ts): the estimate, and the refusal of a real run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchDiskNeed } from '../../bench/disk-need.ts';
import { runBenchScript } from '../helpers/run-bench.ts';

test('the largest size of the largest workload, as input and output', () => {
  assert.equal(benchDiskNeed({ sizes: [10_000, 1_000_000], workloads: ['mixed-provider', 'agent'], formats: ['session', 'messages'], pairs: 0 }), 1_000_000 * 6_600 * 2);
  assert.equal(benchDiskNeed({ sizes: [200_000], workloads: ['mixed-details'], formats: ['messages'], pairs: 0 }), 200_000 * 5_600 * 2);
});

test('pairs over both text formats, and the database format, keep a third file', () => {
  assert.equal(benchDiskNeed({ sizes: [1_000_000], workloads: ['mixed-details'], formats: ['session', 'messages'], pairs: 3 }), 1_000_000 * 5_600 * 3);
  // Pairs need both formats: with one, nothing waits.
  assert.equal(benchDiskNeed({ sizes: [1_000_000], workloads: ['mixed-details'], formats: ['session'], pairs: 3 }), 1_000_000 * 5_600 * 2);
  assert.equal(benchDiskNeed({ sizes: [20_000], workloads: ['agent'], formats: ['database'], pairs: 0 }), 20_000 * 6_600 * 3);
});

test('npm run bench refuses to start when the disk cannot hold the largest case, and leaves nothing behind', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-disk-need-'));
  try {
    // 10^11 messages: more than any disk holds, so the check must answer before a byte is generated.
    const run = await runBenchScript('bench.ts', ['--sizes', '100000000000', '--workloads', 'mixed-details', '--formats', 'messages', '--images', '0', '--dir', dir], { timeout: 30_000 });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^bench\/bench\.ts: .* has [\d.]+ GB free and the largest case needs about 1120000\.0 GB at once .*: give --dir on a larger disk or smaller --sizes \(--help lists the options\)\n$/);
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
