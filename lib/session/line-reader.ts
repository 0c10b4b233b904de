/**
 * Sequential line reading of a file in large chunks, without a string or object per line:
 * the callback gets the chunk buffer and the byte range of each line. A line is what lies
 * between two LF bytes; one trailing CR is left out of the range (CRLF files read like LF
 * files). The last line of a file without a final newline is delivered too.
 */
import { Buffer } from 'node:buffer';
import type { FileHandle } from 'node:fs/promises';
import { readHandleChunks } from '../file-chunks.ts';

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
  // The next chunks are read on libuv's thread pool while the visitor works through this one
  // (lib/file-chunks.ts). Read synchronously, the copies from the page cache stopped the main
  // thread for about 0.18 s of the index pass over a 1.1 GB session.
  /** Copies of the start of a line that earlier chunks cut, and its file offset. */
  let carry: Buffer[] = [];
  let carried = 0;
  let carryOffset = 0;
  let lineNumber = 0;
  let lastByte = LF;
  let at = 0;
  const visitJoined = (last: Buffer): void => {
    const joined = Buffer.concat([...carry, last], carried + last.length);
    visitor.chunk?.(joined, joined.length);
    visitor.line(joined, 0, withoutCr(joined, 0, joined.length), carryOffset, ++lineNumber);
    carry = [];
    carried = 0;
  };
  for await (const buffer of readHandleChunks(handle, chunkSize)) {
    const chunkAt = at;
    at += buffer.length;
    lastByte = buffer[buffer.length - 1]!;
    const firstNewline = buffer.indexOf(LF);
    if (firstNewline < 0) {
      if (carried === 0) carryOffset = chunkAt;
      carry.push(Buffer.from(buffer));
      carried += buffer.length;
      continue;
    }
    let start = 0;
    if (carried > 0) {
      visitJoined(buffer.subarray(0, firstNewline));
      start = firstNewline + 1;
    }
    const lastNewline = buffer.lastIndexOf(LF);
    if (lastNewline >= start) {
      visitor.chunk?.(buffer, lastNewline + 1);
      while (start <= lastNewline) {
        const newline = buffer.indexOf(LF, start);
        visitor.line(buffer, start, withoutCr(buffer, start, newline), chunkAt + start, ++lineNumber);
        start = newline + 1;
      }
    }
    if (start < buffer.length) {
      carry.push(Buffer.from(buffer.subarray(start)));
      carried = buffer.length - start;
      carryOffset = chunkAt + start;
    }
    if (visitor.afterChunk !== undefined) await visitor.afterChunk();
  }
  if (carried > 0) {
    visitJoined(Buffer.alloc(0));
    if (visitor.afterChunk !== undefined) await visitor.afterChunk();
  }
  return { lines: lineNumber, bytes: at, endsWithNewline: lastByte === LF };
}

/** The end of a line at `end` (an LF or the end of input), one trailing CR left out. */
function withoutCr(buffer: Buffer, start: number, end: number): number {
  return end > start && buffer[end - 1] === CR ? end - 1 : end;
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
