/**
 * `npm run bench:export`: the batch export over 500 sessions, 2 GB in all, with --jobs 1 and
 * --jobs 2; throughput and the peak RSS of the whole export (parent and worker threads: one
 * process, so its maxRSS covers them all).
 *
 * The sessions are generated once (seeded; bench/generate.ts, OpenClaw session entries and bare
 * messages, sizes spread from about 0.2 to 25 MB) into the OS temporary directory and reused.
 * Each export runs as `transcript-hygiene export` in a fresh process, on the Anthropic route,
 * into an empty directory that is removed afterwards; its figures come from the export's own
 * report (DIR/export-report.json: bytes, duration, peak RSS, CPU; the duration runs from the
 * export's start to its report, node's and tsx's start-up not included). Then:
 *
 *   resume   the same export again over the finished directory: every output current, skipped
 *   floor    reading, JSON.parse, JSON.stringify and writing every line of the same files with no
 *            rules, on one thread (bench/floor.ts), for scale
 *
 * With --queue: the same archive through `export --queue` on a redis-server started here (random
 * local port, no persistence) with 1 and 2 `worker` processes (--concurrency 1 each, so N workers
 * compare with --jobs N), after the local export with --jobs 1 and 2; the workers' CPU and peak
 * RSS are read from /proc and added to the coordinator's. Broker cost per job, divided by the
 * sessions exported: round trips (the commands clients send, counted with MONITOR; a Lua script
 * is one), the commands the broker executes (INFO commandstats, those inside scripts too), and
 * network bytes (INFO stats).
 *
 * Options: --sessions N (500), --bytes N (2e9), --jobs 1,2, --seed N, --regenerate, --keep,
 * --no-floor, --queue, --workers 1,2, --json (print the results as JSON).
 *
 * Read MB/s against the floor's: these machines are shared and noisy.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { benchArgs } from './args.ts';
import { generateSession } from './generate.ts';
import { startRedis, type RedisServer } from '../test/queue/redis-server.ts';
import { CommandProcess } from '../test/queue/processes.ts';
import { runFloor } from './floor.ts';
import type { ExportReport } from '../lib/export/report.ts';

const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), '..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const run = promisify(execFile);
const ROUTE = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
/** bench/generate.ts writes about this many bytes a message at payload scale 1. */
const BYTES_PER_MESSAGE = 6400;

/** mulberry32 */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function listSessions(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).filter((name) => name.endsWith('.jsonl')).sort().map((name) => path.join(dir, name));
}

/** Generates the sessions unless a complete set with the same shape is there. */
async function ensureDataset(dir: string, sessions: number, bytes: number, seed: number, regenerate: boolean): Promise<{ files: string[]; bytes: number }> {
  const marker = path.join(dir, '.complete');
  const shape = JSON.stringify({ sessions, bytes, seed });
  if (!regenerate && existsSync(marker) && (await readFile(marker, 'utf8')) === shape) {
    const files = await listSessions(path.join(dir, 'agents'));
    let total = 0;
    for (const file of files) total += (await stat(file)).size;
    return { files, bytes: total };
  }
  await rm(dir, { recursive: true, force: true });
  const random = prng(seed);
  // Log-uniform weights over a 1:100 range: many small sessions, a few large ones.
  const weights = Array.from({ length: sessions }, () => Math.exp(random() * Math.log(100)));
  const sum = weights.reduce((a, b) => a + b, 0);
  process.stderr.write(`bench:export: generating ${sessions} sessions, ${(bytes / 1e9).toFixed(1)} GB, into ${dir}\n`);
  const files: string[] = [];
  let total = 0;
  for (let i = 0; i < sessions; i++) {
    const file = path.join(dir, 'agents', `agent-${i % 10}`, 'sessions', `${String(i).padStart(4, '0')}.jsonl`);
    await mkdir(path.dirname(file), { recursive: true });
    const messages = Math.max(10, Math.round((weights[i]! / sum) * bytes / BYTES_PER_MESSAGE));
    const summary = await generateSession(file, { messages, format: i % 3 === 0 ? 'messages' : 'session', seed: seed * 10_000 + i, compactionEvery: 2000 });
    files.push(file);
    total += summary.bytes;
  }
  await writeFile(marker, shape);
  return { files, bytes: total };
}

interface Row {
  case: string;
  /** The run's own duration (from its start to its report; node and tsx start-up not included). */
  seconds: number;
  mbPerSecond: number;
  peakRssMb: number;
  cpuSeconds: number | null;
  /** MB per CPU-second (user + system): less sensitive than MB/s to other load on the machine. */
  mbPerCpuSecond: number | null;
  exported: number;
  skipped: number;
  failed: number;
  /** export --queue, per exported session: round trips (commands sent by the clients; a Lua script is one) ... */
  roundTripsPerJob?: number;
  /** ... the commands the broker executed (those inside scripts too), and network bytes. */
  commandsPerJob?: number;
  brokerBytesPerJob?: number;
  /** export --queue: the round trips behind roundTripsPerJob, most first. */
  topCommands?: string;
}

async function exportOnce(input: string, out: string, jobs: number, extra: string[] = []): Promise<ExportReport & { wallMs: number }> {
  const started = performance.now();
  await run(process.execPath, [bin, 'export', '--out', out, ...(jobs > 0 ? ['--jobs', String(jobs)] : []), '--quiet', ...extra, ...ROUTE, input], { maxBuffer: 1 << 24 });
  const wallMs = performance.now() - started;
  const report = JSON.parse(await readFile(path.join(out, 'export-report.json'), 'utf8')) as ExportReport;
  return { ...report, wallMs };
}

function rowOf(name: string, report: ExportReport & { wallMs: number }, bytes: number): Row {
  const cpuSeconds = (report.resources.cpuUserMs + report.resources.cpuSystemMs) / 1000;
  return {
    case: name,
    seconds: report.durationMs / 1000,
    mbPerSecond: Math.round((bytes / 1e6 / (report.durationMs / 1000)) * 10) / 10,
    peakRssMb: Math.round(report.resources.peakRssBytes / 1e6),
    cpuSeconds: Math.round(cpuSeconds * 10) / 10,
    mbPerCpuSecond: bytes === 0 ? null : Math.round((bytes / 1e6 / cpuSeconds) * 10) / 10,
    exported: report.totals.exported,
    skipped: report.totals.skipped,
    failed: report.totals.failed,
  };
}

/** The broker's counters: calls per command (INFO commandstats) and network bytes (INFO stats). */
async function brokerCounters(redis: RedisServer): Promise<{ calls: Map<string, number>; bytes: number }> {
  const { stdout } = await run('redis-cli', ['-p', String(redis.port), 'INFO', 'all']);
  const calls = new Map<string, number>();
  for (const match of stdout.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
  const bytes = Number(/^total_net_input_bytes:(\d+)/m.exec(stdout)?.[1] ?? 0) + Number(/^total_net_output_bytes:(\d+)/m.exec(stdout)?.[1] ?? 0);
  return { calls, bytes };
}

/** CPU seconds (user + system) and peak RSS of a live process, from /proc. */
async function procUsage(pid: number): Promise<{ cpuSeconds: number; peakRssBytes: number }> {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // Fields 14 and 15 (utime, stime) in clock ticks, 100 a second on Linux.
  const cpuSeconds = (Number(stat[11]) + Number(stat[12])) / 100;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const peakRssBytes = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  return { cpuSeconds, peakRssBytes };
}

/** `export --queue` with `count` worker processes of concurrency 1; the row and the broker's cost per job. */
async function queueOnce(redis: RedisServer, input: string, out: string, count: number): Promise<Row> {
  const workers = await Promise.all(
    Array.from({ length: count }, async () => {
      const worker = new CommandProcess(['worker', '--queue', redis.url, '--concurrency', '1', '--quiet']);
      const id = (await worker.waitFor(/^worker: (\S+) ready/m))[1]!;
      return { worker, pid: Number(id.split(':').at(-1)) };
    }),
  );
  try {
    // MONITOR prints every command a client sends ([db addr]) and every command a script runs ([db lua]).
    const monitor = spawn('redis-cli', ['-p', String(redis.port), 'monitor'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const sent = new Map<string, number>();
    let pending = '';
    monitor.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      for (const text of lines) {
        const match = /^\d+\.\d+ \[\d+ (?!lua\])\S+\] "([^"]+)"/.exec(text);
        if (match !== null) sent.set(match[1]!.toLowerCase(), (sent.get(match[1]!.toLowerCase()) ?? 0) + 1);
      }
    });
    await new Promise((resolve) => monitor.stdout.once('data', resolve));
    const before = await brokerCounters(redis);
    const cpuBefore = await Promise.all(workers.map(({ pid }) => procUsage(pid)));
    const report = await exportOnce(input, out, 0, ['--queue', redis.url]);
    const usage = await Promise.all(workers.map(({ pid }) => procUsage(pid)));
    const after = await brokerCounters(redis);
    monitor.kill('SIGTERM');
    const jobs = Math.max(1, report.totals.exported);
    const trips = [...sent].filter(([name]) => name !== 'info' && name !== 'monitor');
    const roundTrips = trips.reduce((sum, [, calls]) => sum + calls, 0);
    const deltas = [...after.calls].map(([name, calls]) => [name, calls - (before.calls.get(name) ?? 0)] as const).filter(([name, calls]) => calls > 0 && name !== 'info');
    const commands = deltas.reduce((sum, [, calls]) => sum + calls, 0);
    const workerCpu = usage.reduce((sum, entry, i) => sum + entry.cpuSeconds - cpuBefore[i]!.cpuSeconds, 0);
    const row = rowOf(`export --queue, ${count} worker${count === 1 ? '' : 's'}`, report, report.totals.bytesIn);
    const cpuSeconds = (row.cpuSeconds ?? 0) + workerCpu;
    return {
      ...row,
      cpuSeconds: Math.round(cpuSeconds * 10) / 10,
      mbPerCpuSecond: Math.round((report.totals.bytesIn / 1e6 / cpuSeconds) * 10) / 10,
      peakRssMb: Math.round(Math.max(report.resources.peakRssBytes, ...usage.map((entry) => entry.peakRssBytes)) / 1e6),
      roundTripsPerJob: Math.round((roundTrips / jobs) * 10) / 10,
      commandsPerJob: Math.round((commands / jobs) * 10) / 10,
      brokerBytesPerJob: Math.round((after.bytes - before.bytes) / jobs),
      topCommands: trips
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([name, calls]) => `${name} ${(calls / jobs).toFixed(1)}`)
        .join(', '),
    };
  } finally {
    for (const { worker } of workers) worker.kill('SIGTERM');
    await Promise.all(workers.map(({ worker }) => worker.exited));
  }
}

async function floorChild(listFile: string): Promise<void> {
  const files = JSON.parse(await readFile(listFile, 'utf8')) as string[];
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const file of files) await runFloor(file, '/dev/null');
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  process.stdout.write(JSON.stringify({ ms, cpuMs: (used.user + used.system) / 1000, maxRssKb: process.resourceUsage().maxRSS }) + '\n');
}

async function main(): Promise<void> {
  const { values } = benchArgs(import.meta.url, {
    options: {
      sessions: { type: 'string' },
      bytes: { type: 'string' },
      jobs: { type: 'string' },
      seed: { type: 'string' },
      regenerate: { type: 'boolean' },
      keep: { type: 'boolean' },
      'no-floor': { type: 'boolean' },
      queue: { type: 'boolean' },
      workers: { type: 'string' },
      json: { type: 'boolean' },
      'floor-child': { type: 'string' },
    },
  });
  if (values['floor-child'] !== undefined) return floorChild(values['floor-child']);
  const sessions = Number(values.sessions ?? 500);
  const bytes = Number(values.bytes ?? 2e9);
  const seed = Number(values.seed ?? 1);
  const jobsList = (values.jobs ?? '1,2').split(',').map(Number);
  const base = path.join(tmpdir(), `th-bench-export-${sessions}-${bytes}-${seed}`);
  const data = path.join(base, 'data');
  const dataset = await ensureDataset(data, sessions, bytes, seed, values.regenerate ?? false);
  const input = path.join(data, 'agents');
  process.stderr.write(`bench:export: ${dataset.files.length} sessions, ${(dataset.bytes / 1e9).toFixed(2)} GB\n`);

  const rows: Row[] = [];
  for (const jobs of jobsList) {
    const out = path.join(base, `out-${jobs}`);
    await rm(out, { recursive: true, force: true });
    process.stderr.write(`bench:export: --jobs ${jobs} ...\n`);
    const report = await exportOnce(input, out, jobs);
    rows.push(rowOf(`export --jobs ${jobs}`, report, report.totals.bytesIn));
    if (jobs === jobsList[jobsList.length - 1]) {
      process.stderr.write(`bench:export: resume (all current) ...\n`);
      const resumed = await exportOnce(input, out, jobs);
      rows.push(rowOf(`resume --jobs ${jobs}`, resumed, 0));
    }
    if (!values.keep) await rm(out, { recursive: true, force: true });
  }
  if (values.queue) {
    const redis = await startRedis();
    try {
      for (const count of (values.workers ?? '1,2').split(',').map(Number)) {
        const out = path.join(base, `out-queue-${count}`);
        await rm(out, { recursive: true, force: true });
        process.stderr.write(`bench:export: --queue with ${count} worker process${count === 1 ? '' : 'es'} ...\n`);
        rows.push(await queueOnce(redis, input, out, count));
        if (!values.keep) await rm(out, { recursive: true, force: true });
      }
    } finally {
      await redis.stop();
    }
  }
  if (!values['no-floor']) {
    process.stderr.write(`bench:export: floor (one thread) ...\n`);
    const listFile = path.join(base, 'files.json');
    await writeFile(listFile, JSON.stringify(dataset.files));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', here, '--floor-child', listFile], { maxBuffer: 1 << 24 });
    const floor = JSON.parse(stdout.trim().split('\n').pop()!) as { ms: number; cpuMs: number; maxRssKb: number };
    rows.push({
      case: 'floor (1 thread, no rules)',
      seconds: floor.ms / 1000,
      mbPerSecond: Math.round((dataset.bytes / 1e6 / (floor.ms / 1000)) * 10) / 10,
      peakRssMb: Math.round((floor.maxRssKb * 1024) / 1e6),
      cpuSeconds: Math.round(floor.cpuMs / 100) / 10,
      mbPerCpuSecond: Math.round((dataset.bytes / 1e6 / (floor.cpuMs / 1000)) * 10) / 10,
      exported: dataset.files.length,
      skipped: 0,
      failed: 0,
    });
  }
  if (!values.keep) await rm(path.join(base, 'files.json'), { force: true });

  if (values.json) {
    process.stdout.write(JSON.stringify({ sessions: dataset.files.length, bytes: dataset.bytes, rows }, null, 2) + '\n');
    return;
  }
  const queued = rows.some((row) => row.commandsPerJob !== undefined);
  const header = ['case', 'seconds', 'MB/s', 'peak RSS MB', 'CPU s', 'MB/CPU-s', 'exported', 'skipped', 'failed', ...(queued ? ['trips/job', 'cmds/job', 'broker B/job'] : [])];
  const table = rows.map((row) => [
    row.case,
    row.seconds.toFixed(1),
    row.mbPerSecond.toFixed(1),
    String(row.peakRssMb),
    row.cpuSeconds === null ? '-' : row.cpuSeconds.toFixed(1),
    row.mbPerCpuSecond === null ? '-' : row.mbPerCpuSecond.toFixed(1),
    String(row.exported),
    String(row.skipped),
    String(row.failed),
    ...(queued
      ? [row.roundTripsPerJob === undefined ? '-' : row.roundTripsPerJob.toFixed(1), row.commandsPerJob === undefined ? '-' : row.commandsPerJob.toFixed(1), row.brokerBytesPerJob === undefined ? '-' : String(row.brokerBytesPerJob)]
      : []),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...table.map((cells) => cells[i]!.length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const [load] = loadavg();
  process.stdout.write(`${dataset.files.length} sessions, ${(dataset.bytes / 1e9).toFixed(2)} GB, ${availableParallelism()} cores, load average ${load!.toFixed(1)} (MB/s: input bytes per second of the run)\n`);
  process.stdout.write([line(header), ...table.map(line)].join('\n') + '\n');
  for (const row of rows) if (row.topCommands !== undefined) process.stdout.write(`${row.case}: round trips per job: ${row.topCommands}\n`);
}

await main();
