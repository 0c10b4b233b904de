/**
 * A copy of a running rule processor's state, so one chain can go on reading while a copy of it
 * is ended (the incremental runner path, lib/incremental/).
 *
 * Processors are plain class instances holding maps, sets, arrays and records; the copy is a
 * deep one that keeps the shape of the object graph (an object reached twice is copied once) and
 * the prototypes. What is not copied:
 * - values `shared` says are immutable: the input messages (rules never mutate them; a change is a
 *   new object), the frozen policy and options;
 * - frozen objects (module constants such as codecs), and regular expressions without state;
 * - functions listed in `functions` (a rule context's `count`, mapped to the copy's own).
 * Anything else it cannot copy faithfully (an unlisted function: a closure over state it cannot
 * see; a promise, a buffer, a file) makes the whole copy fail with `Unforkable`: the caller then
 * runs in full. Never a copy that might be wrong.
 */

/** A field of this name (any value) marks an object that must never be copied (an open file). */
export const NEVER_FORK = Symbol('never fork');

export class Unforkable extends Error {
  constructor(what: string) {
    super(`cannot fork rule state: ${what}`);
    this.name = 'Unforkable';
  }
}

export interface ForkMaps {
  /** Functions to replace by another (old context's `count` -> the copy's); any other function is Unforkable. */
  readonly functions: ReadonlyMap<unknown, unknown>;
  /** Objects to replace by another (an old rule context -> the copy's). */
  readonly objects: ReadonlyMap<object, object>;
  /** Objects kept by reference: immutable for as long as the copy lives. */
  readonly shared: (value: object) => boolean;
}

/** Deep copies of `roots`, sharing one memo so objects reached from several roots stay shared. */
export function forkState<T>(roots: readonly T[], maps: ForkMaps): T[] {
  const memo = new Map<object, unknown>();
  return roots.map((root) => copy(root, maps, memo) as T);
}

function copy(value: unknown, maps: ForkMaps, memo: Map<object, unknown>): unknown {
  if (typeof value === 'function') {
    if (maps.functions.has(value)) return maps.functions.get(value);
    throw new Unforkable(`function ${value.name || '(anonymous)'}`);
  }
  if (typeof value !== 'object' || value === null) return value;
  const replaced = maps.objects.get(value);
  if (replaced !== undefined) return replaced;
  if (maps.shared(value) || Object.isFrozen(value)) return value;
  if (NEVER_FORK in value) throw new Unforkable('an object marked never-fork');
  const done = memo.get(value);
  if (done !== undefined) return done;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    memo.set(value, out);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], maps, memo);
    return out;
  }
  if (value instanceof Map) {
    const out = new Map();
    memo.set(value, out);
    for (const [key, item] of value) out.set(copy(key, maps, memo), copy(item, maps, memo));
    return out;
  }
  if (value instanceof Set) {
    const out = new Set();
    memo.set(value, out);
    for (const item of value) out.add(copy(item, maps, memo));
    return out;
  }
  // A regular expression without the g or y flag keeps no state between uses (lastIndex is unused).
  if (value instanceof RegExp && !value.global && !value.sticky) return value;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    // A typed array that owns its buffer (hash tables of ids); one that views a shared buffer cannot be copied alone.
    if (value.byteOffset !== 0 || value.byteLength !== value.buffer.byteLength) throw new Unforkable('a typed array over a shared buffer');
    const out = (value as unknown as { slice(): object }).slice();
    memo.set(value, out);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  // Only plain records and class instances whose state is their own fields; anything with hidden
  // internal slots (promises, buffers, dates, weak collections, regexps) cannot be copied this way.
  if (proto !== null && proto !== Object.prototype && !isPlainClassInstance(value)) {
    throw new Unforkable(`object of class ${(value as { constructor?: { name?: string } }).constructor?.name ?? '?'}`);
  }
  const out = Object.create(proto as object | null) as Record<PropertyKey, unknown>;
  memo.set(value, out);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    if (descriptor.get !== undefined || descriptor.set !== undefined) throw new Unforkable(`accessor ${String(key)}`);
    descriptor.value = copy(descriptor.value, maps, memo);
    Object.defineProperty(out, key, descriptor);
  }
  return out;
}

const BUILT_INS_WITH_SLOTS: readonly (abstract new (...args: never[]) => unknown)[] = [
  Promise,
  Date,
  RegExp,
  ArrayBuffer,
  DataView,
  WeakMap,
  WeakSet,
  Error,
  Object.getPrototypeOf(Uint8Array) as abstract new (...args: never[]) => unknown,
];

function isPlainClassInstance(value: object): boolean {
  for (const type of BUILT_INS_WITH_SLOTS) if (value instanceof type) return false;
  return true;
}
