/**
 * The decoded rows of a database session, kept on disk between its two passes.
 *
 * The index pass has every row's bytes in hand (a compressed row decoded, checked against its
 * declared size); the read pass needs the bytes of the emitted rows again. Asking SQLite for each
 * emitted row by seq and decoding it a second time cost as much as the whole JSONL pipeline
 * (zstd alone was 40% of a database run). So the index pass appends each row's bytes to this
 * file, and the read pass reads them back through the same forward window a session file uses.
 *
 * The file is unlinked as soon as it is opened, as the spill file (lib/frames.ts) is: it lives
 * as long as the descriptor, so no exit, error or crash leaves it behind. It holds what the
 * session holds, no more, in the OS's temporary directory.
 */
import { close, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { float64s, type Blocks } from './growable.ts';

/** How many appended bytes are gathered before one write (a larger buffer only adds resident memory). */
const WRITE_BYTES = 256 << 10;

export class RowSpool {
  private descriptor: number;
  private end = 0;
  /** Per row, in append order: where its bytes start, and its seq (both ascending). */
  private readonly offsets: Blocks<Float64Array> = float64s();
  private readonly seqs: Blocks<Float64Array> = float64s();
  /** Appended bytes not yet written: the last `pendingLength` bytes before `end`. */
  private readonly pending = Buffer.allocUnsafe(WRITE_BYTES);
  private pendingLength = 0;

  constructor(directory: string = tmpdir()) {
    const file = path.join(directory, `transcript-hygiene-${process.pid}-${randomBytes(6).toString('hex')}.rows`);
    this.descriptor = openSync(file, 'wx+', 0o600);
    unlinkSync(file);
  }

  /** The descriptor, for reading (what was appended is written out first). */
  get fd(): number {
    this.flush();
    return this.descriptor;
  }

  /** Bytes appended so far. */
  get size(): number {
    return this.end;
  }

  /** Appends a row's bytes; returns where they start. */
  append(bytes: Buffer, seq: number): number {
    const offset = this.end;
    // Rows are small: they are gathered and written WRITE_BYTES at a time, not one call each.
    if (this.pendingLength + bytes.length > this.pending.length) this.flush();
    if (bytes.length >= this.pending.length) this.write(bytes, offset);
    else this.pendingLength += bytes.copy(this.pending, this.pendingLength);
    this.end += bytes.length;
    this.offsets.push(offset);
    this.seqs.push(seq);
    return offset;
  }

  /** Writes out what was appended and not yet written. */
  flush(): void {
    if (this.pendingLength === 0) return;
    this.write(this.pending.subarray(0, this.pendingLength), this.end - this.pendingLength);
    this.pendingLength = 0;
  }

  private write(bytes: Buffer, at: number): void {
    let written = 0;
    while (written < bytes.length) written += writeSync(this.descriptor, bytes, written, bytes.length - written, at + written);
  }

  /** The bytes [offset, offset + length) as text. */
  text(offset: number, length: number): string {
    this.flush();
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const read = readSync(this.descriptor, buffer, done, length - done, offset + done);
      if (read === 0) break;
      done += read;
    }
    return buffer.toString('utf8', 0, done);
  }

  /** The seq of the row whose bytes start at `offset`. */
  seqAt(offset: number): number {
    let low = 0;
    let high = this.offsets.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.offsets.get(middle) <= offset) low = middle;
      else high = middle - 1;
    }
    return this.seqs.get(low);
  }

  /** Empties the spool (the index pass starts over). */
  reset(): void {
    ftruncateSync(this.descriptor, 0);
    this.pendingLength = 0;
    this.end = 0;
    this.offsets.length = 0;
    this.seqs.length = 0;
  }

  /**
   * Closes the file on libuv's thread pool: the last close of an unlinked file frees its pages,
   * which took 70 ms of the main thread for a 130 MB session. Nothing is read after it.
   */
  close(): void {
    if (this.descriptor >= 0) close(this.descriptor, () => undefined);
    this.descriptor = -1;
  }
}
