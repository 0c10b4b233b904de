/**
 * Pass 1 over a session file (spec/session-file.md §12.1): one sequential read that keeps per
 * entry only a few numbers in typed arrays (byte offset and length, line, type, flags, role,
 * its id and its parent as interned names) and picks the active leaf online by the OpenClaw
 * rules of §5 (canonical entries, side entries, `leaf` records, opaque links), with the
 * migrations of §7 and the header rules of §8 (first parsed line; a missing or garbled header
 * is recovered; a BOM or other leading whitespace is trimmed as the loader's trim() does).
 *
 * Lines are parsed as few times as possible (DESIGN.md): a `message` line with the writers'
 * prefix is read by prefix-scan.ts and not parsed at all; every other line is parsed whole.
 * A prefix-read line is *speculative* until something depends on it being JSON:
 *
 * - the normal case, an entry followed by its own child, needs nothing: if such a line is not
 *   JSON after all, it is on the path of its child and the read pass reports it by line number;
 * - any other record that reads the state the speculative entry set (the next append naming
 *   another parent, a side entry, a `leaf` record, an opaque link, the end of the file) first
 *   parses that line (one positional read); a line that is not JSON is then taken back, as the
 *   reference's loader never saw it (the torn last line of a crashed writer is the usual case);
 * - a duplicate id, or a `leaf` record naming a speculative entry, parses it too.
 *
 * If a taken-back line cannot be undone locally (it is not the latest speculative entry), the
 * pass starts again in full-parse mode, which is exact by construction.
 */
import { Buffer } from 'node:buffer';
import { open, type FileHandle } from 'node:fs/promises';
import { readSync } from 'node:fs';
import { HygieneError } from '../errors.ts';
import { readLines } from './line-reader.ts';
import { IdTable } from './id-table.ts';
import { OffsetBlocks, SteppedNumbers, int32s, uint32s, uint8s, type Blocks, type Int32Column } from './growable.ts';
import { StepBlocks } from './step-blocks.ts';
import { ROLE_COMPACTION_SUMMARY, ROLE_OTHER, ROLE_TOOL_RESULT, ROLE_UNKNOWN, roleCode, scanMessagePrefix, type MessagePrefix } from './prefix-scan.ts';
import { hashResultId, hashResultIdAscii, resultIdsOfMessage, scanResultIdBytes } from './result-ids.ts';
import {
  CANONICAL_TYPES,
  DB_CANONICAL_TYPES,
  F_DEAD,
  F_EMITS,
  F_EXCLUDED,
  F_MENTIONS_IMAGE,
  F_MENTIONS_SUMMARY,
  F_PLAIN_ENVELOPE,
  F_SIDE,
  F_SPECULATIVE,
  MODEL_SNAPSHOT_CUSTOM_TYPE,
  PARENT_INVALID,
  PARENT_NULL,
  T_BRANCH_SUMMARY,
  T_COMPACTION,
  T_CUSTOM,
  T_CUSTOM_MESSAGE,
  T_MESSAGE,
  T_MODEL_CHANGE,
  T_RESET,
  T_SESSION_INFO,
  T_THINKING_LEVEL_CHANGE,
} from './entry-types.ts';
import { isRecord } from '../types.ts';
import { collectGarbageNow } from '../large-garbage.ts';
import { Needle } from '../needle.ts';

/** Entries from which the end of the index pass starts a full collection (see build). */
export const LARGE_INDEX_ENTRIES = 100_000;

export interface CompactionInfo {
  /** The name of `firstKeptEntryId`, or -1 when it is not a non-empty string. */
  readonly firstKeptName: number;
  /** The raw `timestamp`. */
  readonly timestamp: unknown;
}

export interface SnapshotInfo {
  readonly provider: unknown;
  readonly modelApi: unknown;
  readonly modelId: unknown;
  readonly timestamp: unknown;
}

/**
 * Which reader's rules a session is read by: a session file by OpenClaw 2026.7's file loader
 * (spec/session-file.md); a database session by OpenClaw 2026.9's tree scan, which also knows
 * `reset` entries and `excludeFromContext`, and re-attaches an entry to the leaf where the file
 * rules would cut the path (a parent unknown so far, or one outside the latest reset's subtree).
 */
export type SessionRules = 'file' | 'openclaw-2026.9';

export interface SessionIndex {
  readonly rules: SessionRules;
  readonly path: string;
  readonly source: string;
  /** File identity and size when indexed; the read pass checks them. */
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  /** The header record (the first parsed line), or the recovered one; undefined when synthesised. */
  readonly header: Record<string, unknown> | undefined;
  /** The first parsed line was not a session header: read as SessionManager's corrupt-header recovery would (§8). */
  readonly headerRecovered: boolean;
  /** Migrations that apply (§7): v1 -> v2 (ids assigned in file order), v2 -> v3 (hookMessage -> custom). */
  readonly migrateV1: boolean;
  readonly migrateV2: boolean;
  readonly ids: IdTable;
  readonly entryCount: number;
  /** Per entry (index = entry number): byte offset and length of its line, 1-based line number, ... */
  readonly offset: OffsetBlocks;
  readonly length: Blocks<Int32Array>;
  readonly line: SteppedNumbers;
  /** ... type code (entry-types.ts), flags (F_*), message role (prefix-scan.ts ROLE_*), stored parent (a name, PARENT_NULL or PARENT_INVALID). */
  readonly type: Blocks<Uint8Array>;
  readonly flags: Blocks<Uint8Array>;
  readonly role: Blocks<Uint8Array>;
  readonly parentName: Int32Column;
  /** Opaque links (and `leaf` records as links): name -> parent name or -1. */
  readonly opaqueParent: ReadonlyMap<number, number>;
  /** Logical parents (§5 1.1), by name as the reference keys them. */
  readonly logicalParent: ReadonlyMap<number, number>;
  /** The active leaf's name, or -1 (null). */
  readonly leafName: number;
  readonly compactions: ReadonlyMap<number, CompactionInfo>;
  readonly thinkingLevels: ReadonlyMap<number, unknown>;
  readonly modelChanges: ReadonlyMap<number, { provider: unknown; modelId: unknown }>;
  readonly snapshots: ReadonlyMap<number, SnapshotInfo>;
  /** Parsed timestamps of message entries known to hold a compactionSummary message. */
  readonly summaryTimestamps: ReadonlyMap<number, unknown>;
  /** Tool-result ids seen on message lines: entry and id hash, in file order. */
  readonly resultEntry: Blocks<Int32Array>;
  readonly resultHash: Blocks<Uint32Array>;
  /** 1-based numbers of lines skipped as not JSON (at most the first 100), and their count. */
  readonly malformedLines: readonly number[];
  readonly malformedCount: number;
  /** Lines that parsed (the header included). */
  readonly records: number;
  readonly lines: number;
  /** The last session_info name in the file (trimmed; undefined when cleared). */
  readonly sessionName: string | undefined;
  /** How the pass went: prefix-scanned lines, lines parsed whole, positional re-reads, restarts. */
  readonly scanned: number;
  readonly parsed: number;
  readonly verified: number;
  readonly restarts: number;
  readonly ms: number;
}

export interface IndexOptions {
  /** Name for error messages (a path, or `<stdin>`). */
  source?: string;
  /** Read chunk size in bytes (default 1 MiB). */
  chunkSize?: number;
  /** Parse every line (no prefix scan). */
  fullParse?: boolean;
  /**
   * Flag the lines that hold `"image"` (F_MENTIONS_IMAGE) for the image census (default true).
   * A route without request-wide image limits takes no census and spares the search (about
   * 100 ms a GB).
   */
  findImages?: boolean;
}

/**
 * Where the index pass's records come from, for the few it reads again by position: a session
 * file's lines (offset = byte offset), or a database session's rows (offset = seq).
 */
export interface RecordSource {
  /** The record at `offset` (`length` bytes), as text. */
  text(offset: number, length: number): string;
  /** Set for sources where a record that is not JSON is an error rather than a line to skip; never returns. */
  badRecord?(line: number, reason: string): never;
}

/** A session file's lines, read by position (one trailing CR left out, as the line reader does). */
export function fileRecords(fd: number): RecordSource {
  return {
    text(offset, length) {
      const buffer = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const read = readSync(fd, buffer, done, length - done, offset + done);
        if (read === 0) break;
        done += read;
      }
      let text = buffer.toString('utf8', 0, done);
      if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
      return text;
    },
  };
}

class RestartIndex {
  constructor(readonly reason: 'speculation' | 'recovered-version', readonly header?: Record<string, unknown>) {}
}

// Searched in every chunk, by anchors with a rare first byte (./needle.ts).
const APPEND_MODE = new Needle('"appendMode"', 'Mode"');
const SUMMARY_ROLE = new Needle('"compactionSummary"', 'Summa');
const IMAGE_TYPE = new Needle('"image"');
const EXCLUDE_KEY = new Needle('"excludeFromContext"', 'FromC');
const OPEN_BRACE = 0x7b;
const MAX_LISTED_MALFORMED = 100;

/** A speculative entry whose state is current: what to restore if its line is not JSON. */
interface Pending {
  entry: number;
  name: number;
  prevLeaf: number;
  prevAppend: number;
  prevEntry: number;
  prevLogical: number | undefined;
}

/** JavaScript relational comparisons, as the reference applies them to `header.version ?? 1`. */
function migrationsFor(version: unknown): { v1: boolean; v2: boolean } {
  const v = (version ?? 1) as number;
  if (v >= 3) return { v1: false, v2: false };
  return { v1: v < 2, v2: v < 3 };
}

function isHeader(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && value.type === 'session' && typeof value.id === 'string';
}

/** Whether a prefix-scanned string (no escapes) is empty or only whitespace, as trim() sees it. */
function blankBytes(buffer: Buffer, start: number, end: number): boolean {
  if (start >= end) return true;
  const first = buffer[start]!;
  // Whitespace is ASCII up to 0x20 or a non-ASCII character: anything else is not blank, without decoding.
  if (first > 0x20 && first < 0x80) return false;
  return buffer.toString('utf8', start, end).trim() === '';
}

function hitIn(hits: number[], cursor: { at: number }, start: number, end: number): boolean {
  while (cursor.at < hits.length && hits[cursor.at]! < start) cursor.at++;
  return cursor.at < hits.length && hits[cursor.at]! < end;
}

class IndexBuilder {
  readonly ids = new IdTable();
  private readonly offsets = new OffsetBlocks();
  private readonly lengths = int32s();
  private readonly lineNumbers = new SteppedNumbers();
  private readonly types = uint8s();
  private readonly flagBits = uint8s();
  private readonly roles = uint8s();
  /** As steps: an entry's parent is mostly the entry before it (step-blocks.ts). */
  private readonly parents = new StepBlocks();
  private readonly resultEntries = int32s();
  private readonly resultHashes = uint32s();
  readonly opaqueParent = new Map<number, number>();
  readonly logicalParent = new Map<number, number>();
  private readonly invalidLeaf = new Set<number>();
  readonly compactions = new Map<number, CompactionInfo>();
  readonly thinkingLevels = new Map<number, unknown>();
  readonly modelChanges = new Map<number, { provider: unknown; modelId: unknown }>();
  readonly snapshots = new Map<number, SnapshotInfo>();
  readonly summaryTimestamps = new Map<number, unknown>();
  /** v1 files: the name assigned to each parsed value, by its index in the parsed lines (header = 0). */
  private readonly v1Names = int32s(-1);
  private readonly v1FirstKept = new Map<number, number>();

  leafName = PARENT_NULL;
  private appendParent = PARENT_NULL;
  private pending: Pending | undefined;

  header: Record<string, unknown> | undefined;
  headerRecovered = false;
  private headerDecided = false;
  /** In recovery mode: the first valid session record seen. */
  recoveredHeader: Record<string, unknown> | undefined;
  migrateV1 = false;
  migrateV2 = false;
  private v1Previous = PARENT_NULL;
  private v1Counter = 0;
  /** Index of the next parsed value in the reference's parsed-line array (header = 0). */
  private ordinal = 0;

  malformedLines: number[] = [];
  malformedCount = 0;
  records = 0;
  sessionName: string | undefined;
  scanned = 0;
  parsed = 0;
  verified = 0;

  private readonly prefix: MessagePrefix = { idStart: 0, idEnd: 0, parentStart: -1, parentEnd: -1, role: 0, resultStart: -1, resultEnd: -1, plainEnvelope: false };
  private readonly appendHits: number[] = [];
  private readonly summaryHits: number[] = [];
  private readonly appendCursor = { at: 0 };
  private readonly summaryCursor = { at: 0 };
  /** Where `"image"` stands in the current chunk, found in every mode (the image census reads only those entries). */
  private readonly imageHits: number[] = [];
  private readonly imageCursor = { at: 0 };
  private lastNonBlank = -1;
  private lastFailed: { offset: number; length: number; line: number } | undefined;
  /** Database rules: where `"excludeFromContext"` stands in the current chunk (such a message is parsed whole). */
  private readonly excludeHits: number[] = [];
  private readonly excludeCursor = { at: 0 };
  /**
   * Database rules: the latest reset's subtree, as the reset generation each name was last marked
   * with (a new reset clears the set by counting up). Allocated at the first reset.
   */
  private resetGeneration = 0;
  private resetMark: Blocks<Int32Array> | undefined;
  private readonly db: boolean;

  constructor(
    private readonly source: RecordSource,
    private readonly fullParse: boolean,
    private readonly forcedHeader: Record<string, unknown> | undefined,
    readonly rules: SessionRules = 'file',
    private readonly findImages = true,
  ) {
    this.db = rules === 'openclaw-2026.9';
  }

  get entryCount(): number {
    return this.types.length;
  }

  chunk(buffer: Buffer, end: number): void {
    if (this.findImages) IMAGE_TYPE.findAll(buffer, end, this.imageHits);
    this.imageCursor.at = 0;
    if (this.fullParse) return;
    if (this.db) {
      EXCLUDE_KEY.findAll(buffer, end, this.excludeHits);
      this.excludeCursor.at = 0;
    }
    APPEND_MODE.findAll(buffer, end, this.appendHits);
    SUMMARY_ROLE.findAll(buffer, end, this.summaryHits);
    this.appendCursor.at = 0;
    this.summaryCursor.at = 0;
  }

  line(buffer: Buffer, start: number, end: number, offset: number, line: number): void {
    const before = this.types.length;
    this.entryLine(buffer, start, end, offset, line);
    // A line makes at most one entry: it is flagged when its bytes hold "image".
    if (this.types.length > before && hitIn(this.imageHits, this.imageCursor, start, end)) {
      const entry = this.types.length - 1;
      this.flagBits.set(entry, this.flagBits.get(entry) | F_MENTIONS_IMAGE);
    }
  }

  private entryLine(buffer: Buffer, start: number, end: number, offset: number, line: number): void {
    if (start === end) return;
    if (
      !this.fullParse &&
      this.headerDecided &&
      !this.migrateV1 &&
      buffer[start] === OPEN_BRACE &&
      !hitIn(this.appendHits, this.appendCursor, start, end) &&
      !(this.db && hitIn(this.excludeHits, this.excludeCursor, start, end)) &&
      scanMessagePrefix(buffer, start, end, this.prefix)
    ) {
      this.lastNonBlank = offset;
      this.lastFailed = undefined;
      this.scannedMessage(buffer, start, end, offset, line);
      return;
    }
    let text = buffer.toString('utf8', start, end);
    if (!this.headerDecided && this.lastNonBlank < 0) {
      // The loader trims the whole content: the first line loses a BOM or other leading whitespace.
      const trimmed = text.trimStart();
      if (trimmed.length !== text.length && trimmed !== '') {
        const skip = Buffer.byteLength(text.slice(0, text.length - trimmed.length));
        start += skip;
        offset += skip;
      }
      text = trimmed;
    }
    if (text.trim() === '') return;
    this.lastNonBlank = offset;
    this.lastFailed = undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.source.badRecord?.(line, (error as Error).message);
      this.lastFailed = { offset, length: end - start, line };
      this.malformed(line);
      return;
    }
    this.parsed++;
    this.records++;
    this.value(value, offset, end - start, line);
  }

  /** End of file: a last line that only fails for trailing whitespace the loader trims, then the pending entry. */
  finish(): void {
    const failed = this.lastFailed;
    if (failed !== undefined && failed.offset === this.lastNonBlank) {
      const text = this.readText(failed.offset, failed.length);
      const trimmed = this.headerDecided ? text.trimEnd() : text.trim();
      let value: unknown;
      let ok = false;
      try {
        value = JSON.parse(trimmed);
        ok = true;
      } catch {
        // Malformed after all.
      }
      if (ok) {
        this.unmalformed(failed.line);
        this.parsed++;
        this.records++;
        // The read pass reads the trimmed bytes only.
        const lead = this.headerDecided ? 0 : Buffer.byteLength(text.slice(0, text.length - text.trimStart().length));
        this.value(value, failed.offset + lead, Buffer.byteLength(trimmed), failed.line);
      }
    }
    if (this.pending !== undefined) this.verifyPending();
    if (this.headerRecovered && this.forcedHeader === undefined && this.recoveredHeader !== undefined) {
      const { v1, v2 } = migrationsFor(this.recoveredHeader.version);
      // Entries were read as version 3; an older recovered header means reading them again.
      if (v1 || v2) throw new RestartIndex('recovered-version', this.recoveredHeader);
      this.header = this.recoveredHeader;
    }
  }

  private malformed(line: number): void {
    this.malformedCount++;
    if (this.malformedLines.length < MAX_LISTED_MALFORMED) this.malformedLines.push(line);
  }

  private unmalformed(line: number): void {
    this.malformedCount--;
    const at = this.malformedLines.indexOf(line);
    if (at >= 0) this.malformedLines.splice(at, 1);
  }

  private readText(offset: number, length: number): string {
    this.verified++;
    return this.source.text(offset, length);
  }

  /** Whether the line of an entry is JSON (the loader's view), trimming the end of the file's last line as it does. */
  private lineIsJson(entry: number): boolean {
    const offset = this.offsets.get(entry);
    const text = this.readText(offset, this.lengths.get(entry));
    try {
      JSON.parse(text);
      return true;
    } catch (error) {
      this.source.badRecord?.(this.lineNumbers.get(entry), (error as Error).message);
      if (offset !== this.lastNonBlank) return false;
      try {
        const trimmed = text.trimEnd();
        JSON.parse(trimmed);
        this.lengths.set(entry, Buffer.byteLength(trimmed));
        return true;
      } catch {
        return false;
      }
    }
  }

  // ---- records ----

  private value(value: unknown, offset: number, length: number, line: number): void {
    if (!this.headerDecided) {
      this.headerDecided = true;
      if (isHeader(value) && this.forcedHeader === undefined) {
        this.header = value;
        this.setMigrations(value.version);
        this.ordinal = 1;
        return;
      }
      this.headerRecovered = true;
      this.header = this.forcedHeader;
      this.setMigrations(this.forcedHeader === undefined ? 3 : this.forcedHeader.version);
      this.ordinal = 1;
    }
    if (this.headerRecovered && isRecord(value) && value.type === 'session') {
      // Recovery keeps the first valid session record as the header and drops every session record.
      if (this.recoveredHeader === undefined && isHeader(value)) this.recoveredHeader = value;
      return;
    }
    const ordinal = this.ordinal++;
    if (this.migrateV1) {
      this.v1Value(value, ordinal, offset, length, line);
      return;
    }
    this.record(value, offset, length, line, undefined, undefined);
  }

  private setMigrations(version: unknown): void {
    const { v1, v2 } = migrationsFor(version);
    this.migrateV1 = v1;
    this.migrateV2 = v2;
  }

  /**
   * v1 -> v2 (§7): every non-session value gets a fresh id, its parent is the previous one's.
   * The reference crashes on a `null` line here and gives a primitive no id; we skip `null`
   * and let a primitive break the chain as its missing id does.
   */
  private v1Value(value: unknown, ordinal: number, offset: number, length: number, line: number): void {
    if (value === null) return;
    if (typeof value !== 'object') {
      this.v1Previous = PARENT_INVALID;
      return;
    }
    if ((value as Record<string, unknown>).type === 'session') return;
    const name = this.ids.intern(`\u0000v1:${this.v1Counter++}`);
    this.v1Names.reserve(ordinal);
    this.v1Names.set(ordinal, name);
    const parent = this.v1Previous;
    this.v1Previous = name;
    this.record(value, offset, length, line, name, parent);
  }

  /**
   * One parsed record, by the first matching case of §5. `forcedName`/`forcedParent` are the
   * id and parent that v1 migration assigns.
   */
  private record(value: unknown, offset: number, length: number, line: number, forcedName: number | undefined, forcedParent: number | undefined): void {
    if (!isRecord(value)) return;
    const type = value.type;
    if (type === 'session') return;
    const id = forcedName !== undefined ? forcedName : value.id;
    const code = typeof type === 'string' ? (this.db ? DB_CANONICAL_TYPES : CANONICAL_TYPES).get(type) : undefined;
    const hasId = forcedName !== undefined || (typeof id === 'string' && id !== '' && (!this.db || id.trim() !== ''));
    const parentId = value.parentId;
    // 2026.9's scan skips a record whose parentId is there but neither null nor a non-blank string.
    if (this.db && Object.hasOwn(value, 'parentId') && parentId !== null && !(typeof parentId === 'string' && parentId.trim() !== '')) return;
    if (code !== undefined && hasId) {
      const name = forcedName ?? this.ids.intern(id as string);
      const hasParentKey = forcedName !== undefined || Object.hasOwn(value, 'parentId');
      const parent = forcedName !== undefined ? forcedParent! : this.parentNameOf(parentId);
      this.canonical(code, name, hasParentKey, parent, value.appendMode === 'side', offset, length, line, value, false);
      return;
    }
    // With v1 ids, a parent of PARENT_INVALID stands for the `undefined` the migration gave it.
    const parentIsNullOrString = forcedName !== undefined ? forcedParent !== PARENT_INVALID : parentId === null || typeof parentId === 'string';
    if (type === 'leaf' && hasId && parentIsNullOrString && this.isLeafShape(value)) {
      const name = forcedName ?? this.ids.intern(id as string);
      this.leafRecord(value, name, forcedName !== undefined ? forcedParent! : this.parentNameOf(parentId));
      return;
    }
    // 2026.9's scan ignores a `leaf` record of another shape; the file rules make it an opaque link.
    if (this.db && type === 'leaf') return;
    if (hasId && parentIsNullOrString) this.opaqueLink(forcedName ?? this.ids.intern(id as string), forcedName !== undefined ? forcedParent! : this.parentNameOf(parentId));
  }

  private parentNameOf(parentId: unknown): number {
    if (parentId === null) return PARENT_NULL;
    if (typeof parentId === 'string' && parentId !== '') return this.ids.intern(parentId);
    return PARENT_INVALID;
  }

  /** A `leaf` record's fields other than id and parentId (checked by the caller). */
  private isLeafShape(value: Record<string, unknown>): boolean {
    const nullOrString = (v: unknown): boolean => v === null || typeof v === 'string';
    return (
      nullOrString(value.targetId) &&
      (value.appendParentId === undefined || nullOrString(value.appendParentId)) &&
      (value.appendMode === undefined || value.appendMode === 'side')
    );
  }

  /** A message line read by the prefix scan. */
  private scannedMessage(buffer: Buffer, start: number, end: number, offset: number, line: number): void {
    const prefix = this.prefix;
    if (this.db && (blankBytes(buffer, prefix.idStart, prefix.idEnd) || (prefix.parentStart >= 0 && blankBytes(buffer, prefix.parentStart, prefix.parentEnd)))) {
      // A blank id or parentId: 2026.9's scan skips the record.
      this.scanned++;
      this.ordinal++;
      this.records++;
      return;
    }
    const name = this.ids.internBytes(buffer, prefix.idStart, prefix.idEnd);
    const parent = prefix.parentStart < 0 ? PARENT_NULL : prefix.parentEnd === prefix.parentStart ? PARENT_INVALID : this.ids.internBytes(buffer, prefix.parentStart, prefix.parentEnd);
    let value: Record<string, unknown> | undefined;
    if (this.ids.entryOf.get(name) >= 0) {
      // A duplicate id: which record wins depends on this one being JSON, so find out now.
      let parsed: unknown;
      try {
        parsed = JSON.parse(buffer.toString('utf8', start, end));
      } catch (error) {
        this.source.badRecord?.(line, (error as Error).message);
        this.malformed(line);
        return;
      }
      value = parsed as Record<string, unknown>;
    }
    this.scanned++;
    this.ordinal++;
    this.records++;
    const entry = this.canonical(T_MESSAGE, name, true, parent, false, offset, end - start, line, value, value === undefined);
    if (value !== undefined) return;
    let flags = this.flagBits.get(entry);
    this.roles.set(entry, prefix.role);
    if (hitIn(this.summaryHits, this.summaryCursor, start, end)) flags |= F_MENTIONS_SUMMARY;
    if (prefix.plainEnvelope) flags |= F_PLAIN_ENVELOPE;
    this.flagBits.set(entry, flags);
    if (prefix.role === ROLE_TOOL_RESULT && prefix.resultStart >= 0) {
      // The scan took only an id that trim() leaves as it is, so its bytes hash as the string would.
      const hash = hashResultIdAscii(buffer, prefix.resultStart, prefix.resultEnd);
      this.result(entry, hash >= 0 ? hash : hashResultId(buffer.toString('utf8', prefix.resultStart, prefix.resultEnd)));
    } else if (prefix.role === ROLE_TOOL_RESULT || prefix.role === ROLE_UNKNOWN) {
      scanResultIdBytes(buffer, start, end, (id) => this.result(entry, hashResultId(id)));
    }
  }

  private result(entry: number, hash: number): void {
    this.resultEntries.push(entry);
    this.resultHashes.push(hash);
  }

  /** Resolves the speculative entry whose state is current before a record that reads it. */
  private settle(continuationParent: number): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    if (continuationParent === pending.name) return;
    this.verifyPendingEntry(pending);
  }

  private verifyPending(): void {
    const pending = this.pending!;
    this.pending = undefined;
    this.verifyPendingEntry(pending);
  }

  private verifyPendingEntry(pending: Pending): void {
    const entry = pending.entry;
    const flags = this.flagBits.get(entry);
    if (this.lineIsJson(entry)) {
      this.flagBits.set(entry, flags & ~F_SPECULATIVE);
      return;
    }
    // Not JSON: the reference never saw this line. Undo what it did.
    this.ids.entryOf.set(pending.name, pending.prevEntry);
    if (pending.prevLogical === undefined) this.logicalParent.delete(pending.name);
    else this.logicalParent.set(pending.name, pending.prevLogical);
    this.leafName = pending.prevLeaf;
    this.appendParent = pending.prevAppend;
    this.flagBits.set(entry, (flags & ~F_SPECULATIVE) | F_DEAD);
    this.records--;
    this.malformed(this.lineNumbers.get(entry));
  }

  /** Looks a name up in byId; a speculative entry found this way must be JSON. */
  private entryOfName(name: number): number {
    if (name < 0) return -1;
    const entry = this.ids.entryOf.get(name);
    if (entry >= 0 && (this.flagBits.get(entry) & F_SPECULATIVE) !== 0) {
      if (!this.lineIsJson(entry)) throw new RestartIndex('speculation');
      this.flagBits.set(entry, this.flagBits.get(entry) & ~F_SPECULATIVE);
    }
    return entry;
  }

  /** §5 case 1. Returns the entry number. */
  private canonical(
    code: number,
    name: number,
    hasParentKey: boolean,
    parent: number,
    side: boolean,
    offset: number,
    length: number,
    line: number,
    value: Record<string, unknown> | undefined,
    speculative: boolean,
  ): number {
    this.settle(hasParentKey && !side ? parent : -3);
    const prevEntry = this.ids.entryOf.get(name);
    const prevLogical = this.logicalParent.get(name);
    if (this.db) {
      if (!hasParentKey || (!side && this.reattachedToLeaf(parent))) this.logicalParent.set(name, this.leafName);
      // A record with the same id replaces the earlier one, parent and all.
      else this.logicalParent.delete(name);
    } else if (!hasParentKey || (!side && parent === this.appendParent && this.leafName !== this.appendParent)) {
      this.logicalParent.set(name, this.leafName);
    }
    const entry = this.types.push(code);
    this.offsets.push(offset);
    this.lengths.push(length);
    this.lineNumbers.push(line);
    this.parents.push(parent);
    let flags = side ? F_SIDE : 0;
    let role = ROLE_OTHER;
    if (speculative) flags |= F_SPECULATIVE;
    if (code === T_MESSAGE) flags |= F_EMITS;
    if (value !== undefined) {
      switch (code) {
        case T_MESSAGE: {
          const message = value.message;
          if (isRecord(message)) {
            role = roleCode(message.role);
            if (this.db && message.excludeFromContext === true) flags |= F_EXCLUDED;
            if (role === ROLE_TOOL_RESULT) for (const id of resultIdsOfMessage(message)) this.result(entry, hashResultId(id));
            if (role === ROLE_COMPACTION_SUMMARY) this.summaryTimestamps.set(entry, message.timestamp);
          }
          break;
        }
        case T_CUSTOM_MESSAGE:
          flags |= F_EMITS;
          break;
        case T_BRANCH_SUMMARY:
          if (value.summary) flags |= F_EMITS;
          break;
        case T_COMPACTION: {
          const firstKept = value.firstKeptEntryId;
          let firstKeptName = typeof firstKept === 'string' && firstKept !== '' ? this.ids.intern(firstKept) : -1;
          if (this.migrateV1) {
            firstKeptName = -1;
            if (typeof value.firstKeptEntryIndex === 'number') this.v1FirstKept.set(entry, value.firstKeptEntryIndex);
            else if (typeof firstKept === 'string' && firstKept !== '') firstKeptName = this.ids.intern(firstKept);
          }
          this.compactions.set(entry, { firstKeptName, timestamp: value.timestamp });
          break;
        }
        case T_RESET: {
          const firstKept = value.firstKeptEntryId;
          this.compactions.set(entry, { firstKeptName: typeof firstKept === 'string' && firstKept !== '' ? this.ids.intern(firstKept) : -1, timestamp: value.timestamp });
          break;
        }
        case T_THINKING_LEVEL_CHANGE:
          this.thinkingLevels.set(entry, value.thinkingLevel);
          break;
        case T_MODEL_CHANGE:
          this.modelChanges.set(entry, { provider: value.provider, modelId: value.modelId });
          break;
        case T_CUSTOM: {
          const data = value.data;
          if (value.customType === MODEL_SNAPSHOT_CUSTOM_TYPE && data !== null && typeof data === 'object') {
            const snapshot = data as Record<string, unknown>;
            this.snapshots.set(entry, { provider: snapshot.provider, modelApi: snapshot.modelApi, modelId: snapshot.modelId, timestamp: snapshot.timestamp });
          }
          break;
        }
        case T_SESSION_INFO:
          this.sessionName = typeof value.name === 'string' ? value.name.trim() || undefined : undefined;
          break;
      }
    }
    this.flagBits.push(flags);
    this.roles.push(role);
    this.ids.entryOf.set(name, entry);
    if (speculative) {
      this.pending = { entry, name, prevLeaf: this.leafName, prevAppend: this.appendParent, prevEntry, prevLogical };
    }
    if (this.db) {
      if (code === T_RESET) {
        // A new reset: its subtree starts over from it.
        this.resetGeneration++;
        this.markResetDescendant(name);
      } else {
        const effective = this.logicalParent.get(name) ?? parent;
        if (this.isResetDescendant(effective)) this.markResetDescendant(name);
      }
    }
    this.appendParent = name;
    if (!side) this.leafName = name;
    return entry;
  }

  /**
   * Database rules (2026.9's scan): a canonical entry not appended beside the branch goes under
   * the current leaf instead of its stored parent when a reset came before and the parent is
   * outside the latest reset's subtree, when its parent is unknown so far (and there is a leaf),
   * or (as in a file) when it names the append parent while the leaf moved elsewhere.
   */
  private reattachedToLeaf(parent: number): boolean {
    if (this.resetGeneration > 0 && (parent < 0 || !this.isResetDescendant(parent))) return true;
    if (parent >= 0 && this.leafName !== PARENT_NULL && this.ids.entryOf.get(parent) < 0 && !this.opaqueParent.has(parent)) return true;
    return parent === this.appendParent && this.leafName !== this.appendParent;
  }

  private isResetDescendant(name: number): boolean {
    const marks = this.resetMark;
    return name >= 0 && marks !== undefined && name < marks.length && marks.get(name) === this.resetGeneration;
  }

  private markResetDescendant(name: number): void {
    const marks = (this.resetMark ??= int32s());
    marks.reserve(name);
    marks.set(name, this.resetGeneration);
  }

  /** Whether an id is "known" to a leaf record: null, an entry, or a valid opaque link seen so far. */
  private known(name: number): boolean {
    if (name === PARENT_NULL) return true;
    if (name < 0) return false;
    if (this.entryOfName(name) >= 0) return true;
    return this.opaqueParent.has(name) && !this.invalidLeaf.has(name);
  }

  /** §5 case 2: a `leaf` control record. */
  private leafRecord(value: Record<string, unknown>, name: number, parent: number): void {
    this.settle(-3);
    let target = this.parentNameOf(value.targetId);
    let hasAppendParent = value.appendParentId !== undefined;
    let appendParent = hasAppendParent ? this.parentNameOf(value.appendParentId) : PARENT_NULL;
    if (this.db && this.resetGeneration > 0 && this.leafName !== PARENT_NULL && !this.isResetDescendant(target)) {
      // 2026.9: after a reset, a leaf control cannot leave the reset's subtree; it selects the current leaf.
      target = this.leafName;
      hasAppendParent = true;
      appendParent = this.leafName;
    }
    if (!this.known(target) || (hasAppendParent && !this.known(appendParent))) {
      this.invalidLeaf.add(name);
      this.opaqueParent.set(name, this.resolveAppendParent(parent));
      return;
    }
    const leaf = target === PARENT_NULL || this.entryOfName(target) >= 0 ? target : this.resolveCanonical(target);
    this.opaqueParent.set(name, leaf);
    if (this.isResetDescendant(target)) this.markResetDescendant(name);
    this.leafName = leaf;
    this.appendParent = hasAppendParent ? this.resolveAppendParent(appendParent) : leaf;
  }

  /** §5 case 3. */
  private opaqueLink(name: number, parent: number): void {
    this.settle(-3);
    this.opaqueParent.set(name, parent < 0 ? PARENT_NULL : parent);
    if (this.isResetDescendant(parent)) this.markResetDescendant(name);
    this.appendParent = name;
  }

  private resolveAppendParent(name: number): number {
    if (name === PARENT_NULL || (name >= 0 && (this.entryOfName(name) >= 0 || this.opaqueParent.has(name)))) return name;
    return this.resolveCanonical(name);
  }

  /** Follows opaque links to a canonical entry's name; null on a cycle or a dead end. */
  resolveCanonical(name: number): number {
    let current = name;
    let seen: Set<number> | undefined;
    while (current >= 0 && this.entryOfName(current) < 0) {
      if (seen?.has(current)) return PARENT_NULL;
      (seen ??= new Set()).add(current);
      current = this.opaqueParent.get(current) ?? PARENT_NULL;
    }
    return current < 0 ? PARENT_NULL : current;
  }

  build(path: string, source: string, stat: { dev: number; ino: number; size: number }, lines: number, restarts: number, started: number): SessionIndex {
    if (this.types.length >= LARGE_INDEX_ENTRIES) {
      // Past this point ids are only followed by name (entryOf), and the leaf's is printed.
      this.ids.seal([this.leafName]);
      // The id table and the tables growth replaced go to the collector: a full collection now
      // (tens of ms, small next to such a pass) frees them before the read plan is built, not at
      // the collector's leisure. 1M entries: 32 MB, peak RSS 135 -> 105 MB at this point.
      collectGarbageNow();
    }
    const compactions = new Map(this.compactions);
    for (const [entry, index] of this.v1FirstKept) {
      const name = index >= 0 && index < this.v1Names.length ? this.v1Names.get(index) : -1;
      compactions.set(entry, { ...compactions.get(entry)!, firstKeptName: name });
    }
    return {
      rules: this.rules,
      path,
      source,
      dev: stat.dev,
      ino: stat.ino,
      size: stat.size,
      header: this.header,
      headerRecovered: this.headerRecovered,
      migrateV1: this.migrateV1,
      migrateV2: this.migrateV2,
      ids: this.ids,
      entryCount: this.entryCount,
      offset: this.offsets,
      length: this.lengths,
      line: this.lineNumbers,
      type: this.types,
      flags: this.flagBits,
      role: this.roles,
      parentName: this.parents,
      opaqueParent: this.opaqueParent,
      logicalParent: this.logicalParent,
      leafName: this.leafName,
      compactions,
      thinkingLevels: this.thinkingLevels,
      modelChanges: this.modelChanges,
      snapshots: this.snapshots,
      summaryTimestamps: this.summaryTimestamps,
      resultEntry: this.resultEntries,
      resultHash: this.resultHashes,
      malformedLines: this.malformedLines,
      malformedCount: this.malformedCount,
      records: this.records,
      lines,
      sessionName: this.sessionName,
      scanned: this.scanned,
      parsed: this.parsed,
      verified: this.verified,
      restarts,
      ms: performance.now() - started,
    };
  }
}

/** Opens a file for reading, turning the usual failures into HygieneErrors that name it. */
export async function openSessionFile(path: string, source: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw inputError(error, source);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) throw new HygieneError('input_is_directory', `${source}: is a directory (give a session file)`, { source });
  } catch (error) {
    await handle.close();
    throw error instanceof HygieneError ? error : inputError(error, source);
  }
  return handle;
}

export function inputError(error: unknown, source: string): HygieneError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new HygieneError('input_not_found', `${source}: no such file`, { source, cause: error });
  if (code === 'ENOTDIR') return new HygieneError('input_not_found', `${source}: ${(error as Error).message}`, { source, cause: error });
  if (code === 'EISDIR') return new HygieneError('input_is_directory', `${source}: is a directory (give a session file)`, { source, cause: error });
  if (code === 'EACCES' || code === 'EPERM') return new HygieneError('input_unreadable', `${source}: permission denied`, { source, cause: error });
  return new HygieneError('input_unreadable', `${source}: ${(error as Error).message}`, { source, cause: error });
}

/** Pass 1: the session index of a file. Throws HygieneError for a missing, unreadable or empty file. */
export async function buildSessionIndex(path: string, options: IndexOptions = {}): Promise<SessionIndex> {
  const source = options.source ?? path;
  const started = performance.now();
  const handle = await openSessionFile(path, source);
  try {
    const stat = await handle.stat();
    if (stat.size === 0) throw new HygieneError('input_empty', `${source}: empty file (not a session)`, { source });
    let fullParse = options.fullParse ?? false;
    let forcedHeader: Record<string, unknown> | undefined;
    for (let restarts = 0; ; restarts++) {
      const builder = new IndexBuilder(fileRecords(handle.fd), fullParse, forcedHeader, 'file', options.findImages ?? true);
      try {
        const { lines } = await readLines(handle, builder, options.chunkSize);
        builder.finish();
        if (builder.records === 0) {
          throw new HygieneError('input_empty', `${source}: no session entries (every line is blank or not JSON)`, { source });
        }
        return builder.build(path, source, { dev: stat.dev, ino: stat.ino, size: stat.size }, lines, restarts, started);
      } catch (error) {
        if (!(error instanceof RestartIndex) || restarts >= 2) throw error;
        if (error.reason === 'speculation') fullParse = true;
        else forcedHeader = error.header;
      }
    }
  } catch (error) {
    if (error instanceof HygieneError) throw error;
    throw inputError(error, source);
  } finally {
    await handle.close();
  }
}

/** One record of a source that is not a file of lines (a database session's row): its bytes and where it is. */
export interface IndexedRecord {
  readonly bytes: Buffer;
  /** What the read pass asks the source for again (a row's seq). */
  readonly offset: number;
  /** What error messages call it (a row's seq). */
  readonly line: number;
}

export interface RecordIndexParams {
  path: string;
  source: string;
  /** The records in order; called again when the pass has to start over. */
  records: () => Iterable<IndexedRecord>;
  reader: RecordSource;
  /** One more than the largest offset (picks the read plan's offset width). */
  size: number;
  fullParse?: boolean;
  /** The rules the records are read by (default: a session file's). */
  rules?: SessionRules;
  /** As IndexOptions.findImages. */
  findImages?: boolean;
}

/** Pass 1 over records that come one at a time (a database session's rows), by the same rules as a file's lines. */
export function buildRecordIndex(params: RecordIndexParams): SessionIndex {
  const started = performance.now();
  let fullParse = params.fullParse ?? false;
  let forcedHeader: Record<string, unknown> | undefined;
  for (let restarts = 0; ; restarts++) {
    const builder = new IndexBuilder(params.reader, fullParse, forcedHeader, params.rules, params.findImages ?? true);
    try {
      let count = 0;
      for (const record of params.records()) {
        builder.chunk(record.bytes, record.bytes.length);
        builder.line(record.bytes, 0, record.bytes.length, record.offset, record.line);
        count++;
      }
      builder.finish();
      if (builder.records === 0) throw new HygieneError('input_empty', `${params.source}: no session entries`, { source: params.source });
      return builder.build(params.path, params.source, { dev: 0, ino: 0, size: params.size }, count, restarts, started);
    } catch (error) {
      if (!(error instanceof RestartIndex) || restarts >= 2) throw error;
      if (error.reason === 'speculation') fullParse = true;
      else forcedHeader = error.header;
    }
  }
}
