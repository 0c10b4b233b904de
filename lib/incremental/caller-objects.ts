/**
 * A message a rule made, as the incremental runner path gives it out: with the caller's own
 * objects of this call wherever the rule kept a part of its input, and new objects elsewhere.
 *
 * The rules run on private frozen copies (./same-json.ts, `privateCopy`), so a message a rule
 * made shares objects with such a copy: an assistant turn that lost its thinking keeps the copy's
 * `usage` and its other blocks. Those shared parts must not go out (a caller that edits what it
 * gets would edit what is kept), and copying them whole on every call costs about as much as the
 * rules did. But the caller's message at the same index is equal to the copy, value for value (it
 * was compared with it, or copied from it in this call), so the caller's object at the same path
 * can stand in for each shared part: what a full run gives out too, since there the rules work on
 * the caller's objects.
 *
 * Sound whichever input is named as the source: a part is replaced only where it is the very
 * object the copy holds at that path, and the caller's value there equals it. A part that is not
 * (a block with a rewritten id) is rebuilt the same way a level down when the copy has an object
 * at that path, else copied whole.
 */
import { freshCopy } from './same-json.ts';

/**
 * `made` with the caller's objects for the parts it shares with `kept` (equal, value for value,
 * to `caller`); new objects elsewhere. Strings and other primitives are shared as they are.
 */
export function withCallerObjects(made: unknown, kept: unknown, caller: unknown): unknown {
  if (made === kept) return caller;
  if (typeof made !== 'object' || made === null) return made;
  if (typeof kept !== 'object' || kept === null || Array.isArray(made) !== Array.isArray(kept)) return freshCopy(made);
  if (Array.isArray(made)) {
    const keptItems = kept as readonly unknown[];
    const callerItems = caller as readonly unknown[];
    const out: unknown[] = new Array(made.length);
    // Blocks keep their order when a rule drops or rewrites some: an item is looked for after
    // the last one found, and one that is not there (a block with a rewritten id) is taken as
    // made from the kept item next after it.
    let next = 0;
    for (let i = 0; i < made.length; i++) {
      if (!(i in made)) continue;
      const item: unknown = made[i];
      const at = typeof item === 'object' && item !== null ? indexOfItem(keptItems, item, next) : -1;
      if (at >= 0) {
        out[i] = callerItems[at];
        next = at + 1;
      } else {
        out[i] = next < keptItems.length ? withCallerObjects(item, keptItems[next], callerItems[next]) : freshCopy(item);
        next++;
      }
    }
    return out;
  }
  const keptRecord = kept as Record<string, unknown>;
  const callerRecord = caller as Record<string, unknown>;
  if (Object.getPrototypeOf(made) !== Object.prototype) return recordByKeys(made as Record<string, unknown>, keptRecord, callerRecord);
  // A spread copies the record's layout at once; only the values that are objects are then
  // replaced (adding keys one by one to an empty record cost most of this function's time).
  const out: Record<string, unknown> = { ...(made as Record<string, unknown>) };
  for (const key in made) {
    const value = (made as Record<string, unknown>)[key];
    if (typeof value !== 'object' || value === null) continue;
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: partOf(value, keptRecord, callerRecord, key), writable: true, enumerable: true, configurable: true });
    } else {
      out[key] = partOf(value, keptRecord, callerRecord, key);
    }
  }
  return out;
}

/** `made[key]` given out: rebuilt against the kept copy's own value at `key`, or copied whole when it has none. */
function partOf(value: unknown, kept: Record<string, unknown>, caller: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(kept, key) ? withCallerObjects(value, kept[key], caller[key]) : freshCopy(value);
}

/** The same for a record with a null prototype (a spread would give it Object's). */
function recordByKeys(made: Record<string, unknown>, kept: Record<string, unknown>, caller: Record<string, unknown>): Record<string, unknown> {
  const out = Object.create(Object.getPrototypeOf(made) as object | null) as Record<string, unknown>;
  for (const key of Object.keys(made)) {
    // A key named __proto__ would set the prototype by assignment.
    Object.defineProperty(out, key, { value: partOf(made[key], kept, caller, key), writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/** Where `item` stands in `items`, looked for from `near` on, then before it. */
function indexOfItem(items: readonly unknown[], item: object, near: number): number {
  if (items[near] === item) return near;
  for (let i = near + 1; i < items.length; i++) if (items[i] === item) return i;
  for (let i = Math.min(near, items.length) - 1; i >= 0; i--) if (items[i] === item) return i;
  return -1;
}
