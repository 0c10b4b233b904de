/**
 * readSessionMessages: a session file's message list as buildSessionContext gives it
 * (spec/session-file.md §6), in bounded memory (§12).
 *
 * Pass 1 (index-pass.ts) keeps a few numbers per entry and picks the active leaf; the path and
 * what of it is emitted come from active-path.ts; pass 2 (here) reads only the lines of emitted
 * entries, in emission order, through a window that moves forward over the file (append-only
 * files put every parent before its child, so the window rarely moves back), and projects each
 * to its message (project.ts). Memory: the index, one window, and the message being handed on.
 *
 * The facts the rules need before messages flow come with it: the compaction time (the summary
 * is the first message), the model-switch time S from the path's `model-snapshot` entries, and a
 * result-id index in terms of the projected stream's positions, which are also recorded as the
 * messages' input lines so pairing can finalize frames early.
 */
import { Buffer } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';
import { readSync } from 'node:fs';
import { HygieneError } from '../errors.ts';
import { JsonlLineParser } from '../jsonl.ts';
import type { HygieneOptions } from '../options.ts';
import { isRecord, type Message } from '../types.ts';
import { compactionTimestampOf } from '../timestamps.ts';
import { buildSessionIndex, LARGE_INDEX_ENTRIES, openSessionFile, type SessionIndex } from './index-pass.ts';
import { EMITTED_ENTRY, type EntrySource, type EntryTexts } from './entry-source.ts';
import { activePath, planEmission } from './active-path.ts';
import { resetKeptEntries } from './reset-window.ts';
import { inputLineOf, recordInputLine } from '../input-lines.ts';
import { withoutReplayCheckpoint } from './replay-checkpoint.ts';
import { branchSummaryMessage, compactionSummaryMessage, customMessage, lineOf, normalizeEntryMessage, type LineRef, type ProjectContext } from './project.ts';
import { modelOf, modelSwitchedAtOf, thinkingLevelOf, type RouteSnapshot, type SessionModel } from './settings.ts';
import { ResultIdIndex } from '../result-index.ts';
import { ReadPlanWriter, type ReadPlanEntries } from './read-plan.ts';
import { BLOCK_SHIFT } from './growable.ts';
import { InvalidUtf8Counter, type InvalidUtf8 } from '../utf8-replacements.ts';
import { LineWindow } from './line-window.ts';
import { F_MENTIONS_IMAGE, F_MENTIONS_SUMMARY, F_PLAIN_ENVELOPE, T_BRANCH_SUMMARY, T_CUSTOM_MESSAGE, T_MESSAGE, T_PLAIN_MESSAGE } from './entry-types.ts';
import { collect as collectImages, type ImageCensus } from '../image-census.ts';
import { ROLE_COMPACTION_SUMMARY } from './prefix-scan.ts';
import { collectGarbageNow } from '../large-garbage.ts';

export interface ReadSessionOptions extends HygieneOptions {
  /** Name for error messages (default: the path). */
  source?: string;
  /** Read size of both passes in bytes (default 1 MiB). */
  chunkSize?: number;
  /** Parse every line in the index pass (no prefix scan): slower, for checking. */
  fullParse?: boolean;
  /** Remember each message's line in the file (sessionFileLineOf), for reports that name it. */
  recordFileLines?: boolean;
  /** Count the emitted messages' images before they flow (routes with request-wide image limits). */
  takeImageCensus?: boolean;
}

/** The file line each projected message came from, when read with recordFileLines. */
const fileLines = new WeakMap<object, number>();

/** The 1-based line of the session file a message was projected from (with recordFileLines). */
export function sessionFileLineOf(message: Message): number | undefined {
  return typeof message === 'object' && message !== null ? fileLines.get(message) : undefined;
}

export interface SessionReadStats {
  /** Lines in the file, lines that parsed (header included), lines skipped as not JSON. */
  lines: number;
  records: number;
  malformedLines: number;
  /** The first skipped lines' numbers (at most 100). */
  malformedLineNumbers: readonly number[];
  /** Canonical entries in the file, entries on the active path, messages projected. */
  entries: number;
  pathEntries: number;
  messages: number;
  /** Index pass: lines read by the prefix scan, parsed whole, re-read to check, restarts. */
  prefixScanned: number;
  parsed: number;
  reread: number;
  restarts: number;
  indexMs: number;
  /** Between the passes: the active path walked, the read plan packed, the result-id index built. */
  prepareMs: number;
  /** Read pass (filled in when it ends). */
  readMs: number;
  bytesRead: number;
  /** Read pass: message entries parsed from their message's text alone (entry-types.ts, F_PLAIN_ENVELOPE). */
  messageTexts: number;
  /** Read pass: byte sequences of the path's lines that were not UTF-8 (read as U+FFFD), when any. */
  invalidUtf8?: InvalidUtf8;
}

export interface SessionMessages extends AsyncIterable<Message> {
  readonly path: string;
  readonly source: string;
  /** The header record (or the one recovered from elsewhere in the file); undefined when it would be synthesised. */
  readonly header: Record<string, unknown> | undefined;
  readonly headerRecovered: boolean;
  /** The active leaf's id, or null. */
  readonly leafId: string | null;
  readonly thinkingLevel: unknown;
  readonly model: SessionModel | null;
  /** The session name (last session_info in the file). */
  readonly sessionName: string | undefined;
  /** The largest compactionSummary time of the projection, or null when it has none. */
  readonly compactionTimestamp: number | null;
  /** S of thinking.md §4.11 for the route given in the options, if the model switched. */
  readonly modelSwitchedAt: number | undefined;
  /** Where tool results sit in the projected stream (positions = recorded input lines). */
  readonly resultIndex: ResultIdIndex;
  readonly stats: SessionReadStats;
  /** The caller's options with the session's facts added (the caller's own values win). */
  hygieneOptions(base?: HygieneOptions): HygieneOptions;
  /** The read pass, as batches of messages (about 256 KiB of lines each). Can be run once. */
  batches(): AsyncGenerator<Message[]>;
  toArray(): Promise<Message[]>;
}

const BATCH_BYTES = 64 * 1024;

/** What the read pass needs of the emitted entries, copied out of the index so the index can be freed before it. */
interface ReadPlan extends LineContext {
  /** Byte offsets, lengths and types of the emitted lines, in order (packed: read-plan.ts). */
  readonly plan: ReadPlanEntries;
  /** Database rules: the first this many entries come from before the boundary, and their assistants lose a compaction checkpoint. */
  readonly checkpointFree: number;
}

interface LineContext {
  readonly source: string;
  readonly migrateV2: boolean;
  readonly entries: EntrySource;
}

/** The 1-based numbers of the lines starting at the ascending byte `offsets`, in one forward scan. */
export function lineNumbersAt(fd: number, offsets: readonly number[]): number[] {
  const buffer = Buffer.allocUnsafe(1 << 20);
  const numbers: number[] = [];
  let line = 1;
  let at = 0;
  for (const offset of offsets) {
    while (at < offset) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, offset - at), at);
      if (read === 0) break;
      for (let newline = buffer.indexOf(10, 0); newline >= 0 && newline < read; newline = buffer.indexOf(10, newline + 1)) line++;
      at += read;
    }
    numbers.push(line);
  }
  return numbers;
}

/** The 1-based number of the line starting at byte `offset` (counts LFs before it; for error messages). */
export function lineNumberAt(fd: number, offset: number): number {
  const buffer = Buffer.allocUnsafe(1 << 20);
  let line = 1;
  for (let at = 0; at < offset; ) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, offset - at), at);
    if (read === 0) break;
    let newline = buffer.indexOf(10, 0);
    while (newline >= 0 && newline < read) {
      line++;
      newline = buffer.indexOf(10, newline + 1);
    }
    at += read;
  }
  return line;
}

/** A session file's emitted lines: read through a window, an error's line counted from the file. */
export function fileEntries(path: string, source: string, identity: { dev: number; ino: number; size: number }, chunkSize: number): EntrySource {
  return {
    async open(phase): Promise<EntryTexts> {
      const handle = await openSessionFile(path, source);
      try {
        if (phase === EMITTED_ENTRY) {
          const stat = await handle.stat();
          if (stat.dev !== identity.dev || stat.ino !== identity.ino || stat.size < identity.size) {
            throw new HygieneError('input_unreadable', `${source}: the session file was replaced or shortened while it was read`, { source });
          }
        }
      } catch (error) {
        await handle.close();
        throw error;
      }
      // The read pass reads ahead on the thread pool (./line-window.ts); the prepare phase's few lines do not.
      const window = phase === EMITTED_ENTRY ? new LineWindow(handle.fd, chunkSize, handle) : new LineWindow(handle.fd, Math.min(chunkSize, 64 * 1024));
      return {
        text: (offset, length) => (window.covers(offset, length) ? window.text(offset, length) : window.read(offset, length)),
        prepare: (offset, length) => window.prepare(offset, length),
        messageStart: (offset, length) => window.messageStart(offset, length),
        replacements: (text, offset, length) => window.replacements(text, offset, length),
        // Line numbers are not kept per entry: an error counts the lines up to its offset.
        lineAt: (offset) => lineNumberAt(handle.fd, offset),
        linesAt: (offsets) => lineNumbersAt(handle.fd, offsets),
        get bytesRead() {
          return window.bytesRead;
        },
        close: async () => {
          await window.settle();
          await handle.close();
        },
      };
    },
    where: (line) => `${source}:${line}`,
    notJson(line, error) {
      const reason = error instanceof Error ? error.message : String(error);
      return new HygieneError('malformed_line', `${source}:${line}: not valid JSON (${reason}); the line is on the active path (run 'transcript-hygiene repair' first)`, {
        source,
        line,
        cause: error,
      });
    },
  };
}

function notJson(context: LineContext, ref: LineRef, error: unknown): HygieneError {
  return context.entries.notJson(lineOf(ref), error);
}

function parseEntry(context: LineContext, line: LineRef, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw notJson(context, line, error);
  }
  return isRecord(value) ? value : {};
}

/** The message of a `message` entry's line, as the pipeline receives it. */
function messageOfLine(context: LineContext, line: LineRef, text: string, parser: JsonlLineParser | undefined, position: number): unknown {
  let message: unknown;
  let parsed = false;
  if (parser !== undefined) {
    parser.lineNumber = position - 1;
    try {
      message = parser.parse(text);
      parsed = message !== undefined;
    } catch {
      // Not an object message, or not JSON: parsed below, where a real error names the file line.
    }
  }
  if (!parsed) message = parseEntry(context, line, text).message;
  return normalizeEntryMessage(message, context.migrateV2);
}

/**
 * A plain message entry's message, from the text of the message alone (entry-types.ts,
 * F_PLAIN_ENVELOPE): neither the envelope nor a slice of the whole line is made, and the raw line
 * kept for the writer is a string of its own. Undefined when the entry is not of that shape after
 * all (the caller reads it whole). Its envelope is ASCII, so the message's bytes hold every byte
 * that was not UTF-8.
 */
function plainMessageOf(context: LineContext, texts: EntryTexts, offset: number, length: number, parser: JsonlLineParser, position: number, invalid: InvalidUtf8Counter): Message | undefined {
  const start = texts.messageStart?.(offset, length) ?? -1;
  if (start < 0) return undefined;
  // Up to the entry's closing brace, the line's last byte.
  const messageLength = offset + length - 1 - start;
  const text = texts.text(start, messageLength);
  const message = parser.parseMessageText(text, position);
  if (message === undefined) return undefined;
  const replaced = texts.replacements(text, start, messageLength);
  if (replaced > 0) invalid.note(offset, replaced);
  return normalizeEntryMessage(message, context.migrateV2) as Message;
}

function projectLine(context: LineContext, type: number, line: LineRef, text: string, parser: JsonlLineParser | undefined, position: number): unknown {
  if (type === T_MESSAGE) return messageOfLine(context, line, text, parser, position);
  const value = parseEntry(context, line, text);
  const where: ProjectContext = { source: context.source, line, where: context.entries.where };
  if (type === T_CUSTOM_MESSAGE) return customMessage(value, where);
  if (type === T_BRANCH_SUMMARY) return branchSummaryMessage(value, where);
  throw new Error(`entry type ${type} emits no message`);
}

interface Prepared {
  readPlan: ReadPlan;
  pathLength: number;
  thinkingLevel: unknown;
  summary: Message | undefined;
  compactionTimestamp: number | null;
  /** The compaction entry's file line (the summary's), or undefined. */
  summaryLine: number | undefined;
  model: SessionModel | null;
  modelSwitchedAt: number | undefined;
  resultIndex: ResultIdIndex;
  bytesRead: number;
  imageCensus: ImageCensus | undefined;
}

/**
 * The tool-result ids of the emitted entries, by projected position (`first` for entries[0]).
 * The index lists result ids by entry in file order; emitted entries in file order too (a path
 * read front to back, the common case) are matched by one merge, without a position per entry of
 * the file (4 MiB at 1M entries, at the read plan's peak); any other order through that table.
 * `inFileOrder`: whether `entries` ascend (prepare() has found out once for the read plan too).
 */
function resultIdIndexOf(index: SessionIndex, entries: Int32Array, inFileOrder: boolean, first: number): ResultIdIndex {
  const resultIndex = new ResultIdIndex();
  const results = index.resultEntry.length;
  let ascending = inFileOrder;
  for (let i = 1; i < results && ascending; i++) if (index.resultEntry.get(i) < index.resultEntry.get(i - 1)) ascending = false;
  if (ascending) {
    let at = 0;
    for (let i = 0; i < results; i++) {
      const entry = index.resultEntry.get(i);
      while (at < entries.length && entries[at]! < entry) at++;
      if (at < entries.length && entries[at] === entry) resultIndex.recordHash(index.resultHash.get(i), at + first);
    }
    return resultIndex;
  }
  const positions = new Int32Array(index.entryCount);
  for (let i = 0; i < entries.length; i++) positions[entries[i]!] = i + first;
  for (let i = 0; i < results; i++) {
    const position = positions[index.resultEntry.get(i)]!;
    if (position > 0) resultIndex.recordHash(index.resultHash.get(i), position);
  }
  return resultIndex;
}

/** Entries of a large index the read plan passes between two collections (lib/large-garbage.ts): 2.8 MB of columns. */
const RELEASE_COLLECT_ENTRIES = 1 << 18;

/** Gives back the blocks of the index's per-entry columns that hold only entries below `entry` (their reads are over). */
function releaseEntriesBefore(index: SessionIndex, entry: number): void {
  index.offset.releaseBefore(entry);
  index.length.releaseBefore(entry);
  index.type.releaseBefore(entry);
  index.flags.releaseBefore(entry);
  index.role.releaseBefore(entry);
}

/**
 * The read plan of the emitted entries, and the latest compactionSummary time among their
 * messages. Emitted entries in file order (a path read front to back, the common case) give back
 * each block of the index's per-entry columns once the plan has passed it, so the plan (4-5 bytes
 * an entry) replaces them as it grows instead of standing beside them (11 bytes an entry).
 */
async function packReadPlan(index: SessionIndex, emitted: Int32Array, inFileOrder: boolean, withLines: boolean, readMessage: (entry: number) => Promise<unknown>): Promise<{ plan: ReadPlanEntries; compactionAt: number | undefined }> {
  const n = emitted.length;
  const packed = new ReadPlanWriter(withLines);
  let compactionAt: number | undefined;
  // Columns let go are memory outside V8's heap that only a full collection returns, and this
  // loop gives the collector no turn: every RELEASE_COLLECT_ENTRIES entries it asks for one.
  const collectEvery = inFileOrder && index.entryCount >= LARGE_INDEX_ENTRIES ? RELEASE_COLLECT_ENTRIES : Infinity;
  let collectAt = collectEvery;
  // The columns are given back as the plan enters each block, not asked five times an entry; and
  // the summaries' map only when it has any. This loop runs once per file, mostly before V8 has
  // compiled it, where each call costs.
  let block = 0;
  const summaries = index.summaryTimestamps.size > 0;
  for (let i = 0; i < n; i++) {
    const entry = emitted[i]!;
    const type = index.type.get(entry);
    const flags = index.flags.get(entry);
    packed.push(index.offset.get(entry), index.length.get(entry), type === T_MESSAGE && (flags & F_PLAIN_ENVELOPE) !== 0 ? T_PLAIN_MESSAGE : type, withLines ? lineOf(index.line.get(entry)) : 0);
    if (type === T_MESSAGE) {
      // Message entries that may hold a compactionSummary message count too (rare: read them).
      let stamp: number | undefined;
      if (summaries && index.summaryTimestamps.has(entry)) {
        stamp = compactionTimestampOf({ role: 'compactionSummary', timestamp: index.summaryTimestamps.get(entry) });
      } else if (index.role.get(entry) === ROLE_COMPACTION_SUMMARY || (flags & F_MENTIONS_SUMMARY) !== 0) {
        const message = await readMessage(entry);
        if (isRecord(message)) stamp = compactionTimestampOf(message);
      }
      if (stamp !== undefined && (compactionAt === undefined || stamp > compactionAt)) compactionAt = stamp;
    }
    if (inFileOrder && entry >>> BLOCK_SHIFT !== block) {
      block = entry >>> BLOCK_SHIFT;
      releaseEntriesBefore(index, entry);
    }
    if (entry >= collectAt) {
      collectAt = entry + collectEvery;
      collectGarbageNow();
    }
  }
  if (inFileOrder) releaseEntriesBefore(index, Infinity);
  return { plan: packed.finish(), compactionAt };
}

/** Everything the read pass needs decided before the first message: reads a handful of lines. */
async function prepare(index: SessionIndex, entries: EntrySource, route: RouteSnapshot & { recordFileLines?: boolean; takeImageCensus?: boolean }, now: () => number): Promise<Prepared> {
  const context: LineContext = { source: index.source, migrateV2: index.migrateV2, entries };
  const texts = await entries.open('prepare');
  try {
    const readEntry = async (entry: number): Promise<string> => texts.text(index.offset.get(entry), index.length.get(entry));
    const readMessage = async (entry: number): Promise<unknown> => messageOfLine(context, index.line.get(entry), await readEntry(entry), undefined, 0);
    // A reset's window is read here, once, for its tool pairing (database rules only).
    const resetKept = (window: Int32Array): Int32Array =>
      resetKeptEntries(window, (entry) => parseEntry(context, index.line.get(entry), texts.text(index.offset.get(entry), index.length.get(entry))).message);
    // What needs the whole path comes first; then the emitted entries are written over it, and
    // the read plan below gives back the index's columns as it passes them.
    const path = activePath(index);
    const pathLength = path.length;
    const model = await modelOf(index, path, readMessage);
    const thinkingLevel = thinkingLevelOf(index, path);
    const modelSwitchedAt = modelSwitchedAtOf(index, path, route, now);
    const plan = planEmission(index, path, { resetKept, overwritePath: true });
    // The tree has been walked: its links (8 bytes an entry, 8 MB at 1M) go before the read plan
    // and the result index are built beside the rest of the index, this pass's peak.
    index.parentName.releaseBefore(Infinity);
    index.ids.entryOf.releaseBefore(Infinity);
    let summary: Message | undefined;
    let compactionAt: number | undefined;
    if (plan.compaction >= 0) {
      const line = index.line.get(plan.compaction);
      summary = compactionSummaryMessage(parseEntry(context, line, await readEntry(plan.compaction)), { source: index.source, line, where: entries.where });
      compactionAt = summary.timestamp as number;
    }
    let imageCensus: ImageCensus | undefined;
    if (route.takeImageCensus === true) {
      // Only entries whose bytes hold "image" are read again (the index flagged them); the rest count by length.
      const imageChars: number[] = [];
      let otherBytes = 0;
      for (const entry of plan.entries) {
        const type = index.type.get(entry);
        const length = index.length.get(entry);
        let images = 0;
        if ((index.flags.get(entry) & F_MENTIONS_IMAGE) !== 0 && (type === T_MESSAGE || type === T_CUSTOM_MESSAGE)) {
          images = collectImages(projectLine(context, type, index.line.get(entry), await readEntry(entry), undefined, 0), imageChars);
        }
        otherBytes += Math.max(0, length - images);
      }
      imageCensus = { imageChars, otherBytes };
    }
    const emitted = plan.entries;
    // Whether the emitted entries are in file order (a path read front to back, the common case).
    let ascending = true;
    for (let i = 1; i < emitted.length && ascending; i++) if (emitted[i]! <= emitted[i - 1]!) ascending = false;
    const packed = await packReadPlan(index, emitted, ascending, route.recordFileLines === true, readMessage);
    if (packed.compactionAt !== undefined && (compactionAt === undefined || packed.compactionAt > compactionAt)) compactionAt = packed.compactionAt;
    // Projected positions (1-based, the summary first): the input lines the result-id index speaks of.
    const resultIndex = resultIdIndexOf(index, emitted, ascending, summary === undefined ? 1 : 2);
    return {
      readPlan: { ...context, plan: packed.plan, checkpointFree: index.rules === 'openclaw-2026.9' ? plan.retained : 0 },
      pathLength,
      thinkingLevel,
      summary,
      compactionTimestamp: compactionAt ?? null,
      summaryLine: plan.compaction >= 0 ? lineOf(index.line.get(plan.compaction)) : undefined,
      model,
      modelSwitchedAt,
      resultIndex,
      bytesRead: texts.bytesRead,
      imageCensus,
    };
  } finally {
    await texts.close();
  }
}

/**
 * Reads a session file: pass 1 now, pass 2 when the messages are iterated. Throws HygieneError
 * for a missing, unreadable or empty file, and for a compaction summary with a bad timestamp.
 */
export async function readSessionMessages(path: string, options: ReadSessionOptions = {}): Promise<SessionMessages> {
  const source = options.source ?? path;
  const chunkSize = options.chunkSize ?? 1 << 20;
  const index = await buildSessionIndex(path, { source, chunkSize, fullParse: options.fullParse, findImages: options.takeImageCensus === true });
  return readIndexedSession(index, fileEntries(path, source, { dev: index.dev, ino: index.ino, size: index.size }, chunkSize), options);
}

/** `batches` with the whole list and the message iterator built on it. */
export function overBatches(batches: () => AsyncGenerator<Message[]>): Pick<SessionMessages, 'batches' | 'toArray' | typeof Symbol.asyncIterator> {
  return {
    batches,
    async toArray(): Promise<Message[]> {
      const out: Message[] = [];
      for await (const batch of batches()) for (const message of batch) out.push(message);
      return out;
    },
    async *[Symbol.asyncIterator](): AsyncIterator<Message> {
      for await (const batch of batches()) yield* batch;
    },
  };
}

/**
 * The messages of an indexed session (a file's, or a database session's): the few reads that
 * decide the facts now, the read pass when the messages are iterated.
 */
export async function readIndexedSession(index: SessionIndex, entries: EntrySource, options: HygieneOptions & { recordFileLines?: boolean; takeImageCensus?: boolean } = {}): Promise<SessionMessages> {
  const { path, source } = index;
  const preparing = performance.now();
  const prepared = await prepare(index, entries, options, options.now ?? Date.now);
  const prepareMs = performance.now() - preparing;
  const { readPlan, summary, modelSwitchedAt } = prepared;
  const stats: SessionReadStats = {
    lines: index.lines,
    records: index.records,
    malformedLines: index.malformedCount,
    malformedLineNumbers: index.malformedLines,
    entries: index.entryCount,
    pathEntries: prepared.pathLength,
    messages: readPlan.plan.length + (summary === undefined ? 0 : 1),
    prefixScanned: index.scanned,
    parsed: index.parsed,
    reread: index.verified,
    restarts: index.restarts,
    indexMs: index.ms,
    prepareMs,
    readMs: 0,
    bytesRead: prepared.bytesRead,
    messageTexts: 0,
  };
  const header = index.header;
  const headerRecovered = index.headerRecovered;
  // A v1 file's ids are assigned in memory by the migration: it has none to name.
  const leafId = index.leafName < 0 || index.migrateV1 ? null : index.ids.idOf(index.leafName);
  const sessionName = index.sessionName;
  // From here on only the read plan is kept: the index (ids, per-entry arrays) can be collected.
  const largeIndex = index.entryCount >= LARGE_INDEX_ENTRIES;
  let started = false;

  async function* batches(): AsyncGenerator<Message[]> {
    if (started) throw new Error('readSessionMessages: the messages can be read once');
    started = true;
    const began = performance.now();
    // The index and what prepare() built from it (tens of MB at 1M entries) are garbage now: let
    // them go before the rules start holding messages, not at the collector's leisure.
    if (largeIndex) collectGarbageNow();
    const texts = await entries.open(EMITTED_ENTRY);
    try {
      const parser = new JsonlLineParser({ source, recordLines: true });
      const invalid = new InvalidUtf8Counter();
      let position = 0;
      if (summary !== undefined) {
        position++;
        if (readPlan.plan.withLines && prepared.summaryLine !== undefined) fileLines.set(summary, prepared.summaryLine);
        yield [summary];
      }
      let batch: Message[] = [];
      let bytes = 0;
      const next = readPlan.plan.consume();
      let offset = 0;
      const line = (): number => texts.lineAt(offset);
      for (let i = 0; next.next(); i++) {
        offset = next.offset;
        const length = next.length;
        const ready = texts.prepare?.(offset, length);
        if (ready !== undefined) await ready;
        position++;
        let message = next.type === T_PLAIN_MESSAGE ? plainMessageOf(readPlan, texts, offset, length, parser, position, invalid) : undefined;
        if (message !== undefined) stats.messageTexts++;
        else {
          const text = texts.text(offset, length);
          const replaced = texts.replacements(text, offset, length);
          if (replaced > 0) invalid.note(offset, replaced);
          message = projectLine(readPlan, next.type === T_PLAIN_MESSAGE ? T_MESSAGE : next.type, line, text, parser, position) as Message;
        }
        if (i < readPlan.checkpointFree) {
          const stripped = withoutReplayCheckpoint(message) as Message;
          // A copy: it keeps the input line (pairing finds results by it), not the raw line it no longer is.
          if (stripped !== message) recordInputLine(stripped, inputLineOf(message) ?? position);
          message = stripped;
        }
        if (readPlan.plan.withLines && typeof message === 'object' && message !== null) fileLines.set(message, next.line);
        batch.push(message);
        bytes += length;
        if (bytes >= BATCH_BYTES) {
          yield batch;
          batch = [];
          bytes = 0;
        }
      }
      if (batch.length > 0) yield batch;
      stats.bytesRead += texts.bytesRead;
      // Noted by offset as they came; named by line (a row by its seq) once, at the end.
      const replaced = invalid.summary();
      if (replaced !== undefined) stats.invalidUtf8 = { ...replaced, lineNumbers: texts.linesAt(replaced.lineNumbers) };
    } finally {
      stats.readMs = performance.now() - began;
      await texts.close();
    }
  }

  const session: SessionMessages = {
    path,
    source,
    header,
    headerRecovered,
    leafId,
    thinkingLevel: prepared.thinkingLevel,
    model: prepared.model,
    sessionName,
    compactionTimestamp: prepared.compactionTimestamp,
    modelSwitchedAt,
    resultIndex: prepared.resultIndex,
    stats,
    hygieneOptions(base: HygieneOptions = options): HygieneOptions {
      return {
        ...base,
        compactionTimestamp: base.compactionTimestamp !== undefined ? base.compactionTimestamp : prepared.compactionTimestamp,
        modelSwitchedAt: base.modelSwitchedAt ?? modelSwitchedAt,
        resultIndex: prepared.resultIndex,
        imageCensus: base.imageCensus ?? prepared.imageCensus,
      };
    },
    ...overBatches(batches),
  };
  return session;
}
