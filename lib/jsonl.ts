/**
 * JSONL in and out.
 *
 * Input lines are bare messages (`{"role": ...}`) or OpenClaw session entries
 * (`{"type": "message", "message": {...}}`; other entry types are skipped here and
 * counted; branches and compaction are the session reader's job). A bad line stops the
 * read with a HygieneError naming the source and the 1-based line number.
 *
 * Raw passthrough: the reader remembers each bare message's original line; when no rule
 * replaced the message (every rule returned the same object), the writer copies that
 * line instead of calling JSON.stringify. When a rule returned a copy and recorded its edits
 * (lib/message-edits.ts), the writer patches the original line where it can.
 */
import { Buffer } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { WriteStream } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import { HygieneError } from './errors.ts';
import { isRecord, type Message } from './types.ts';
import { derivationOf } from './message-edits.ts';
import { applySplices, splicesFor, type Splice } from './line-splice.ts';
import { composedEdits } from './edit-chains.ts';
import { inputLineOf, recordInputLine } from './input-lines.ts';
import { utf8Text } from './utf8-text.ts';
import { EncodedReplacements, InvalidUtf8Counter, replacementsBeyond, replacementsIn } from './utf8-replacements.ts';
import { isPlainMessageEnvelope } from './message-envelope.ts';
import { hiddenField } from './hidden-field.ts';

export { inputLineOf };

/** Bytes or text in chunks: a Readable, an async generator, or an array of chunks. */
export type ByteSource = AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

/**
 * The original line, kept on the message it was parsed to as a hidden field (lib/hidden-field.ts):
 * it goes with the message, and neither JSON.stringify nor a spread copies it (a copy is another
 * message). Not a WeakMap: V8's young-generation collector treats WeakMap values as alive, so
 * every line (the bulk of the input) was promoted to the old generation with it.
 */
const RAW_LINE = hiddenField<string>();

function rememberRawLine(message: object, line: string): void {
  RAW_LINE.set(message, line);
}

/**
 * A message parsed from `line` that keeps it as its original line, as the reader's messages do:
 * for lines this process wrote itself (a spilled message: lib/spill-lines.ts), so a message that
 * went to disk and back is still copied or patched on output, not stringified.
 */
export function parseKeepingLine(line: string): Message {
  const message = JSON.parse(line) as Message;
  if (isRecord(message)) rememberRawLine(message, line);
  return message;
}

/** The original line of a message read from JSONL, if it is still the same object. */
export function rawLineOf(message: Message): string | undefined {
  return RAW_LINE.get(message);
}

/**
 * The length of the line the message came from, or of the one its recorded edits were made
 * to (without patching it): a cheap size for memory budgets.
 */
export function sourceLineLength(message: Message): number | undefined {
  for (let m: Message | undefined = message; m !== undefined; m = derivationOf(m)?.from) {
    const raw = rawLineOf(m);
    if (raw !== undefined) return raw.length;
  }
  return undefined;
}

export interface JsonlReadOptions {
  /** Name used in error messages: a path, or `<stdin>`. */
  source?: string;
  /** Called for each session entry that is not a message (header, model change, ...). */
  onSkippedEntry?: (type: string, line: number) => void;
  /** Remember each message's input line (see inputLineOf); needed with a result index. */
  recordLines?: boolean;
  /** Counts the byte sequences that were not UTF-8 (decoded as U+FFFD), by line. */
  invalidUtf8?: InvalidUtf8Counter;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

const MESSAGE_ENTRY_PREFIX = '{"type":"message"';
const MESSAGE_KEY = '"message":';

/** Parses one line to a message, `undefined` for lines that carry none. */
export class JsonlLineParser {
  private readonly source: string;
  private readonly onSkippedEntry: ((type: string, line: number) => void) | undefined;
  private readonly recordLines: boolean;
  lineNumber = 0;

  constructor(options: JsonlReadOptions = {}) {
    this.source = options.source ?? '<input>';
    this.onSkippedEntry = options.onSkippedEntry;
    this.recordLines = options.recordLines ?? false;
  }

  parse(line: string): Message | undefined {
    const lineNumber = ++this.lineNumber;
    if (lineNumber === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line.startsWith(MESSAGE_ENTRY_PREFIX)) {
      const message = this.parseMessageEntry(line, lineNumber);
      if (message !== undefined) return message;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (line.trim() === '') return undefined;
      throw this.fail(lineNumber, `not valid JSON (${(error as Error).message})`, error);
    }
    if (!isRecord(value)) throw this.fail(lineNumber, `expected a JSON object, got ${describeValue(value)}`);
    const type = value.type;
    if (type === 'message') {
      const message = value.message;
      if (!isRecord(message)) throw this.fail(lineNumber, 'a "message" entry without a message object');
      if (this.recordLines) recordInputLine(message, lineNumber);
      return message;
    }
    if (typeof type === 'string' && value.role === undefined) {
      this.onSkippedEntry?.(type, lineNumber);
      return undefined;
    }
    rememberRawLine(value, line);
    if (this.recordLines) recordInputLine(value, lineNumber);
    return value;
  }

  /**
   * Fast path for `message` entries, whose writers put the message last: parse the message
   * text on its own and keep it as the raw line, so an untouched message from a session file
   * is copied out without being stringified. Undefined when the line is not of that shape
   * (the caller then parses it whole).
   */
  private parseMessageEntry(line: string, lineNumber: number): Message | undefined {
    // Keys before "message" hold only strings and null, so the first `"message":` is the top-level key.
    const at = line.indexOf(MESSAGE_KEY);
    if (at < 0 || line.charCodeAt(line.length - 1) !== 125 /* } */) return undefined;
    const text = line.slice(at + MESSAGE_KEY.length, line.length - 1);
    if (text.charCodeAt(0) !== 123 /* { */) return undefined;
    // The envelope's members are checked by a scan (message-envelope.ts), not parsed.
    if (!isPlainMessageEnvelope(line, at)) return undefined;
    return this.parseMessageText(text, lineNumber);
  }

  /**
   * The message of a `message` entry from its text alone (the value of the entry's last member,
   * `"message"`), kept as its raw line; undefined when that text is not one JSON object (the
   * caller then parses the line whole, which reports what is wrong with it).
   */
  parseMessageText(text: string, lineNumber: number): Message | undefined {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isRecord(message)) return undefined;
    rememberRawLine(message, text);
    if (this.recordLines) recordInputLine(message, lineNumber);
    return message;
  }

  private fail(line: number, reason: string, cause?: unknown): HygieneError {
    return new HygieneError('malformed_line', `${this.source}:${line}: ${reason}`, { source: this.source, line, cause });
  }
}

/** What LineSplitter.split found in a chunk. */
export interface SplitChunk {
  /** The line the chunk finished (it began in earlier chunks), decoded. */
  readonly carried: string | undefined;
  readonly bytes: Buffer;
  /** Start and end in `bytes` of each further line the chunk ends, in pairs. */
  readonly bounds: readonly number[];
}

/**
 * Splits bytes into lines (LF or CRLF) and decodes each line on its own; keeps the unfinished
 * tail between chunks. LF never occurs inside a multi-byte UTF-8 sequence, so cutting the bytes
 * there is safe. Not a StringDecoder over the whole chunk: a decoded chunk over 128 KiB is a
 * large-object string that V8 maps and unmaps on its own, and with 256 KiB reads that alone cost
 * more than parsing (10 s of 20 on 1.6 GB, mostly system time); a line is usually far smaller.
 */
export class LineSplitter {
  /** Bytes of the line the previous chunks cut, in order (copies). */
  private carry: Buffer[] = [];
  private carryBytes = 0;
  /**
   * The decoded start of a line over LONG_LINE_BYTES. Such a line is turned into heap text as it
   * arrives, not in one piece at its end: the heap then grows step by step, and a heap limit
   * (an export job's) is met at a small allocation, where node can stop the worker cleanly,
   * rather than at one of hundreds of MB, where V8 aborts the whole process.
   */
  private longText: string | undefined;
  private longDecoder: StringDecoder | undefined;
  /** The U+FFFD the long line's own bytes hold, counted as they arrive. */
  private longEncoded: EncodedReplacements | undefined;
  /** Lines handed out so far (their numbers, for invalidUtf8). */
  private lines = 0;

  /** @param invalidUtf8 where the byte sequences that were not UTF-8 (and became U+FFFD) are counted, by line */
  constructor(readonly invalidUtf8: InvalidUtf8Counter = new InvalidUtf8Counter()) {}

  push(chunk: Buffer | string): string[] {
    const split = this.split(chunk);
    const lines: string[] = split.carried === undefined ? [] : [split.carried];
    const { bytes, bounds } = split;
    for (let i = 0; i < bounds.length; i += 2) lines.push(this.lineText(bytes, bounds[i]!, bounds[i + 1]!));
    return lines;
  }

  /**
   * The lines a chunk ends, not yet decoded (push decodes them all at once): the one the chunk
   * finishes, as text, then the rest as byte ranges of the chunk, which the caller decodes in
   * order with `lineText` before the next `split`, while the chunk is still valid. Decoding a
   * line only when it is wanted keeps the chunk's text from being alive all at once.
   */
  split(chunk: Buffer | string): SplitChunk {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const bounds: number[] = [];
    let carried: string | undefined;
    let start = 0;
    let newline = bytes.indexOf(LF);
    if (newline < 0) {
      if (bytes.length > 0) this.keep(bytes);
      return { carried, bytes, bounds };
    }
    if (this.carryBytes > 0 || this.longText !== undefined) {
      carried = this.finishCarried(bytes.subarray(0, newline));
      start = newline + 1;
      newline = bytes.indexOf(LF, start);
    }
    while (newline >= 0) {
      bounds.push(start, newline);
      start = newline + 1;
      newline = bytes.indexOf(LF, start);
    }
    if (start < bytes.length) this.keep(bytes.subarray(start));
    return { carried, bytes, bounds };
  }

  /** The text of the next line `split` found: bytes [start, end), one trailing CR left out. */
  lineText(bytes: Buffer, start: number, end: number): string {
    return decodeCounted(this, ++this.lines, bytes, start, end);
  }

  end(): string[] {
    if (this.carryBytes === 0 && this.longText === undefined) return [];
    return [this.finishCarried(Buffer.alloc(0))];
  }

  /**
   * Keeps the start of an unfinished line: a copy, since the caller may reuse the chunk's memory
   * (lib/file-chunks.ts), and a view would keep the whole chunk alive for its last few bytes.
   */
  private keep(bytes: Buffer): void {
    this.carry.push(Buffer.from(bytes));
    this.carryBytes += bytes.length;
    if (this.carryBytes < LONG_LINE_BYTES) return;
    const decoder = (this.longDecoder ??= new StringDecoder('utf8'));
    const encoded = (this.longEncoded ??= new EncodedReplacements());
    let text = this.longText ?? '';
    for (const piece of this.carry) {
      encoded.feed(piece);
      text += decoder.write(piece);
    }
    this.longText = text;
    this.carry = [];
    this.carryBytes = 0;
  }

  /** The carried line with `last` (its bytes up to the LF) appended, one trailing CR left out. */
  private finishCarried(last: Buffer): string {
    const decoder = this.longDecoder;
    let line: string;
    if (this.longText === undefined || decoder === undefined) {
      this.carry.push(last);
      const joined = Buffer.concat(this.carry);
      line = this.lineText(joined, 0, joined.length);
    } else {
      const encoded = this.longEncoded!;
      let text = this.longText;
      for (const piece of [...this.carry, last]) {
        encoded.feed(piece);
        text += decoder.write(piece);
      }
      text += decoder.end();
      line = text.charCodeAt(text.length - 1) === CR ? text.slice(0, -1) : text;
      this.invalidUtf8.note(++this.lines, replacementsBeyond(line, encoded.count));
    }
    this.carry = [];
    this.carryBytes = 0;
    this.longText = undefined;
    this.longDecoder = undefined;
    this.longEncoded = undefined;
    return line;
  }
}

/**
 * LineSplitter's decoding of one line, counted: bytes [start, end) as text, one trailing CR
 * left out, with the replacements it made noted against the line's number.
 */
function decodeCounted(splitter: { invalidUtf8: InvalidUtf8Counter }, line: number, bytes: Buffer, start: number, end: number): string {
  if (end > start && bytes[end - 1] === CR) end--;
  const text = utf8Text(bytes, start, end);
  splitter.invalidUtf8.note(line, replacementsIn(text, bytes, start, end));
  return text;
}

/** A line longer than this is decoded as it arrives (see LineSplitter.longText). */
const LONG_LINE_BYTES = 1 << 20;
const LF = 0x0a;
const CR = 0x0d;


/**
 * Line bytes per batch: batches are cut inside a chunk, and a line is decoded and parsed only
 * when its batch is, so the text of a whole chunk (1 MiB) is never alive at once. With whole
 * chunks as batches, every young-generation collection found about 2 MB alive and copied it: on
 * 200k mixed-details messages 446 MB copied, against 55 MB with batches of 128 KiB.
 */
const BATCH_BYTES = 128 * 1024;

/** Reads JSONL and yields messages in batches of about BATCH_BYTES of lines, so per-message async overhead stays out of the loop. */
export async function* readJsonlMessages(
  input: ByteSource,
  options: JsonlReadOptions = {},
): AsyncGenerator<Message[]> {
  const splitter = new LineSplitter(options.invalidUtf8);
  const parser = new JsonlLineParser(options);
  let batch: Message[] = [];
  const add = (line: string): void => {
    const message = parser.parse(line);
    if (message !== undefined) batch.push(message);
  };
  for await (const chunk of input) {
    const { carried, bytes, bounds } = splitter.split(chunk);
    if (carried !== undefined) add(carried);
    let batchBytes = 0;
    for (let i = 0; i < bounds.length; i += 2) {
      const start = bounds[i]!;
      const end = bounds[i + 1]!;
      add(splitter.lineText(bytes, start, end));
      batchBytes += end - start;
      // The chunk stays valid while this generator is paused here: the next one is not asked for yet.
      if (batchBytes >= BATCH_BYTES && batch.length > 0) {
        yield batch;
        batch = [];
        batchBytes = 0;
      }
    }
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
  }
  for (const line of splitter.end()) add(line);
  if (batch.length > 0) yield batch;
}

/** The same reader as an object-mode Transform: bytes in, messages out. */
export function parseJsonl(options: JsonlReadOptions = {}): Transform {
  const splitter = new LineSplitter(options.invalidUtf8);
  const parser = new JsonlLineParser(options);
  const pushLines = (stream: Transform, lines: string[]): void => {
    for (const line of lines) {
      const message = parser.parse(line);
      if (message !== undefined) stream.push(message);
    }
  };
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback) {
      try {
        pushLines(this, splitter.push(chunk));
      } catch (error) {
        callback(error as Error);
        return;
      }
      callback();
    },
    flush(callback: TransformCallback) {
      try {
        pushLines(this, splitter.end());
      } catch (error) {
        callback(error as Error);
        return;
      }
      callback();
    },
  });
}

/** A message's line as pieces: a line, and the splices that make it the message's (none: the line as it is). */
export interface LinePieces {
  readonly line: string;
  readonly splices: readonly Splice[];
}

const NO_SPLICES: readonly Splice[] = Object.freeze([]);

/**
 * The line of a message as its original bytes: the input line itself for an untouched message,
 * or, for a copy whose rule recorded its edits, its original's line with those edits patched in.
 * The edits are byte splices located by a scan of the line (lib/line-splice.ts). Undefined when
 * the message has to be stringified: no line to start from, or an edit that cannot be a splice
 * (a field added, a key that occurs twice, a recorded string the line does not hold).
 */
export function patchedLineOf(message: Message): string | undefined {
  const pieces = patchedPiecesOf(message);
  return pieces === undefined ? undefined : applySplices(pieces.line, pieces.splices);
}

/** patchedLineOf as the line to start from and the splices to make, so a writer need not build the line. */
export function patchedPiecesOf(message: Message): LinePieces | undefined {
  const raw = rawLineOf(message);
  if (raw !== undefined) return { line: raw, splices: NO_SPLICES };
  const derivation = derivationOf(message);
  if (derivation === undefined) return undefined;
  if (rawLineOf(derivation.from) === undefined && derivationOf(derivation.from) !== undefined) {
    // Edited by several rules in turn: their edits as one, so the line is scanned once (lib/edit-chains.ts).
    const composed = composedEdits(message, hasRawLine);
    const line = composed === undefined ? undefined : rawLineOf(composed.root);
    const splices = line === undefined ? undefined : splicesFor(line, composed!.root, composed!.edits);
    if (splices !== undefined) return { line: line!, splices };
  }
  const base = patchedLineOf(derivation.from);
  if (base === undefined) return undefined;
  const splices = splicesFor(base, derivation.from, derivation.edits);
  return splices === undefined ? undefined : { line: base, splices };
}

function hasRawLine(message: Message): boolean {
  return rawLineOf(message) !== undefined;
}

/** One JSONL line (with its newline) for a message: the original line when the message is untouched. */
export function stringifyMessage(message: Message): string {
  return (patchedLineOf(message) ?? JSON.stringify(message)) + '\n';
}

/**
 * Bytes of output gathered before a write. Below glibc's mmap threshold as the command sets it
 * (lib/process-settings.ts: 256 KiB), so each chunk comes from the heap's free lists, not a fresh mapping.
 */
const WRITE_CHUNK_BYTES = 128 * 1024;
const WRITES_BEFORE_CALLBACK = new WeakSet<Writable>();

/**
 * Bytes sent after which `drain()` lets the event loop turn even when the destination is not
 * full. A file stream issues its next write only from the callback of the one before, and that
 * callback runs only when the loop turns; a pipeline busy with its rules turned it only when the
 * destination was full, then waited for all 4 MiB to be written with nothing to do: 221 waits
 * and 0.57-0.71 s on 200k mixed-details messages. With a turn every 512 KiB the write in flight
 * is done by then and the next one goes out while the rules run (no full waits in that run).
 */
export const TURN_BYTES = 512 * 1024;

/**
 * Marks a destination that is done with the buffer it was given when it calls back, as node's
 * own stdout is (a file, a pipe or a terminal), so JsonlWriter may fill that buffer again (file
 * streams need no mark). The command marks its stdout; a library does not look at
 * `process.stdout`, whose first use would open it.
 */
export function writesBeforeCallback(output: Writable): void {
  WRITES_BEFORE_CALLBACK.add(output);
}

/** UTF-8 takes at most three bytes for one UTF-16 code unit. */
const MAX_UTF8_PER_UNIT = 3;

/**
 * Encodes output lines straight into byte chunks and honours the destination's backpressure:
 * call `write` for each message and `await drain()` between input batches.
 *
 * A patched line is written as its pieces (the input line's slices and the new texts), so it is
 * never built as a string first; nor are the lines joined before they are encoded.
 */
export class JsonlWriter {
  private chunk: Buffer = Buffer.allocUnsafeSlow(WRITE_CHUNK_BYTES);
  private used = 0;
  private blocked = false;
  /** Bytes sent since the event loop last turned in `drain()`. */
  private sentSinceTurn = 0;
  /**
   * Chunks the destination has written, to fill again. A fresh 128 KiB chunk per write is memory
   * outside V8's heap, and V8 answers that much external memory (a gigabyte of output) with full
   * collections, each of which moves every young object alive at that moment (the batch in
   * hand) to the old generation: on 200k mixed-details messages 24-34 full collections and
   * 165-180 MB promoted, against 10-11 and 53-65 MB with the chunks reused.
   */
  private readonly spare: Buffer[] | undefined;
  private readonly maxSpare: number;
  /** Chunks this writer allocated (the reuse above keeps it near the destination's high-water mark over the chunk size). */
  chunksAllocated = 1;

  /**
   * @param output where the bytes go. Its chunks are reused only when it is a file stream or was
   * marked with `writesBeforeCallback` (the command's stdout), whose write callbacks come once the
   * bytes have left the buffer; any other destination (a PassThrough, a consumer that keeps what
   * it is given) gets a new chunk for each write.
   */
  constructor(private readonly output: Writable) {
    this.spare = output instanceof WriteStream || WRITES_BEFORE_CALLBACK.has(output) ? [] : undefined;
    // As many as can be in flight: the destination's high-water mark in chunks, and the one that crosses it.
    this.maxSpare = Math.ceil((output.writableHighWaterMark ?? 0) / WRITE_CHUNK_BYTES) + 2;
  }

  write(message: Message): void {
    const raw = rawLineOf(message);
    if (raw !== undefined) {
      this.putLine(raw, NO_SPLICES);
      return;
    }
    const pieces = patchedPiecesOf(message);
    if (pieces !== undefined) this.putLine(pieces.line, pieces.splices);
    else this.putLine(JSON.stringify(message), NO_SPLICES);
  }

  private putLine(line: string, splices: readonly Splice[]): void {
    let units = line.length + 1;
    for (const splice of splices) units += splice.text.length;
    if (this.used + units * MAX_UTF8_PER_UNIT > this.chunk.length) {
      this.flushPending();
      // Longer than a chunk can surely hold: written as text on its own.
      if (units * MAX_UTF8_PER_UNIT > this.chunk.length) {
        this.send(applySplices(line, splices) + '\n');
        return;
      }
    }
    const chunk = this.chunk;
    let used = this.used;
    let cursor = 0;
    for (const splice of splices) {
      used += chunk.write(line.slice(cursor, splice.start), used);
      used += chunk.write(splice.text, used);
      cursor = splice.end;
    }
    used += chunk.write(cursor === 0 ? line : line.slice(cursor), used);
    chunk[used++] = 0x0a;
    this.used = used;
  }

  private flushPending(): void {
    if (this.used === 0) return;
    const written = this.chunk;
    const bytes = written.subarray(0, this.used);
    // Another chunk: the destination holds on to the one written until it is in the file.
    this.chunk = this.spare?.pop() ?? this.allocate();
    this.used = 0;
    const spare = this.spare;
    this.send(bytes, spare === undefined ? undefined : () => spare.length < this.maxSpare && spare.push(written));
  }

  private allocate(): Buffer {
    this.chunksAllocated++;
    return Buffer.allocUnsafeSlow(WRITE_CHUNK_BYTES);
  }

  /** @param written called once the destination is done with `data` */
  private send(data: Buffer | string, written?: () => void): void {
    this.sentSinceTurn += data.length;
    if (!this.output.write(data, written)) this.blocked = true;
  }

  /**
   * Resolves when the destination can take more. Every TURN_BYTES sent it also lets the event
   * loop turn once, so the destination's writes keep going while the caller works.
   */
  async drain(): Promise<void> {
    const output = this.output;
    if (output.destroyed) throw output.errored ?? new Error('the destination was closed');
    if (!this.blocked || !output.writableNeedDrain) {
      this.blocked = false;
      if (this.sentSinceTurn < TURN_BYTES) return;
      this.sentSinceTurn = 0;
      await nextTurn();
      if (output.destroyed) throw output.errored ?? new Error('the destination was closed');
      return;
    }
    this.blocked = false;
    this.sentSinceTurn = 0;
    // 'close' as well as 'drain': a destination destroyed while we wait must not leave us hanging.
    await new Promise<void>((resolve) => {
      const done = (): void => {
        output.off('drain', done);
        output.off('close', done);
        resolve();
      };
      output.on('drain', done);
      output.on('close', done);
    });
    if (output.destroyed) throw output.errored ?? new Error('the destination was closed');
  }

  /** Writes what is buffered and waits until it is accepted (does not end the destination). */
  async flush(): Promise<void> {
    this.flushPending();
    await this.drain();
  }
}

/** Object-mode Transform: messages in, JSONL text out. */
export function stringifyJsonl(): Transform {
  return new Transform({
    writableObjectMode: true,
    transform(message: Message, _encoding: BufferEncoding, callback: TransformCallback) {
      callback(null, stringifyMessage(message));
    },
  });
}

