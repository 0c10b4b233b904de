/**
 * The export manifest (DIR/.export-manifest.json) records each output finished so far, with the
 * size and mtime of its source, the route's options hash and the output's size. A re-run skips
 * an output whose record matches its source and options and whose file is in place with that
 * size (outputs are renamed into place only when complete, so one there is whole).
 *
 * Every write is atomic: a temporary sibling, fsync, rename. Writes are serialized and spaced
 * (at least `intervalMs` apart, and twenty times as long as the last one took), so a manifest of
 * many thousands of entries costs the export a few percent at most. With `intervalMs` 0 a write
 * starts as soon as the previous one ends. A kill loses at most the
 * records of the last interval; those outputs are simply redone.
 *
 * The lock file (DIR/.export.lock) keeps two exports from writing the same directory.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { removeOnStop, writeFileAtomic as writeAtomic } from '../atomic-write.ts';
import { HygieneError } from '../errors.ts';

export const MANIFEST_NAME = '.export-manifest.json';
export const LOCK_NAME = '.export.lock';
/** Marks every temporary file the export writes; stale ones are removed when a run starts. */
export const TEMP_MARK = '.th-tmp-';

export interface ManifestEntry {
  /** Absolute path of the source session. */
  source: string;
  size: number;
  mtimeMs: number;
  optionsHash: string;
  outputBytes: number;
  finishedAt: string;
  /** The output was made from a repaired copy (--repair). */
  repaired?: boolean;
  /** Lines of the session the export passed over (report-skipped.ts), kept so a resumed run still reports them. */
  skippedLines?: { count: number; lines: number[]; reason: string };
}

const VERSION = 1;

/** Writes a file atomically: temporary sibling, fsync, rename. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  // Named with TEMP_MARK, so a run killed outright leaves a temporary the next run removes.
  await writeAtomic(file, text, { temporary: path.join(path.dirname(file), `${path.basename(file)}${TEMP_MARK}${process.pid}`) });
}

export class Manifest {
  readonly file: string;
  private readonly entries: Map<string, ManifestEntry>;
  private readonly intervalMs: number;
  private dirty = false;
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private nextWriteAt = 0;
  /** The last write's error, if it failed (the export reports it as a warning). */
  lastError: Error | undefined;

  private constructor(file: string, entries: Map<string, ManifestEntry>, intervalMs: number) {
    this.file = file;
    this.entries = entries;
    this.intervalMs = intervalMs;
  }

  /** Loads DIR's manifest; a missing one is empty, an unreadable one is empty with a warning. */
  static async open(directory: string, options: { intervalMs?: number } = {}): Promise<{ manifest: Manifest; warning?: string }> {
    const file = path.join(directory, MANIFEST_NAME);
    const intervalMs = options.intervalMs ?? 500;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { manifest: new Manifest(file, new Map(), intervalMs) };
      return { manifest: new Manifest(file, new Map(), intervalMs), warning: `${file}: cannot read the manifest (${(error as Error).message}); every output is redone` };
    }
    try {
      const value = JSON.parse(text) as { version?: unknown; entries?: Record<string, ManifestEntry> };
      if (value.version !== VERSION || value.entries === null || typeof value.entries !== 'object') throw new Error(`unknown manifest version ${String(value.version)}`);
      return { manifest: new Manifest(file, new Map(Object.entries(value.entries)), intervalMs) };
    } catch (error) {
      return { manifest: new Manifest(file, new Map(), intervalMs), warning: `${file}: not a manifest this version can read (${(error as Error).message}); every output is redone` };
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): ManifestEntry | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: ManifestEntry): void {
    this.entries.set(key, entry);
    this.changed();
  }

  delete(key: string): boolean {
    const had = this.entries.delete(key);
    if (had) this.changed();
    return had;
  }

  /** Whether the record of `key` matches this source and options (the output file is checked by the caller). */
  matches(key: string, expected: Pick<ManifestEntry, 'source' | 'size' | 'mtimeMs' | 'optionsHash'>): ManifestEntry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const same = entry.source === expected.source && entry.size === expected.size && entry.mtimeMs === expected.mtimeMs && entry.optionsHash === expected.optionsHash;
    return same ? entry : undefined;
  }

  private changed(): void {
    this.dirty = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.writing !== undefined || this.timer !== undefined || !this.dirty) return;
    const delay = Math.max(0, this.nextWriteAt - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, delay);
    this.timer.unref();
  }

  private write(): Promise<void> {
    if (this.writing !== undefined) return this.writing;
    this.dirty = false;
    const started = Date.now();
    const text = this.serialize();
    this.writing = writeFileAtomic(this.file, text)
      .then(
        () => {
          this.lastError = undefined;
        },
        (error: Error) => {
          this.lastError = error;
          this.dirty = true;
        },
      )
      .finally(() => {
        const took = Date.now() - started;
        this.nextWriteAt = this.intervalMs === 0 ? 0 : Date.now() + Math.max(this.intervalMs, 20 * took);
        this.writing = undefined;
        this.schedule();
      });
    return this.writing;
  }

  /** One entry a line, keys sorted: small diffs, and easy to read. */
  private serialize(): string {
    const keys = [...this.entries.keys()].sort();
    const lines = keys.map((key) => `  ${JSON.stringify(key)}: ${JSON.stringify(this.entries.get(key))}`);
    return `{"version": ${VERSION}, "entries": {\n${lines.join(',\n')}\n}}\n`;
  }

  /** Writes now what is not written yet and waits for it; throws the write's error. */
  async flush(): Promise<void> {
    for (;;) {
      this.cancelTimer();
      if (this.writing !== undefined) await this.writing;
      else if (this.dirty) {
        await this.write();
        if (this.lastError !== undefined) break;
      } else break;
    }
    this.cancelTimer();
    if (this.lastError !== undefined) throw this.lastError;
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes DIR's lock, or fails when a live export holds it. A lock left by a process that is
 * gone (killed) is taken over. Returns the release function.
 */
export async function acquireExportLock(directory: string): Promise<() => Promise<void>> {
  const file = path.join(directory, LOCK_NAME);
  const me = `${process.pid} ${hostname()}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx');
      // From here a stop by signal removes the lock too, even one that ends the process at once.
      const forget = removeOnStop(file);
      await handle.writeFile(me);
      await handle.close();
      return async () => {
        await rm(file, { force: true });
        forget();
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new HygieneError('output_failed', `${directory}: cannot write in the output directory (${(error as Error).message})`, { cause: error });
      }
    }
    const holder = (await readFile(file, 'utf8').catch(() => '')).trim();
    const [pidText, host] = holder.split(' ');
    const pid = Number(pidText);
    const sameHost = host === undefined || host === hostname();
    if (Number.isSafeInteger(pid) && pid > 0 && (!sameHost || processAlive(pid))) {
      throw new HygieneError('output_failed', `${directory}: another export (pid ${pid}${sameHost ? '' : ` on ${host}`}) is writing this directory; if it is gone, remove ${file}`);
    }
    await rm(file, { force: true });
  }
  throw new HygieneError('output_failed', `${directory}: cannot take the lock ${file}`);
}
