/**
 * repairSessionFileIfNeeded (spec/session-file.md §9): drops lines that are not JSON or not
 * valid messages, rewrites Bedrock's empty error turns and blank user turns, replaces corrupted
 * inline images, and inserts the synthetic tool results of the code-mode and delivery-mirror
 * rules; then replaces the file safely. Streamed: two reads of the file (find out, then write),
 * never the whole file in memory; what is kept across the file is the set of tool-result ids.
 *
 * On disk, in this order (§9.4, with what we do differently said so):
 *
 * 1. under the session write lock (lock.ts; the reference leaves locking to its callers);
 * 2. the original's bytes are copied to `<file>.bak-<pid>-<ms>` with its mode, and fsynced
 *    (a byte copy: the reference writes its decoded text, so invalid UTF-8 became U+FFFD);
 * 3. the repaired copy goes to `<basename>.repair.<pid>.<uuid>.tmp` beside it (O_EXCL, the
 *    original's mode), is fsynced, and the original is checked to be unchanged since it was read;
 * 4. the temporary file is renamed over the original and the directory fsynced (the reference
 *    does not fsync); the mode is set again (steps 3 and 4 through lib/atomic-write.ts);
 * 5. the backup is removed; if that fails the report says where it is (`backupPath`).
 *
 * A crash at any point leaves the original or the complete repaired file, and the backup until
 * the rename has happened. A stop by SIGINT/SIGTERM/SIGHUP removes the temporary file, the backup
 * and the lock: the original stays if the rename had not happened, the repaired file if it had. When the replace fails, the temporary file and the backup are removed
 * (the reference leaves an orphaned backup there), and the report says `repair failed: ...`.
 * Not reproduced: the best-effort chmod of the directory to 0700, and the incremental cache of
 * §9.5 (every call reads the file; `validatedSnapshot` is not reported).
 */
import { randomUUID } from 'node:crypto';
import { open, readdir, realpath, rm, stat, chmod, unlink, type FileHandle } from 'node:fs/promises';
import { openAtomic, removeOnStop, type AtomicFile } from '../atomic-write.ts';
import { HygieneError } from '../errors.ts';
import path from 'node:path';
import { readLines } from './line-reader.ts';
import { acquireSessionLock, isProcessAlive, type LockOptions, type SessionLock } from './lock.ts';
import {
  isCodeModeCandidate,
  isDeliveryMirror,
  isMessageToolName,
  isMirrorCandidate,
  isRepairHeader,
  messageOf,
  repairLine,
  repairSummary,
  syntheticResultEntry,
  toolCallsOf,
  toolResultIdOf,
  type RepairCounts,
} from './repair-rules.ts';

export interface RepairReport {
  repaired: boolean;
  droppedLines: number;
  rewrittenAssistantMessages?: number;
  droppedBlankUserMessages?: number;
  rewrittenUserMessages?: number;
  removedCorruptedImageBlocks?: number;
  insertedToolResults?: number;
  /** Only when removing the backup failed: where the original's copy is. */
  backupPath?: string;
  reason?: string;
}

/** The points of the write sequence, in order (for progress and for fault-injection tests). */
export type RepairStep = 'before-backup' | 'backup-written' | 'temp-written' | 'before-rename' | 'renamed' | 'backup-removed';

export interface RepairStepInfo {
  file: string;
  backupPath: string;
  tempPath: string;
}

export interface RepairOptions {
  warn?: (message: string) => void;
  debug?: (message: string) => void;
  /** Take the session write lock (default true); false when the caller already holds it. */
  lock?: boolean | LockOptions;
  /** Clock of the synthetic results (default Date.now). */
  now?: () => number;
  /** Called (and awaited) at each step of the write sequence. */
  onStep?: (step: RepairStep, info: RepairStepInfo) => void | Promise<void>;
  /** Read size in bytes (default 1 MiB). */
  chunkSize?: number;
}

export interface RepairParams extends RepairOptions {
  sessionFile: string;
}

interface Scan extends RepairCounts {
  kept: number;
  headerOk: boolean;
  /** Tool-result ids of the whole file (§9.3 step 4). */
  resultIds: Set<string>;
  /** Calls that get a code-mode synthetic result, in file order (each id once: Errata 5). */
  codeModeSynthetic: Set<string>;
  /** Lines of delivery-mirror candidates that a mirror follows. */
  mirrorLines: Set<number>;
  needsInsert: boolean;
}

const WRITE_CHUNK = 1 << 20;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'unknown error';
}

function emptyCounts(): RepairCounts {
  return { droppedLines: 0, rewrittenAssistantMessages: 0, droppedBlankUserMessages: 0, rewrittenUserMessages: 0, removedCorruptedImageBlocks: 0, insertedToolResults: 0 };
}

/** Pass 1: what the repair would do, without writing. */
async function scan(handle: FileHandle, chunkSize: number | undefined): Promise<Scan> {
  const result: Scan = { ...emptyCounts(), kept: 0, headerOk: false, resultIds: new Set(), codeModeSynthetic: new Set(), mirrorLines: new Set(), needsInsert: false };
  const codeModeCalls = new Set<string>();
  const mirrorCalls: string[] = [];
  let mirrorCandidate: { line: number; calls: string[] } | undefined;
  await readLines(
    handle,
    {
      line(buffer, start, end, _offset, line) {
        const repair = repairLine(buffer.toString('utf8', start, end));
        if (repair.kind === 'skip') return;
        if (repair.kind === 'drop') {
          result.droppedLines++;
          return;
        }
        if (result.kept++ === 0) result.headerOk = isRepairHeader(repair.entry);
        if (repair.rewroteAssistant) result.rewrittenAssistantMessages++;
        if (repair.rewroteUser) result.rewrittenUserMessages++;
        result.removedCorruptedImageBlocks += repair.removedImages;
        const message = messageOf(repair.entry);
        if (message === undefined) return;
        // The delivery-mirror rule looks at the next message entry after a candidate.
        if (mirrorCandidate !== undefined) {
          if (isDeliveryMirror(message)) {
            result.mirrorLines.add(mirrorCandidate.line);
            mirrorCalls.push(...mirrorCandidate.calls);
          }
          mirrorCandidate = undefined;
        }
        const resultId = toolResultIdOf(message);
        if (resultId !== undefined) result.resultIds.add(resultId);
        if (isCodeModeCandidate(message)) for (const call of toolCallsOf(message)) codeModeCalls.add(call.id);
        if (isMirrorCandidate(message)) {
          const calls = toolCallsOf(message).filter((call) => isMessageToolName(call.name)).map((call) => call.id);
          if (calls.length > 0) mirrorCandidate = { line, calls };
        }
      },
    },
    chunkSize,
  );
  for (const id of codeModeCalls) if (!result.resultIds.has(id)) result.codeModeSynthetic.add(id);
  result.needsInsert = result.codeModeSynthetic.size > 0 || mirrorCalls.some((id) => !result.resultIds.has(id) && !result.codeModeSynthetic.has(id));
  return result;
}

/** Buffered appends to a file handle. */
class Output {
  private pending: string[] = [];
  private chars = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly handle: FileHandle) {}

  write(text: string): void {
    this.pending.push(text);
    this.chars += text.length;
    if (this.chars >= WRITE_CHUNK) this.flushSoon();
  }

  private flushSoon(): void {
    const text = this.pending.join('');
    this.pending = [];
    this.chars = 0;
    this.chain = this.chain.then(() => this.handle.write(text));
  }

  /** Waits for what is queued (a write error surfaces here). */
  async drain(): Promise<void> {
    await this.chain;
  }

  async end(): Promise<void> {
    if (this.chars > 0) this.flushSoon();
    await this.chain;
  }
}

/** Pass 2: the repaired copy, written to `out`; returns how many synthetic results went in. */
async function writeRepaired(handle: FileHandle, out: Output, found: Scan, now: () => number, chunkSize: number | undefined): Promise<number> {
  const codeModeIds = new Set(found.resultIds);
  const mirrorIds = new Set([...found.resultIds, ...found.codeModeSynthetic]);
  let inserted = 0;
  await readLines(
    handle,
    {
      line(buffer, start, end, _offset, line) {
        const repair = repairLine(buffer.toString('utf8', start, end));
        if (repair.kind !== 'keep') return;
        out.write(JSON.stringify(repair.entry) + '\n');
        const message = messageOf(repair.entry);
        if (message === undefined) return;
        const insert = (call: { id: string; name: string | undefined }): void => {
          out.write(JSON.stringify(syntheticResultEntry(repair.entry, call, `repair-${randomUUID()}`, now())) + '\n');
          inserted++;
        };
        if (isCodeModeCandidate(message)) {
          for (const call of toolCallsOf(message)) {
            if (codeModeIds.has(call.id)) continue;
            insert(call);
            codeModeIds.add(call.id);
          }
        }
        if (found.mirrorLines.has(line) && isMirrorCandidate(message)) {
          for (const call of toolCallsOf(message)) {
            if (!isMessageToolName(call.name) || mirrorIds.has(call.id)) continue;
            insert(call);
            mirrorIds.add(call.id);
          }
        }
      },
      afterChunk: () => out.drain(),
    },
    chunkSize,
  );
  return inserted;
}

async function copyFile(source: FileHandle, size: number, target: FileHandle): Promise<void> {
  const buffer = Buffer.allocUnsafe(WRITE_CHUNK);
  for (let at = 0; at < size; ) {
    const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, size - at), at);
    if (bytesRead === 0) break;
    await target.write(buffer, 0, bytesRead);
    at += bytesRead;
  }
}

function tempPathFor(file: string): string {
  const base = path.basename(file).replace(/[^A-Za-z0-9._-]/g, '-');
  return path.join(path.dirname(file), `${base}.repair.${process.pid}.${randomUUID()}.tmp`);
}

/** Removes temporary files left by repairs whose process is gone (only while holding the lock). */
async function removeDeadTemps(file: string): Promise<void> {
  const base = path.basename(file).replace(/[^A-Za-z0-9._-]/g, '-');
  const prefix = `${base}.repair.`;
  let names: string[];
  try {
    names = await readdir(path.dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isProcessAlive(pid)) {
      await rm(path.join(path.dirname(file), name), { force: true });
    }
  }
}

function failedReport(found: RepairCounts, error: unknown): RepairReport {
  return {
    repaired: false,
    droppedLines: found.droppedLines,
    rewrittenAssistantMessages: found.rewrittenAssistantMessages,
    droppedBlankUserMessages: found.droppedBlankUserMessages,
    rewrittenUserMessages: found.rewrittenUserMessages,
    removedCorruptedImageBlocks: found.removedCorruptedImageBlocks,
    reason: `repair failed: ${errorMessage(error)}`,
  };
}

/** Repairs a session file in place when it needs it; see the module comment. */
export async function repairSessionFileIfNeeded(fileOrParams: string | RepairParams, maybeOptions: RepairOptions = {}): Promise<RepairReport> {
  const options: RepairOptions = typeof fileOrParams === 'string' ? maybeOptions : fileOrParams;
  const input = (typeof fileOrParams === 'string' ? fileOrParams : fileOrParams.sessionFile).trim();
  if (!input) return { repaired: false, droppedLines: 0, reason: 'missing session file' };
  const file = path.resolve(input);
  const name = path.basename(file);
  const skipped = (reason: string): RepairReport => {
    options.warn?.(`session file repair skipped: ${reason} (${name})`);
    return { repaired: false, droppedLines: 0, reason };
  };
  // A symbolic link is followed: the file it names is repaired and the link stays a link.
  let target: string;
  try {
    await stat(file);
    target = await realpath(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { repaired: false, droppedLines: 0, reason: 'missing session file' };
    return skipped(`failed to read session file: ${errorMessage(error)}`);
  }
  let lock: SessionLock | undefined;
  // A stop by signal releases the lock (lib/atomic-write.ts removes the file).
  let forgetLock = (): void => undefined;
  if (options.lock !== false) {
    try {
      lock = await acquireSessionLock(file, typeof options.lock === 'object' ? options.lock : {});
      forgetLock = removeOnStop(lock.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { repaired: false, droppedLines: 0, reason: 'missing session file' };
      throw error;
    }
  }
  try {
    if (lock !== undefined) await removeDeadTemps(target);
    let handle: FileHandle;
    try {
      handle = await open(target, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { repaired: false, droppedLines: 0, reason: 'missing session file' };
      return skipped(`failed to read session file: ${errorMessage(error)}`);
    }
    try {
      return await repairOpen(target, handle, options, name);
    } finally {
      await handle.close();
    }
  } finally {
    await lock?.release();
    forgetLock();
  }
}

async function repairOpen(file: string, handle: FileHandle, options: RepairOptions, name: string): Promise<RepairReport> {
  let found: Scan;
  let before;
  try {
    before = await handle.stat();
    if (before.isDirectory()) throw Object.assign(new Error('EISDIR: illegal operation on a directory, read'), { code: 'EISDIR' });
    found = await scan(handle, options.chunkSize);
  } catch (error) {
    const reason = `failed to read session file: ${errorMessage(error)}`;
    options.warn?.(`session file repair skipped: ${reason} (${name})`);
    return { repaired: false, droppedLines: 0, reason };
  }
  if (found.kept === 0) return { repaired: false, droppedLines: found.droppedLines, reason: 'empty session file' };
  if (!found.headerOk) {
    options.warn?.(`session file repair skipped: invalid session header (${name})`);
    return { repaired: false, droppedLines: found.droppedLines, reason: 'invalid session header' };
  }
  const changes = found.droppedLines + found.rewrittenAssistantMessages + found.rewrittenUserMessages + found.removedCorruptedImageBlocks;
  if (changes === 0 && !found.needsInsert) return { repaired: false, droppedLines: 0 };

  const mode = before.mode & 0o7777;
  const backupPath = `${file}.bak-${process.pid}-${Date.now()}`;
  const tempPath = tempPathFor(file);
  const info: RepairStepInfo = { file, backupPath, tempPath };
  const now = options.now ?? Date.now;
  let inserted = 0;
  let renamed = false;
  // Until it is removed below, a stop by signal removes the backup (and the temporary file) too.
  const forgetBackup = removeOnStop(backupPath);
  let temp: AtomicFile | undefined;
  try {
    await options.onStep?.('before-backup', info);
    const backup = await open(backupPath, 'wx', mode);
    try {
      await copyFile(handle, before.size, backup);
      await backup.chmod(mode);
      await backup.sync();
    } finally {
      await backup.close();
    }
    await options.onStep?.('backup-written', info);
    temp = await openAtomic(file, { temporary: tempPath });
    if (temp.direct) throw new Error('the session file is not a regular file');
    const out = new Output(temp.handle);
    inserted = await writeRepaired(handle, out, found, now, options.chunkSize);
    await out.end();
    await temp.finish();
    await options.onStep?.('temp-written', info);
    const current = await stat(file);
    if (current.ino !== before.ino || current.size !== before.size || current.mtimeMs !== before.mtimeMs) {
      throw new Error('the session file changed while it was being repaired');
    }
    await options.onStep?.('before-rename', info);
    await temp.replace();
    renamed = true;
    await options.onStep?.('renamed', info);
    await chmod(file, mode).catch(() => undefined);
  } catch (error) {
    if (!renamed) {
      await temp?.abort();
      await rm(tempPath, { force: true }).catch(() => undefined);
      // The original is untouched: its copy is not needed (the reference leaves it behind).
      await rm(backupPath, { force: true }).catch(() => undefined);
      forgetBackup();
      // The helper's errors name the file; the report's reason is the system's own message, as before.
      return failedReport(found, error instanceof HygieneError && error.cause !== undefined ? error.cause : error);
    }
    // Replaced already: what failed after it (the step callback) does not undo the repair.
  }
  let retained: string | undefined;
  try {
    await unlink(backupPath);
  } catch (error) {
    retained = backupPath;
    options.debug?.(`session file repair backup cleanup failed: ${errorMessage(error)} (${path.basename(backupPath)})`);
  }
  forgetBackup();
  if (retained === undefined) await options.onStep?.('backup-removed', info);
  const counts: RepairCounts = { ...found, insertedToolResults: inserted };
  options.debug?.(`session file repaired: ${repairSummary(counts)} (${name})`);
  return {
    repaired: true,
    droppedLines: found.droppedLines,
    rewrittenAssistantMessages: found.rewrittenAssistantMessages,
    droppedBlankUserMessages: found.droppedBlankUserMessages,
    rewrittenUserMessages: found.rewrittenUserMessages,
    removedCorruptedImageBlocks: found.removedCorruptedImageBlocks,
    insertedToolResults: inserted,
    ...(retained === undefined ? {} : { backupPath: retained }),
  };
}
