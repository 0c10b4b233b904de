/**
 * The OpenClaw database fixtures (made by scripts/openclaw-db-fixtures.mjs with OpenClaw's own
 * doctor import) and a writable SQLite connection for tests that change a copy of them: the
 * engine the reader uses (node:sqlite, else better-sqlite3), opened read-write.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { root } from './files.ts';

export const DB_FIXTURES = path.join(root, 'fixtures/openclaw-db');
export const STATE_DIR = path.join(DB_FIXTURES, 'state');
export const LEGACY_DIR = path.join(DB_FIXTURES, 'legacy');
export const REFERENCE_DIR = path.join(DB_FIXTURES, 'reference');
export const databaseOf = (agent: string): string => path.join(STATE_DIR, 'agents', agent, 'agent', 'openclaw-agent.sqlite');

/** Session ids of the fixtures, by what each covers. */
export const SESSIONS = {
  tools: 'a1b2c3d4-0001-4000-8000-000000000001',
  branches: 'a1b2c3d4-0002-4000-8000-000000000002',
  compaction: 'a1b2c3d4-0003-4000-8000-000000000003',
  images: 'a1b2c3d4-0004-4000-8000-000000000004',
  large: 'a1b2c3d4-0005-4000-8000-000000000005',
  v1: 'a1b2c3d4-0006-4000-8000-000000000006',
  providers: 'a1b2c3d4-0007-4000-8000-000000000007',
  ops: 'b5e6f7a8-0001-4000-8000-000000000011',
  // OpenClaw 2026.9's reader rules (test/session/db-read.test.ts).
  resetKept: 'a1b2c3d4-0008-4000-8000-000000000008',
  resetPlain: 'a1b2c3d4-0009-4000-8000-000000000009',
  resetThenCompaction: 'a1b2c3d4-000a-4000-8000-00000000000a',
  compactionThenReset: 'a1b2c3d4-000b-4000-8000-00000000000b',
  exclude: 'a1b2c3d4-000c-4000-8000-00000000000c',
  navigation: 'a1b2c3d4-000d-4000-8000-00000000000d',
} as const;

/** Copies an agent's fixture database into `dir` (as `name`); returns its path. */
export async function copyDatabase(dir: string, agent = 'main', name = 'openclaw-agent.sqlite'): Promise<string> {
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, name);
  await copyFile(databaseOf(agent), target);
  return target;
}

export interface WritableDb {
  exec(sql: string): void;
  run(sql: string, ...params: (string | number | null | Uint8Array)[]): void;
  get(sql: string, ...params: (string | number | null)[]): Record<string, unknown> | undefined;
  close(): void;
}

/** A read-write connection (tests only: the project never opens one). */
export function openWritable(file: string): WritableDb {
  const sqlite = process.getBuiltinModule?.('node:sqlite') as
    | { DatabaseSync: new (path: string) => { exec(sql: string): void; prepare(sql: string): { run(...p: unknown[]): unknown; get(...p: unknown[]): unknown }; close(): void } }
    | undefined;
  const db = sqlite !== undefined ? new sqlite.DatabaseSync(file) : new (createRequire(import.meta.url)('better-sqlite3'))(file);
  return {
    exec: (sql) => db.exec(sql),
    run: (sql, ...params) => void db.prepare(sql).run(...params),
    get: (sql, ...params) => db.prepare(sql).get(...params) as Record<string, unknown> | undefined,
    close: () => db.close(),
  };
}
