/**
 * The session write lock (spec/session-file.md §9.1): `<realpath(dir)>/<basename>.lock`, created
 * exclusively (`O_CREAT | O_EXCL`), holding `{"pid","createdAt","maxHoldMs"}` as OpenClaw writes
 * it, so a repair here and an OpenClaw writer exclude each other. A lock whose process is gone
 * (same host) or that is older than the stale limit is taken over; otherwise the caller waits
 * with backoff up to the acquire timeout.
 *
 * Taking over a stale lock is not atomic against a third process doing the same at the same
 * moment (it reads the lock, checks it, removes it, creates its own): a lock file cannot do
 * better without a daemon. The window is one stale lock's removal.
 */
import { open, readFile, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import { HygieneError } from '../errors.ts';

export interface LockOptions {
  /** How long to wait for a held lock (default 60 s, or OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS). */
  acquireTimeoutMs?: number;
  /** A lock older than this is stale (default 30 min, or OPENCLAW_SESSION_WRITE_LOCK_STALE_MS). */
  staleMs?: number;
  /** Written into the lock for other holders (default 5 min, or OPENCLAW_SESSION_WRITE_LOCK_MAX_HOLD_MS). */
  maxHoldMs?: number;
}

export interface SessionLock {
  readonly path: string;
  release(): Promise<void>;
}

function fromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** `<realpath(dir)>/<basename>.lock` for a session file. */
export async function lockPathFor(file: string): Promise<string> {
  const resolved = path.resolve(file);
  const dir = await realpath(path.dirname(resolved));
  return path.join(dir, `${path.basename(resolved)}.lock`);
}

/** Whether a process id is running on this host (EPERM: it is, under another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a lock's content says it is abandoned (dead process or too old). Unreadable content counts as stale only when old. */
function isStale(content: string, ageMs: number, staleMs: number): boolean {
  let owner: { pid?: unknown; createdAt?: unknown };
  try {
    owner = JSON.parse(content) as typeof owner;
  } catch {
    return ageMs > staleMs;
  }
  const createdAt = typeof owner.createdAt === 'number' ? owner.createdAt : typeof owner.createdAt === 'string' ? Date.parse(owner.createdAt) : Number.NaN;
  if (Number.isFinite(createdAt) && Date.now() - createdAt > staleMs) return true;
  if (typeof owner.pid === 'number' && Number.isInteger(owner.pid) && owner.pid > 0 && !isProcessAlive(owner.pid)) return true;
  return false;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function acquireSessionLock(file: string, options: LockOptions = {}): Promise<SessionLock> {
  const acquireTimeoutMs = options.acquireTimeoutMs ?? fromEnv('OPENCLAW_SESSION_WRITE_LOCK_ACQUIRE_TIMEOUT_MS', 60_000);
  const staleMs = options.staleMs ?? fromEnv('OPENCLAW_SESSION_WRITE_LOCK_STALE_MS', 30 * 60_000);
  const maxHoldMs = options.maxHoldMs ?? fromEnv('OPENCLAW_SESSION_WRITE_LOCK_MAX_HOLD_MS', 5 * 60_000);
  const lockPath = await lockPathFor(file);
  const started = Date.now();
  let delay = 10;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, createdAt: Date.now(), maxHoldMs }));
      } finally {
        await handle.close();
      }
      let released = false;
      return {
        path: lockPath,
        async release() {
          if (released) return;
          released = true;
          await unlink(lockPath).catch(() => undefined);
        },
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // The folder cannot take the lock (read-only, not ours, full): nothing of the repair could be written either.
      if (code !== 'EEXIST') throw new HygieneError('output_failed', `${file}: cannot take the session's lock ${lockPath} (${(error as Error).message}); the file is unchanged`, { source: file, cause: error });
    }
    // Held: take it over if it is abandoned, else wait.
    let content: string | undefined;
    let ageMs = 0;
    try {
      const handle = await open(lockPath, 'r');
      try {
        ageMs = Date.now() - (await handle.stat()).mtimeMs;
        content = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
      throw error;
    }
    if (isStale(content, ageMs, staleMs)) {
      // Remove it only if it is still the same lock.
      const again = await readFile(lockPath, 'utf8').catch(() => undefined);
      if (again === content) await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() - started >= acquireTimeoutMs) {
      throw new HygieneError('lock_timeout', `${file}: locked by another process (${lockPath}), gave up after ${acquireTimeoutMs} ms`, { source: file });
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 250);
  }
}
