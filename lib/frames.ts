/**
 * The one place that holds messages back: a first-in first-out queue with a memory
 * budget that spills its oldest entries to a temporary file.
 *
 * Rules that need lookahead (tool-result pairing holds every frame after one whose call
 * is still unanswered) push what they cannot emit yet and shift it out once it is final.
 * While the estimated size of the entries in memory stays under the budget nothing
 * touches the disk; past it, the oldest in-memory entries are appended to the spill file
 * and read back, in order, when they reach the front. Output is identical either way.
 *
 * The spill file is unlinked as soon as it is opened: it lives only as long as the open
 * descriptor, so nothing is left behind on success, error, destroy or a crash.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sourceLineLength } from './jsonl.ts';
import type { Message } from './types.ts';
import { NEVER_FORK } from './fork-state.ts';

/** Rough in-memory size of a JSON value, in bytes; cheap, and capped so huge values are not walked twice. */
export function approximateSize(value: unknown, cap = 1 << 30): number {
  switch (typeof value) {
    case 'string':
      return 16 + value.length * 2;
    case 'number':
    case 'boolean':
      return 8;
    case 'object': {
      if (value === null) return 8;
      let total = 32;
      if (Array.isArray(value)) {
        for (const item of value) {
          total += approximateSize(item, cap - total);
          if (total >= cap) return total;
        }
        return total;
      }
      for (const key in value) {
        total += 16 + key.length * 2 + approximateSize((value as Record<string, unknown>)[key], cap - total);
        if (total >= cap) return total;
      }
      return total;
    }
    default:
      return 8;
  }
}

/** Size of a message for the budget: its original line when we have it (no walk), else an estimate. */
export function messageSize(message: Message): number {
  const length = sourceLineLength(message);
  return length === undefined ? approximateSize(message) : 64 + length * 2;
}

/**
 * An append-only temporary file of lines, read back sequentially from the front.
 *
 * The file keeps each line's byte length beside it, so a read takes exactly the bytes of the
 * next lines in one piece: a long line is never searched for its newline chunk by chunk, nor
 * joined from pieces (reading a 64 MB line back cost four copies of it that way).
 */
class SpillFile {
  /** An open file: a forked copy of a queue must not share it (lib/fork-state.ts). */
  readonly [NEVER_FORK] = true;
  private fd: number;
  private writeOffset = 0;
  private readOffset = 0;
  /** Byte lengths of the lines written and not yet read into `buffer`, oldest first from `lengthsHead`. */
  private lengths: number[] = [];
  private lengthsHead = 0;
  /** The lines read and not yet returned: `buffer` holds them back to back, from `bufferOffset`. */
  private buffer = Buffer.alloc(0);
  private bufferOffset = 0;
  private bufferLengths: number[] = [];
  private bufferIndex = 0;
  /** Lines written and not yet read. */
  count = 0;

  constructor(directory: string) {
    const file = path.join(directory, `transcript-hygiene-${process.pid}-${randomBytes(6).toString('hex')}.spill`);
    this.fd = openSync(file, 'wx+', 0o600);
    // Unlinked at once: the data lives as long as the descriptor, and no crash can leave the file behind.
    unlinkSync(file);
  }

  append(lines: string[]): void {
    // One string, one encoding and one write for the batch (a single line is not copied by join).
    const data = Buffer.from(lines.length === 1 ? lines[0]! : lines.join(''), 'utf8');
    if (lines.length === 1) this.lengths.push(data.length);
    else for (const line of lines) this.lengths.push(Buffer.byteLength(line, 'utf8'));
    let written = 0;
    while (written < data.length) written += writeSync(this.fd, data, written, data.length - written, this.writeOffset + written);
    this.writeOffset += data.length;
    this.count += lines.length;
  }

  /** The next unread line. Only call when count > 0. */
  next(): string {
    if (this.bufferIndex >= this.bufferLengths.length) this.fill();
    const length = this.bufferLengths[this.bufferIndex++]!;
    const line = this.buffer.toString('utf8', this.bufferOffset, this.bufferOffset + length);
    this.bufferOffset += length;
    this.count--;
    if (this.count === 0) this.reset();
    return line;
  }

  /** Reads the next lines, at least one and about READ_BYTES of them, in one piece. */
  private fill(): void {
    let total = 0;
    const taken: number[] = [];
    while (this.lengthsHead < this.lengths.length && (taken.length === 0 || total + this.lengths[this.lengthsHead]! <= READ_BYTES)) {
      const length = this.lengths[this.lengthsHead++]!;
      taken.push(length);
      total += length;
    }
    if (this.lengthsHead > 4096 && this.lengthsHead * 2 > this.lengths.length) {
      this.lengths = this.lengths.slice(this.lengthsHead);
      this.lengthsHead = 0;
    }
    const data = Buffer.allocUnsafe(total);
    let read = 0;
    while (read < total) {
      const bytes = readSync(this.fd, data, read, total - read, this.readOffset + read);
      if (bytes === 0) throw new Error('spill file is shorter than the lines written to it');
      read += bytes;
    }
    this.readOffset += total;
    this.buffer = data;
    this.bufferOffset = 0;
    this.bufferLengths = taken;
    this.bufferIndex = 0;
  }

  /** Everything written was read: start over at offset 0 so the file does not grow without end. */
  private reset(): void {
    this.writeOffset = 0;
    this.readOffset = 0;
    this.lengths = [];
    this.lengthsHead = 0;
    this.buffer = Buffer.alloc(0);
    this.bufferOffset = 0;
    this.bufferLengths = [];
    this.bufferIndex = 0;
    ftruncateSync(this.fd, 0);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

/** How many bytes of short lines one read of the spill file takes (a longer line is read whole). */
const READ_BYTES = 1 << 20;

export interface SpillCodec<T> {
  /** Estimated bytes the entry holds in memory. */
  sizeOf(entry: T): number;
  /** One line of text, without newline characters. */
  serialize(entry: T): string;
  deserialize(line: string): T;
}

export interface SpillQueueOptions {
  /** Bytes of entries kept in memory before the oldest spill to disk. */
  budgetBytes: number;
  /** Directory of the spill file (default: the OS temporary directory). */
  directory?: string;
}

/**
 * FIFO of entries with a memory budget. The entries on disk are always older than the
 * ones in memory, so order is kept by reading the file first.
 */
export class SpillQueue<T> {
  private memory: T[] = [];
  private sizes: number[] = [];
  private head = 0;
  private memoryBytes = 0;
  private file: SpillFile | undefined;
  private readonly budget: number;
  /**
   * No budget (`budgetBytes` of Number.MAX_SAFE_INTEGER or more: the in-memory path, whose
   * messages are in memory anyway): nothing can spill, so entry sizes are not even estimated.
   */
  private readonly unbounded: boolean;
  private readonly directory: string;
  /** An entry already read back from disk by peek() and not yet shifted. */
  private fromDisk: T | undefined;
  private hasFromDisk = false;
  /** Entries ever written to disk (for stats and tests). */
  spilledEntries = 0;
  /** Largest number of bytes the in-memory part held. */
  peakMemoryBytes = 0;

  constructor(private readonly codec: SpillCodec<T>, options: SpillQueueOptions) {
    this.budget = options.budgetBytes;
    this.directory = options.directory ?? tmpdir();
    this.unbounded = !(this.budget < Number.MAX_SAFE_INTEGER);
  }

  get length(): number {
    // An entry peeked from disk is still in the queue until shifted.
    return (this.file?.count ?? 0) + (this.hasFromDisk ? 1 : 0) + this.memory.length - this.head;
  }

  /** Bytes held in memory (estimated). */
  get bytesInMemory(): number {
    return this.memoryBytes;
  }

  push(entry: T): void {
    const size = this.unbounded ? 0 : this.codec.sizeOf(entry);
    this.memory.push(entry);
    this.sizes.push(size);
    this.memoryBytes += size;
    if (this.memoryBytes > this.peakMemoryBytes) this.peakMemoryBytes = this.memoryBytes;
    if (this.memoryBytes > this.budget) this.spill();
  }

  /**
   * Accounts bytes that belong to an in-memory entry but were attached after it was pushed
   * (a result filling a held slot). Positive deltas may spill.
   */
  adjust(delta: number): void {
    if (this.unbounded) return;
    this.memoryBytes += delta;
    if (this.memoryBytes > this.peakMemoryBytes) this.peakMemoryBytes = this.memoryBytes;
    if (delta > 0 && this.memoryBytes > this.budget) this.spill();
  }

  /** Moves the oldest in-memory entries to disk until memory is at half the budget. */
  private spill(): void {
    const target = this.budget / 2;
    const lines: string[] = [];
    while (this.memoryBytes > target && this.head < this.memory.length) {
      lines.push(this.codec.serialize(this.memory[this.head]!));
      this.memoryBytes -= this.sizes[this.head]!;
      this.head++;
    }
    this.compact();
    if (lines.length === 0) return;
    this.file ??= new SpillFile(this.directory);
    this.file.append(lines);
    this.spilledEntries += lines.length;
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.memory.length) {
      this.memory = this.memory.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
  }

  /** The oldest entry, or undefined when empty. */
  peek(): T | undefined {
    if (this.hasFromDisk) return this.fromDisk;
    if (this.file !== undefined && this.file.count > 0) {
      this.fromDisk = this.codec.deserialize(this.file.next());
      this.hasFromDisk = true;
      return this.fromDisk;
    }
    return this.head < this.memory.length ? this.memory[this.head] : undefined;
  }

  /** Removes and returns the oldest entry. */
  shift(): T | undefined {
    const entry = this.peek();
    if (this.hasFromDisk) {
      this.hasFromDisk = false;
      this.fromDisk = undefined;
      return entry;
    }
    if (this.head >= this.memory.length) return undefined;
    this.memoryBytes -= this.sizes[this.head]!;
    this.memory[this.head] = undefined as T;
    this.head++;
    if (this.head === this.memory.length) {
      this.memory = [];
      this.sizes = [];
      this.head = 0;
    } else {
      this.compact();
    }
    return entry;
  }

  /** Closes the spill file; the queue must not be used afterwards. */
  dispose(): void {
    this.file?.close();
    this.file = undefined;
    this.memory = [];
    this.sizes = [];
    this.head = 0;
    this.memoryBytes = 0;
  }
}

/** A codec for plain messages. */
export const messageCodec: SpillCodec<Message> = Object.freeze({
  sizeOf: messageSize,
  serialize: (message: Message) => JSON.stringify(message),
  deserialize: (line: string) => JSON.parse(line) as Message,
});

/**
 * Random-access store for messages that must be kept out of memory but are looked up
 * later by handle (results attached to frames that already went to disk).
 */
export class SpillStore {
  private file: SpillFileRandomAccess | undefined;
  constructor(private readonly directory: string = tmpdir()) {}

  put(message: Message): StoredMessage {
    this.file ??= new SpillFileRandomAccess(this.directory);
    return this.file.put(JSON.stringify(message));
  }

  get(handle: StoredMessage): Message {
    if (this.file === undefined) throw new Error('SpillStore.get before put');
    return JSON.parse(this.file.get(handle)) as Message;
  }

  dispose(): void {
    this.file?.close();
    this.file = undefined;
  }
}

export interface StoredMessage {
  readonly offset: number;
  readonly length: number;
}

class SpillFileRandomAccess {
  readonly [NEVER_FORK] = true;
  private fd: number;
  private end = 0;

  constructor(directory: string) {
    const file = path.join(directory, `transcript-hygiene-${process.pid}-${randomBytes(6).toString('hex')}.store`);
    this.fd = openSync(file, 'wx+', 0o600);
    unlinkSync(file);
  }

  put(text: string): StoredMessage {
    const data = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < data.length) written += writeSync(this.fd, data, written, data.length - written, this.end + written);
    const handle = { offset: this.end, length: data.length };
    this.end += data.length;
    return handle;
  }

  get(handle: StoredMessage): string {
    const data = Buffer.allocUnsafe(handle.length);
    let read = 0;
    while (read < handle.length) {
      const bytes = readSync(this.fd, data, read, handle.length - read, handle.offset + read);
      if (bytes === 0) throw new Error('spill store is shorter than a stored message');
      read += bytes;
    }
    return data.toString('utf8');
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
