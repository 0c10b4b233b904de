import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetLines, type FormatComparison } from '../../bench/targets.ts';
import type { BenchRow } from '../../bench/results.ts';

function row(workload: string, route: string, size: number, ratio: number | null, peakRssMb: number): BenchRow {
  return { case: `${workload} ${route} ${size}`, workload, route, size, messages: size, bytes: size * 5000, ms: 1000, mbPerSecond: 1, messagesPerSecond: 1, peakRssMb, ratioToFloor: ratio };
}

test('every target met: each line says so with its count', () => {
  const rows = [
    row('mixed-details', 'floor', 20_000, null, 100),
    row('mixed-details', 'anthropic', 20_000, 0.9, 125),
    row('mixed-details', 'anthropic', 1_000_000, 2.1, 140),
  ];
  const pairs: FormatComparison[] = [{ workload: 'mixed-details', size: 1_000_000, route: 'anthropic', time: 1.04, cpu: 1.08, rss: 1.0 }];
  assert.deepEqual(targetLines(rows, pairs), [
    'throughput at least 1.6x the floor from 200k messages: met (1 of 1)',
    'peak RSS below 200 MB: met (2 of 2)',
    'peak RSS growing at most 1.15x from the smallest size to the largest: met (1 of 1)',
    "session file within 10% of the bare messages' time: met (1 of 1)",
  ]);
});

test('a miss names the case and its figure; small sizes do not count for throughput; the database format is left out', () => {
  const rows = [
    row('mixed-details', 'anthropic', 20_000, 0.8, 123),
    row('mixed-details', 'anthropic', 200_000, 1.27, 132),
    row('mixed-details', 'anthropic', 1_000_000, 2.13, 143),
    row('mixed-details (bare messages)', 'openai-responses', 20_000, 0.81, 127),
    row('mixed-details (bare messages)', 'openai-responses', 1_000_000, 1.86, 138),
    row('agent (database)', 'anthropic', 1_000_000, 0.5, 250),
  ];
  const pairs: FormatComparison[] = [
    { workload: 'mixed-details', size: 200_000, route: 'anthropic', time: 1.04, cpu: 1.02, rss: 1.02 },
    { workload: 'mixed-details', size: 1_000_000, route: 'openai-responses', time: 1.27, cpu: 1.29, rss: 1.06 },
  ];
  assert.deepEqual(targetLines(rows, pairs), [
    'throughput at least 1.6x the floor from 200k messages: MISSED in 1 of 3: mixed-details anthropic 200000 1.27',
    'peak RSS below 200 MB: met (5 of 5)',
    'peak RSS growing at most 1.15x from the smallest size to the largest: MISSED in 1 of 2: mixed-details anthropic 20k-1M 1.16x',
    "session file within 10% of the bare messages' time: MISSED in 1 of 2: mixed-details 1M openai-responses 1.27x",
  ]);
});

test('nothing measured that the targets speak of: no lines', () => {
  assert.deepEqual(targetLines([row('agent', 'floor', 10_000, null, 90)], []), []);
});
