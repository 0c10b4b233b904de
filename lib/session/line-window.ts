/**
 * The read pass's view of a file: lines read by byte offset through a window that moves forward;
 * a line outside it moves the window there.
 *
 * Given the file's handle, the window reads ahead: while the rules work through one window, the
 * next one is read on libuv's thread pool into a second buffer, after room for the first one's
 * unfinished last line, which is copied in front of it when the reader gets there (`prepare`,
 * awaited before a line the window does not hold). Without it the reads stopped the main thread
 * (`readSync`: a copy from the page cache) for about 0.3 s of a 200k-message session, time the
 * JSONL reader spends on the pool beside the rules. Anything the read-ahead does not hold (a
 * jump past it, a line longer than a window, a read-ahead still in flight when a synchronous
 * caller needs the bytes) is read as before, synchronously.
 */
import { Buffer } from 'node:buffer';
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { replacementsIn } from '../utf8-replacements.ts';
import { utf8Text } from '../utf8-text.ts';

/** The top-level key of a message entry's message (entry-types.ts, F_PLAIN_ENVELOPE). */
const MESSAGE_KEY = Buffer.from('"message":', 'latin1');
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

interface ReadAhead {
  /** File offset the read starts at (the window's end when it was issued). */
  readonly at: number;
  /** Which of the two buffers it lands in, at index `size`. */
  readonly into: 0 | 1;
  /** Set when the read has landed: its byte count, or -1 when it failed. */
  bytes: number | undefined;
  readonly landed: Promise<void>;
}

export class LineWindow {
  /** The window: file bytes [start, end) at buffer[0..]. */
  private buffer: Buffer;
  private start = 0;
  private end = 0;
  bytesRead = 0;
  /** Windows taken from a read-ahead (the rest were read synchronously). */
  readAheadWindows = 0;
  /** Where synchronous reads land. */
  private plain: Buffer;
  /** With a handle: two buffers of twice the window, the window in one, the read-ahead landing in the other. */
  private readonly halves: [Buffer, Buffer] | undefined;
  /** Which half holds the window, or -1 (the plain buffer). */
  private current: -1 | 0 | 1 = -1;
  private ahead: ReadAhead | undefined;

  constructor(
    private readonly fd: number,
    private readonly size: number,
    private readonly handle?: FileHandle,
  ) {
    this.plain = Buffer.allocUnsafe(size);
    this.buffer = this.plain;
    this.halves = handle === undefined ? undefined : [Buffer.allocUnsafe(2 * size), Buffer.allocUnsafe(2 * size)];
  }

  covers(offset: number, length: number): boolean {
    return offset >= this.start && offset + length <= this.end;
  }

  /**
   * Before reading [offset, offset + length): a promise to await when the read-ahead holds those
   * bytes (the window then moves onto it), else undefined (`read` reads them itself if needed).
   */
  prepare(offset: number, length: number): Promise<void> | undefined {
    if (this.covers(offset, length)) return undefined;
    const ahead = this.ahead;
    if (ahead === undefined || ahead.at !== this.end || length > this.size) return undefined;
    // The bytes from `offset` to the window's end go in front of the read-ahead: at most a window.
    if (offset < this.start || this.end - offset > this.size || offset + length > ahead.at + this.size) return undefined;
    return ahead.landed.then(() => this.moveOnto(ahead, offset));
  }

  load(offset: number, length: number): void {
    if (length > this.plain.length) this.plain = Buffer.allocUnsafe(length);
    else if (this.plain.length > this.size && length <= this.size) this.plain = Buffer.allocUnsafe(this.size);
    let filled = 0;
    while (filled < this.plain.length) {
      // Synchronous: the copy from the page cache costs less than the thread-pool round trip the
      // main thread would wait for, when nothing was read ahead.
      const bytesRead = readSync(this.fd, this.plain, filled, this.plain.length - filled, offset + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    this.bytesRead += filled;
    this.buffer = this.plain;
    this.current = -1;
    this.start = offset;
    this.end = offset + filled;
    this.readAhead();
  }

  text(offset: number, length: number): string {
    const at = offset - this.start;
    return utf8Text(this.buffer, at, at + length);
  }

  /**
   * Where the message of a plain message entry's line [offset, offset + length) starts: just past
   * the line's first `"message":`, when a `{` follows it and the line ends in `}`; -1 otherwise.
   */
  messageStart(offset: number, length: number): number {
    if (!this.covers(offset, length)) this.load(offset, length);
    if (!this.covers(offset, length)) return -1;
    const at = offset - this.start;
    const end = at + length;
    const buffer = this.buffer;
    if (buffer[end - 1] !== CLOSE_BRACE) return -1;
    const key = buffer.indexOf(MESSAGE_KEY, at);
    const value = key + MESSAGE_KEY.length;
    if (key < 0 || value >= end - 1 || buffer[value] !== OPEN_BRACE) return -1;
    return this.start + value;
  }

  /** How many U+FFFD decoding bytes [offset, offset + length) put into `text` (the window covers them). */
  replacements(text: string, offset: number, length: number): number {
    const at = offset - this.start;
    return replacementsIn(text, this.buffer, at, Math.min(at + length, this.end - this.start));
  }

  read(offset: number, length: number): string {
    if (!this.covers(offset, length)) this.load(offset, length);
    if (!this.covers(offset, length)) return this.text(offset, Math.max(0, this.end - offset));
    return this.text(offset, length);
  }

  /** Resolves once no read is in flight (the handle may then close). */
  async settle(): Promise<void> {
    await this.ahead?.landed;
  }

  /** Starts reading the window after this one into the half that does not hold this one, unless a read is in flight. */
  private readAhead(): void {
    const halves = this.halves;
    if (halves === undefined || this.handle === undefined || this.end - this.start < this.size) return;
    if (this.ahead !== undefined && this.ahead.bytes === undefined) return;
    const into: 0 | 1 = this.current === 0 ? 1 : 0;
    const at = this.end;
    const read: ReadAhead = {
      at,
      into,
      bytes: undefined,
      landed: this.handle.read(halves[into], this.size, this.size, at).then(
        ({ bytesRead }) => {
          read.bytes = bytesRead;
        },
        () => {
          // The synchronous read that follows reports the error.
          read.bytes = -1;
        },
      ),
    };
    this.ahead = read;
  }

  /** The window becomes the read-ahead, with the bytes of this one from `offset` on in front of it. */
  private moveOnto(ahead: ReadAhead, offset: number): void {
    if (this.ahead !== ahead || ahead.at !== this.end || ahead.bytes === undefined || ahead.bytes <= 0) return;
    const target = this.halves![ahead.into];
    const from = Math.min(offset, this.end);
    const tail = this.end - from;
    this.buffer.copy(target, this.size - tail, from - this.start, this.end - this.start);
    this.buffer = target.subarray(this.size - tail, this.size + ahead.bytes);
    this.current = ahead.into;
    this.start = from;
    this.end = ahead.at + ahead.bytes;
    this.bytesRead += ahead.bytes;
    this.readAheadWindows++;
    this.ahead = undefined;
    this.readAhead();
  }
}
