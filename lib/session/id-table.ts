/**
 * Entry ids interned as dense integers ("names": 0, 1, 2, ...), so the index keeps no string
 * per entry where it can avoid it (spec/session-file.md §12.1, "going further means dropping
 * the id strings").
 *
 * Writers give new entries the first 8 hex digits of a UUID, so an id of exactly 8 lowercase
 * hex digits is stored as its 32-bit value in an open-addressing table of typed arrays
 * (exact: the packing is a bijection, so there are no collisions to resolve; at most 3/4 full). Any other id
 * (full UUIDs, `repair-<uuid>`, test ids like `msg-1`) goes into a Map. At 1M 8-hex ids: about
 * 16 bytes a name with this table (21 with the keys in the slots) against about 80 with
 * Map<string, number>.
 *
 * Per name the table also keeps the last entry registered under it (`entryOf`), which is how
 * "a duplicate id: the last record wins" comes out. Names are made in file order, so that column
 * is kept as runs of one step (step-blocks.ts): a few KB at 1M names, where it was 4 MB of the
 * 16 bytes a name above.
 */
import { Buffer } from 'node:buffer';
import { uint32s, type Blocks, type Int32Column } from './growable.ts';
import { StepBlocks } from './step-blocks.ts';
import { collectGarbageNow } from '../large-garbage.ts';

const EMPTY = -1;
/** Slots from which the table a rehash replaces (4 bytes a slot) is collected at once: 2 MiB. */
const COLLECT_REPLACED_SLOTS = 1 << 19;

function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/** The 32-bit value of an 8-lowercase-hex-digit id, or -1. */
function packHex(id: string): number {
  if (id.length !== 8) return -1;
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const digit = hexDigit(id.charCodeAt(i));
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

function packHexBytes(buffer: Buffer, start: number, end: number): number {
  if (end - start !== 8) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = hexDigit(buffer[i]!);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

export class IdTable {
  /**
   * Open addressing over names alone (4 bytes a slot); a slot's key is the hex value of its name,
   * kept per name in `hexOf`. Keys beside the names took 8 bytes a slot: at 1M ids the table has
   * 2^21 slots, and while it doubled, the old and the new tables with their keys (24 MiB, all
   * touched by the fill and the rehash) stood side by side: the high-water mark of a 1M-entry
   * run jumped 17 MB above the RSS sampled around it there.
   */
  private slots = new Int32Array(1 << 12).fill(EMPTY);
  /** Per name: the 32-bit value of its 8-hex-digit id (0 for a name of another id, never looked up). */
  private hexOf: Blocks<Uint32Array> = uint32s();
  private sealed = false;
  private mask = (1 << 12) - 1;
  private hexCount = 0;
  private readonly others = new Map<string, number>();
  private readonly otherIds = new Map<number, string>();
  /** Per name: the last entry registered under it, or -1 (as steps: names are made in file order, each entry's own as it is read). */
  readonly entryOf: Int32Column = new StepBlocks(-1);

  get size(): number {
    return this.entryOf.length;
  }

  /**
   * Ends interning: keeps the id strings of `keep` (idOf still answers for them) and lets go of
   * the hex table and the hex values, 8-12 bytes an id at 1M entries. The read pass needs only
   * `entryOf`, and the id of the leaf.
   */
  seal(keep: readonly number[]): void {
    for (const name of keep) if (name >= 0) this.otherIds.set(name, this.idOf(name));
    this.slots = new Int32Array(0);
    this.hexOf = uint32s();
    this.sealed = true;
  }

  /** The name of an id, creating it when new. */
  intern(id: string): number {
    if (this.sealed) throw new Error('IdTable: sealed');
    const hex = packHex(id);
    if (hex >= 0) return this.internHex(hex);
    let name = this.others.get(id);
    if (name === undefined) {
      name = this.newName();
      this.others.set(id, name);
      this.otherIds.set(name, id);
    }
    return name;
  }

  /** The name of the id held in bytes [start, end) (valid JSON string content without escapes). */
  internBytes(buffer: Buffer, start: number, end: number): number {
    if (this.sealed) throw new Error('IdTable: sealed');
    const hex = packHexBytes(buffer, start, end);
    if (hex >= 0) return this.internHex(hex);
    return this.intern(buffer.toString('utf8', start, end));
  }

  /** The name of an id, or -1 when it was never interned. */
  lookup(id: string): number {
    if (this.sealed) throw new Error('IdTable: sealed');
    const hex = packHex(id);
    if (hex >= 0) {
      const slot = this.findSlot(hex);
      return this.slots[slot]!;
    }
    return this.others.get(id) ?? -1;
  }

  /** The id string of a name (a scan of the table for hex ids: meant for a few calls, not a loop). */
  idOf(name: number): string {
    const other = this.otherIds.get(name);
    if (other !== undefined) return other;
    if (this.sealed) throw new Error('IdTable: sealed, and this id was not kept');
    return this.hexOf.get(name).toString(16).padStart(8, '0');
  }

  /** Bytes held by the typed arrays (the Map of other ids is not counted). */
  get byteLength(): number {
    return this.slots.byteLength + this.hexOf.byteLength + this.entryOf.byteLength;
  }

  private internHex(value: number): number {
    const slot = this.findSlot(value);
    const found = this.slots[slot]!;
    if (found !== EMPTY) return found;
    const name = this.newName(value);
    this.slots[slot] = name;
    if (++this.hexCount * 4 > this.slots.length * 3) this.rehash();
    return name;
  }

  private newName(hex = 0): number {
    this.hexOf.push(hex);
    return this.entryOf.push(-1);
  }

  private findSlot(value: number): number {
    let slot = (Math.imul(value, 0x9e3779b1) >>> 0) & this.mask;
    for (;;) {
      const name = this.slots[slot]!;
      if (name === EMPTY || this.hexOf.get(name) === value) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  private rehash(): void {
    const oldSlots = this.slots;
    const size = oldSlots.length * 2;
    this.slots = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
    for (let i = 0; i < oldSlots.length; i++) {
      const name = oldSlots[i]!;
      if (name === EMPTY) continue;
      // Every name in the old table is distinct: the first empty slot is its place.
      let slot = (Math.imul(this.hexOf.get(name), 0x9e3779b1) >>> 0) & this.mask;
      while (this.slots[slot] !== EMPTY) slot = (slot + 1) & this.mask;
      this.slots[slot] = name;
    }
    // Left to the collector, the replaced table (4 MiB at 1M ids) was still resident when the
    // index pass peaked, a few seconds later.
    if (oldSlots.length >= COLLECT_REPLACED_SLOTS) collectGarbageNow();
  }
}
