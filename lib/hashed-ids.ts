/**
 * Transcript-wide id tables kept as 64-bit hashes in typed arrays, not as strings in a Set or
 * Map: about 8 bytes an id (12 with a count) instead of 60-90, and nothing for the collector to
 * trace. The tool-call id fold (transforms/sanitize-tool-call-ids.ts) keeps one entry per call
 * of the whole transcript, about 440,000 on a 1M-message session.
 *
 * Two different ids share a hash with a probability of about n^2 / 2^65 (3e-9 for a million
 * ids). The tables are only asked "was this id seen": a false yes makes the fold take its next
 * candidate id, which is still unique and within the pattern, so a collision can change which
 * valid id is chosen, never whether the output is valid.
 */

const EMPTY = 0;
const INITIAL_CAPACITY = 1 << 10;

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

/** An open-addressing table of 64-bit keys with a 32-bit value each (a count, or 1 for "present"). */
class HashedTable {
  private keys = new Uint32Array(INITIAL_CAPACITY * 2);
  private values = new Uint32Array(INITIAL_CAPACITY);
  private mask = INITIAL_CAPACITY - 1;
  private readonly pair = new Uint32Array(2);
  size = 0;

  /** The slot of `text`: where it is, or the empty slot where it would go. */
  protected slotOf(text: string): number {
    hashPair(text, this.pair);
    const hi = this.pair[0]!;
    const lo = this.pair[1]!;
    let slot = (hi ^ Math.imul(lo, 0x9e3779b1)) & this.mask;
    for (;;) {
      const keyLo = this.keys[slot * 2 + 1]!;
      if (keyLo === EMPTY || (keyLo === lo && this.keys[slot * 2] === hi)) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  protected valueAt(slot: number): number {
    return this.keys[slot * 2 + 1] === EMPTY ? 0 : this.values[slot]!;
  }

  /** Sets the value of the key `slotOf` just hashed (the pair is still in `this.pair`). */
  protected store(slot: number, value: number): void {
    if (this.keys[slot * 2 + 1] === EMPTY) {
      this.keys[slot * 2] = this.pair[0]!;
      this.keys[slot * 2 + 1] = this.pair[1]!;
      this.size++;
      this.values[slot] = value;
      if (this.size * 2 > this.mask + 1) this.grow();
      return;
    }
    this.values[slot] = value;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const capacity = (this.mask + 1) * 2;
    this.keys = new Uint32Array(capacity * 2);
    this.values = new Uint32Array(capacity);
    this.mask = capacity - 1;
    for (let old = 0; old < oldValues.length; old++) {
      const lo = oldKeys[old * 2 + 1]!;
      if (lo === EMPTY) continue;
      const hi = oldKeys[old * 2]!;
      let slot = (hi ^ Math.imul(lo, 0x9e3779b1)) & this.mask;
      while (this.keys[slot * 2 + 1] !== EMPTY) slot = (slot + 1) & this.mask;
      this.keys[slot * 2] = hi;
      this.keys[slot * 2 + 1] = lo;
      this.values[slot] = oldValues[old]!;
    }
  }

  /** Bytes held by the typed arrays. */
  get byteLength(): number {
    return this.keys.byteLength + this.values.byteLength;
  }
}

/** A set of ids: the `has` / `add` part of Set<string> that the id allocation needs. */
export class HashedIdSet extends HashedTable {
  constructor(ids: Iterable<string> = []) {
    super();
    for (const id of ids) this.add(id);
  }

  has(id: string): boolean {
    return this.valueAt(this.slotOf(id)) !== 0;
  }

  add(id: string): this {
    this.store(this.slotOf(id), 1);
    return this;
  }

  /** Adds `id` when it is not there yet; true when it was added. */
  claim(id: string): boolean {
    const slot = this.slotOf(id);
    if (this.valueAt(slot) !== 0) return false;
    this.store(slot, 1);
    return true;
  }
}

/** How many times each id was seen. */
export class HashedIdCounter extends HashedTable {
  /** Counts one more sighting of `id` and returns its count (1 on the first). */
  increment(id: string): number {
    const slot = this.slotOf(id);
    const next = this.valueAt(slot) + 1;
    this.store(slot, next);
    return next;
  }

  count(id: string): number {
    return this.valueAt(this.slotOf(id));
  }
}
