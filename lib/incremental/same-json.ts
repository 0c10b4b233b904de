/**
 * Exact equality and private copies of JSON-like values, for the incremental runner path. The
 * check that a new context starts with the kept messages reads each against a flat tape of the
 * kept copy (./value-tape.ts), which answers as `sameJson` does; `sameJson` itself compares the
 * whole-history facts and is the tape's reference in its tests.
 *
 * pi hands every call a fresh deep copy, so identity says nothing and any byte may differ; a
 * sampled check or a look at ids and timestamps could call two different histories the same.
 * `sameJson` reads every value (early exit on the first difference) and is strict where a
 * rule's output could tell two values apart: key order, `-0`, `NaN`, `undefined` members, array
 * holes. Values it does not know (class instances, dates, typed arrays, functions) compare as
 * different, so the caller runs in full. Symbol-keyed properties are not compared: structuredClone
 * never makes them, JSON cannot hold them, and no rule reads them (a private copy refuses them).
 */

/** Plain objects and arrays only: what a JSON message (or pi's structuredClone of one) is made of. */
function isPlainRecord(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Whether `a` and `b` are the same JSON-like value, key order included. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'object' || a === null || isJsonLike(a);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // Primitives: === already failed, but NaN equals NaN (Object.is; it also keeps 0 and -0 apart).
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length || Object.getPrototypeOf(a) !== Array.prototype || Object.getPrototypeOf(b) !== Array.prototype) return false;
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      const y: unknown = b[i];
      if (x === y && typeof x !== 'object') {
        // A hole reads as undefined, and so does an undefined element.
        if (x === undefined && i in a !== i in b) return false;
        if (x === 0 && !Object.is(x, y)) return false;
        continue;
      }
      if (!sameJson(x, y)) return false;
    }
    return true;
  }
  if (Array.isArray(b) || !isPlainRecord(a) || !isPlainRecord(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  // Key order without allocating a key list (a list per object was most of the garbage a call
  // made): the i-th key of b must be the i-th key of a, found by walking a's keys again. Both are
  // plain records, so for-in sees exactly their own enumerable string keys, in order; records
  // have a handful of keys, and past SHORT_RECORD the list is cheaper than the walk.
  let i = 0;
  let keysA: string[] | undefined;
  for (const key in b) {
    if (i >= SHORT_RECORD) keysA ??= Object.keys(a);
    if (keysA !== undefined ? key !== keysA[i] : !isKeyAt(a, i, key)) return false;
    i++;
    const x: unknown = (a as Record<string, unknown>)[key];
    const y: unknown = (b as Record<string, unknown>)[key];
    if (x === y && typeof x !== 'object') {
      if (x === 0 && !Object.is(x, y)) return false;
      continue;
    }
    if (!sameJson(x, y)) return false;
  }
  if (keysA !== undefined) return i === keysA.length;
  // a has no key past the i-th.
  return !hasKeyAt(a, i);
}

/** Records up to this many keys have their order checked by walking; longer ones by a key list. */
const SHORT_RECORD = 16;

/** Whether `key` is the `index`-th own enumerable key of the plain record `record`. */
function isKeyAt(record: object, index: number, key: string): boolean {
  let at = 0;
  for (const candidate in record) {
    if (at === index) return candidate === key;
    at++;
  }
  return false;
}

/** Whether the plain record `record` has more than `index` own enumerable keys. */
function hasKeyAt(record: object, index: number): boolean {
  let at = 0;
  for (const _key in record) if (at++ === index) return true;
  return false;
}

function isJsonLike(value: unknown): boolean {
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return false;
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (const item of value) if (!isJsonLike(item)) return false;
    return true;
  }
  if (!isPlainRecord(value) || Object.getOwnPropertySymbols(value).length > 0) return false;
  for (const key in value) if (!isJsonLike((value as Record<string, unknown>)[key])) return false;
  return true;
}

/** Thrown by `privateCopy` for a value it cannot copy exactly; the caller runs in full. */
export class NotJsonLike extends Error {
  constructor() {
    super('a message holds a value that is not plain JSON-like data');
    this.name = 'NotJsonLike';
  }
}

/**
 * A deep copy of a JSON-like value that shares nothing with it, so later changes to the original
 * (by the caller, after the call) cannot reach it. Frozen all the way down: nothing may change
 * what was compared against, and forked rule state shares frozen objects instead of copying them
 * (lib/fork-state.ts). Freezing costs about what the copy does; marking the objects in a WeakSet
 * cost four times as much, and slowed every garbage collection after.
 */
export function privateCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') throw new NotJsonLike();
    return value;
  }
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw new NotJsonLike();
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      // Holes stay holes.
      if (i in value) out[i] = privateCopy(value[i]);
    }
    return Object.freeze(out);
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || Object.getOwnPropertySymbols(value).length > 0) throw new NotJsonLike();
  const out: Record<string, unknown> = proto === null ? (Object.create(null) as Record<string, unknown>) : {};
  for (const key in value) {
    // Read as JSON.stringify and the rules read it: once, through the property.
    const copy = privateCopy((value as Record<string, unknown>)[key]);
    // A key named __proto__ would set the prototype by assignment.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, writable: true, enumerable: true, configurable: true });
    else out[key] = copy;
  }
  return Object.freeze(out);
}

/**
 * A copy of a JSON-like value with new objects and arrays all the way down; strings, being
 * immutable, are shared. What the runner gives out in place of a message it keeps.
 */
export function freshCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = freshCopy(value[i]);
    return out as T;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  const out: Record<string, unknown> = proto === null ? (Object.create(null) as Record<string, unknown>) : {};
  for (const key of Object.keys(value)) {
    const copy = freshCopy((value as Record<string, unknown>)[key]);
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, writable: true, enumerable: true, configurable: true });
    else out[key] = copy;
  }
  return out as T;
}
