/**
 * `npm run bench:reference`: throughput side by side with the reference implementation
 * (OpenClaw 2026.9.6, run as a black box through ../shared/oracle/oracle.mjs), on the same
 * messages. Skipped, with a message, when the oracle is not installed; not part of CI.
 *
 * The reference takes a JSON array on stdin and prints the replay copy; we time it on an
 * array of N messages and subtract its start-up (the same command on an empty array). Our
 * side is the CLI's path (sanitizeFile) on the same messages as JSONL, timed in-process.
 *
 * Options: --messages N (default 60000; the reference holds the whole array in memory),
 * --oracle PATH (default ../shared/oracle/oracle.mjs beside the project), --out FILE (default
 * bench/reference.json, which bench/report.ts draws beside the bench's bare-messages figures).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateSession } from './generate.ts';
import { ROUTES, measureRoute } from './measure.ts';
import { machine, type ReferenceResults } from './results.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({ options: { messages: { type: 'string' }, oracle: { type: 'string' }, out: { type: 'string' } } });
const oracle = values.oracle ?? path.resolve(here, '../../shared/oracle/oracle.mjs');
const cache = process.env.TH_PEER_DIR ?? path.join(homedir(), '.cache', 'th-peer');
if (!existsSync(oracle) || !existsSync(path.join(cache, 'node_modules', 'openclaw'))) {
  process.stdout.write(`reference comparison skipped: the oracle is not installed (${oracle}; run ../shared/oracle/setup.sh)\n`);
  process.exit(0);
}

async function timeOracle(route: (typeof ROUTES)[number], input: string): Promise<number> {
  const started = performance.now();
  // The oracle reads stdin with readFileSync, which fails on a pipe: give it the file itself.
  const fd = openSync(input, 'r');
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [oracle, '--provider', route.provider, '--model-api', route.modelApi, '--model-id', route.modelId], {
        stdio: [fd, 'ignore', 'inherit'],
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`oracle exited ${code}`))));
    });
  } finally {
    closeSync(fd);
  }
  return performance.now() - started;
}

const count = Number(values.messages ?? 60_000);
const dir = await mkdtemp(path.join(tmpdir(), 'th-reference-'));
try {
  const jsonl = path.join(dir, 'messages.jsonl');
  await generateSession(jsonl, { messages: count, format: 'messages', seed: 3 });
  const lines = (await readFile(jsonl, 'utf8')).split('\n').filter(Boolean);
  const array = path.join(dir, 'messages.json');
  await writeFile(array, '[' + lines.join(',') + ']');
  const empty = path.join(dir, 'empty.json');
  await writeFile(empty, '[]');
  const bytes = (await stat(jsonl)).size;
  const megabytes = bytes / 1e6;
  const results: ReferenceResults = { date: new Date().toISOString(), node: process.version, machine: machine(), workload: 'bare-messages', messages: count, bytes, rows: [] };
  process.stdout.write(`${count} messages, ${megabytes.toFixed(0)} MB\n`);
  for (const route of ROUTES) {
    // Start-up (loading the reference) varies by seconds: take the fastest of three empty runs.
    const startup = Math.min(await timeOracle(route, empty), await timeOracle(route, empty), await timeOracle(route, empty));
    const reference = (await timeOracle(route, array)) - startup;
    const ours = (await measureRoute(jsonl, path.join(dir, 'out.jsonl'), route)).ms;
    if (reference <= 0) {
      // Too few messages: the start-up's own variation is larger than the work.
      process.stdout.write(`${route.label.padEnd(18)} reference not measurable on ${count} messages (its start-up varies by more than the run takes); give more --messages\n`);
      continue;
    }
    const perSecond = (ms: number, amount: number): number => Number((amount / (ms / 1000)).toFixed(1));
    results.rows.push({
      route: route.label,
      referenceMs: Math.round(reference),
      referenceMbPerSecond: perSecond(reference, megabytes),
      referenceMessagesPerSecond: Math.round(perSecond(reference, count)),
      oursMs: Math.round(ours),
      oursMbPerSecond: perSecond(ours, megabytes),
      oursMessagesPerSecond: Math.round(perSecond(ours, count)),
    });
    process.stdout.write(
      `${route.label.padEnd(18)} reference ${(megabytes / (reference / 1000)).toFixed(1).padStart(6)} MB/s   ours ${(megabytes / (ours / 1000)).toFixed(1).padStart(6)} MB/s   ours/reference ${(reference / ours).toFixed(2)}x\n`,
    );
  }
  const out = path.resolve(values.out ?? path.join(here, 'reference.json'));
  await writeFile(out, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(`wrote ${out} (npm run bench:report draws it)\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
