/**
 * One session of an OpenClaw database, read as a session file is (read.ts): its rows, in `seq`
 * order, are the file's lines. The index pass streams every row once (a compressed row decoded
 * on its own, its declared size checked first), keeps a few numbers per entry, and appends the
 * row's bytes to a spool file (db-spool.ts); the read pass reads the emitted entries back from
 * the spool as it reads a session file, so no row is queried or decoded twice. The index pass
 * runs inside one read transaction, so it sees one snapshot of the session however OpenClaw
 * appends meanwhile, and ends it as soon as every row is spooled: the read pass and the rules
 * then run on that snapshot without holding back OpenClaw's WAL checkpoints. `release()` (or the
 * end of the read pass) closes the spool.
 *
 * The rows are read by OpenClaw 2026.9's reader rules (index.rules 'openclaw-2026.9'), not the
 * session file's 2026.7 ones: `reset` boundaries, `excludeFromContext`, and its tree scan.
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
import { decodeZstd, decodeZstdBatch, loadZstdWasm, zstdEngine, ZstdSizeError } from '../sqlite/zstd.ts';
import { buildRecordIndex, type IndexedRecord } from './index-pass.ts';
import { overBatches, readIndexedSession, type SessionMessages } from './read.ts';
import type { EntrySource } from './entry-source.ts';
import { databaseError, DEFAULT_BUSY_TIMEOUT_MS, type OpenClawDatabase } from './openclaw-db.ts';
import { activePath } from './active-path.ts';
import { RowSpool } from './db-spool.ts';
import { LineWindow } from './line-window.ts';
import { T_MESSAGE } from './entry-types.ts';
import { EMITTED_ENTRY } from './entry-source.ts';
import { createGarbageAccountant, exposedGc } from '../large-garbage.ts';

/**
 * Bytes of rows read between two minor collections. Each row arrives as a new buffer (the
 * driver's copy of its blob), garbage once it is spooled, and V8 counts their memory outside its
 * heap: left to V8, tens of MB of them waited for a collection (17 MB of peak RSS on a 20k-row
 * session; 8 MB with a minor collection every 4 MiB, less every 2 MiB; each costs about a
 * millisecond).
 */
const ROW_GARBAGE_BYTES = 2 << 20;

/** How much of the spool the read pass reads at a time. */
const SPOOL_WINDOW_BYTES = 1 << 20;
/** Compressed rows decoded in one call: up to this many rows, or this many declared bytes. */
const DECODE_BATCH_ROWS = 64;
const DECODE_BATCH_BYTES = 1 << 20;

export interface DatabaseSession extends SessionMessages {
  readonly sessionId: string;
  /** The largest seq of the session's rows in the snapshot, and how many rows it has. */
  readonly lastSeq: number;
  readonly events: number;
  /** `message` entries on the active path (what OpenClaw's active-events index counts). */
  readonly activeMessages: number;
  /** Closes the spool of the session's rows (idempotent); the read pass does it when it ends. */
  release(): void;
}

export interface ReadDatabaseSessionOptions extends HygieneOptions {
  /** Parse every row in the index pass (no prefix scan). */
  fullParse?: boolean;
  busyTimeoutMs?: number;
  /** Read only the rows up to this seq. */
  maxSeq?: number;
  /** Record each message's seq as its line (sessionFileLineOf gives it back). */
  recordFileLines?: boolean;
  /** Count the emitted messages' images before they flow (read.ts). */
  takeImageCensus?: boolean;
}

interface RowStatements {
  rows: SqliteStatement;
  last: SqliteStatement;
}

function statementsFor(db: OpenClawDatabase): RowStatements {
  // Text as bytes when the database stores UTF-8: the index pass scans bytes, no string per row.
  const json = db.utf8 ? 'CAST(event_json AS BLOB)' : 'event_json';
  const columns = `seq, ${json} AS json, CASE WHEN event_json IS NULL THEN 1 ELSE json_valid(event_json) END AS valid, event_zstd AS zstd, event_utf8_bytes AS declared`;
  return {
    rows: db.connection.prepare(`SELECT ${columns} FROM transcript_events WHERE session_id = ? AND seq <= ? ORDER BY seq`),
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
  // Before the snapshot is taken: loading the decoder is the one await of the index pass.
  await loadZstdWasm();

  /** A row's event as bytes: its text, or its zstd decoded to exactly its declared size. */
  function rowBytes(row: SqliteRow): Buffer {
    const seq = Number(row.seq);
    if (row.json !== null && row.json !== undefined) {
      if (row.valid === 0) throw badRow(seq, 'not valid JSON');
      return asBuffer(row.json);
    }
    if (row.zstd === null || row.zstd === undefined) throw badRow(seq, 'neither event_json nor event_zstd is set');
    try {
      // A view the next decode overwrites: the index pass spools and scans it before the next row.
      return decodeZstd(row.zstd as Uint8Array, row.declared, { transient: true });
    } catch (error) {
      if (error instanceof ZstdSizeError) throw badRow(seq, `compressed entry does not decode to its declared size: ${error.message}`);
      throw error;
    }
  }

  let open = false;
  let spool: RowSpool | undefined;
  /** Ends the read transaction (idempotent), and checks an immutable database did not change. */
  const endTransaction = (): void => {
    if (!open) return;
    open = false;
    try {
      db.connection.exec('COMMIT');
    } catch (error) {
      throw databaseError(error, label, busyTimeoutMs);
    }
    db.assertUnchanged(label);
  };
  const release = (): void => {
    spool?.close();
    spool = undefined;
    endTransaction();
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

  const begin = (): ReturnType<typeof buildRecordIndex> => {
    db.connection.exec('BEGIN');
    open = true;
    // The first read takes the snapshot every later statement of this transaction sees.
    const last = statements.last.get(sessionId, maxSeq)!;
    lastSeq = last.last === null ? -1 : Number(last.last);
    events = Number(last.events);
    if (events === 0) throw new HygieneError('input_empty', `${label}: the session has no transcript rows`, { source: db.source });
    const rows = (spool = new RowSpool());
    const rowGarbage = createGarbageAccountant(exposedGc(), ROW_GARBAGE_BYTES, { type: 'minor' });
    const isCompressed = (row: SqliteRow): boolean => (row.json === null || row.json === undefined) && row.zstd !== null && row.zstd !== undefined;
    function* records(): Iterable<IndexedRecord> {
      // Called again when the pass starts over: the spool starts over with it.
      rows.reset();
      let batch: SqliteRow[] = [];
      let batchBytes = 0;
      for (const row of statements.rows.iterate(sessionId, maxSeq)) {
        batch.push(row);
        batchBytes += typeof row.declared === 'number' ? row.declared : 0;
        rowGarbage.released(((row.json as Uint8Array | null)?.length ?? 0) + ((row.zstd as Uint8Array | null)?.length ?? 0));
        if (batch.length >= DECODE_BATCH_ROWS || batchBytes >= DECODE_BATCH_BYTES) {
          yield* decodedRecords(batch);
          batch = [];
          batchBytes = 0;
        }
      }
      yield* decodedRecords(batch);
      rows.flush();
    }
    /** A batch of rows, decoded here: its compressed ones in one call where zlib can (rowBytes, row by row, otherwise or when that fails). */
    function* decodedRecords(batch: SqliteRow[]): Iterable<IndexedRecord> {
      const compressed = zstdEngine() === 'zlib' ? batch.filter(isCompressed) : [];
      const decoded =
        compressed.length === 0
          ? undefined
          : decodeZstdBatch(
              compressed.map((row) => row.zstd as Uint8Array),
              compressed.map((row) => row.declared),
            );
      let next = 0;
      for (const row of batch) {
        const seq = Number(row.seq);
        const bytes = decoded !== undefined && row === compressed[next] ? decoded[next++]! : rowBytes(row);
        yield { bytes, offset: rows.append(bytes, seq), line: seq };
      }
    }
    return buildRecordIndex({
      path: db.path,
      source: label,
      records,
      reader: { text: (offset, length) => rows.text(offset, length), badRecord: (seq, reason) => { throw badRow(seq, `not valid JSON (${reason})`); } },
      findImages: options.takeImageCensus === true,
      // Read once the records are in: the spool's size picks the width of the read plan's offsets.
      get size() {
        return rows.size + 1;
      },
      fullParse: options.fullParse,
      // OpenClaw 2026.9's reader: reset boundaries, excludeFromContext, its tree scan's re-attachments.
      rules: 'openclaw-2026.9',
    });
  };

  try {
    const index = guard(begin);
    // Every row is in the spool: the snapshot has given all it will be asked for.
    endTransaction();
    const path = activePath(index);
    let activeMessages = 0;
    for (const entry of path) if (index.type.get(entry) === T_MESSAGE) activeMessages++;
    const rows = spool!;
    const entries: EntrySource = {
      async open(phase) {
        const window = new LineWindow(rows.fd, phase === EMITTED_ENTRY ? SPOOL_WINDOW_BYTES : 64 * 1024);
        return {
          text: (offset, length) => (window.covers(offset, length) ? window.text(offset, length) : window.read(offset, length)),
          replacements: (text, offset, length) => window.replacements(text, offset, length),
          lineAt: (offset) => rows.seqAt(offset),
          linesAt: (offsets) => offsets.map((offset) => rows.seqAt(offset)),
          get bytesRead() {
            return window.bytesRead;
          },
          // The spool outlives each phase's reader: release() closes it.
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
