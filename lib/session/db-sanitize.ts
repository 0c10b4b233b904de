/**
 * One session of an OpenClaw database through the pipeline, or as its message list (for
 * `check`): the database opened, the session named by key or id, read in one read transaction,
 * and the connection closed whatever happens.
 */
import type { Writable } from 'node:stream';
import { HygieneError } from '../errors.ts';
import type { HygieneOptions } from '../options.ts';
import type { Message } from '../types.ts';
import type { Transcript } from '../read-transcript.ts';
import { readDatabaseSession, type DatabaseSession } from './db-read.ts';
import { resolveDatabaseSession } from './db-sessions.ts';
import { openOpenClawDatabase, type OpenClawDatabase } from './openclaw-db.ts';
import { routeWantsImageCensus, sanitizeSessionMessages, type SessionHygieneStats } from './sanitize.ts';
import { sessionFileLineOf } from './read.ts';

export interface DatabaseSessionParams {
  /** The database file. */
  path: string;
  /** A session key (its current session) or a session id. */
  session: string;
  options: HygieneOptions;
  /** Name for error messages (default: the path). */
  source?: string;
  busyTimeoutMs?: number;
  /** Read the session only up to this seq (an export job names the seq it was listed with). */
  maxSeq?: number;
  /** Record each message's seq where a session file's reader records its line (for `check`). */
  recordFileLines?: boolean;
}

export interface DatabaseHygieneStats extends SessionHygieneStats {
  database: { path: string; sessionId: string; key: string | null; lastSeq: number; events: number; immutable: boolean };
}

/** Opens the database and the session, runs `use`, and closes both. */
export async function withDatabaseSession<T>(params: DatabaseSessionParams, use: (session: DatabaseSession, db: OpenClawDatabase, key: string | null) => Promise<T>): Promise<T> {
  const db = await openOpenClawDatabase(params.path, { source: params.source, busyTimeoutMs: params.busyTimeoutMs });
  try {
    const { sessionId, key } = resolveDatabaseSession(db, params.session);
    const session = await readDatabaseSession(db, sessionId, {
      ...params.options,
      busyTimeoutMs: params.busyTimeoutMs,
      maxSeq: params.maxSeq,
      recordFileLines: params.recordFileLines,
      takeImageCensus: routeWantsImageCensus(params.options),
    });
    try {
      if (session.stats.messages === 0) {
        throw new HygieneError('input_empty', `${db.source}: session ${sessionId}: no message on its active path`, { source: db.source });
      }
      return await use(session, db, key);
    } finally {
      session.release();
    }
  } finally {
    db.close();
  }
}

export async function sanitizeDatabaseSession(params: DatabaseSessionParams & { output: Writable; dropForeignRoles?: boolean }): Promise<DatabaseHygieneStats> {
  return withDatabaseSession(params, async (session, db, key) => {
    const stats = await sanitizeSessionMessages(session, params);
    return {
      ...stats,
      database: { path: db.path, sessionId: session.sessionId, key, lastSeq: session.lastSeq, events: session.events, immutable: db.immutable },
    };
  });
}

/** The session's messages as the reader projects them (the whole list). */
export async function readDatabaseSessionMessages(params: DatabaseSessionParams): Promise<Message[]> {
  return withDatabaseSession(params, (session) => session.toArray());
}

/** The session as `check` reads a transcript: its messages and the options with the session's facts. */
export async function readDatabaseTranscript(params: DatabaseSessionParams): Promise<Transcript> {
  return withDatabaseSession({ ...params, recordFileLines: true }, async (session) => {
    const messages = await session.toArray();
    const { resultIndex: _unused, ...withFacts } = session.hygieneOptions(params.options);
    // The reader records each message's row as its "line": violations name that row's seq.
    return { messages, options: withFacts, lineOf: sessionFileLineOf, lineKind: 'seq', session: session.stats, invalidUtf8: session.stats.invalidUtf8 };
  });
}
