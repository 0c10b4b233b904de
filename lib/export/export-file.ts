/**
 * One output of an export: a session sanitized for one route into a temporary sibling of its
 * output, fsynced and renamed into place only when complete. Runs inside a worker thread
 * (worker.ts), and never throws: every error becomes a failure with a code, a reason and, for
 * bad input, the line.
 *
 * With `repair`, every session is first copied beside its output and the copy repaired with
 * repairSessionFileIfNeeded (torn and invalid lines dropped, blank and empty-error turns
 * rewritten, missing synthetic results inserted), as the OpenClaw runner repairs a session before
 * it loads it; the copy is what gets sanitized. The session itself is never touched. A copy the
 * repair leaves alone (nothing to repair, or not a session file) exports as the session would.
 */
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ensureDirectory, openAtomic, type AtomicFile } from '../atomic-write.ts';
import { isHygieneError } from '../errors.ts';
import { describeMessageless, fileHead, messagesWithRole } from '../session/input-check.ts';
import type { HygieneOptions } from '../options.ts';
import { sanitizeFile } from '../run.ts';
import { sanitizeDatabaseSession } from '../session/db-sanitize.ts';
import { repairSessionFileIfNeeded, type RepairReport } from '../session/repair.ts';
import type { HygieneStats } from '../stats.ts';
import { jsonlToJsonArray } from './json-array.ts';
import type { ExportFormat } from './routes.ts';

export interface ExportTask {
  id: number;
  /** Absolute path of the session. */
  source: string;
  /** Absolute path of the output. */
  output: string;
  /** Absolute path of the temporary output, a sibling of `output`. */
  temp: string;
  /** Absolute path for the repaired copy (used only with `repair`). */
  repairCopy: string;
  format: ExportFormat;
  options: HygieneOptions;
  /**
   * The clock of synthetic messages (missing tool results, bootstrap turns): the session's
   * mtime, so an output depends only on its session and options, and a resumed export writes
   * the same bytes as one run.
   */
  clockMs: number;
  repair: boolean;
  /** `source` is an OpenClaw database: export this session of it, up to this seq (what was listed). */
  session?: { id: string; lastSeq: number };
}

export interface TaskFailure {
  code: string;
  reason: string;
  line?: number;
  /** The system error's code (EIO, EAGAIN, ...) behind it, if any: the queue retries the transient ones. */
  errno?: string;
}

/** What the repair changed in the copy (RepairReport without the backup's path). */
export type RepairCounts = Omit<RepairReport, 'backupPath' | 'repaired' | 'reason'>;

export type ExportTaskResult =
  | { id: number; ok: true; stats: HygieneStats; bytesOut: number; repaired: boolean; repair?: RepairCounts; ms: number }
  | { id: number; ok: false; failure: TaskFailure; ms: number };

class OutputError extends Error {
  readonly errno: string | undefined;
  constructor(message: string, cause: unknown) {
    super(message);
    this.errno = errnoOf(cause);
  }
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** Strips `<source>:<line>: ` or `<source>: ` from a message: the report has file and line fields. */
function reasonOf(message: string, sources: readonly string[]): string {
  for (const source of sources) {
    if (!message.startsWith(source)) continue;
    const rest = message.slice(source.length);
    const match = /^(?::\d+)?: /.exec(rest);
    if (match !== null) return rest.slice(match[0].length);
  }
  return message;
}

export function failureOf(error: unknown, sources: readonly string[]): TaskFailure {
  if (error instanceof OutputError) return { code: 'output_failed', reason: error.message, ...(error.errno === undefined ? {} : { errno: error.errno }) };
  if (isHygieneError(error)) {
    const errno = errnoOf(error.cause);
    return { code: error.code, reason: reasonOf(error.message, sources), ...(error.line === undefined ? {} : { line: error.line }), ...(errno === undefined ? {} : { errno }) };
  }
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (errno === 'ENOENT' || errno === 'ENOTDIR') return { code: 'input_not_found', reason: 'no such file or directory' };
  if (errno === 'EACCES' || errno === 'EPERM') return { code: 'input_unreadable', reason: 'permission denied' };
  if (errno === 'EISDIR') return { code: 'input_is_directory', reason: 'a directory, not a session file' };
  if (typeof errno === 'string' && errno.startsWith('E')) return { code: 'input_unreadable', reason: reasonOf((error as Error).message, sources), errno };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal_error', reason: message };
}

/** Sanitizes `input` into task.temp (lib/atomic-write.ts); returns the stats, the bytes written and the finished file to rename. */
async function sanitizeInto(input: string, task: ExportTask): Promise<{ stats: HygieneStats; bytesOut: number; file: AtomicFile }> {
  let atomic: AtomicFile;
  try {
    atomic = await openAtomic(task.output, { temporary: task.temp });
  } catch (error) {
    throw new OutputError(`cannot write ${task.output} (${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message})`, (error as Error).cause ?? error);
  }
  const file = atomic.stream();
  let outputError: Error | undefined;
  file.on('error', (error: Error) => {
    outputError ??= error;
  });
  let output: Writable = file;
  let done: Promise<void> = Promise.resolve();
  if (task.format === 'json') {
    const array = jsonlToJsonArray();
    output = array;
    // pipe(), not pipeline(): a failure must not destroy the file stream (that would close the
    // descriptor its handle owns); atomic.finish() or abort() ends it.
    array.pipe(file, { end: false });
    done = finished(array);
  }
  done.catch(() => undefined);
  try {
    const options = { ...task.options, now: () => task.clockMs };
    const stats =
      task.session === undefined
        ? await sanitizeFile({ path: input, output, options })
        : await sanitizeDatabaseSession({ path: input, session: task.session.id, maxSeq: task.session.lastSeq, output, options });
    // As sanitize says of it: an input that gives no message is a failure, not an empty output.
    if (task.session === undefined && messagesWithRole(stats) === 0) throw describeMessageless(input, await fileHead(input));
    if (output !== file) {
      output.end();
      await done;
    }
    await atomic.finish();
    return { stats, bytesOut: file.bytesWritten, file: atomic };
  } catch (error) {
    // The JSON array transform, not the file stream: abort() ends that without closing its descriptor.
    if (output !== file) output.destroy();
    await atomic.abort();
    await done.catch(() => undefined);
    if (outputError !== undefined) throw new OutputError(`cannot write ${task.output} (${outputError.message})`, outputError);
    if (isHygieneError(error) && error.code === 'output_failed') throw new OutputError(`cannot write ${task.output} (${(error.cause as Error | undefined)?.message ?? error.message})`, error.cause ?? error);
    throw error;
  }
}

/** Copies the session beside its output and repairs the copy; returns the repair's report. */
async function repairCopy(task: ExportTask): Promise<RepairReport> {
  await copyFile(task.source, task.repairCopy);
  // Nobody else knows the copy: no session lock. The session's clock, as for the pipeline.
  return repairSessionFileIfNeeded(task.repairCopy, { lock: false, now: () => task.clockMs });
}

export async function exportFile(task: ExportTask): Promise<ExportTaskResult> {
  const started = Date.now();
  let repair: RepairReport | undefined;
  try {
    try {
      await ensureDirectory(path.dirname(task.output));
    } catch (error) {
      throw new OutputError(`cannot create ${path.dirname(task.output)} (${(error as Error).message})`, error);
    }
    if (task.repair) repair = await repairCopy(task);
    let result: { stats: HygieneStats; bytesOut: number; file: AtomicFile };
    try {
      result = await sanitizeInto(repair === undefined ? task.source : task.repairCopy, task);
    } catch (error) {
      // Say why the repair did not save it, when it did nothing.
      if (repair === undefined || repair.repaired || repair.reason === undefined) throw error;
      const failure = failureOf(error, [task.repairCopy, task.source]);
      throw Object.assign(error as object, { failure: { ...failure, reason: `${failure.reason} (repair: ${repair.reason})` } });
    }
    await result.file.replace().catch((error: Error) => {
      throw new OutputError(`cannot rename into ${task.output} (${(error.cause as Error | undefined)?.message ?? error.message})`, error.cause ?? error);
    });
    const { backupPath: _backup, repaired: _repaired, reason: _reason, ...counts } = repair ?? { repaired: false };
    return {
      id: task.id,
      ok: true,
      stats: result.stats,
      bytesOut: result.bytesOut,
      repaired: repair?.repaired === true,
      ...(repair?.repaired === true ? { repair: counts as RepairCounts } : {}),
      ms: Date.now() - started,
    };
  } catch (error) {
    await rm(task.temp, { force: true }).catch(() => undefined);
    const failure = (error as { failure?: TaskFailure }).failure ?? failureOf(error, [task.repairCopy, task.source]);
    return { id: task.id, ok: false, failure, ms: Date.now() - started };
  } finally {
    if (task.repair) {
      // The copy, and the backup the repair could not remove (if it says so).
      await Promise.all([task.repairCopy, repair?.backupPath].map((file) => (file === undefined ? undefined : rm(file, { force: true }).catch(() => undefined))));
    }
  }
}
