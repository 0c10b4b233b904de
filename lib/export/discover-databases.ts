/**
 * The sessions of an OpenClaw database as export sources: one per session window that has
 * transcript rows, named `<database path without .sqlite>/<session id>.jsonl` below the export's
 * root. Its size is the sum of its rows' decoded bytes and its mtime the time of its last row,
 * so the manifest sees a session that grew as changed; its last seq goes into the queue's job id.
 *
 * A database that cannot be opened (not SQLite, not OpenClaw's, an unknown schema, torn) is one
 * source with that problem: the export lists it and goes on.
 */
import path from 'node:path';
import { HygieneError } from '../errors.ts';
import { openOpenClawDatabase } from '../session/openclaw-db.ts';
import type { SessionSource } from './discover.ts';

/** What an export source that is a database session carries besides its database's path. */
export interface DatabaseSessionRef {
  sessionId: string;
  key: string | null;
  lastSeq: number;
}

/** The file name OpenClaw gives an agent's database; a directory walk picks these up. */
export const OPENCLAW_DATABASE_NAME = 'openclaw-agent.sqlite';

const SESSIONS_SQL = `
SELECT w.session_id AS session_id, w.session_key AS session_key,
  max(e.seq) AS last_seq, sum(coalesce(e.event_utf8_bytes, 0)) AS bytes, max(e.created_at) AS last_at
FROM session_windows w JOIN transcript_events e ON e.session_id = w.session_id
GROUP BY w.session_id ORDER BY w.session_id`;

/** A session id as a file name: kept when it is plain, percent-encoded otherwise. */
function fileNameOf(sessionId: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(sessionId) ? sessionId : encodeURIComponent(sessionId).replace(/\./g, '%2E');
}

export async function databaseSources(file: { path: string; display: string; rel: string | undefined }, filter: ReadonlySet<string> | undefined): Promise<SessionSource[]> {
  let rows;
  try {
    const db = await openOpenClawDatabase(file.path, { source: file.display });
    try {
      rows = db.connection.prepare(SESSIONS_SQL).all();
    } finally {
      db.close();
    }
  } catch (error) {
    if (!(error instanceof HygieneError)) throw error;
    const prefix = `${file.display}: `;
    const reason = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    return [{ path: file.path, display: file.display, rel: file.rel, size: 0, mtimeMs: 0, problem: { code: error.code, reason } }];
  }
  const base = file.rel === undefined ? undefined : file.rel.replace(/\.sqlite$/, '');
  const out: SessionSource[] = [];
  for (const row of rows) {
    const sessionId = String(row.session_id);
    const key = typeof row.session_key === 'string' ? row.session_key : null;
    if (filter !== undefined && !filter.has(sessionId) && (key === null || !filter.has(key))) continue;
    out.push({
      path: file.path,
      display: `${file.display} --session ${sessionId}`,
      rel: base === undefined ? undefined : path.join(base, `${fileNameOf(sessionId)}.jsonl`),
      size: Number(row.bytes),
      mtimeMs: Number(row.last_at),
      database: { sessionId, key, lastSeq: Number(row.last_seq) },
    });
  }
  return out;
}
