/**
 * A kept message written out flat, for the check that a new context starts with the kept one.
 *
 * `sameJson` walks the kept copy and the new value side by side, and must walk the kept record's
 * keys again for each key of the new one to check their order. Here the kept copy is written once,
 * when it is kept, as a tape: a record is a mark, its key count, then each key and its value; an
 * array a mark, its length, then its elements. The check walks only the new value and reads the
 * tape in order: each key is compared with the next key on the tape (property keys are
 * internalized strings, so that is one pointer compare), each primitive with the next value, and
 * the key count at the end. About three quarters of `sameJson`'s time on the runner bench's 10k
 * contexts.
 *
 * Same answers as `sameJson(kept, value)` (test/incremental/value-tape.test.ts): key order, `-0`,
 * `NaN`, `undefined` members and array holes count; a prototype other than Object's, null or
 * Array's never matches; symbol-keyed properties are not compared.
 */

/** Marks on the tape; objects, so no primitive value of a message can equal one. */
const RECORD = Object.freeze({ tape: 'record' });
const NULL_PROTO_RECORD = Object.freeze({ tape: 'record with a null prototype' });
const ARRAY = Object.freeze({ tape: 'array' });
const HOLE = Object.freeze({ tape: 'hole' });

export type ValueTape = readonly unknown[];

/**
 * The tape of `value`, a private copy (./same-json.ts `privateCopy`: plain JSON-like data only).
 * Written into one scratch array that keeps its capacity, then copied out at its exact length:
 * growing a fresh array slot by slot cost as much as the private copy itself.
 */
export function tapeOf(value: unknown): ValueTape {
  length = 0;
  write(value);
  const tape = scratch.slice(0, length);
  // A huge message's scratch is not kept (nor, then, what it still points to).
  if (scratch.length > MAX_KEPT_SCRATCH) scratch = [];
  return tape;
}

const MAX_KEPT_SCRATCH = 1 << 16;

/**
 * Where `write` puts the tape, and how much of it is this tape. Slots past `length` still point
 * to values of an earlier message's private copy (at most MAX_KEPT_SCRATCH of them, which
 * outlive that copy only when the runner lets it go).
 */
let scratch: unknown[] = [];
let length = 0;

function put(item: unknown): void {
  if (length < scratch.length) scratch[length] = item;
  else scratch.push(item);
  length++;
}

function write(value: unknown): void {
  if (typeof value !== 'object' || value === null) {
    put(value);
    return;
  }
  if (Array.isArray(value)) {
    put(ARRAY);
    put(value.length);
    for (let i = 0; i < value.length; i++) {
      if (i in value) write(value[i]);
      else put(HOLE);
    }
    return;
  }
  put(Object.getPrototypeOf(value) === null ? NULL_PROTO_RECORD : RECORD);
  const countAt = length;
  put(0);
  let count = 0;
  for (const key in value) {
    put(key);
    write((value as Record<string, unknown>)[key]);
    count++;
  }
  scratch[countAt] = count;
}

/** Whether `value` is the JSON-like value `tape` was written from. */
export function matchesTape(value: unknown, tape: ValueTape): boolean {
  const reader = new TapeReader(tape);
  return reader.matches(value) && reader.at === tape.length;
}

/** Primitives the same as `Object.is` tells them (NaN equals NaN; 0 and -0 differ). */
function samePrimitive(kept: unknown, value: unknown): boolean {
  if (kept === value) return value !== 0 || Object.is(kept, value);
  return typeof value === 'number' && value !== value && typeof kept === 'number' && kept !== kept;
}

class TapeReader {
  at = 0;
  constructor(private readonly tape: ValueTape) {}

  matches(value: unknown): boolean {
    const tape = this.tape;
    if (typeof value !== 'object' || value === null) return samePrimitive(tape[this.at++], value);
    if (Array.isArray(value)) {
      if (tape[this.at] !== ARRAY || tape[this.at + 1] !== value.length || Object.getPrototypeOf(value) !== Array.prototype) return false;
      this.at += 2;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'object' && item !== null) {
          if (!this.matches(item)) return false;
          continue;
        }
        const kept = tape[this.at++];
        // Most values are equal strings: one compare, and only 0, NaN and undefined look further.
        if (kept === item && item !== 0 && item !== undefined) continue;
        // A hole reads as undefined, and so does an undefined element.
        if (kept === HOLE) {
          if (i in value) return false;
          continue;
        }
        if (!samePrimitive(kept, item) || (item === undefined && !(i in value))) return false;
      }
      return true;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    const mark = tape[this.at];
    if (proto === Object.prototype ? mark !== RECORD : proto !== null || mark !== NULL_PROTO_RECORD) return false;
    const count = tape[this.at + 1] as number;
    this.at += 2;
    // A plain record: for-in sees exactly its own enumerable string keys, in order.
    let seen = 0;
    for (const key in value) {
      if (seen === count || tape[this.at] !== key) return false;
      this.at++;
      seen++;
      const item: unknown = (value as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) {
        if (!this.matches(item)) return false;
        continue;
      }
      const kept = tape[this.at++];
      if ((kept !== item || item === 0) && !samePrimitive(kept, item)) return false;
    }
    return seen === count;
  }
}
