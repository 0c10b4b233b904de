/**
 * Writing an output so that a reader finds the old file or the whole new one, never a part, and
 * a stopped run leaves nothing behind. `sanitize -o`, `repair`, `export` and the stdin spool all
 * write through here.
 *
 * A regular file (or a new one) is written to a temporary sibling that has the target's mode,
 * fsynced, and renamed over it; the directory is fsynced after. A symbolic link is followed: the
 * file it names is replaced and the link stays a link. Anything else that exists (a FIFO, a
 * device, /dev/stdout) is written through, in place, since replacing it by a regular file would
 * destroy it. A directory is refused before anything is written.
 *
 * Every temporary file is tracked until it is renamed or removed: SIGINT, SIGTERM or SIGHUP (when
 * nobody else handles them) and process exit remove what is left.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { HygieneError } from './errors.ts';

/**
 * The high-water mark of the output files the command opens: with node's 16 KiB every 64 KiB
 * write filled the stream, and the pipeline (lib/jsonl.ts JsonlWriter) waited for each write
 * to reach the file before it went on. At 1 MiB the main thread still waited about 1 s of a 5 s
 * run (200k messages) for the file; at 4 MiB, with the writer's chunks reused, a run took
 * 4.6-4.8 s against 4.9-5.1 s (8 and 16 MiB were no faster). Before the chunks were reused,
 * 8 MiB saved the waiting but doubled the collector's time: more chunks in flight was more
 * memory outside the heap.
 */
export const OUTPUT_HIGH_WATER_MARK = 4 << 20;

// ---------------------------------------------------------------------------------------------
// Temporary files removed when the process is stopped

const temporaries = new Set<string>();
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function removeAllNow(): void {
  for (const file of temporaries) {
    try {
      rmSync(file, { force: true });
    } catch {
      // Nothing more can be done while stopping.
    }
  }
  temporaries.clear();
}

function onStopSignal(signal: NodeJS.Signals): void {
  // Someone else handles this signal (export stops gracefully and cleans up itself): leave it to them.
  if (process.listenerCount(signal) > 1) return;
  removeAllNow();
  uninstall();
  // End as the signal would have ended the process without us.
  process.kill(process.pid, signal);
}

let installed = false;
function install(): void {
  if (installed) return;
  installed = true;
  for (const signal of STOP_SIGNALS) process.on(signal, onStopSignal);
  process.on('exit', removeAllNow);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const signal of STOP_SIGNALS) process.off(signal, onStopSignal);
  process.off('exit', removeAllNow);
}

/**
 * Removes `file` if the process is stopped (or exits) before the returned function is called.
 * For files that must not outlive the run: temporaries, a backup, a lock.
 */
export function removeOnStop(file: string): () => void {
  temporaries.add(file);
  install();
  return () => {
    temporaries.delete(file);
    if (temporaries.size === 0) uninstall();
  };
}

/**
 * Removes, now and synchronously, every file removeOnStop holds: for a command that ends its
 * process by a signal itself (a forced stop), where no exit handler runs.
 */
export function removeTemporariesNow(): void {
  removeAllNow();
}

/** The files removeOnStop is holding now (for tests). */
export function pendingRemovals(): string[] {
  return [...temporaries];
}

// ---------------------------------------------------------------------------------------------
// The atomic file

export interface AtomicWriteOptions {
  /** The temporary file's path (default `.<name>.tmp-<pid>-<random>` beside the target). */
  temporary?: string;
  /** Mode of a new file (default 0o666 less the umask); an existing file keeps its own. */
  mode?: number;
}

export interface AtomicFile {
  /** The path as given. */
  readonly target: string;
  /** Where the bytes go: the temporary file, or the target itself when written through. */
  readonly path: string;
  /** Written in place (a FIFO, a device): no temporary file, no rename. */
  readonly direct: boolean;
  readonly handle: FileHandle;
  /** A write stream on the handle (one per file); commit and abort end it. */
  stream(): Writable & { bytesWritten: number };
  /** Ends the stream if there is one, fsyncs and closes the temporary file. */
  finish(): Promise<void>;
  /** Renames the finished temporary file over the target and fsyncs the directory. */
  replace(): Promise<void>;
  /** finish, then replace. */
  commit(): Promise<void>;
  /** Closes and removes the temporary file (the target is untouched). Never throws. */
  abort(): Promise<void>;
}

function outputError(target: string, error: unknown): HygieneError {
  return new HygieneError('output_failed', `${target}: cannot write output (${(error as Error).message})`, { cause: error });
}

/** Where writing `target` would go; throws for a directory (output_is_directory) before anything is created. */
export async function planOutput(target: string): Promise<{ direct: boolean; file: string; mode: number | undefined }> {
  let info;
  try {
    info = await stat(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw outputError(target, error);
    // A dangling symbolic link: write through it (this creates the file it names).
    const link = await lstat(target).catch(() => undefined);
    return { direct: link?.isSymbolicLink() === true, file: target, mode: undefined };
  }
  if (info.isDirectory()) throw new HygieneError('output_is_directory', `${target}: is a directory (give a file to write)`, { source: target });
  if (!info.isFile()) return { direct: true, file: target, mode: undefined };
  // /dev/stdout (or /dev/fd/N, /proc/self/fd/N) redirected to a file: the shell holds that file
  // open, maybe for appending, so write through the descriptor's path rather than replace it.
  const absolute = path.resolve(target);
  if (absolute.startsWith('/dev/') || absolute.startsWith('/proc/')) return { direct: true, file: target, mode: undefined };
  const real = await realpath(target).catch(() => target);
  return { direct: false, file: real, mode: info.mode & 0o7777 };
}

async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems cannot fsync a directory (EINVAL): the rename is as durable as they make it.
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
  } finally {
    await handle.close();
  }
}

/** Opens `target` for an atomic write (see the module comment). Errors are HygieneErrors (output_failed, output_is_directory). */
export async function openAtomic(target: string, options: AtomicWriteOptions = {}): Promise<AtomicFile> {
  const plan = await planOutput(target);
  if (plan.direct) {
    let handle: FileHandle;
    try {
      // Appending: /dev/stdout redirected with `>>` keeps what the file had (for a FIFO or a device it is the same as writing).
      handle = await open(plan.file, 'a');
    } catch (error) {
      throw outputError(target, error);
    }
    return atomicFile(target, plan.file, true, handle, undefined, () => undefined);
  }
  const temporary = options.temporary ?? path.join(path.dirname(plan.file), `.${path.basename(plan.file)}.tmp-${process.pid}-${randomUUID().slice(0, 8)}`);
  const mode = plan.mode ?? options.mode;
  const forget = removeOnStop(temporary);
  let handle: FileHandle;
  try {
    handle = await open(temporary, 'wx', mode ?? 0o666);
    // The umask may have taken bits off an existing file's mode.
    if (plan.mode !== undefined) await handle.chmod(plan.mode);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    forget();
    throw outputError(target, error);
  }
  return atomicFile(target, temporary, false, handle, plan.file, forget);
}

function atomicFile(target: string, file: string, direct: boolean, handle: FileHandle, replaces: string | undefined, forget: () => void): AtomicFile {
  let stream: (Writable & { bytesWritten: number }) | undefined;
  let closed = false;
  let finishedOk = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  const self: AtomicFile = {
    target,
    path: file,
    direct,
    handle,
    stream() {
      if (stream === undefined) {
        // On the raw descriptor: a FileHandle's own stream holds a reference that keeps close() waiting.
        stream = createWriteStream('', { fd: handle.fd, autoClose: false, highWaterMark: OUTPUT_HIGH_WATER_MARK });
        // Errors surface through finish() (or the writer's drain); never as an unhandled event.
        stream.on('error', () => undefined);
      }
      return stream;
    },
    async finish() {
      try {
        if (stream !== undefined) {
          if (stream.errored) throw stream.errored;
          const ending = stream;
          // Not finished(): a stream that leaves its handle open never emits 'close', which it waits for.
          await new Promise<void>((resolve, reject) => ending.end((error?: Error | null) => (error ? reject(error) : resolve())));
        }
        if (!direct) await handle.sync();
        await close();
        finishedOk = true;
      } catch (error) {
        throw outputError(target, error);
      }
    },
    async replace() {
      if (direct) return forget();
      if (!finishedOk) throw new Error('replace() before finish()');
      try {
        await rename(file, replaces!);
      } catch (error) {
        throw outputError(target, error);
      }
      forget();
      await fsyncDirectory(path.dirname(replaces!)).catch(() => undefined);
    },
    async commit() {
      try {
        await self.finish();
        await self.replace();
      } catch (error) {
        await self.abort();
        throw error;
      }
    },
    async abort() {
      // Not stream.destroy(): it would close the descriptor the handle still owns, and the
      // handle's own close would then close whatever file got that number meanwhile. Let the
      // stream finish what it queued (into the file about to be removed), then close the handle.
      if (stream !== undefined && !stream.writableFinished && !stream.errored) {
        const ending = stream;
        await new Promise<void>((resolve) => ending.end(() => resolve()));
      }
      await close().catch(() => undefined);
      if (!direct) await rm(file, { force: true }).catch(() => undefined);
      forget();
    },
  };
  return self;
}

/** Writes `data` to `target` atomically (the export's report and manifest). */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const file = await openAtomic(target, options);
  try {
    await file.handle.writeFile(data);
  } catch (error) {
    await file.abort();
    throw outputError(target, error);
  }
  await file.commit();
}

/**
 * mkdir -p, one level at a time. Node's recursive mkdir never settles on some paths
 * (`/proc/x`: it spins a core), so each missing level is made on its own and any failure,
 * EEXIST of something that is not a directory included, is thrown at once.
 */
export async function ensureDirectory(directory: string): Promise<void> {
  const missing: string[] = [];
  let current = path.resolve(directory);
  for (;;) {
    const info = await stat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info !== undefined) {
      if (!info.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: 'ENOTDIR' });
      break;
    }
    missing.push(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const level of missing.reverse()) {
    await mkdir(level).catch(async (error: NodeJS.ErrnoException) => {
      // Made meanwhile by another process: fine if it is a directory.
      if (error.code === 'EEXIST' && (await stat(level)).isDirectory()) return;
      throw error;
    });
  }
}
