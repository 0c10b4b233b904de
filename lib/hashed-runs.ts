/**
 * 64-bit keys moved out of memory: sorted runs in a temporary file, each with a Bloom filter and
 * every 256th key kept in memory. lib/hashed-ids.ts moves its table here when it fills, so a
 * transcript-wide id table holds about 2 bytes a key in memory (the filters) instead of 8-16.
 *
 * Exact, not approximate: a filter that says "maybe" is checked against the run's keys on disk
 * (one read of at most 2 KiB), and a filter never says "no" to a key it holds. The tables are
 * asked mostly about keys they do not hold (a new call id), which the filters answer in memory:
 * 16 bits a key and 8 probes in one 64-byte block give about 1 false "maybe" in 1,000 a run.
 *
 * Keyed on the high half only (`filterOnHigh`), the runs are a map from a 32-bit key to values
 * (the low half): lib/result-index.ts keeps the input lines of tool results that way.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { NEVER_FORK } from './fork-state.ts';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Keys between two in-memory fence keys: one disk read of 2 KiB. */
const FENCE_EVERY = 256;
const BLOOM_BITS_PER_KEY = 16;
const BLOOM_PROBES = 8;
/** 16 words: one 64-byte cache line a key. */
const BLOCK_WORDS = 16;

interface Run {
  /** Byte offset of the run in the file, and its key count. */
  readonly at: number;
  readonly count: number;
  /** Every FENCE_EVERY-th key, as hi * 2^32 + lo would order them. */
  readonly fences: BigUint64Array;
  readonly bloom: Uint32Array;
  /** The filter's 64-byte blocks: as many as its keys need, not rounded up to a power of two. */
  readonly blocks: number;
}

/** murmur3's finalizer: every input bit moves every output bit, so probes do not follow patterns in the keys. */
function mix(value: number): number {
  value ^= value >>> 16;
  value = Math.imul(value, 0x85ebca6b);
  value ^= value >>> 13;
  value = Math.imul(value, 0xc2b2ae35);
  return (value ^ (value >>> 16)) >>> 0;
}

/**
 * The filter's block for a key: both halves, mixed, then scaled onto the block count (a
 * multiply, not a mask, so the count need not be a power of two). The product of a 32-bit hash
 * and the block count is exact in a double up to 2^21 blocks, a run of 2^26 keys; the tables
 * write runs of at most 98,304 (lib/hashed-ids.ts), 3,072 blocks.
 */
function blockOf(blocks: number, hi: number, lo: number): number {
  return Math.floor((mix(hi ^ Math.imul(lo, 0x9e3779b1)) * blocks) / 0x100000000) * BLOCK_WORDS;
}

/** The key's probes: 9 bits each, from two mixed words (three from each, then rotated for the rest). */
function bloomAdd(bloom: Uint32Array, blocks: number, hi: number, lo: number): void {
  const base = blockOf(blocks, hi, lo);
  let h = mix(lo ^ Math.imul(hi, 0xcc9e2d51));
  for (let i = 0; i < BLOOM_PROBES; i++) {
    const bit = h & 511;
    bloom[base + (bit >>> 5)]! |= 1 << (bit & 31);
    h = i === 2 ? mix(h ^ hi) : (h >>> 9) | (h << 23);
  }
}

function bloomHas(bloom: Uint32Array, blocks: number, hi: number, lo: number): boolean {
  const base = blockOf(blocks, hi, lo);
  let h = mix(lo ^ Math.imul(hi, 0xcc9e2d51));
  for (let i = 0; i < BLOOM_PROBES; i++) {
    const bit = h & 511;
    if ((bloom[base + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
    h = i === 2 ? mix(h ^ hi) : (h >>> 9) | (h << 23);
  }
  return true;
}

/** Closes the file of runs nobody disposed (a reader of a session that never asks for its index). */
const unclosed = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
});

export class HashedRuns {
  /** Made when keys first spill, so its file is open: a forked rule state (lib/fork-state.ts) must not share it. */
  readonly [NEVER_FORK] = true;
  private fd = -1;
  private end = 0;
  private readonly runs: Run[] = [];
  /** Its own ArrayBuffer: a view of 64-bit keys needs 8-byte alignment, which pooled Buffers lack. */
  private readonly block = new Uint8Array(FENCE_EVERY * 8);
  /** Keys written, and "maybe"s the filters gave that the disk denied (for tests). */
  keys = 0;
  falseMaybes = 0;

  /** The filters hold the high half alone when asked by it (`lastLowOf`), else the whole key (`has`). */
  private readonly filterOnHigh: boolean;

  constructor(options: { directory?: string; filterOnHigh?: boolean } = {}) {
    this.directory = options.directory ?? tmpdir();
    this.filterOnHigh = options.filterOnHigh === true;
  }

  private readonly directory: string;

  /**
   * Writes `keys` as one run: pairs [hi, lo] of 32-bit halves, lo never 0; `count` pairs are used.
   * The pairs are sorted in place, as 64-bit keys, so a run allocates only its filter and fences;
   * the caller keeps no copy, and finds its array scrambled.
   */
  write(keys: Uint32Array, count: number): void {
    if (count === 0) return;
    if (keys.byteOffset % 8 !== 0) keys = keys.slice(0, count * 2);
    // Sized to the keys: rounded up to a power of two it took 21 bits a key on average, not 16
    // (4.06 MB of filters at 1M mixed-details messages, 3.05 MB sized exactly).
    const blocks = Math.max(1, Math.ceil((count * BLOOM_BITS_PER_KEY) / (BLOCK_WORDS * 32)));
    const bloom = new Uint32Array(blocks * BLOCK_WORDS);
    const onHigh = this.filterOnHigh;
    for (let i = 0; i < count; i++) bloomAdd(bloom, blocks, keys[i * 2]!, onHigh ? 0 : keys[i * 2 + 1]!);
    // A 64-bit key in memory order: on a little-endian machine the low half comes first.
    if (LITTLE_ENDIAN) {
      for (let i = 0; i < count * 2; i += 2) {
        const hi = keys[i]!;
        keys[i] = keys[i + 1]!;
        keys[i + 1] = hi;
      }
    }
    const sorted = new BigUint64Array(keys.buffer, keys.byteOffset, count).sort();
    const fences = new BigUint64Array(Math.ceil(count / FENCE_EVERY));
    for (let i = 0; i < fences.length; i++) fences[i] = sorted[i * FENCE_EVERY]!;
    if (this.fd < 0) this.open();
    const bytes = new Uint8Array(sorted.buffer, sorted.byteOffset, count * 8);
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written, this.end + written);
    this.runs.push({ at: this.end, count, fences, bloom, blocks });
    this.end += bytes.length;
    this.keys += count;
  }

  has(hi: number, lo: number): boolean {
    if (this.filterOnHigh) throw new Error('HashedRuns: filtered on the high half; ask lastLowOf');
    // The key as a BigInt only once a filter says "maybe": most questions end at the filters.
    let key: bigint | undefined;
    for (const run of this.runs) {
      if (!bloomHas(run.bloom, run.blocks, hi, lo)) continue;
      key ??= (BigInt(hi) << 32n) | BigInt(lo);
      if (this.lastAtMost(run, key) === key) return true;
      this.falseMaybes++;
    }
    return false;
  }

  /** The largest low half stored with this high half, or -1 when none is (`filterOnHigh` runs). */
  lastLowOf(hi: number): number {
    let upper: bigint | undefined;
    let best = -1;
    for (const run of this.runs) {
      if (!bloomHas(run.bloom, run.blocks, hi, 0)) continue;
      upper ??= (BigInt(hi) << 32n) | 0xffffffffn;
      const found = this.lastAtMost(run, upper);
      if (found !== undefined && found >> 32n === BigInt(hi)) best = Math.max(best, Number(found & 0xffffffffn));
      else this.falseMaybes++;
    }
    return best;
  }

  /**
   * The high half of the first key whose low half is `lo`, or -1: a scan of every run on disk,
   * for the rare question asked the other way round (lib/session/id-table.ts `idOf`).
   */
  highOf(lo: number): number {
    const chunk = new Uint32Array(1 << 14);
    const bytes = new Uint8Array(chunk.buffer);
    for (let at = 0; at < this.end; ) {
      const length = Math.min(bytes.length, this.end - at);
      this.readAt(bytes, length, at);
      for (let i = 0; i < length / 4; i += 2) {
        if (chunk[i + (LITTLE_ENDIAN ? 0 : 1)] === lo) return chunk[i + (LITTLE_ENDIAN ? 1 : 0)]!;
      }
      at += length;
    }
    return -1;
  }

  /** Bytes held in memory (filters and fences). */
  get byteLength(): number {
    let bytes = 0;
    for (const run of this.runs) bytes += run.bloom.byteLength + run.fences.byteLength;
    return bytes;
  }

  dispose(): void {
    if (this.fd >= 0) {
      unclosed.unregister(this);
      closeSync(this.fd);
    }
    this.fd = -1;
  }

  /** The largest key of the run that is at most `key`, or undefined (one disk read, of at most 2 KiB). */
  private lastAtMost(run: Run, key: bigint): bigint | undefined {
    // The last fence at or below the key names the only block that can hold the answer.
    if (key < run.fences[0]!) return undefined;
    let low = 0;
    let high = run.fences.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (run.fences[middle]! <= key) low = middle;
      else high = middle - 1;
    }
    const first = low * FENCE_EVERY;
    const count = Math.min(FENCE_EVERY, run.count - first);
    const length = count * 8;
    this.readAt(this.block, length, run.at + first * 8);
    const keys = new BigUint64Array(this.block.buffer, 0, count);
    // keys[0] is the fence, at most `key`: find the last one that is.
    low = 0;
    high = count - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (keys[middle]! <= key) low = middle;
      else high = middle - 1;
    }
    return keys[low]!;
  }

  /** Fills the first `length` bytes of `into` from the run file at byte `position`. */
  private readAt(into: Uint8Array, length: number, position: number): void {
    let read = 0;
    while (read < length) {
      const got = readSync(this.fd, into, read, length - read, position + read);
      if (got === 0) throw new Error('hashed-id run file is shorter than written');
      read += got;
    }
  }

  private open(): void {
    const file = path.join(this.directory, `transcript-hygiene-${process.pid}-${randomBytes(6).toString('hex')}.ids`);
    this.fd = openSync(file, 'wx+', 0o600);
    unlinkSync(file);
    unclosed.register(this, this.fd, this);
  }
}
