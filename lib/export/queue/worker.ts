/**
 * `transcript-hygiene worker`: a BullMQ worker that makes the outputs of every `export --queue`
 * running on its broker. It serves the queues listed in th:exports (it looks when an export
 * announces itself, and every few seconds), runs each job with the export's job function
 * (export-file.ts exportFile) on a worker thread of its own (pool.ts: a heap limit per job, and
 * the main thread stays free to renew the jobs' locks), and answers with the result record.
 *
 * Failures: bad input (a line that is not JSON, an empty session, ...) and everything else that
 * would fail the same way again is an UnrecoverableError: failed once, not retried. A system error
 * that may pass (EIO, EAGAIN, ...; job.ts isTransient) or a job thread that died is retried by
 * BullMQ with backoff, JOB_ATTEMPTS times in all. A worker that does not see the session, or
 * sees another file under its path, or does not see the export's output directory, fails the
 * job saying so: IN and OUT must be on storage every worker sees, at the same paths.
 *
 * Stopping (stop(), on SIGTERM/SIGINT): no new job is taken; active jobs get `graceMs` to
 * finish, then their threads are ended and the jobs handed back to the queue (moved to wait,
 * not failed), for another worker to take at once. A worker killed outright (SIGKILL) hands
 * nothing back: its jobs' locks expire after lockDuration and BullMQ's stalled-job check on the
 * other workers puts them back in the queue.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { Job, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ExportTask, ExportTaskResult, TaskFailure } from '../export-file.ts';
import { LOCK_NAME, TEMP_MARK } from '../manifest.ts';
import { WorkerLane } from '../pool.ts';
import { failurePlace, formatBytes, formatDuration } from '../report.ts';
import { parseBrokerUrl, probeBroker, type Broker } from './broker.ts';
import { bullConnection, openClient } from './connections.ts';
import {
  EXPORTS_CHANNEL,
  EXPORTS_KEY,
  KEY_PREFIX,
  MAX_STALLED_COUNT,
  WORKER_CLIENT_PREFIX,
  encodeFailure,
  isTransient,
  type ExportInfo,
  type QueueJobData,
  type QueueJobResult,
} from './job.ts';

export interface QueueWorkerOptions {
  /** redis://HOST:PORT[/DB] */
  url: string;
  /** Jobs at once (each on its own thread), per export being served. */
  concurrency: number;
  /** Heap limit of each job's thread, in MiB. */
  jobMemoryMb: number;
  /** BullMQ lockDuration: how long a job's lock lasts unless renewed; a killed worker's jobs come back after it. */
  lockDurationMs: number;
  /** BullMQ stalledInterval: how often this worker looks for jobs whose lock expired. */
  stalledIntervalMs: number;
  /** On stop, how long active jobs may go on before they are handed back (default 4000). */
  graceMs?: number;
  /** How often the list of exports is read again, besides the announcements (default 3000). */
  refreshMs?: number;
  /** One line per event worth telling (a job done or failed, an export served or let go). */
  log: (line: string) => void;
}

export const DEFAULT_LOCK_DURATION_MS = 10_000;
export const DEFAULT_STALLED_INTERVAL_MS = 5_000;

/** This worker's name in job records, logs and the report: host:pid (safe in a Redis client name). */
function workerId(): string {
  return `${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}:${process.pid}`;
}

/** N worker threads shared by every queue this worker serves; a job waits for a free one. */
class LanePool {
  private readonly lanes: WorkerLane[];
  private readonly free: WorkerLane[];
  private readonly waiting: Array<(lane: WorkerLane | undefined) => void> = [];
  private closed = false;

  constructor(count: number, memoryMb: number) {
    this.lanes = Array.from({ length: count }, () => new WorkerLane({ memoryMb }));
    this.free = [...this.lanes];
  }

  /** A free lane, or undefined once the pool is closed. */
  acquire(): Promise<WorkerLane | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const lane = this.free.pop();
    if (lane !== undefined) return Promise.resolve(lane);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(lane: WorkerLane): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(lane);
    else this.free.push(lane);
  }

  /** Ends every thread: a job in flight resolves as interrupted, a job waiting for a lane gets none. */
  async close(): Promise<void> {
    this.closed = true;
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

class JobFailed extends Error {}

export class QueueWorker {
  readonly id = workerId();
  private readonly lanes: LanePool;
  private readonly workers = new Map<string, Worker<QueueJobData, QueueJobResult>>();
  private readonly closing = new Set<Promise<void>>();
  private readonly imageConcurrency: number;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private stopping: Promise<void> | undefined;
  private readonly lastErrorLog = new Map<string, number>();

  private constructor(
    private readonly broker: Broker,
    private readonly options: QueueWorkerOptions,
    private readonly client: Redis,
    private readonly subscriber: Redis,
  ) {
    this.lanes = new LanePool(options.concurrency, options.jobMemoryMb);
    // libuv's threadpool is shared by this worker's jobs (file reads, image work): one thread kept for reads.
    const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    this.imageConcurrency = Math.max(1, Math.floor((pool - 1) / options.concurrency));
  }

  /** Checks the broker (one line within seconds if it cannot be reached), then starts serving. */
  static async start(options: QueueWorkerOptions): Promise<QueueWorker> {
    const broker = parseBrokerUrl(options.url);
    await probeBroker(broker);
    const id = workerId();
    // Named so that a coordinator can count the workers (and their concurrency) with CLIENT LIST.
    const client = openClient(broker, `${WORKER_CLIENT_PREFIX}${id}:c${options.concurrency}`);
    const subscriber = openClient(broker);
    const worker = new QueueWorker(broker, options, client, subscriber);
    client.on('error', (error: Error) => worker.logError('broker', error));
    subscriber.on('error', (error: Error) => worker.logError('broker', error));
    subscriber.on('message', () => worker.refresh());
    await subscriber.subscribe(EXPORTS_CHANNEL);
    await worker.refreshNow();
    worker.refreshTimer = setInterval(() => worker.refresh(), options.refreshMs ?? 3000);
    return worker;
  }

  private logError(where: string, error: Error): void {
    // A broker that is away makes every connection complain every second: once in 10 s is enough.
    const key = `${where}: ${error.message}`;
    const now = Date.now();
    if (now - (this.lastErrorLog.get(key) ?? 0) < 10_000) return;
    this.lastErrorLog.set(key, now);
    this.options.log(`worker: ${key}`);
  }

  /** Reads th:exports again (soon; one read at a time). */
  private refresh(): void {
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return;
    }
    void this.refreshNow();
  }

  private async refreshNow(): Promise<void> {
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        if (this.stopping !== undefined) return;
        let exports: Record<string, string>;
        try {
          exports = await this.client.hgetall(EXPORTS_KEY);
        } catch (error) {
          this.logError('broker', error as Error);
          return;
        }
        for (const [name, text] of Object.entries(exports)) {
          if (this.workers.has(name) || this.stopping !== undefined) continue;
          let info: Partial<ExportInfo> = {};
          try {
            info = JSON.parse(text) as ExportInfo;
          } catch {
            // an entry we cannot read still names a queue to serve
          }
          this.serve(name, info);
        }
        for (const name of [...this.workers.keys()]) if (!Object.hasOwn(exports, name)) this.letGo(name, 'it ended');
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private serve(name: string, info: Partial<ExportInfo>): void {
    const worker = new Worker<QueueJobData, QueueJobResult>(name, (job, token) => this.process(job, token), {
      connection: bullConnection(this.broker),
      prefix: KEY_PREFIX,
      name: this.id,
      concurrency: this.options.concurrency,
      lockDuration: this.options.lockDurationMs,
      stalledInterval: this.options.stalledIntervalMs,
      maxStalledCount: MAX_STALLED_COUNT,
    });
    worker.on('error', (error: Error) => this.logError(name, error));
    this.workers.set(name, worker);
    this.options.log(`worker: serving the export into ${info.outDir ?? '?'} (queue ${name}${info.coordinator === undefined ? '' : `, started by ${info.coordinator}`})`);
  }

  private letGo(name: string, why: string): void {
    const worker = this.workers.get(name);
    if (worker === undefined) return;
    this.workers.delete(name);
    const closed = worker
      .close()
      .catch((error: Error) => this.logError(name, error))
      .finally(() => this.closing.delete(closed));
    this.closing.add(closed);
    this.options.log(`worker: done with queue ${name} (${why})`);
  }

  private fail(job: Job<QueueJobData, QueueJobResult>, failure: TaskFailure, transient: boolean, ms: number): never {
    const started = job.attemptsStarted;
    const message = encodeFailure({ ...failure, ms, worker: this.id, started });
    const place = failurePlace({ file: job.data.display, ...(failure.line === undefined ? {} : { line: failure.line }), code: failure.code, reason: failure.reason });
    const attempts = job.opts.attempts ?? 1;
    if (transient && job.attemptsMade + 1 < attempts) {
      this.options.log(`worker: attempt ${job.attemptsMade + 1} of ${attempts} failed, retried after a backoff: ${place}: ${failure.reason}`);
      throw new JobFailed(message);
    }
    this.options.log(`worker: FAILED ${place}: ${failure.reason}${transient ? ` (after ${attempts} attempts)` : ' (not retried)'}`);
    throw transient ? new JobFailed(message) : new UnrecoverableError(message);
  }

  /** Gives an active job back to the queue (wait, not failed) for another worker. */
  private async handBack(job: Job<QueueJobData, QueueJobResult>, token: string | undefined): Promise<never> {
    try {
      await job.moveToWait(token);
      this.options.log(`worker: handed back ${job.data.display} (stopping)`);
    } catch (error) {
      // Its lock is gone already: the stalled-job check puts it back.
      this.logError(job.data.display, error as Error);
    }
    throw new WaitingError();
  }

  private async process(job: Job<QueueJobData, QueueJobResult>, token: string | undefined): Promise<QueueJobResult> {
    const data = job.data;
    const started = Date.now();
    const elapsed = (): number => Date.now() - started;

    // Storage first: the same session, and the export's directory, must be here.
    let info: Stats;
    try {
      info = await stat(data.source);
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException).code;
      if (errno === 'ENOENT' || errno === 'ENOTDIR') {
        this.fail(job, { code: 'input_not_visible', reason: `no such file on worker ${this.id}: it was removed after it was enqueued, or IN is not on storage every worker sees at the same path` }, false, elapsed());
      }
      const failure = { code: 'input_unreadable', reason: `on worker ${this.id}: ${(error as Error).message}`, ...(errno === undefined ? {} : { errno }) };
      this.fail(job, failure, isTransient(failure), elapsed());
    }
    // A database changes under its sessions all the time: its job reads the session up to the seq it was listed with.
    if (data.session === undefined && (info.size !== data.size || Math.floor(info.mtimeMs) !== Math.floor(data.mtimeMs))) {
      const seen = `${info.size} bytes, modified ${new Date(info.mtimeMs).toISOString()}`;
      const expected = `${data.size} bytes, modified ${new Date(data.mtimeMs).toISOString()}`;
      this.fail(job, { code: 'input_changed', reason: `on worker ${this.id} the session has ${seen}, not ${expected} as when it was enqueued: it changed since (run the export again), or IN is not the same storage on every worker` }, false, elapsed());
    }
    try {
      await stat(path.join(data.outDir, LOCK_NAME));
    } catch {
      this.fail(job, { code: 'output_not_visible', reason: `worker ${this.id} does not see the export's output directory ${data.outDir} (no ${LOCK_NAME} in it): OUT must be on storage every worker sees, at the same path` }, false, elapsed());
    }

    const lane = await this.lanes.acquire();
    if (lane === undefined) return this.handBack(job, token);
    // Named after this worker and attempt: a job taken over from a worker thought dead never shares a temporary file.
    const base = path.join(path.dirname(data.output), `.${path.basename(data.output)}${TEMP_MARK}${this.id.replace(':', '-')}-${randomBytes(4).toString('hex')}`);
    const task: ExportTask = {
      id: 0,
      source: data.source,
      output: data.output,
      temp: base,
      repairCopy: `${base}.repair.jsonl`,
      format: data.format,
      options: { ...data.options, concurrency: data.options.concurrency ?? this.imageConcurrency },
      clockMs: data.clockMs,
      repair: data.repair,
      ...(data.session === undefined ? {} : { session: data.session }),
    };
    let result: ExportTaskResult;
    try {
      result = await lane.run(task);
    } finally {
      this.lanes.release(lane);
    }
    if (result.ok) {
      this.options.log(`worker: ok ${data.display} -> ${data.key} (${formatBytes(data.size)}, ${formatDuration(result.ms)}${result.repaired ? ', repaired' : ''})`);
      return {
        ok: true,
        stats: result.stats,
        bytesOut: result.bytesOut,
        repaired: result.repaired,
        ...(result.repair === undefined ? {} : { repair: result.repair }),
        ms: result.ms,
        worker: this.id,
        started: job.attemptsStarted,
      };
    }
    // A thread that was ended or died leaves its temporary files.
    await Promise.all([rm(task.temp, { force: true }), rm(task.repairCopy, { force: true })]);
    if (result.failure.code === 'interrupted') return this.handBack(job, token);
    return this.fail(job, result.failure, isTransient(result.failure), result.ms);
  }

  /**
   * Stops: takes no new job, lets active jobs finish for graceMs, then ends their threads and
   * hands them back to the queue; resolves when every connection is closed.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearInterval(this.refreshTimer);
      await this.refreshing;
      const grace = setTimeout(() => void this.lanes.close(), this.options.graceMs ?? 4000);
      try {
        for (const name of [...this.workers.keys()]) this.letGo(name, 'stopping');
        await Promise.all([...this.closing]);
      } finally {
        clearTimeout(grace);
      }
      await this.lanes.close();
      this.subscriber.disconnect();
      await this.client.quit().catch(() => this.client.disconnect());
    })();
    return this.stopping;
  }
}
