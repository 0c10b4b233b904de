/**
 * One read-only SQLite connection behind a small interface, on whichever engine this Node has:
 * its built-in `node:sqlite` (Node 22.13 and later, and 24) where present, else the optional
 * dependency better-sqlite3 (Node 20). The project never writes through it: every connection is
 * opened read-only, and `immutable` adds SQLite's `immutable=1` (no locks, no -wal or -shm
 * files; see lib/session/openclaw-db.ts for when that is safe).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { HygieneError } from '../errors.ts';

export type SqliteValue = string | number | bigint | null | Uint8Array;
export type SqliteRow = Record<string, unknown>;

export interface SqliteStatement {
  get(...params: SqliteValue[]): SqliteRow | undefined;
  all(...params: SqliteValue[]): SqliteRow[];
  iterate(...params: SqliteValue[]): IterableIterator<SqliteRow>;
}

export interface SqliteConnection {
  readonly engine: SqliteEngineName;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  close(): void;
}

export type SqliteEngineName = 'node:sqlite' | 'better-sqlite3';

export interface OpenSqliteOptions {
  /** Open with immutable=1: no locking and no -wal/-shm (only for a file nothing else has open). */
  immutable?: boolean;
  /** How long a statement waits on SQLITE_BUSY before it fails (SQLite's busy timeout). */
  busyTimeoutMs: number;
}

interface NodeSqliteModule {
  DatabaseSync: new (path: string, options: { readOnly: boolean; timeout: number }) => {
    prepare(sql: string): { get(...p: SqliteValue[]): unknown; all(...p: SqliteValue[]): unknown[]; iterate(...p: SqliteValue[]): IterableIterator<unknown> };
    exec(sql: string): void;
    close(): void;
  };
}

interface BetterSqliteModule {
  new (path: string, options: { readonly: boolean; fileMustExist: boolean; timeout: number }): {
    prepare(sql: string): { get(...p: SqliteValue[]): unknown; all(...p: SqliteValue[]): unknown[]; iterate(...p: SqliteValue[]): IterableIterator<unknown> };
    exec(sql: string): void;
    close(): void;
  };
}

const SQLITE_WARNING = /SQLite is an experimental feature/;

/** node:sqlite, without the one-time experimental warning Node 22 prints when it loads. */
function loadNodeSqlite(): NodeSqliteModule | undefined {
  const original = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (SQLITE_WARNING.test(text)) return;
    return (original as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return process.getBuiltinModule?.('node:sqlite') as NodeSqliteModule | undefined;
  } finally {
    process.emitWarning = original;
  }
}

let engine: { name: SqliteEngineName; node?: NodeSqliteModule; better?: BetterSqliteModule } | undefined;

function loadEngine(): NonNullable<typeof engine> {
  if (engine !== undefined) return engine;
  const node = loadNodeSqlite();
  /* c8 ignore next 2 -- the built-in exists on Node 22 and 24, which run the reader tests outside c8 */
  if (node !== undefined) return (engine = { name: 'node:sqlite', node });
  // better-sqlite3 takes URI filenames (for immutable=1) only when this is set before it loads.
  process.env.SQLITE_USE_URI ??= '1';
  try {
    const better = createRequire(import.meta.url)('better-sqlite3') as BetterSqliteModule;
    // Its native binding loads with the first connection: one in memory says whether it was built.
    new better(':memory:', { readonly: false, fileMustExist: false, timeout: 0 }).close();
    return (engine = { name: 'better-sqlite3', better });
  } catch (error) {
    throw new HygieneError(
      'sqlite_unavailable',
      `reading an OpenClaw database needs SQLite: node:sqlite (Node 22.13 or later) or the optional dependency better-sqlite3, which could not be loaded (${(error as Error).message.split('\n')[0]}); on Node 20 install it with its build script allowed: npm install better-sqlite3 --allow-scripts=better-sqlite3`,
      { cause: error },
    );
  }
}

/** The engine this process reads databases with (loads it; throws sqlite_unavailable when there is none). */
export function sqliteEngine(): SqliteEngineName {
  return loadEngine().name;
}

/** A file: URI for the path, read-only, with immutable=1 when asked. */
export function sqliteUri(path: string, immutable: boolean): string {
  const url = pathToFileURL(path);
  url.searchParams.set('mode', 'ro');
  if (immutable) url.searchParams.set('immutable', '1');
  return url.href;
}

export function openSqlite(path: string, options: OpenSqliteOptions): SqliteConnection {
  const loaded = loadEngine();
  const uri = sqliteUri(path, options.immutable ?? false);
  /* c8 ignore start -- node:sqlite: Node 22 and 24, which run the reader tests outside c8 */
  if (loaded.node !== undefined) {
    const db = new loaded.node.DatabaseSync(uri, { readOnly: true, timeout: options.busyTimeoutMs });
    return wrap('node:sqlite', db);
  }
  /* c8 ignore stop */
  const db = new loaded.better!(uri, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs });
  return wrap('better-sqlite3', db);
}

function wrap(name: SqliteEngineName, db: InstanceType<BetterSqliteModule>): SqliteConnection {
  return {
    engine: name,
    prepare(sql) {
      const statement = db.prepare(sql);
      return {
        get: (...params) => statement.get(...params) as SqliteRow | undefined,
        all: (...params) => statement.all(...params) as SqliteRow[],
        iterate: (...params) => statement.iterate(...params) as IterableIterator<SqliteRow>,
      };
    },
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
  };
}

const PRIMARY_CODES: Record<number, string> = {
  1: 'ERROR',
  5: 'BUSY',
  6: 'LOCKED',
  8: 'READONLY',
  10: 'IOERR',
  11: 'CORRUPT',
  14: 'CANTOPEN',
  26: 'NOTADB',
};

/**
 * SQLite's primary result code of an engine error ('BUSY', 'CORRUPT', 'NOTADB', ...), or
 * undefined for an error that is not SQLite's. node:sqlite gives the extended code as a number
 * (`errcode`), better-sqlite3 its name (`SQLITE_BUSY_RECOVERY`).
 */
export function sqliteErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof errcode === 'number') return PRIMARY_CODES[errcode & 0xff] ?? `CODE_${errcode & 0xff}`;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return code.slice('SQLITE_'.length).split('_')[0];
  return undefined;
}
