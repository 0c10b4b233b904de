/**
 * `export --queue` and `worker` end to end: a real redis-server (started here, no persistence),
 * workers and coordinators as separate processes of the real bin, over the export tests' corpus
 * (good, corrupt, empty and unreadable sessions, two with huge lines), against the local export
 * of the same corpus.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { exportSessions, type ExportReport } from '../../lib/index.ts';
import { LOCK_NAME, MANIFEST_NAME } from '../../lib/export/manifest.ts';
import { REPORT_HTML_NAME, REPORT_NAME } from '../../lib/export/report.ts';
import { queueNameFor } from '../../lib/export/queue/job.ts';
import { ANTHROPIC, buildCorpus, type Corpus } from '../export/corpus.ts';
import { runCli } from '../helpers/run-cli.ts';
import { CommandProcess, readyWorker, startWorker } from './processes.ts';
import { freePort, startRedis, type RedisServer } from './redis-server.ts';

const ROUTE = ['--provider', ANTHROPIC.provider, '--model-api', ANTHROPIC.modelApi, '--model-id', ANTHROPIC.modelId];
const BOOKKEEPING = new Set([REPORT_NAME, REPORT_HTML_NAME, MANIFEST_NAME, LOCK_NAME]);
/** Short leases, so a killed worker's job comes back within seconds. */
const FAST = ['--concurrency', '2', '--lock-duration', '2500', '--stalled-interval', '1000'];

let work: string;
let corpus: Corpus;
let redis: RedisServer;
let client: Redis;
let local: { tree: Map<string, Buffer>; report: ExportReport };
const workers: CommandProcess[] = [];

/** Every file under dir (relative path -> bytes), bookkeeping left out. */
async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const tree = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const rel = path.relative(dir, path.join(entry.parentPath, entry.name));
    if (!BOOKKEEPING.has(rel)) tree.set(rel, await readFile(path.join(dir, rel)));
  }
  return tree;
}

function assertSameTree(actual: Map<string, Buffer>, expected: Map<string, Buffer>): void {
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort(), 'the same outputs, and no temporary file left');
  for (const [rel, bytes] of expected) assert.ok(actual.get(rel)!.equals(bytes), `${rel}: not byte-identical to the local export's`);
}

async function readReport(out: string): Promise<ExportReport> {
  return JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
}

/** The failures as the report lists them, for comparing two reports. */
const failuresOf = (report: ExportReport): string[] => report.failures.map((failure) => JSON.stringify([failure.file, failure.line ?? null, failure.code, failure.reason]));

/** Unreadable and zero-byte sessions fail while the export plans, before any job exists. */
function failingBeforeStart(): string[] {
  return [...corpus.unreadable, ...corpus.empty.filter((rel) => statSync(path.join(corpus.dir, rel)).size === 0)];
}

const beforeStartCount = (): number => failingBeforeStart().length;

/** Keys of ours (th:...) left in the broker. */
async function ourKeys(): Promise<string[]> {
  return (await client.keys('th:*')).sort();
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A job of `queue` that the worker `id` is working on now (BullMQ keeps the worker's name in the job's `pb` field). */
async function activeJobOf(queue: string, id: string): Promise<string | undefined> {
  for (const jobId of await client.lrange(`th:${queue}:active`, 0, -1)) {
    if ((await client.hget(`th:${queue}:${jobId}`, 'pb')) === id) return jobId;
  }
  return undefined;
}

function exportQueue(out: string, extra: string[] = []): CommandProcess {
  return new CommandProcess(['export', '--queue', redis.url, '--out', out, ...ROUTE, ...extra, corpus.dir]);
}

/** "worker: FAILED <file>..." lines of every worker, per file. */
function failedLines(logs: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const log of logs) {
    for (const match of log.matchAll(/^worker: FAILED (\S+?)(?::\d+)?: /gm)) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
  }
  return counts;
}

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'th-queue-'));
  corpus = await buildCorpus(path.join(work, 'sessions'), 40);
  const localOut = path.join(work, 'local');
  const report = await exportSessions({ inputs: [corpus.dir], outDir: localOut, routes: [ANTHROPIC], jobs: 2 });
  local = { tree: await readTree(localOut), report };
  redis = await startRedis();
  client = new Redis(redis.port, '127.0.0.1');
});

after(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  client?.disconnect();
  await redis?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('export --queue with worker processes on a real Redis', () => {
  const out = (): string => path.join(work, 'queued');

  test('two workers, one killed with SIGKILL mid-job and replaced: the outputs are the local export\'s, byte for byte', async () => {
    const [a, b] = await Promise.all([readyWorker(redis.url, FAST), readyWorker(redis.url, FAST)]);
    workers.push(a.process, b.process);
    // The work runs in the command's tuned child, as for export: the worker's pid is not the command's.
    assert.notEqual(Number(a.id.split(':').at(-1)), a.process.pid);
    const coordinator = exportQueue(out());
    const queue = queueNameFor(out());
    // The largest sessions go first: A is soon inside one of the huge ones.
    const killedJob = await until('a job active on worker A', () => activeJobOf(queue, a.id));
    a.process.kill('SIGKILL');
    await a.process.exited;
    const midJob = (await client.zscore(`th:${queue}:completed`, killedJob)) === null;
    const replacement = readyWorker(redis.url, FAST);

    const c = await replacement;
    workers.push(c.process);
    const exit = await coordinator.exited;
    assert.equal(exit.code, 2, `some sessions are bad: exit 2\n${coordinator.stderr}`);
    assertSameTree(await readTree(out()), local.tree);

    const report = await readReport(out());
    assert.deepEqual(failuresOf(report), failuresOf(local.report), 'the same failures, with file, line and reason, as the local export');
    const bad = [...corpus.corrupt.map((entry) => entry.rel), ...corpus.unreadable, ...corpus.empty].map((rel) => path.join(corpus.dir, rel));
    for (const file of bad) assert.ok(report.failures.some((failure) => failure.file === file), `${file} is listed`);
    for (const { rel, line } of corpus.corrupt) assert.equal(report.failures.find((failure) => failure.file === path.join(corpus.dir, rel))?.line, line, `${rel}: its line`);
    assert.equal(report.totals.exported, local.report.totals.exported);
    assert.equal(report.totals.failed, local.report.totals.failed);
    assert.deepEqual(Object.keys(report).filter((key) => key !== 'queue'), Object.keys(local.report), 'the local report\'s shape, and a queue section');

    // The killed job was taken over: started again, finished by another worker.
    if (midJob) assert.ok(report.queue!.retried >= 1, `the job killed mid-way was started again: ${JSON.stringify(report.queue)}`);
    const finishers = new Set(report.queue!.workers.map((entry) => entry.worker));
    assert.ok(finishers.has(b.id), 'worker B finished outputs');
    const beforeStart = failingBeforeStart();
    assert.equal(report.queue!.enqueued, local.report.totals.outputs - beforeStart.length);

    // A bad session fails once: one FAILED line among all workers, no retry.
    const logs = [a.process.stderr, b.process.stderr, c.process.stderr];
    const failed = failedLines(logs);
    for (const failure of report.failures.filter((entry) => !beforeStart.some((rel) => entry.file === path.join(corpus.dir, rel)))) {
      assert.equal(failed.get(failure.file), 1, `${failure.file} failed once on the workers`);
    }
    assert.doesNotMatch(logs.join(''), /^worker: attempt /m, 'nothing was retried');
    // Progress lines as the local export prints them, one per output.
    assert.match(coordinator.stderr, new RegExp(`^export: 40 sessions: ${40 - beforeStart.length} to export \\(.*\\), 0 already current, ${beforeStart.length} failed before starting, \\d+ jobs?$`, 'm'));
    assert.equal(coordinator.stderr.match(/^export: \[\d+\/40\] /gm)?.length, 40);

    assert.deepEqual(await ourKeys(), [], 'the queue and the export\'s registration are gone');
  });

  test('the same export again skips every current output and does no work on the workers', async () => {
    const before = workers.map((worker) => worker.stderr.length);
    const report = await exportSessions({ inputs: [corpus.dir], outDir: out(), routes: [ANTHROPIC], queue: redis.url });
    assert.deepEqual(report, await readReport(out()));
    assert.equal(report.totals.exported, 0);
    assert.equal(report.totals.skipped, local.report.totals.exported);
    assert.deepEqual(failuresOf(report), failuresOf(local.report));
    const newLogs = workers.map((worker, i) => worker.stderr.slice(before[i]));
    assert.doesNotMatch(newLogs.join(''), /^worker: ok /m, 'no output was made again');
    assertSameTree(await readTree(out()), local.tree);
    assert.deepEqual(await ourKeys(), []);
  });

  test('an export whose coordinator died is enqueued again: finished jobs are read back, not redone', async () => {
    const second = path.join(work, 'queued-twice');
    const logStart = workers.map((worker) => worker.stderr.length);
    const first = exportQueue(second);
    // Past the sessions that fail while planning: at least one job has finished.
    await first.waitFor(new RegExp(`^export: \\[${beforeStartCount() + 1}\\/40\\] `, 'm'));
    first.kill('SIGKILL');
    await first.exited;
    const queue = queueNameFor(second);
    const enqueued = 40 - beforeStartCount();
    // The workers go on with the jobs nobody follows any more.
    await until('every enqueued job finished', async () => {
      const counts = await Promise.all([client.zcard(`th:${queue}:completed`), client.zcard(`th:${queue}:failed`)]);
      return counts[0] + counts[1] === enqueued ? true : undefined;
    });
    const again = exportQueue(second);
    const exit = await again.exited;
    assert.equal(exit.code, 2, again.stderr);
    const report = await readReport(second);
    // What the first coordinator had put in its manifest before it died is skipped; the rest is read back from the queue.
    assert.equal(report.queue!.alreadyFinished + report.totals.skipped, enqueued);
    assert.equal(report.totals.exported + report.totals.skipped, local.report.totals.exported);
    assert.deepEqual(failuresOf(report), failuresOf(local.report));
    assertSameTree(await readTree(second), local.tree);
    const logs = workers.map((worker, i) => worker.stderr.slice(logStart[i] ?? 0));
    const done = logs.join('').match(/^worker: ok /gm)?.length ?? 0;
    assert.equal(done, local.report.totals.exported, 'each output made once');
    assert.deepEqual(await ourKeys(), []);
  });

  test('SIGTERM: idle workers exit 0; a worker with active jobs hands them back and exits 0 within 10 s', async () => {
    for (const worker of workers.filter((worker) => worker.running)) {
      worker.kill('SIGTERM');
      assert.equal((await worker.exited).code, 0, worker.stderr);
    }
    const third = path.join(work, 'handed-back');
    const d = await readyWorker(redis.url, [...FAST, '--grace', '0']);
    workers.push(d.process);
    const coordinator = exportSessions({ inputs: [corpus.dir], outDir: third, routes: [ANTHROPIC], queue: redis.url });
    await until('a job active on worker D', () => activeJobOf(queueNameFor(third), d.id));
    const signalled = Date.now();
    d.process.kill('SIGTERM');
    const exit = await d.process.exited;
    assert.equal(exit.code, 0, d.process.stderr);
    assert.ok(exit.at - signalled < 10_000, `exited ${exit.at - signalled} ms after SIGTERM`);
    assert.match(d.process.stderr, /^worker: SIGTERM: stopping /m);
    assert.match(d.process.stderr, /^worker: handed back /m);
    const e = startWorker(redis.url, FAST);
    workers.push(e);
    const report = await coordinator;
    assertSameTree(await readTree(third), local.tree);
    assert.deepEqual(failuresOf(report), failuresOf(local.report));
    e.kill('SIGTERM');
    assert.equal((await e.exited).code, 0);
    assert.deepEqual(await ourKeys(), []);
  });

  test('a worker that does not see a session, or sees another file under its path, fails that job and says why', async () => {
    const input = path.join(work, 'moving');
    await mkdir(input, { recursive: true });
    const line = JSON.stringify({ role: 'user', content: 'hello' }) + '\n';
    for (const name of ['kept', 'removed', 'changed']) await writeFile(path.join(input, `${name}.jsonl`), line);
    const outDir = path.join(work, 'moving-out');
    const coordinator = exportSessions({ inputs: [input], outDir, routes: [ANTHROPIC], queue: redis.url });
    // No worker yet: the jobs wait in the queue while the storage changes under them.
    const queue = queueNameFor(outDir);
    await until('three jobs waiting', async () => ((await client.llen(`th:${queue}:wait`)) === 3 ? true : undefined));
    // Each job may be retried (transient errors only: job.test.ts), 4 attempts with exponential backoff.
    const waiting = await client.lrange(`th:${queue}:wait`, 0, -1);
    const opts = JSON.parse((await client.hget(`th:${queue}:${waiting[0]}`, 'opts'))!) as { attempts: number; backoff: unknown };
    assert.equal(opts.attempts, 4);
    assert.deepEqual(opts.backoff, { type: 'exponential', delay: 2000 });
    await rm(path.join(input, 'removed.jsonl'));
    await appendFile(path.join(input, 'changed.jsonl'), line);
    const { process: worker } = await readyWorker(redis.url, FAST);
    workers.push(worker);
    const report = await coordinator;
    const byFile = new Map(report.failures.map((failure) => [path.basename(failure.file), failure]));
    assert.deepEqual([...byFile.keys()].sort(), ['changed.jsonl', 'removed.jsonl']);
    assert.equal(byFile.get('removed.jsonl')!.code, 'input_not_visible');
    assert.match(byFile.get('removed.jsonl')!.reason, /no such file on worker \S+: .*IN is not on storage every worker sees/);
    assert.equal(byFile.get('changed.jsonl')!.code, 'input_changed');
    assert.match(byFile.get('changed.jsonl')!.reason, new RegExp(`has ${2 * line.length} bytes.*not ${line.length} bytes`));
    assert.equal(report.totals.exported, 1);
    worker.kill('SIGTERM');
    assert.equal((await worker.exited).code, 0);
  });
});

describe('a broker that cannot be reached', () => {
  test('export --queue and worker say so in one line and exit 1, within 15 s', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const commands = [
      ['export', '--queue', url, '--out', path.join(work, 'never'), ...ROUTE, path.join(work, 'sessions')],
      ['worker', '--queue', url],
    ].map((args) => ({ args, started: Date.now(), command: new CommandProcess(args) }));
    for (const { args, started, command } of commands) {
      const exit = await command.exited;
      assert.equal(exit.code, 1, command.stderr);
      assert.ok(exit.at - started < 15_000, `${args[0]}: ${exit.at - started} ms`);
      assert.equal(command.stderr, `transcript-hygiene: cannot reach the queue broker ${url} (connect ECONNREFUSED 127.0.0.1:${port})\n`);
    }
  });

  test('a URL that is not redis://HOST:PORT[/DB], and --jobs with --queue, are usage errors (exit 1)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['export', '--queue', 'http://localhost:6379', '--out', path.join(work, 'never'), ...ROUTE, corpus.dir], /--queue "http:\/\/localhost:6379": unknown scheme http/],
      [['export', '--queue', 'redis://localhost:6379/x', '--out', path.join(work, 'never'), ...ROUTE, corpus.dir], /the database must be a number/],
      [['export', '--queue', redis.url, '--jobs', '2', '--out', path.join(work, 'never'), ...ROUTE, corpus.dir], /--jobs is the workers' with --queue/],
      [['worker'], /missing --queue/],
      [['worker', '--queue', redis.url, 'sessions/'], /unexpected argument 'sessions\/'/],
      [['worker', '--queue', redis.url, '--grace', '9000'], /--grace must be a whole number of ms from 0 to 8000/],
      [['worker', '--queue', 'redis://'], /no host/],
    ];
    for (const [argv, message] of cases) {
      const result = await runCli(argv);
      assert.equal(result.code, 1, `${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});
