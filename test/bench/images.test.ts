/**
 * `npm run bench:images` end to end on a small session: both modes run, the parent's check of
 * every output image passes, and every image reached the stage. Sixteen images of 1-4 MB are
 * over Anthropic's 32 MB a request, so on a route with a request-wide limit the pipeline mode
 * would see most of them replaced before the stage (and the bench would stop, as it did).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runBenchScript } from '../helpers/run-bench.ts';

const IMAGES = 16;

interface Row {
  mode: string;
  images: number;
  resized: number;
  kept: number;
  omitted: number;
}

test('the image bench runs both modes on 16 images and every image reaches the stage', { timeout: 120_000 }, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-bench-images-test-'));
  try {
    const run = await runBenchScript('images.ts', ['--sizes', String(IMAGES), '--concurrency', '1', '--modes', 'stage,pipeline', '--dir', dir], { timeout: 110_000, maxBuffer: 1 << 24 });
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { rows: Row[] };
    assert.deepEqual(
      summary.rows.map((row) => row.mode),
      ['stage', 'pipeline'],
    );
    for (const row of summary.rows) {
      assert.equal(row.images, IMAGES);
      assert.equal(row.omitted, 0, row.mode);
      assert.equal(row.resized + row.kept, IMAGES, `${row.mode}: ${JSON.stringify(row)}`);
      assert.ok(row.resized > 0, `${row.mode}: oversized images are resized`);
    }
    // The generated session and outputs go with the run unless --keep.
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
