/**
 * An index of where tool results appear, built by one cheap scan of an input file before
 * the real pass, so tool-result pairing can finalize a frame whose call has no later
 * answer as soon as the frame ends (spec tool-calls.md §4.6, "the one shortcut"), instead
 * of holding everything after it to the end of input.
 *
 * The same pass collects the input's `compactionSummary` messages (rare, small lines, parsed
 * whole), so the compaction time is known before the messages flow.
 *
 * The scan does not parse JSON. It looks for the six result-id keys anywhere in a line and
 * records, per id, the last line where it appeared. That over-approximates "a later result
 * has this id" (a key inside an assistant block or a hash collision only makes a frame wait
 * longer), so the shortcut never changes the output, only memory and speed.
 */
import { readFileChunks } from './file-chunks.ts';
import { ImageCensusScan, type ImageCensus } from './image-census.ts';
import { SpillingPairs } from './spilling-pairs.ts';
import { Needle } from './needle.ts';

/** The six result-id keys, found through their two possible endings so each chunk is searched twice, not six times. */
const KEY_ENDINGS: ReadonlyArray<{ ending: Buffer; keys: Buffer[] }> = [
  { ending: Buffer.from('Id"', 'latin1'), keys: ['"toolCallId"', '"toolUseId"', '"callId"'].map((key) => Buffer.from(key, 'latin1')) },
  { ending: Buffer.from('_id"', 'latin1'), keys: ['"tool_call_id"', '"tool_use_id"', '"call_id"'].map((key) => Buffer.from(key, 'latin1')) },
];

/** FNV-1a, 32 bits: its offset basis and prime. */
const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a of the id's UTF-16 code units. A collision only makes pairing wait longer, never changes its output. */
export function hashResultId(id: string): number {
  let hash = FNV_OFFSET_BASIS;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/**
 * hashResultId of the id held in bytes [start, end), hashed from the bytes themselves when they
 * are all ASCII (then they are the string's code units, and no string is made); -1 otherwise.
 */
export function hashResultIdAscii(bytes: Uint8Array, start: number, end: number): number {
  let hash = FNV_OFFSET_BASIS;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x80) return -1;
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** Ids held in the table before it moves them to disk: 2^16 slots, 512 KiB of keys and lines. */
export const DEFAULT_RESULT_SPILL_IDS = 3 << 14;

/**
 * Id hash -> the last input line (1-based) at which a tool result may carry it. An
 * open-addressing table of typed arrays filled to at most three quarters (no object per id, and
 * nothing for the collector to trace). Past DEFAULT_RESULT_SPILL_IDS ids the table moves its
 * (hash, line) pairs to a sorted run on disk (lib/spilling-pairs.ts) and starts again empty: a
 * million results hold about 2 bytes each in memory (the runs' filters) instead of 8-16 (8 MiB
 * at 1M mixed-details messages). Pairing asks only about calls left unanswered when their frame
 * closes, so the disk is read rarely: a filter's "no" is enough for nearly every id.
 */
export class ResultIdIndex {
  /** Id hash -> last line (lines are >= 1, so never the empty slot's 0). */
  private readonly lines: SpillingPairs;

  constructor(spillIds: number = DEFAULT_RESULT_SPILL_IDS) {
    this.lines = new SpillingPairs(spillIds, Math.min(1 << 10, 2 ** Math.ceil(Math.log2((spillIds * 4) / 3 + 1))));
  }

  record(id: string, line: number): void {
    this.recordHash(hashResultId(id.trim()), line);
  }

  recordHash(hash: number, line: number): void {
    const at = this.lines.find(hash);
    const held = this.lines.valueAt(at);
    if (held === 0) this.lines.insert(at, hash, line);
    else if (held < line) this.lines.setValue(at, line);
  }

  /** The last input line (1-based) where a result may carry this id, or 0 when none does. */
  lastLineOf(id: string): number {
    const hash = hashResultId(id.trim());
    return Math.max(this.lines.valueAt(this.lines.find(hash)), this.lines.spilledValue(hash));
  }

  /** Ids recorded (one recorded again after the table moved to disk counts again). */
  get size(): number {
    return this.lines.size;
  }

  /** Bytes held in memory. */
  get byteLength(): number {
    return this.lines.byteLength;
  }

  /** Closes the run file, if the table spilled. */
  dispose(): void {
    this.lines.dispose();
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

/** Reads the string value after a key at `from` (just past the key), or undefined when it is not a string. */
function readStringValue(buffer: Buffer, from: number): string | undefined {
  let i = from;
  while (i < buffer.length && isSpace(buffer[i]!)) i++;
  if (buffer[i] !== 0x3a /* : */) return undefined;
  i++;
  while (i < buffer.length && isSpace(buffer[i]!)) i++;
  if (buffer[i] !== QUOTE) return undefined;
  const start = i;
  let escaped = false;
  for (i = start + 1; i < buffer.length; i++) {
    const byte = buffer[i]!;
    if (byte === BACKSLASH) {
      escaped = true;
      i++;
      continue;
    }
    if (byte === QUOTE) break;
    if (byte === NEWLINE) return undefined;
  }
  if (i >= buffer.length) return undefined;
  const literal = buffer.toString('utf8', start, i + 1);
  if (!escaped) return literal.slice(1, -1);
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** The key that ends at `end` (exclusive), if it is one of `keys`. */
function keyEndingAt(buffer: Buffer, end: number, keys: Buffer[]): Buffer | undefined {
  for (const key of keys) {
    const start = end - key.length;
    if (start >= 0 && buffer.compare(key, 0, key.length, start, end) === 0) return key;
  }
  return undefined;
}

/**
 * Records every result id in a buffer of complete lines. Ids are recorded at the buffer's last
 * line rather than their own: an upper bound, which only makes a frame wait until the reader
 * has passed the whole buffer, and spares counting lines up to every match.
 */
function scanLines(buffer: Buffer, lastLine: number, index: ResultIdIndex): void {
  for (const { ending, keys } of KEY_ENDINGS) {
    let at = buffer.indexOf(ending, 0);
    while (at >= 0) {
      const end = at + ending.length;
      if (keyEndingAt(buffer, end, keys) !== undefined) {
        const value = readStringValue(buffer, end);
        if (value !== undefined && value.trim() !== '') index.record(value, lastLine);
      }
      at = buffer.indexOf(ending, end);
    }
  }
}

function countNewlines(buffer: Buffer): number {
  let count = 0;
  let at = buffer.indexOf(NEWLINE);
  while (at >= 0) {
    count++;
    at = buffer.indexOf(NEWLINE, at + 1);
  }
  return count;
}

// By an anchor with a rare first byte (lib/needle.ts).
const SUMMARY_ROLE = new Needle('"compactionSummary"', 'Summa');

/** Parses the lines of `buffer` that mention the compactionSummary role; keeps those that are such messages. */
function collectSummaries(buffer: Buffer, summaries: Record<string, unknown>[]): void {
  let at = SUMMARY_ROLE.indexIn(buffer, 0);
  while (at >= 0) {
    const start = buffer.lastIndexOf(NEWLINE, at) + 1;
    let end = buffer.indexOf(NEWLINE, at);
    if (end < 0) end = buffer.length;
    try {
      const value = JSON.parse(buffer.toString('utf8', start, end)) as Record<string, unknown>;
      const message = value.type === 'message' ? value.message : value;
      if (typeof message === 'object' && message !== null && (message as Record<string, unknown>).role === 'compactionSummary') {
        summaries.push(message as Record<string, unknown>);
      }
    } catch {
      // Not a whole JSON line: the real pass reports it with its line number.
    }
    at = SUMMARY_ROLE.indexIn(buffer, end);
  }
}

export interface InputScan {
  readonly resultIndex: ResultIdIndex;
  /** The compactionSummary messages of the input, in order (none when not asked for). */
  readonly compactionSummaries: readonly Record<string, unknown>[];
  /** The input's images, when asked for (`imageCensus: true`). */
  readonly imageCensus: ImageCensus | undefined;
}

export interface InputScanOptions {
  /** Take the census of the input's images too (routes with request-wide image limits). */
  imageCensus?: boolean;
  /**
   * Collect the compactionSummary messages (default true). Routes whose rules never read the
   * compaction time leave it out: its search is a pass over every chunk (about 60 ms a GB).
   */
  compactionSummaries?: boolean;
}

/** One pass over a JSONL file: where its tool results are, its compaction summaries, and (when asked) its images. */
export async function scanInputFile(path: string, options: InputScanOptions = {}): Promise<InputScan> {
  const resultIndex = new ResultIdIndex();
  const compactionSummaries: Record<string, unknown>[] = [];
  const census = options.imageCensus === true ? new ImageCensusScan() : undefined;
  const summaries = options.compactionSummaries !== false;
  const scan = (buffer: Buffer, lastLine: number, newlines: number): void => {
    scanLines(buffer, lastLine, resultIndex);
    if (summaries) collectSummaries(buffer, compactionSummaries);
    census?.add(buffer, newlines);
  };
  // Lines cut by a chunk boundary are joined from copies of their pieces (the chunk's memory is
  // reused for the next read), once, when the line ends: joining piece by piece copied a long
  // line once per chunk it spans. The rest of each chunk is scanned in place.
  let carry: Buffer[] = [];
  let carried = 0;
  let line = 1;
  for await (const chunk of readFileChunks(path, 4 << 20)) {
    const firstNewline = chunk.indexOf(NEWLINE);
    if (firstNewline < 0) {
      carry.push(Buffer.from(chunk));
      carried += chunk.length;
      continue;
    }
    const head = carried > 0 ? Buffer.concat([...carry, chunk.subarray(0, firstNewline + 1)], carried + firstNewline + 1) : chunk.subarray(0, firstNewline + 1);
    line += 1;
    scan(head, line - 1, 1);
    const lastNewline = chunk.lastIndexOf(NEWLINE);
    if (lastNewline > firstNewline) {
      const body = chunk.subarray(firstNewline + 1, lastNewline + 1);
      const newlines = countNewlines(body);
      line += newlines;
      scan(body, line - 1, newlines);
    }
    carry = lastNewline + 1 < chunk.length ? [Buffer.from(chunk.subarray(lastNewline + 1))] : [];
    carried = chunk.length - lastNewline - 1;
  }
  if (carried > 0) scan(Buffer.concat(carry, carried), line, 0);
  return { resultIndex, compactionSummaries, imageCensus: census?.result() };
}

/** The result-id index of a file (see scanInputFile). */
export async function scanResultIds(path: string): Promise<ResultIdIndex> {
  return (await scanInputFile(path)).resultIndex;
}
