/**
 * One session of an OpenClaw database, read as a session file is (read.ts): its rows, in `seq`
 * order, are the file's lines. The index pass streams every row once (a compressed row decoded
 * on its own, its declared size checked first) and keeps a few numbers per entry; the read pass
 * fetches only the emitted entries' rows by `seq`. Both passes run inside one read transaction,
 * so they see one snapshot of the session however OpenClaw appends meanwhile; `release()` (or the
 * end of the read pass) ends it.
 *
 * Rows are strict where lines are lenient: a row that is not JSON, or whose zstd does not decode
 * to its declared size, fails the session with its seq (OpenClaw's own reader fails on it too),
 * where a file's torn line would be skipped.
 */
import { Buffer } from 'node:buffer';
import { HygieneError } from '../errors.ts';
import type { HygieneOptions } from '../options.ts';
import type { Message } from '../types.ts';
import type { SqliteRow, SqliteStatement } from '../sqlite/driver.ts';
import { decodeZstd, ZstdSizeError } from '../sqlite/zstd.ts';
import { buildRecordIndex, type IndexedRecord } from './index-pass.ts';
import { overBatches, readIndexedSession, type SessionMessages } from './read.ts';
import type { EntrySource } from './entry-source.ts';
import { databaseError, DEFAULT_BUSY_TIMEOUT_MS, type OpenClawDatabase } from './openclaw-db.ts';
import { activePath } from './active-path.ts';
import { T_MESSAGE } from './entry-types.ts';

export interface DatabaseSession extends SessionMessages {
  readonly sessionId: string;
  /** The largest seq of the session's rows in the snapshot, and how many rows it has. */
  readonly lastSeq: number;
  readonly events: number;
  /** `message` entries on the active path (what OpenClaw's active-events index counts). */
  readonly activeMessages: number;
  /** Ends the read transaction (idempotent); the read pass does it when it ends. */
  release(): void;
}

export interface ReadDatabaseSessionOptions extends HygieneOptions {
  /** Parse every row in the index pass (no prefix scan). */
  fullParse?: boolean;
  busyTimeoutMs?: number;
  /** Read only the rows up to this seq. */
  maxSeq?: number;
}

interface RowStatements {
  rows: SqliteStatement;
  one: SqliteStatement;
  last: SqliteStatement;
}

function statementsFor(db: OpenClawDatabase): RowStatements {
  // Text as bytes when the database stores UTF-8: the index pass scans bytes, no string per row.
  const json = db.utf8 ? 'CAST(event_json AS BLOB)' : 'event_json';
  const columns = `seq, ${json} AS json, CASE WHEN event_json IS NULL THEN 1 ELSE json_valid(event_json) END AS valid, event_zstd AS zstd, event_utf8_bytes AS declared`;
  return {
    rows: db.connection.prepare(`SELECT ${columns} FROM transcript_events WHERE session_id = ? AND seq <= ? ORDER BY seq`),
    one: db.connection.prepare(`SELECT ${columns} FROM transcript_events WHERE session_id = ? AND seq = ?`),
    last: db.connection.prepare('SELECT max(seq) AS last, count(*) AS events FROM transcript_events WHERE session_id = ? AND seq <= ?'),
  };
}

function asBuffer(value: unknown): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  const bytes = value as Uint8Array;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Reads a session of `db` (its key resolved to an id before): the index pass now, messages when iterated. */
export async function readDatabaseSession(db: OpenClawDatabase, sessionId: string, options: ReadDatabaseSessionOptions = {}): Promise<DatabaseSession> {
  const label = `${db.source}: session ${sessionId}`;
  const where = (seq: number): string => `${label}: seq ${seq}`;
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const badRow = (seq: number, what: string): HygieneError => new HygieneError('db_bad_row', `${where(seq)}: ${what}`, { source: db.source, line: seq });
  const statements = statementsFor(db);
  const maxSeq = options.maxSeq ?? Number.MAX_SAFE_INTEGER;

  /** A row's event as bytes: its text, or its zstd decoded to exactly its declared size. */
  function rowBytes(row: SqliteRow): Buffer {
    const seq = Number(row.seq);
    if (row.json !== null && row.json !== undefined) {
      if (row.valid === 0) throw badRow(seq, 'not valid JSON');
      return asBuffer(row.json);
    }
    if (row.zstd === null || row.zstd === undefined) throw badRow(seq, 'neither event_json nor event_zstd is set');
    try {
      return decodeZstd(row.zstd as Uint8Array, row.declared);
    } catch (error) {
      if (error instanceof ZstdSizeError) throw badRow(seq, `compressed entry does not decode to its declared size: ${error.message}`);
      throw error;
    }
  }

  let open = false;
  const release = (): void => {
    if (!open) return;
    open = false;
    try {
      db.connection.exec('COMMIT');
    } catch (error) {
      throw databaseError(error, label, busyTimeoutMs);
    }
    db.assertUnchanged(label);
  };
  const guard = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof HygieneError) throw error;
      throw databaseError(error, label, busyTimeoutMs);
    }
  };

  let lastSeq = -1;
  let events = 0;
  const text = (seq: number): string => {
    const row = guard(() => statements.one.get(sessionId, seq));
    if (row === undefined) throw new HygieneError('db_bad_row', `${where(seq)}: the row went missing inside the read transaction`, { source: db.source, line: seq });
    return guard(() => rowBytes(row)).toString('utf8');
  };

  const begin = (): ReturnType<typeof buildRecordIndex> => {
    db.connection.exec('BEGIN');
    open = true;
    // The first read takes the snapshot every later statement of this transaction sees.
    const last = statements.last.get(sessionId, maxSeq)!;
    lastSeq = last.last === null ? -1 : Number(last.last);
    events = Number(last.events);
    if (events === 0) throw new HygieneError('input_empty', `${label}: the session has no transcript rows`, { source: db.source });
    function* records(): Iterable<IndexedRecord> {
      for (const row of statements.rows.iterate(sessionId, maxSeq)) {
        const seq = Number(row.seq);
        yield { bytes: rowBytes(row), offset: seq, line: seq };
      }
    }
    return buildRecordIndex({
      path: db.path,
      source: label,
      records,
      reader: { text: (seq) => text(seq), badRecord: (seq, reason) => { throw badRow(seq, `not valid JSON (${reason})`); } },
      size: lastSeq + 1,
      fullParse: options.fullParse,
    });
  };

  try {
    const index = guard(begin);
    const path = activePath(index);
    let activeMessages = 0;
    for (const entry of path) if (index.type.get(entry) === T_MESSAGE) activeMessages++;
    let bytesRead = 0;
    const entries: EntrySource = {
      async open() {
        return {
          text: (seq) => {
            const out = text(seq);
            bytesRead += out.length;
            return out;
          },
          // SQLite hands over its TEXT as strings: what was not UTF-8 in a row is not seen here.
          replacements: () => 0,
          lineAt: (seq) => seq,
          linesAt: (seqs) => [...seqs],
          get bytesRead() {
            return bytesRead;
          },
          close: () => undefined,
        };
      },
      where,
      notJson: (seq, error) => badRow(seq, `not valid JSON (${error instanceof Error ? error.message : String(error)})`),
    };
    const session = await readIndexedSession(index, entries, options);
    async function* batches(): AsyncGenerator<Message[]> {
      try {
        for await (const batch of session.batches()) yield batch;
      } catch (error) {
        if (error instanceof HygieneError) throw error;
        throw databaseError(error, label, busyTimeoutMs);
      } finally {
        release();
      }
    }
    return {
      ...session,
      sessionId,
      lastSeq,
      events,
      activeMessages,
      release,
      ...overBatches(batches),
    };
  } catch (error) {
    try {
      release();
    } catch {
      // The first error says more.
    }
    throw error;
  }
}
