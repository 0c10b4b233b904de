/**
 * The queue runner of `export --queue`: exportSessions plans, skips what the manifest says is
 * current, settles every result and writes the report exactly as for a local export; this
 * runner only moves the outputs through BullMQ.
 *
 *   enqueue one job per output (job id: jobIdFor) on the export's own queue (queueNameFor(OUT)),
 *   largest first, and list the export in th:exports so every worker starts serving the queue ->
 *   follow the queue's events (QueueEvents: a Redis stream, so progress shows the work of every
 *   machine) and settle each completed or failed job -> once the report is written (close()),
 *   take the export off th:exports and obliterate the queue: no key of it is left behind.
 *
 * Leases, stalled-job recovery (a worker killed mid-job), retries and backoff are BullMQ's. A
 * job that a previous run of the same export left finished in the queue (the coordinator died
 * before its report) is not redone: adding it again is a no-op, and its result is read back.
 * Events can be missed (the events stream is capped; a broker restart), so when no event has
 * come for a while the runner also reads the finished jobs from the queue itself.
 */
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { removeTemporaries } from '../export.ts';
import type { ExportTaskResult } from '../export-file.ts';
import type { QueueReport } from '../report.ts';
import type { ExportRunner, ExportWork, Settle } from '../runner.ts';
import { parseBrokerUrl, probeBroker, type Broker } from './broker.ts';
import { bullConnection, openClient } from './connections.ts';
import {
  EXPORTS_CHANNEL,
  EXPORTS_KEY,
  JOB_ATTEMPTS,
  JOB_BACKOFF,
  KEY_PREFIX,
  WORKER_CLIENT_PREFIX,
  decodeFailure,
  jobIdFor,
  queueNameFor,
  type ExportInfo,
  type QueueJobData,
  type QueueJobResult,
} from './job.ts';

export interface QueueRunnerOptions {
  /** redis://HOST:PORT[/DB] */
  url: string;
  /** Absolute output directory. */
  outDir: string;
  /** Redo everything: results a previous run left in the queue are not reused. */
  force: boolean;
  /** How long without any event before the runner reads the finished jobs from the queue (default 5 s). */
  quietMs?: number;
}

/** Jobs added to the queue per call. */
const ADD_BATCH = 500;

/** Counts the workers connected to the broker now, by their registry connections' names; 0 if CLIENT LIST is refused. */
export async function connectedWorkers(client: Redis): Promise<{ workers: number; concurrency: number }> {
  try {
    const list = String(await client.call('CLIENT', 'LIST'));
    let workers = 0;
    let concurrency = 0;
    for (const match of list.matchAll(/\bname=(\S+)/g)) {
      const name = match[1]!;
      if (!name.startsWith(WORKER_CLIENT_PREFIX)) continue;
      workers++;
      concurrency += Number(/:c(\d+)$/.exec(name)?.[1] ?? 1);
    }
    return { workers, concurrency };
  } catch {
    return { workers: 0, concurrency: 0 };
  }
}

/** Checks the broker (one line within seconds if it cannot be reached) and returns the runner. */
export async function openQueueRunner(options: QueueRunnerOptions): Promise<ExportRunner> {
  const broker = parseBrokerUrl(options.url);
  await probeBroker(broker);
  return new QueueRunner(broker, options);
}

class QueueRunner implements ExportRunner {
  private readonly name: string;
  private readonly client: Redis;
  private queue: Queue | undefined;
  private events: QueueEvents | undefined;
  private registered = false;
  private enqueued = 0;
  private alreadyFinished = 0;
  private retried = 0;
  private readonly byWorker = new Map<string, { exported: number; failed: number }>();
  private readonly notes = new Set<string>();

  constructor(
    private readonly broker: Broker,
    private readonly options: QueueRunnerOptions,
  ) {
    this.name = queueNameFor(options.outDir);
    this.client = openClient(broker, `${KEY_PREFIX}:export:${this.name}`);
    this.client.on('error', (error: Error) => this.note(`lost the broker for a while (${error.message}); BullMQ reconnected`));
  }

  private note(message: string): void {
    this.notes.add(message);
  }

  async jobs(): Promise<number> {
    return (await connectedWorkers(this.client)).concurrency;
  }

  async run(work: readonly ExportWork[], _jobs: number, settle: Settle, signal: AbortSignal | undefined): Promise<{ interrupted: boolean }> {
    if (work.length === 0) return { interrupted: false };
    const byId = new Map<string, ExportWork>();
    for (const item of work) byId.set(jobIdFor(item.source, item.route.hash), item);

    const connection = bullConnection(this.broker);
    const queue = new Queue<QueueJobData, QueueJobResult>(this.name, {
      connection,
      prefix: KEY_PREFIX,
      // Room for every event of this export (about 6 a job), so a slow reader misses none.
      streams: { events: { maxLen: Math.max(10_000, work.length * 10) } },
    });
    this.queue = queue;
    queue.on('error', (error: Error) => this.note(`queue: ${error.message}`));
    if (this.options.force) await queue.obliterate({ force: true });

    // Follow the events from the stream's current end: none of this run's is missed, none older replayed.
    const last = (await this.client.xrevrange(`${KEY_PREFIX}:${this.name}:events`, '+', '-', 'COUNT', 1)) as Array<[string, string[]]>;
    const events = new QueueEvents(this.name, { connection, prefix: KEY_PREFIX, lastEventId: last[0]?.[0] ?? '0-0' });
    this.events = events;
    events.on('error', (error: Error) => this.note(`queue events: ${error.message}`));

    const settled = new Set<string>();
    let chain = Promise.resolve();
    let lastEventAt = Date.now();
    let allDone!: () => void;
    const finished = new Promise<void>((resolve) => (allDone = resolve));
    const finish = (jobId: string, result: (item: ExportWork) => Promise<ExportTaskResult>): void => {
      const item = byId.get(jobId);
      if (item === undefined || settled.has(jobId)) return;
      settled.add(jobId);
      // One at a time and in arrival order, as the local lanes settle.
      chain = chain
        .then(async () => settle(item, await result(item)))
        .catch((error: unknown) => this.note(`cannot record ${item.key}: ${(error as Error).message}`))
        .then(() => {
          if (settled.size === byId.size) allDone();
        });
    };
    events.on('completed', ({ jobId, returnvalue }) => {
      lastEventAt = Date.now();
      finish(jobId, (item) => this.completed(item, returnvalue as unknown as QueueJobResult | string));
    });
    events.on('failed', ({ jobId, failedReason }) => {
      lastEventAt = Date.now();
      finish(jobId, async (item) => this.failed(item, failedReason));
    });
    await events.waitUntilReady();

    /** Settles from the queue itself the finished jobs whose event did not come (or came before this run). */
    const readFinished = async (): Promise<number> => {
      let found = 0;
      for (const state of ['completed', 'failed'] as const) {
        for (const jobId of await queue.getRanges([state], 0, -1)) {
          if (!byId.has(jobId) || settled.has(jobId)) continue;
          const job = await Job.fromId<QueueJobData, QueueJobResult>(queue, jobId);
          if (job === undefined) continue;
          found++;
          // A completed job may carry the reason of an earlier, retried attempt: its state decides.
          if (state === 'completed') {
            const value = job.returnvalue;
            finish(jobId, (item) => this.completed(item, value));
          } else {
            const reason = job.failedReason;
            finish(jobId, async (item) => this.failed(item, reason));
          }
        }
      }
      return found;
    };

    // What a previous run of this export finished is read back, not redone (its ids are the same).
    if (!this.options.force) this.alreadyFinished = await readFinished();
    const info: ExportInfo = { outDir: this.options.outDir, coordinator: `${hostname()}:${process.pid}`, startedAt: new Date().toISOString() };
    await this.client.hset(EXPORTS_KEY, this.name, JSON.stringify(info));
    this.registered = true;
    await this.client.publish(EXPORTS_CHANNEL, this.name);

    const toAdd = [...byId].filter(([jobId]) => !settled.has(jobId));
    for (let i = 0; i < toAdd.length && !signal?.aborted; i += ADD_BATCH) {
      await queue.addBulk(
        toAdd.slice(i, i + ADD_BATCH).map(([jobId, item]) => ({
          name: 'export',
          data: jobDataOf(item, this.options.outDir),
          opts: { jobId, attempts: JOB_ATTEMPTS, backoff: JOB_BACKOFF },
        })),
      );
    }
    this.enqueued = byId.size;

    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const onAbort = (): void => stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) stop();
    const quietMs = this.options.quietMs ?? 5000;
    const timer = setInterval(() => {
      if (Date.now() - lastEventAt < quietMs || settled.size === byId.size) return;
      lastEventAt = Date.now();
      readFinished().catch((error: Error) => this.note(`cannot read the queue: ${error.message}`));
    }, Math.max(100, Math.floor(quietMs / 2)));
    try {
      if (settled.size < byId.size) await Promise.race([finished, stopped]);
      await chain;
    } finally {
      clearInterval(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    // A worker killed mid-job leaves its temporary file; the job was redone under another name.
    await removeTemporaries(this.options.outDir);
    return { interrupted: settled.size < byId.size };
  }

  private countWorker(worker: string | undefined, outcome: 'exported' | 'failed', started: number | undefined): void {
    if (started !== undefined && started > 1) this.retried++;
    if (worker === undefined) return;
    const entry = this.byWorker.get(worker) ?? { exported: 0, failed: 0 };
    entry[outcome]++;
    this.byWorker.set(worker, entry);
  }

  private async completed(item: ExportWork, value: QueueJobResult | string | null | undefined): Promise<ExportTaskResult> {
    const result = typeof value === 'string' ? (JSON.parse(value) as QueueJobResult) : value;
    if (result === null || result === undefined || result.ok !== true) {
      return { id: item.task.id, ok: false, failure: { code: 'job_failed', reason: 'the worker returned no result' }, ms: 0 };
    }
    // The worker wrote it on storage it sees; it counts only if it is here too.
    const found = await stat(item.task.output).catch(() => undefined);
    if (found === undefined || found.size !== result.bytesOut) {
      this.countWorker(result.worker, 'failed', result.started);
      const what = found === undefined ? 'is not there' : `has ${found.size} bytes, not ${result.bytesOut}`;
      return {
        id: item.task.id,
        ok: false,
        failure: { code: 'output_not_visible', reason: `worker ${result.worker} wrote ${item.task.output}, but here it ${what}: OUT must be on storage every worker sees, at the same path` },
        ms: result.ms,
      };
    }
    this.countWorker(result.worker, 'exported', result.started);
    return { id: item.task.id, ok: true, stats: result.stats, bytesOut: result.bytesOut, repaired: result.repaired, ...(result.repair === undefined ? {} : { repair: result.repair }), ms: result.ms };
  }

  private failed(item: ExportWork, reason: string | undefined): ExportTaskResult {
    const failure = decodeFailure(reason);
    this.countWorker(failure.worker, 'failed', failure.started);
    return { id: item.task.id, ok: false, failure: { code: failure.code, reason: failure.reason, ...(failure.line === undefined ? {} : { line: failure.line }) }, ms: failure.ms ?? 0 };
  }

  warnings(): string[] {
    return [...this.notes];
  }

  queueReport(): QueueReport {
    return {
      broker: this.broker.display,
      name: this.name,
      prefix: KEY_PREFIX,
      enqueued: this.enqueued,
      alreadyFinished: this.alreadyFinished,
      workers: [...this.byWorker].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([worker, counts]) => ({ worker, ...counts })),
      retried: this.retried,
    };
  }

  /** After the report: the export leaves th:exports, its workers let the queue go, and the queue is removed. */
  async close(): Promise<void> {
    try {
      await this.events?.close();
      if (this.registered) {
        await this.client.hdel(EXPORTS_KEY, this.name);
        await this.client.publish(EXPORTS_CHANNEL, this.name);
      }
      const queue = this.queue;
      if (queue !== undefined) {
        // Give the workers a moment to close their side, so no worker writes a key after the removal.
        for (let waited = 0; waited < 3000 && (await queue.getWorkersCount().catch(() => 0)) > 0; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
        await queue.obliterate({ force: true });
        await queue.close();
      }
    } finally {
      await this.client.quit().catch(() => this.client.disconnect());
    }
  }
}

function jobDataOf(item: ExportWork, outDir: string): QueueJobData {
  return {
    outDir,
    display: item.source.display,
    key: item.key,
    source: item.task.source,
    size: item.source.size,
    mtimeMs: item.source.mtimeMs,
    output: item.task.output,
    format: item.task.format,
    // The route's own options: each worker shares its threadpool between its own jobs.
    options: item.route.options,
    clockMs: item.task.clockMs,
    repair: item.task.repair,
    ...(item.task.session === undefined ? {} : { session: item.task.session }),
  };
}
