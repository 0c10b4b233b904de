/**
 * The sessions of an OpenClaw database: every session window (a generation of a logical
 * session: `initial`, `reset`, `compaction`, `fork`, ...) with its key, and which `--session`
 * names. A key names its node's current window; an id names that window.
 */
import { HygieneError } from '../errors.ts';
import { readDatabaseSession } from './db-read.ts';
import type { OpenClawDatabase } from './openclaw-db.ts';

export interface DatabaseSessionInfo {
  readonly key: string | null;
  readonly sessionId: string;
  /** The window its key's node points at now. */
  readonly current: boolean;
  readonly reason: string | null;
  /** `provider/model` as the window records it, or null. */
  readonly model: string | null;
  /** Transcript rows and the last seq (-1 without rows). */
  readonly events: number;
  readonly lastSeq: number;
  /** `message` entries on the active path: OpenClaw's active-events index when it is current, else read here. */
  readonly messages: number;
  readonly messagesFrom: 'index' | 'read';
  /** The window's last update, epoch ms. */
  readonly updatedAt: number;
}

const LIST_SQL = `
SELECT w.session_id AS session_id, w.session_key AS session_key, w.reason AS reason,
  w.model_provider AS model_provider, w.model AS model,
  w.updated_at AS updated_at,
  n.current_session_id AS current_session_id,
  s.needs_rebuild AS needs_rebuild, s.indexed_seq AS indexed_seq, s.active_message_count AS active_message_count,
  (SELECT count(*) FROM transcript_events e WHERE e.session_id = w.session_id) AS events,
  (SELECT max(seq) FROM transcript_events e WHERE e.session_id = w.session_id) AS last_seq
FROM session_windows w
LEFT JOIN session_nodes n ON n.session_key = w.session_key
LEFT JOIN session_transcript_index_state s ON s.session_id = w.session_id
ORDER BY updated_at DESC, w.session_id`;

function modelOf(provider: unknown, model: unknown): string | null {
  if (typeof model !== 'string' || model === '') return null;
  return typeof provider === 'string' && provider !== '' ? `${provider}/${model}` : model;
}

/**
 * Every session window of the database, the latest update first. The count of messages on the
 * active path comes from OpenClaw's index (`session_transcript_active_events`) when
 * `session_transcript_index_state` says it is current (no rebuild pending, indexed up to the last
 * seq); otherwise the session is indexed here, in its own read transaction.
 */
export async function listDatabaseSessions(db: OpenClawDatabase): Promise<DatabaseSessionInfo[]> {
  const rows = db.connection.prepare(LIST_SQL).all();
  const out: DatabaseSessionInfo[] = [];
  for (const row of rows) {
    const sessionId = String(row.session_id);
    const events = Number(row.events);
    const lastSeq = row.last_seq === null ? -1 : Number(row.last_seq);
    const indexed = row.needs_rebuild === 0 && row.indexed_seq !== null && Number(row.indexed_seq) === lastSeq;
    let messages = indexed ? Number(row.active_message_count) : 0;
    if (!indexed && events > 0) {
      const session = await readDatabaseSession(db, sessionId);
      messages = session.activeMessages;
      session.release();
    }
    out.push({
      key: typeof row.session_key === 'string' ? row.session_key : null,
      sessionId,
      current: row.current_session_id === sessionId,
      reason: typeof row.reason === 'string' ? row.reason : null,
      model: modelOf(row.model_provider, row.model),
      events,
      lastSeq,
      messages,
      messagesFrom: indexed || events === 0 ? 'index' : 'read',
      updatedAt: Number(row.updated_at),
    });
  }
  return out;
}

/** The session id `--session` names: a key (its current window) or a window's id. */
export function resolveDatabaseSession(db: OpenClawDatabase, keyOrId: string): { sessionId: string; key: string | null } {
  const node = db.connection.prepare('SELECT current_session_id FROM session_nodes WHERE session_key = ?').get(keyOrId);
  if (node !== undefined) return { sessionId: String(node.current_session_id), key: keyOrId };
  const window = db.connection.prepare('SELECT session_key FROM session_windows WHERE session_id = ?').get(keyOrId);
  if (window !== undefined) return { sessionId: keyOrId, key: typeof window.session_key === 'string' ? window.session_key : null };
  throw new HygieneError(
    'session_not_found',
    `${db.source}: no session with key or id ${JSON.stringify(keyOrId)} ('transcript-hygiene sessions ${db.source}' lists them)`,
    { source: db.source },
  );
}
