/**
 * An OpenClaw agent database (`openclaw-agent.sqlite`, OpenClaw 2026.9 and later), opened to be
 * read and never written.
 *
 * - Read-only always. When the database's `-wal` and `-shm` files are there (OpenClaw has it
 *   open, or left them), the connection joins OpenClaw's WAL: each session is read in one read
 *   transaction, a consistent snapshot that OpenClaw's writer never waits for. When neither file
 *   is there, nothing has the database open and the main file holds all of it: the connection
 *   opens it `immutable` (no locks, and no -wal/-shm files created beside it), and checks after
 *   each session that the file did not change meanwhile (a writer that started and checkpointed).
 * - SQLITE_BUSY (a writer holding the database in exclusive mode, a WAL recovery) is waited for
 *   up to the busy timeout, then fails with one line.
 * - Before any session is read, the file must be SQLite, hold OpenClaw's agent tables, and have an
 *   agent `schema_meta` row of a version this reader knows.
 */
import { Buffer } from 'node:buffer';
import { existsSync, statSync, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { HygieneError, type HygieneErrorCode } from '../errors.ts';
import { openSqlite, sqliteErrorCode, type SqliteConnection } from '../sqlite/driver.ts';
import { inputError } from './index-pass.ts';

/** The `schema_meta.schema_version`s of agent databases this reader knows (OpenClaw 2026.9.6 writes 23). */
export const KNOWN_AGENT_SCHEMA_VERSIONS: readonly number[] = [23];

/** SQLite's busy timeout for every statement (default 5 s). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** The connection's page cache, in KiB. */
export const PAGE_CACHE_KIB = 256;

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const REQUIRED_TABLES = ['schema_meta', 'session_nodes', 'session_windows', 'transcript_events'];

export interface OpenClawDatabase {
  readonly path: string;
  /** The name errors give it (the path as given). */
  readonly source: string;
  readonly connection: SqliteConnection;
  /** Opened immutable (no -wal/-shm existed): each read is checked against the file's identity. */
  readonly immutable: boolean;
  readonly agentId: string | undefined;
  readonly schemaVersion: number;
  /** Whether transcript text is stored as UTF-8 (so a row's bytes can be taken as they are). */
  readonly utf8: boolean;
  /** Throws db_busy when an immutable connection's file changed since it was opened. */
  assertUnchanged(context: string): void;
  close(): void;
}

export interface OpenDatabaseOptions {
  source?: string;
  busyTimeoutMs?: number;
}

/** Whether the file starts with SQLite's header (false for a short or empty file). */
export async function isSqliteFile(path: string): Promise<boolean> {
  // Only a regular file can be a database: reading a FIFO's first bytes here would take them
  // from the transcript that comes through it.
  if (!(await stat(path).then((found) => found.isFile(), () => false))) return false;
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(SQLITE_MAGIC);
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

/** The HygieneError for a SQLite failure while reading `what` (the database, a session, a row). */
export function databaseError(error: unknown, what: string, busyTimeoutMs: number): HygieneError {
  if (error instanceof HygieneError) return error;
  const code = sqliteErrorCode(error);
  const reason = (error as Error)?.message ?? String(error);
  const make = (kind: HygieneErrorCode, text: string) => new HygieneError(kind, `${what}: ${text}`, { source: what, cause: error });
  if (code === 'BUSY' || code === 'LOCKED') return make('db_busy', `the database stayed locked for ${busyTimeoutMs} ms (${reason}); another process holds it, try again later`);
  if (code === 'CORRUPT' || code === 'NOTADB') return make('db_corrupt', `the database file is torn or corrupt (${reason})`);
  if (code === 'CANTOPEN' || code === 'IOERR') return make('input_unreadable', `cannot read the database (${reason})`);
  return make('db_corrupt', `SQLite could not read it (${reason})`);
}

function identityOf(stat: Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

export async function openOpenClawDatabase(path: string, options: OpenDatabaseOptions = {}): Promise<OpenClawDatabase> {
  const source = options.source ?? path;
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (error) {
    throw inputError(error, source);
  }
  if (stat.isDirectory()) throw new HygieneError('input_is_directory', `${source}: is a directory (give an OpenClaw database, or use export for a folder)`, { source });
  if (!(await isSqliteFile(path))) {
    throw new HygieneError('db_not_sqlite', `${source}: not a SQLite database (no SQLite header); --session reads OpenClaw's openclaw-agent.sqlite`, { source });
  }
  const immutable = !existsSync(`${path}-wal`) && !existsSync(`${path}-shm`);
  const identity = identityOf(stat);
  let connection: SqliteConnection;
  try {
    connection = openSqlite(path, { immutable, busyTimeoutMs });
  } catch (error) {
    throw databaseError(error, source, busyTimeoutMs);
  }
  try {
    // Rows are read once, in seq order: a page cache only holds pages never asked for again.
    // better-sqlite3 sets 16 MiB, which the index pass filled (34 MB more peak RSS than the
    // session file's on a 20k-row session); SQLite's default 2 MiB still held 2 MiB of them.
    connection.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
    const tables = new Set(connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((row) => row.name));
    const missing = REQUIRED_TABLES.filter((table) => !tables.has(table));
    if (missing.length > 0) {
      throw new HygieneError('db_not_openclaw', `${source}: a SQLite database, but not an OpenClaw agent database (no ${missing.join(', ')} table${missing.length === 1 ? '' : 's'})`, { source });
    }
    const meta = connection.prepare("SELECT role, schema_version, agent_id FROM schema_meta WHERE meta_key = 'primary'").get();
    if (meta === undefined || meta.role !== 'agent') {
      const role = meta === undefined ? 'no primary schema_meta row' : `schema_meta role ${JSON.stringify(meta.role)}`;
      throw new HygieneError('db_not_openclaw', `${source}: not an OpenClaw agent database (${role})`, { source });
    }
    const version = Number(meta.schema_version);
    if (!KNOWN_AGENT_SCHEMA_VERSIONS.includes(version)) {
      throw new HygieneError(
        'db_schema_unknown',
        `${source}: agent schema version ${String(meta.schema_version)} is not one this reader knows (${KNOWN_AGENT_SCHEMA_VERSIONS.join(', ')}: OpenClaw 2026.9.6)`,
        { source },
      );
    }
    const encoding = connection.prepare('PRAGMA encoding').get()?.encoding;
    return {
      path,
      source,
      connection,
      immutable,
      agentId: typeof meta.agent_id === 'string' ? meta.agent_id : undefined,
      schemaVersion: version,
      utf8: encoding === 'UTF-8',
      assertUnchanged(context) {
        if (!immutable) return;
        let now: string;
        try {
          now = identityOf(statSync(path));
        } catch (error) {
          throw inputError(error, source);
        }
        if (now !== identity || existsSync(`${path}-wal`)) {
          throw new HygieneError('db_busy', `${context}: the database changed while it was read (a writer opened it); run again`, { source });
        }
      },
      close: () => connection.close(),
    };
  } catch (error) {
    connection.close();
    throw databaseError(error, source, busyTimeoutMs);
  }
}
