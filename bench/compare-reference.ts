/**
 * `npm run bench:reference`: throughput side by side with the reference implementation
 * (OpenClaw 2026.9.6, run as a black box through ../shared/oracle/oracle.mjs), on the same
 * messages. Skipped, with a message, when the oracle is not installed; not part of CI.
 *
 * The reference takes a JSON array on stdin and prints the replay copy; we time it on an
 * array of N messages and subtract its start-up (the same command on an empty array). Our
 * side is the CLI's path (sanitizeFile) on the same messages as JSONL, timed in-process.
 * The reference reads its input as one string, which V8 caps at 512 MiB, so a larger input is
 * given to it as consecutive arrays of at most 400 MB, one process each: its time is the sum of
 * those runs less all but one start-up (end to end) or less every start-up (hygiene).
 *
 * Two figures per route and run: `hygiene`, the reference's time less its start-up against our
 * time measured in-process; and `end to end`, both whole processes start to exit (the
 * reference's module import included, and our tsx start-up). With --runs N each route is timed
 * N times and the lowest ratio is reported too.
 *
 * Options: --messages N (default 60000; the reference holds the whole array in memory),
 * --workload agent|mixed-provider (default agent), --runs N (default 1),
 * --oracle PATH (default ../shared/oracle/oracle.mjs beside the project), --out FILE (default
 * bench/reference.json, which bench/report.ts draws beside the bench's figures; each route's
 * row is its run with the lowest hygiene ratio).
 */
import { spawn } from 'node:child_process';
import { closeSync, createReadStream, createWriteStream, existsSync, openSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args.ts';
import { generateSession, type Workload } from './generate.ts';
import { ROUTES, measureRoute } from './measure.ts';
import { machine, type ReferenceResults } from './results.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = benchArgs(import.meta.url, {
  options: { messages: { type: 'string' }, workload: { type: 'string' }, runs: { type: 'string' }, oracle: { type: 'string' }, out: { type: 'string' } },
});
const workload: Workload = values.workload === 'mixed-provider' ? 'mixed-provider' : 'agent';
const runs = Math.max(1, Number(values.runs ?? 1));
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

/** Below the reference's 512 MiB input string, with room for its UTF-16 worst case not needed (ASCII). */
const ARRAY_BYTES = 400e6;

/** Writes the JSONL file's lines as JSON arrays of at most ARRAY_BYTES each; returns their paths. */
async function writeArrays(jsonl: string, dir: string): Promise<string[]> {
  const paths: string[] = [];
  let out: WriteStream | undefined;
  let bytes = 0;
  let rest = '';
  const close = async (): Promise<void> => {
    if (out === undefined) return;
    out.end(']');
    await once(out, 'finish');
    out = undefined;
  };
  const put = async (line: string): Promise<void> => {
    if (out !== undefined && bytes + line.length > ARRAY_BYTES) await close();
    if (out === undefined) {
      paths.push(path.join(dir, `messages-${paths.length}.json`));
      out = createWriteStream(paths[paths.length - 1]!);
      out.write('[');
      bytes = 0;
    } else out.write(',');
    bytes += line.length + 1;
    if (!out.write(line)) await once(out, 'drain');
  };
  for await (const chunk of createReadStream(jsonl, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) if (line !== '') await put(line);
  }
  if (rest !== '') await put(rest);
  await close();
  return paths;
}

const count = Number(values.messages ?? 60_000);
const dir = await mkdtemp(path.join(tmpdir(), 'th-reference-'));
try {
  const jsonl = path.join(dir, 'messages.jsonl');
  await generateSession(jsonl, { messages: count, format: 'messages', workload, seed: 3 });
  const arrays = await writeArrays(jsonl, dir);
  const empty = path.join(dir, 'empty.json');
  await writeFile(empty, '[]');
  const bytes = (await stat(jsonl)).size;
  const megabytes = bytes / 1e6;
  // The reference reads bare messages: drawn beside the bench's bare-messages figures for the agent workload.
  const results: ReferenceResults = {
    date: new Date().toISOString(),
    node: process.version,
    machine: machine(),
    workload: workload === 'agent' ? 'bare-messages' : workload,
    messages: count,
    bytes,
    rows: [],
  };
  process.stdout.write(`${workload}: ${count} messages, ${megabytes.toFixed(0)} MB (the reference reads it as ${arrays.length} array${arrays.length > 1 ? 's' : ''})\n`);
  const perSecond = (ms: number, amount: number): number => Number((amount / (ms / 1000)).toFixed(1));
  for (const route of ROUTES) {
    // Start-up (loading the reference) varies by seconds: take the fastest of three empty runs.
    const startup = Math.min(await timeOracle(route, empty), await timeOracle(route, empty), await timeOracle(route, empty));
    const hygiene: number[] = [];
    const endToEnd: number[] = [];
    let lowest: { reference: number; ours: number; ratio: number } | undefined;
    for (let run = 0; run < runs; run++) {
      let total = 0;
      for (const array of arrays) total += await timeOracle(route, array);
      const whole = total - (arrays.length - 1) * startup;
      const ours = await measureRoute(jsonl, path.join(dir, 'out.jsonl'), route);
      const reference = whole - startup;
      if (reference <= 0) {
        // Too few messages: the start-up's own variation is larger than the work.
        process.stdout.write(`${route.label.padEnd(18)} reference not measurable on ${count} messages (its start-up varies by more than the run takes); give more --messages\n`);
        continue;
      }
      hygiene.push(reference / ours.ms);
      endToEnd.push(whole / ours.processMs);
      if (lowest === undefined || reference / ours.ms < lowest.ratio) lowest = { reference, ours: ours.ms, ratio: reference / ours.ms };
      process.stdout.write(
        `${route.label.padEnd(18)} reference ${(whole / 1000).toFixed(1).padStart(6)} s (start-up ${(startup / 1000).toFixed(1)} s)   ours ${(ours.ms / 1000).toFixed(1).padStart(6)} s (process ${(ours.processMs / 1000).toFixed(1)} s)   hygiene ${hygiene.at(-1)!.toFixed(2)}x   end to end ${endToEnd.at(-1)!.toFixed(2)}x\n`,
      );
    }
    if (hygiene.length > 1) process.stdout.write(`${route.label.padEnd(18)} lowest of ${hygiene.length}: hygiene ${Math.min(...hygiene).toFixed(2)}x, end to end ${Math.min(...endToEnd).toFixed(2)}x\n`);
    if (lowest === undefined) continue;
    results.rows.push({
      route: route.label,
      referenceMs: Math.round(lowest.reference),
      referenceMbPerSecond: perSecond(lowest.reference, megabytes),
      referenceMessagesPerSecond: Math.round(perSecond(lowest.reference, count)),
      oursMs: Math.round(lowest.ours),
      oursMbPerSecond: perSecond(lowest.ours, megabytes),
      oursMessagesPerSecond: Math.round(perSecond(lowest.ours, count)),
    });
  }
  const out = path.resolve(values.out ?? path.join(here, 'reference.json'));
  await writeFile(out, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(`wrote ${out} (npm run bench:report draws it)\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
