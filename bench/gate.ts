/**
 * `npm run bench:gate`: the benchmark regression gate that CI runs (well under a minute).
 *
 * It generates one 100k-message session (with payloads at a quarter of the full bench's
 * size, so each run takes seconds), then runs the floor and two representative routes
 * (anthropic, openai-responses) three times each, interleaved, and keeps each one's best time.
 * It fails (exit 1) when a route's throughput ratio to the floor falls more than 15% below
 * bench/baseline.json, or when the anthropic run's peak RSS exceeds the baseline by more
 * than 25%. `--update` rewrites the baseline from this run.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateSession } from './generate.ts';
import { ROUTES, measureFloor, measureRoute } from './measure.ts';

interface Baseline {
  ratios: Record<string, number>;
  peakRssMb: number;
  note?: string;
}

const RATIO_TOLERANCE = 0.15;
const RSS_TOLERANCE = 0.25;
const ROUNDS = 3;
const GATED = ROUTES.filter((route) => route.label === 'anthropic' || route.label === 'openai-responses');

const { values } = parseArgs({ options: { update: { type: 'boolean' } } });
const baselinePath = path.join(path.dirname(fileURLToPath(import.meta.url)), 'baseline.json');
const started = performance.now();
const dir = await mkdtemp(path.join(tmpdir(), 'th-gate-'));
try {
  const input = path.join(dir, 'session.jsonl');
  const output = path.join(dir, 'out.jsonl');
  // No compactions: every message goes through the rules.
  const generated = await generateSession(input, { messages: 100_000, format: 'session', seed: 7, payloadScale: 0.25, compactionEvery: 0 });
  const best: Record<string, number> = {};
  let peakRssKb = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const floor = await measureFloor(input, output);
    best.floor = Math.min(best.floor ?? Infinity, floor.ms);
    for (const route of GATED) {
      const measured = await measureRoute(input, output, route);
      best[route.label] = Math.min(best[route.label] ?? Infinity, measured.ms);
      if (route.label === 'anthropic') peakRssKb = Math.max(peakRssKb, measured.maxRssKb);
    }
  }
  const ratios = Object.fromEntries(GATED.map((route) => [route.label, Number((best.floor! / best[route.label]!).toFixed(3))]));
  const peakRssMb = Number((peakRssKb / 1024).toFixed(1));
  const mb = generated.bytes / 1e6;
  process.stdout.write(`gate input: ${generated.messages} messages, ${mb.toFixed(0)} MB; floor ${(mb / (best.floor! / 1000)).toFixed(1)} MB/s\n`);
  for (const route of GATED) process.stdout.write(`  ${route.label.padEnd(18)} ${(mb / (best[route.label]! / 1000)).toFixed(1).padStart(7)} MB/s  ratio to floor ${ratios[route.label]!.toFixed(3)}\n`);
  process.stdout.write(`  anthropic peak RSS ${peakRssMb} MB\n`);

  if (values.update) {
    const baseline: Baseline = { ratios, peakRssMb, note: `measured ${new Date().toISOString()} by npm run bench:gate -- --update` };
    await writeFile(baselinePath, JSON.stringify(baseline, null, 2) + '\n');
    process.stdout.write(`baseline written to ${baselinePath}\n`);
  } else {
    const baseline = JSON.parse(await readFile(baselinePath, 'utf8')) as Baseline;
    const failures: string[] = [];
    for (const route of GATED) {
      const expected = baseline.ratios[route.label];
      if (expected === undefined) continue;
      const floorRatio = expected * (1 - RATIO_TOLERANCE);
      if (ratios[route.label]! < floorRatio) {
        failures.push(`${route.label}: ratio to floor ${ratios[route.label]!.toFixed(3)} is more than 15% below the baseline ${expected.toFixed(3)}`);
      }
    }
    if (peakRssMb > baseline.peakRssMb * (1 + RSS_TOLERANCE)) {
      failures.push(`anthropic 100k: peak RSS ${peakRssMb} MB is more than 25% above the baseline ${baseline.peakRssMb} MB`);
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (failures.length > 0) {
      process.stdout.write(`bench gate FAILED in ${seconds} s:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(`bench gate passed in ${seconds} s (baseline: ${JSON.stringify(baseline.ratios)}, ${baseline.peakRssMb} MB)\n`);
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
