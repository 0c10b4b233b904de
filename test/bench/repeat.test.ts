/**
 * `npm run bench -- --repeat N`: each case runs N times in rounds side by side, and its row holds
 * the medians with the range of one round's ratios (bench/bench.ts). Run for real on a small
 * generated session: the floor and every route are real child processes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchResults } from '../../bench/results.ts';
import { runBenchScript, type BenchRun } from '../helpers/run-bench.ts';


function bench(args: string[]): Promise<BenchRun> {
  return runBenchScript('bench.ts', args, { timeout: 180_000 });
}

test('--repeat 2 runs two rounds and keeps each row\'s medians and the range of its rounds', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-repeat-'));
  try {
    const results = path.join(dir, 'results.json');
    const run = await bench(['--sizes', '400', '--workloads', 'agent', '--formats', 'messages', '--images', '0', '--repeat', '2', '--dir', dir, '--results', results]);
    assert.equal(run.code, 0, run.stderr);
    const rounds = run.stdout.split('\n').filter((line) => /round [12]\/2: floor [\d.]+ s; ratios anthropic [\d.]+, openai-responses [\d.]+, google [\d.]+$/.test(line));
    assert.equal(rounds.length, 2, run.stdout);
    const written = JSON.parse(await readFile(results, 'utf8')) as BenchResults;
    assert.deepEqual(written.rows.filter((row) => row.route === 'floor').map((row) => row.rounds), [2]);
    const routes = written.rows.filter((row) => row.route !== 'floor');
    assert.deepEqual(routes.map((row) => row.route), ['anthropic', 'openai-responses', 'google']);
    for (const row of routes) {
      assert.equal(row.rounds, 2);
      const [low, high] = row.ratioRange!;
      // With two rounds the ratio of the medians lies between the rounds' ratios (their mediant).
      assert.ok(low <= row.ratioToFloor! && row.ratioToFloor! <= high, `${row.case}: ${row.ratioToFloor} within ${low}-${high}`);
      assert.match(run.stdout, new RegExp(`${row.case} .* ratio +${row.ratioToFloor!.toFixed(2)}  \\(rounds: ${low.toFixed(2)}-${high.toFixed(2)}\\)`));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--repeat refuses a count that is not a positive whole number, before measuring anything', async () => {
  for (const bad of ['0', '1.5', 'two']) {
    const run = await bench(['--repeat', bad, '--sizes', '400', '--images', '0']);
    assert.equal(run.code, 2, `--repeat ${bad}`);
    assert.equal(run.stdout, '');
    assert.match(run.stderr.trim(), new RegExp(`^bench/bench\\.ts: --repeat: ${bad} is not a count of rounds \\(--help lists the options\\)$`));
  }
});
