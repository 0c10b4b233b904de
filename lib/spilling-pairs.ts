/**
 * A map from 32-bit keys to non-zero 32-bit values that holds its newest pairs in memory and the
 * rest on disk: an open-addressing table of (key, value) pairs in one typed array, filled to at
 * most three quarters, whose pairs move to a sorted run (lib/hashed-runs.ts, filtered on the key)
 * when it holds `spillAt` of them. A pair on disk costs about 2 bytes of filter in memory.
 *
 * The table is packed to its own front and sorted there when it spills, so a spill allocates
 * only the run's filter: with a copy per spill, about 1 MB of garbage each stood at the session
 * read plan's peak, where 12 spills come in one synchronous loop (11 MB at 1M results).
 *
 * Used by the result-id index (lib/result-index.ts: id hash -> last line) and the session id
 * table (lib/session/id-table.ts: id value -> name + 1). Values are never 0: 0 marks an empty slot.
 */
import { HashedRuns } from './hashed-runs.ts';

export class SpillingPairs {
  /** (key, value) by slot. */
  private pairs: Uint32Array;
  private mask: number;
  private held = 0;
  private runs: HashedRuns | undefined;

  /**
   * @param spillAt pairs held in memory before they move to disk
   * @param initialSlots the table's first size, a power of two (it doubles up to what spillAt needs)
   */
  constructor(
    private readonly spillAt: number,
    initialSlots: number,
  ) {
    this.pairs = new Uint32Array(initialSlots * 2);
    this.mask = initialSlots - 1;
  }

  /** Where the key's pair is in the table, or where it would go: give it to valueAt, setValue or insert. */
  find(key: number): number {
    let slot = (Math.imul(key, 0x9e3779b1) >>> 0) & this.mask;
    while (this.pairs[slot * 2 + 1] !== 0 && this.pairs[slot * 2] !== key) slot = (slot + 1) & this.mask;
    return slot * 2;
  }

  /** The value at a place `find` gave, or 0 when the key is not in the table (it may be on disk). */
  valueAt(at: number): number {
    return this.pairs[at + 1]!;
  }

  /** Replaces the value of the pair at a place `find` gave for a key in the table. */
  setValue(at: number, value: number): void {
    this.pairs[at + 1] = value;
  }

  /** Adds a pair at the place `find` gave for a key in neither the table nor the runs. */
  insert(at: number, key: number, value: number): void {
    this.pairs[at] = key;
    this.pairs[at + 1] = value;
    if (++this.held >= this.spillAt) this.spill();
    else if (this.held * 8 > this.pairs.length * 3) this.grow();
  }

  /** The largest value stored on disk with `key`, or -1 when none is. */
  spilledValue(key: number): number {
    return this.runs === undefined ? -1 : this.runs.lastLowOf(key);
  }

  /** The key of the first pair with `value`, in the table or on disk, or -1: a scan, for rare questions. */
  keyOf(value: number): number {
    for (let at = 0; at < this.pairs.length; at += 2) if (this.pairs[at + 1] === value) return this.pairs[at]!;
    return this.runs === undefined ? -1 : this.runs.highOf(value);
  }

  /** Pairs in memory and pairs moved to disk (a key stored again after its pair moved counts twice). */
  get size(): number {
    return this.held + (this.runs?.keys ?? 0);
  }

  /** Pairs moved to disk. */
  get spilled(): number {
    return this.runs?.keys ?? 0;
  }

  /** Bytes held in memory: the table, and the runs' filters and fences. */
  get byteLength(): number {
    return this.pairs.byteLength + (this.runs?.byteLength ?? 0);
  }

  /** Lets go of the table and closes the runs' file: the map holds nothing after this. */
  dispose(): void {
    // One empty slot: find() still ends, and no key is there.
    this.pairs = new Uint32Array(2);
    this.mask = 0;
    this.held = 0;
    this.runs?.dispose();
    this.runs = undefined;
  }

  private spill(): void {
    const pairs = this.pairs;
    let count = 0;
    for (let at = 0; at < pairs.length; at += 2) {
      if (pairs[at + 1] === 0) continue;
      pairs[count * 2] = pairs[at]!;
      pairs[count * 2 + 1] = pairs[at + 1]!;
      count++;
    }
    (this.runs ??= new HashedRuns({ filterOnHigh: true })).write(pairs, count);
    pairs.fill(0);
    this.held = 0;
  }

  private grow(): void {
    const old = this.pairs;
    this.pairs = new Uint32Array(old.length * 2);
    this.mask = old.length - 1;
    for (let at = 0; at < old.length; at += 2) {
      if (old[at + 1] === 0) continue;
      // Every key in the old table is distinct: the first empty slot is its place.
      let slot = (Math.imul(old[at]!, 0x9e3779b1) >>> 0) & this.mask;
      while (this.pairs[slot * 2 + 1] !== 0) slot = (slot + 1) & this.mask;
      this.pairs[slot * 2] = old[at]!;
      this.pairs[slot * 2 + 1] = old[at + 1]!;
    }
  }
}
