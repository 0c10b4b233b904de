/**
 * What the coordinator (`export --queue`) and the workers (`transcript-hygiene worker`) agree on:
 * key names, the queue of an export, job ids, a job's data, and how a failure travels back.
 *
 * - One BullMQ queue per output directory (queueNameFor): two exports never share jobs, and
 *   removing an export's queue when it ends touches nothing else.
 * - A job id is a hash of the session's path, size and mtime and the route's options hash:
 *   adding a job a queue already holds is a no-op in BullMQ, so an export enqueued twice (a
 *   re-run after the coordinator died) does no work twice.
 * - A failure goes back as the failed job's reason: a JSON object with code, reason and line,
 *   which BullMQ keeps as the job's `failedReason` and sends in the `failed` event.
 */
import { createHash } from 'node:crypto';
import type { TaskFailure } from '../export-file.ts';
import type { HygieneOptions } from '../../options.ts';
import type { ExportFormat } from '../routes.ts';

/** Every key of ours starts with this: BullMQ's keys are `th:<queue>:...`. */
export const KEY_PREFIX = 'th';
/** Hash of the exports running now: queue name -> JSON {outDir, coordinator, startedAt}. Workers serve these queues. */
export const EXPORTS_KEY = `${KEY_PREFIX}:exports`;
/** Published on when an export starts or ends, so workers need not wait for their next look. */
export const EXPORTS_CHANNEL = `${KEY_PREFIX}:exports`;
/** Name prefix of a worker's registry connection: `th:worker:<host:pid>:<concurrency>` (CLIENT LIST counts workers). */
export const WORKER_CLIENT_PREFIX = `${KEY_PREFIX}:worker:`;

/** Attempts of a job whose failure may be transient (EIO, EAGAIN, a worker that died): 1 + 3 retries. */
export const JOB_ATTEMPTS = 4;
/** Backoff between attempts: 2 s, 4 s, 8 s. */
export const JOB_BACKOFF = { type: 'exponential', delay: 2000 } as const;
/** A job whose worker vanished (its lock expired) goes back to the queue this many times, then fails. */
export const MAX_STALLED_COUNT = 2;

export interface ExportInfo {
  outDir: string;
  /** host:pid of the coordinator. */
  coordinator: string;
  startedAt: string;
}

/** What a worker needs to make one output; every path is absolute, as the coordinator sees it. */
export interface QueueJobData {
  /** The export's output directory: the worker checks it sees it (the coordinator's lock file is in it). */
  outDir: string;
  /** The session as the user gave it, for the worker's log. */
  display: string;
  /** The output's path relative to outDir, for the worker's log. */
  key: string;
  source: string;
  /** Size and mtime of the session when it was enqueued: the worker checks it sees the same file. */
  size: number;
  mtimeMs: number;
  output: string;
  format: ExportFormat;
  options: HygieneOptions;
  clockMs: number;
  repair: boolean;
  /** `source` is an OpenClaw database: this session of it, up to the seq it was listed with. */
  session?: { id: string; lastSeq: number };
}

/** What a worker returns for an output it wrote: the job function's result, and who did it. */
export interface QueueJobResult {
  ok: true;
  stats: import('../../stats.ts').HygieneStats;
  bytesOut: number;
  repaired: boolean;
  repair?: import('../export-file.ts').RepairCounts;
  ms: number;
  /** host:pid of the worker. */
  worker: string;
  /** Times the job was started (more than 1: retried, or taken over from a worker that died). */
  started: number;
}

/** A failure as it travels in a failed job's reason. */
export interface QueueFailure extends TaskFailure {
  ms?: number;
  worker?: string;
  started?: number;
}

function hash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** The queue of the export into `outDir` (absolute). */
export function queueNameFor(outDir: string): string {
  return `export-${hash(outDir, 16)}`;
}

/**
 * The job id of one output: the session file's path, size and mtime, or for a session of an
 * OpenClaw database the database's path, the session id and its last seq (a session that grew is
 * another job); and the route's options hash (which covers the format).
 */
export function jobIdFor(source: { path: string; size: number; mtimeMs: number; database?: { sessionId: string; lastSeq: number } }, optionsHash: string): string {
  const what = source.database === undefined ? [source.path, source.size, source.mtimeMs] : [source.path, source.database.sessionId, source.database.lastSeq];
  // A letter first: BullMQ refuses custom ids that are integers.
  return `s${hash(JSON.stringify([...what, optionsHash]), 40)}`;
}

export function encodeFailure(failure: QueueFailure): string {
  return JSON.stringify(failure);
}

/** A failed job's reason back into a failure; a reason that is not ours (BullMQ's own: a job stalled too often) keeps its text. */
export function decodeFailure(reason: string | undefined): QueueFailure {
  try {
    const value = JSON.parse(reason ?? '') as Partial<QueueFailure>;
    if (value !== null && typeof value === 'object' && typeof value.code === 'string' && typeof value.reason === 'string') return value as QueueFailure;
  } catch {
    // not ours
  }
  const text = reason === undefined || reason === '' ? 'the job failed without a reason' : reason;
  return /stalled/i.test(text)
    ? { code: 'worker_lost', reason: `${text} (its workers stopped or lost the broker while working on it ${MAX_STALLED_COUNT + 1} times)` }
    : { code: 'job_failed', reason: text };
}

/** System errors that may pass: the job is retried, with backoff, up to JOB_ATTEMPTS. */
const TRANSIENT_ERRNOS = new Set(['EIO', 'EAGAIN', 'EWOULDBLOCK', 'EBUSY', 'EINTR', 'ETIMEDOUT', 'ESTALE', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'EMFILE', 'ENFILE', 'ENOMEM', 'ENOSPC']);

/**
 * Whether a failure may pass on another attempt: a transient system error on the session or
 * the output, or a job thread that died for no reason of its input. Bad input, a session that
 * runs out of its memory limit, and a route that cannot be met fail the same way every time.
 */
export function isTransient(failure: TaskFailure): boolean {
  if (failure.code === 'worker_crashed') return true;
  return failure.errno !== undefined && TRANSIENT_ERRNOS.has(failure.errno);
}
