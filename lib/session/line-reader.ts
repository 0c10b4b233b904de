/**
 * Sequential line reading of a file in large chunks, without a string or object per line:
 * the callback gets the chunk buffer and the byte range of each line. A line is what lies
 * between two LF bytes; one trailing CR is left out of the range (CRLF files read like LF
 * files). The last line of a file without a final newline is delivered too.
 */
import { Buffer } from 'node:buffer';
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

export interface LineVisitor {
  /** Called once per chunk before its lines, with the bytes [0, end) that the lines of this call lie in. */
  chunk?(buffer: Buffer, end: number): void;
  /** One line: bytes [start, end) of `buffer`, at byte `offset` of the file, 1-based `line`. */
  line(buffer: Buffer, start: number, end: number, offset: number, line: number): void;
  /** Awaited after each chunk's lines (backpressure for a visitor that writes). */
  afterChunk?(): Promise<void>;
}

export interface ReadLinesResult {
  lines: number;
  bytes: number;
  /** Whether the file ends with LF (or is empty). */
  endsWithNewline: boolean;
}

const LF = 0x0a;
const CR = 0x0d;

export async function readLines(handle: FileHandle, visitor: LineVisitor, chunkSize = 1 << 20): Promise<ReadLinesResult> {
  let buffer = Buffer.allocUnsafe(chunkSize);
  /** File offset of buffer[0]. */
  let base = 0;
  /** Bytes of buffer in use. */
  let filled = 0;
  let lineNumber = 0;
  let lastByte = LF;
  for (;;) {
    if (filled === buffer.length) {
      // A line longer than the buffer: grow it.
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, filled);
      buffer = bigger;
    }
    // Synchronous: a read of a regular file from the page cache is a copy, and the thread-pool
    // round trip of an async read left the main thread idle for longer than the copy takes.
    const bytesRead = readSync(handle.fd, buffer, filled, buffer.length - filled, base + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
    lastByte = buffer[filled - 1]!;
    const lastNewline = buffer.lastIndexOf(LF, filled - 1);
    if (lastNewline < 0) continue;
    visitor.chunk?.(buffer, lastNewline + 1);
    let start = 0;
    while (start <= lastNewline) {
      const newline = buffer.indexOf(LF, start);
      let end = newline;
      if (end > start && buffer[end - 1] === CR) end--;
      visitor.line(buffer, start, end, base + start, ++lineNumber);
      start = newline + 1;
    }
    if (visitor.afterChunk !== undefined) await visitor.afterChunk();
    const rest = filled - start;
    if (rest > 0) buffer.copy(buffer, 0, start, filled);
    base += start;
    filled = rest;
  }
  if (filled > 0) {
    visitor.chunk?.(buffer, filled);
    let end = filled;
    if (buffer[end - 1] === CR) end--;
    visitor.line(buffer, 0, end, base, ++lineNumber);
    if (visitor.afterChunk !== undefined) await visitor.afterChunk();
  }
  return { lines: lineNumber, bytes: base + filled, endsWithNewline: lastByte === LF };
}

/** Reads bytes [offset, offset + length) of a file. */
export async function readRange(handle: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, offset + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buffer : buffer.subarray(0, done);
}
