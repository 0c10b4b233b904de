/**
 * Entry ids interned as dense integers ("names": 0, 1, 2, ...), so the index keeps no string
 * per entry where it can avoid it (spec/session-file.md §12.1, "going further means dropping
 * the id strings").
 *
 * Writers give new entries the first 8 hex digits of a UUID, so an id of exactly 8 lowercase
 * hex digits is kept as its 32-bit value (exact: the packing is a bijection). The newest such ids
 * sit in an open-addressing table of (value, name) pairs; when it holds SPILL_NAMES of them they
 * move to a sorted run on disk with a Bloom filter (lib/spilling-pairs.ts), so an id costs about 2
 * bytes of memory once it is older than the last ~100,000, where the table kept 12 bytes for
 * every id (at 1M ids: about 3 MB against 12 MB, at the index pass's peak). Entries name their
 * parent mostly among the newest ids, which the table answers; a new id is asked of the runs'
 * filters too. Any other id (full UUIDs, `repair-<uuid>`, test ids like `msg-1`) goes into a Map.
 *
 * Per name the table also keeps the last entry registered under it (`entryOf`), which is how
 * "a duplicate id: the last record wins" comes out. Names are made in file order, so that column
 * is kept as runs of one step (step-blocks.ts): a few KB at 1M names.
 */
import { Buffer } from 'node:buffer';
import { type Int32Column } from './growable.ts';
import { StepBlocks } from './step-blocks.ts';
import { SpillingPairs } from '../spilling-pairs.ts';

const INITIAL_SLOTS = 1 << 12;
/** Hex ids the table holds before they move to a run: 3/4 of 2^17 slots, 1 MiB of pairs. */
export const SPILL_NAMES = 3 << 15;

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
  /** Hex ids: their 32-bit value -> name + 1 (never 0, the empty slot's mark). */
  private readonly hexNames: SpillingPairs;
  private sealed = false;
  private readonly others = new Map<string, number>();
  private readonly otherIds = new Map<number, string>();
  /** Per name: the last entry registered under it, or -1 (as steps: names are made in file order, each entry's own as it is read). */
  readonly entryOf: Int32Column = new StepBlocks(-1);

  /** @param spillNames hex ids held in memory before they move to disk (tests make it small). */
  constructor(spillNames: number = SPILL_NAMES) {
    this.hexNames = new SpillingPairs(spillNames, INITIAL_SLOTS);
  }

  get size(): number {
    return this.entryOf.length;
  }

  /** Hex ids moved to disk so far. */
  get spilled(): number {
    return this.hexNames.spilled;
  }

  /**
   * Ends interning: keeps the id strings of `keep` (idOf still answers for them) and lets go of
   * the hex table and the runs' filters and file. The read pass needs only `entryOf`, and the id
   * of the leaf.
   */
  seal(keep: readonly number[]): void {
    for (const name of keep) if (name >= 0) this.otherIds.set(name, this.idOf(name));
    this.hexNames.dispose();
    this.sealed = true;
  }

  /** The name of an id, creating it when new. */
  intern(id: string): number {
    if (this.sealed) throw new Error('IdTable: sealed');
    const hex = packHex(id);
    if (hex >= 0) return this.internHex(hex);
    let name = this.others.get(id);
    if (name === undefined) {
      name = this.entryOf.push(-1);
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
    if (hex < 0) return this.others.get(id) ?? -1;
    const held = this.hexNames.valueAt(this.hexNames.find(hex));
    return held !== 0 ? held - 1 : this.spilledName(hex);
  }

  /** The id string of a name (for hex ids a scan of the table, then of the runs: meant for a few calls, not a loop). */
  idOf(name: number): string {
    const other = this.otherIds.get(name);
    if (other !== undefined) return other;
    if (this.sealed) throw new Error('IdTable: sealed, and this id was not kept');
    const value = this.hexNames.keyOf(name + 1);
    if (value < 0) throw new RangeError(`IdTable: no id has the name ${name}`);
    return value.toString(16).padStart(8, '0');
  }

  /** Bytes held in memory by typed arrays: the table, the runs' filters, entryOf (the Map of other ids is not counted). */
  get byteLength(): number {
    return this.hexNames.byteLength + this.entryOf.byteLength;
  }

  private internHex(value: number): number {
    const at = this.hexNames.find(value);
    const held = this.hexNames.valueAt(at);
    if (held !== 0) return held - 1;
    const spilled = this.spilledName(value);
    if (spilled >= 0) return spilled;
    const name = this.entryOf.push(-1);
    this.hexNames.insert(at, value, name + 1);
    return name;
  }

  private spilledName(value: number): number {
    const stored = this.hexNames.spilledValue(value);
    return stored < 0 ? -1 : stored - 1;
  }
}
