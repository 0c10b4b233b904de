/**
 * Transcript-wide id tables kept as 64-bit hashes in typed arrays, not as strings in a Set or
 * Map: 8-16 bytes an id instead of 60-90, and nothing for the collector to trace. The tool-call
 * id fold (transforms/sanitize-tool-call-ids.ts) keeps one entry per call of the whole
 * transcript, about 570,000 on a 1M-message session.
 *
 * Two different ids share a hash with a probability of about n^2 / 2^65 (3e-9 for a million
 * ids). The tables are only asked "was this id seen": a false yes makes the fold take its next
 * candidate id, which is still unique and within the pattern, so a collision can change which
 * valid id is chosen, never whether the output is valid.
 */

import { HashedRuns } from './hashed-runs.ts';

const EMPTY = 0;
const INITIAL_CAPACITY = 1 << 10;
/**
 * Keys held in memory before the table moves them to a sorted run on disk (lib/hashed-runs.ts):
 * the table stops at 2^17 slots (1 MiB), and each key moved out costs 2 bytes of filter. A
 * 1M-message session's 570,000 calls then hold about 2 MiB a table, not 8.
 */
export const DEFAULT_SPILL_KEYS = 3 << 15;

/** Two independent 32-bit string hashes (FNV-1a and a murmur3-style mix) over UTF-16 units. */
function hashPair(text: string, out: Uint32Array): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    let k = Math.imul(unit, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    b ^= Math.imul(k, 0x1b873593);
    b = (b << 13) | (b >>> 19);
    b = (Math.imul(b, 5) + 0xe6546b64) | 0;
  }
  b ^= b >>> 16;
  b = Math.imul(b, 0x85ebca6b);
  b ^= b >>> 13;
  b = Math.imul(b, 0xc2b2ae35);
  b ^= b >>> 16;
  out[0] = a >>> 0;
  // 0 marks an empty slot, so the second half is never 0.
  out[1] = b >>> 0 || 1;
}

/**
 * An open-addressing set of 64-bit keys, filled to at most three quarters: about 11 bytes an id
 * on average across growth (a fold of 570,000 calls holds 8 MiB, not the 24 MiB a half-full
 * table of keys and values took).
 */
class HashedKeys {
  private keys = new Uint32Array(INITIAL_CAPACITY * 2);
  private mask = INITIAL_CAPACITY - 1;
  private readonly pair = new Uint32Array(2);
  /** Where the key `lookup` did not find would go in the table. */
  private vacant = 0;
  /** Keys in the table; the rest of `size` are in `runs`. */
  private held = 0;
  private runs: HashedRuns | undefined;
  size = 0;

  constructor(private readonly spillKeys: number = DEFAULT_SPILL_KEYS) {}

  /** Whether `text`'s key is held (in the table or a run); when not, `insertLast` adds it. */
  protected lookup(text: string): boolean {
    hashPair(text, this.pair);
    const hi = this.pair[0]!;
    const lo = this.pair[1]!;
    let slot = (hi ^ Math.imul(lo, 0x9e3779b1)) & this.mask;
    for (;;) {
      const keyLo = this.keys[slot * 2 + 1]!;
      if (keyLo === EMPTY) break;
      if (keyLo === lo && this.keys[slot * 2] === hi) return true;
      slot = (slot + 1) & this.mask;
    }
    this.vacant = slot;
    return this.runs !== undefined && this.runs.has(hi, lo);
  }

  /** Adds the key `lookup` just looked for and did not find. */
  protected insertLast(): void {
    const slot = this.vacant;
    this.keys[slot * 2] = this.pair[0]!;
    this.keys[slot * 2 + 1] = this.pair[1]!;
    this.size++;
    this.held++;
    if (this.held >= this.spillKeys) this.spill();
    else if (this.held * 4 > (this.mask + 1) * 3) this.grow();
  }

  /** Moves the table's keys to a run on disk and empties the table (its size stays). */
  private spill(): void {
    const keys = this.keys;
    let count = 0;
    for (let at = 0; at < keys.length; at += 2) {
      if (keys[at + 1] === EMPTY) continue;
      keys[count * 2] = keys[at]!;
      keys[count * 2 + 1] = keys[at + 1]!;
      count++;
    }
    (this.runs ??= new HashedRuns()).write(keys, count);
    keys.fill(EMPTY);
    this.held = 0;
  }

  /** Closes the run file, if the table spilled. The table answers nothing after this. */
  dispose(): void {
    this.runs?.dispose();
  }

  private grow(): void {
    const old = this.keys;
    const capacity = (this.mask + 1) * 2;
    this.keys = new Uint32Array(capacity * 2);
    this.mask = capacity - 1;
    for (let at = 0; at < old.length; at += 2) {
      const lo = old[at + 1]!;
      if (lo === EMPTY) continue;
      const hi = old[at]!;
      let slot = (hi ^ Math.imul(lo, 0x9e3779b1)) & this.mask;
      while (this.keys[slot * 2 + 1] !== EMPTY) slot = (slot + 1) & this.mask;
      this.keys[slot * 2] = hi;
      this.keys[slot * 2 + 1] = lo;
    }
  }

  /** Bytes held in memory: the key table, and the filters of keys moved to disk. */
  get byteLength(): number {
    return this.keys.byteLength + (this.runs?.byteLength ?? 0);
  }
}

/** A set of ids: the `has` / `add` part of Set<string> that the id allocation needs. */
export class HashedIdSet extends HashedKeys {
  constructor(ids: Iterable<string> = [], spillKeys?: number) {
    super(spillKeys);
    for (const id of ids) this.add(id);
  }

  has(id: string): boolean {
    return this.lookup(id);
  }

  add(id: string): this {
    if (!this.lookup(id)) this.insertLast();
    return this;
  }

  /** Adds `id` when it is not there yet; true when it was added. */
  claim(id: string): boolean {
    if (this.lookup(id)) return false;
    this.insertLast();
    return true;
  }
}

/**
 * How many times each id was seen: the set of ids seen, and the counts above one (ids seen
 * again are rare) by id in a Map.
 */
export class HashedIdCounter extends HashedKeys {
  private readonly repeats = new Map<string, number>();

  /** Counts one more sighting of `id` and returns its count (1 on the first). */
  increment(id: string): number {
    if (!this.lookup(id)) {
      this.insertLast();
      return 1;
    }
    const next = (this.repeats.get(id) ?? 1) + 1;
    this.repeats.set(id, next);
    return next;
  }

  count(id: string): number {
    if (!this.lookup(id)) return 0;
    return this.repeats.get(id) ?? 1;
  }
}
