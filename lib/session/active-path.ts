/**
 * The active path and what of it is emitted (spec/session-file.md §5 `getBranch`, §6, §12.2).
 *
 * The path is walked from the leaf through each entry's logical parent, or its stored parentId
 * resolved through opaque links (a `leaf` record links to its target, an invalid one through its
 * own parent: Errata 2, 3), stopping at null, at an unknown id (a missing parent makes the
 * reachable suffix the whole path) and at a repeated id (cycle guard).
 *
 * Emission (§6): without a compaction on the path, every emitting entry of the path; with one,
 * the latest compaction C's summary first, then the emitting entries from C.firstKeptEntryId
 * (when it is on the path before C; an id naming an opaque link counts as that link's nearest
 * real ancestor, Errata 1) up to C, then those after C.
 *
 * A database session (index.rules 'openclaw-2026.9', OpenClaw 2026.9's reader) differs: the
 * boundary is the latest compaction or `reset`; a reset gives no summary, and of the entries from
 * its firstKeptEntryId it keeps only what reset-window.ts selects; a message marked
 * `excludeFromContext` is left out everywhere else.
 */
import { F_DEAD, F_EMITS, F_EXCLUDED, PARENT_NULL, T_COMPACTION, T_MESSAGE, T_RESET } from './entry-types.ts';
import type { SessionIndex } from './index-pass.ts';

/** Follows opaque links from a name to a canonical entry's name (the final maps: last record wins); -1 for null. */
export function resolveCanonicalName(index: SessionIndex, name: number): number {
  let current = name;
  let seen: Set<number> | undefined;
  while (current >= 0 && index.ids.entryOf.get(current) < 0) {
    if (seen?.has(current)) return PARENT_NULL;
    (seen ??= new Set()).add(current);
    current = index.opaqueParent.get(current) ?? PARENT_NULL;
  }
  return current < 0 ? PARENT_NULL : current;
}

/**
 * The entry numbers of the active path, root first. Under the database rules a walk that comes
 * back to an id already on it (a self-parent included) gives no path at all, as 2026.9's
 * `selectSessionTranscriptTreePathNodes` does; the file rules keep what was walked.
 */
export function activePath(index: SessionIndex): Int32Array {
  const db = index.rules === 'openclaw-2026.9';
  // Typed arrays throughout: a million-entry path makes no garbage.
  const path = new Int32Array(index.entryCount);
  const seen = new Uint8Array(index.ids.size);
  let length = 0;
  let current = index.leafName;
  while (current >= 0 && seen[current] === 0) {
    seen[current] = 1;
    const entry = index.ids.entryOf.get(current);
    if (entry >= 0) {
      path[length++] = entry;
      const logical = index.logicalParent.get(current);
      let parent = logical !== undefined ? logical : resolveCanonicalName(index, index.parentName.get(entry));
      if (parent === current && !db) parent = PARENT_NULL;
      current = parent;
    } else {
      current = index.opaqueParent.get(current) ?? PARENT_NULL;
    }
  }
  if (db && current >= 0) return new Int32Array(0);
  return path.subarray(0, length).reverse();
}

export interface EmissionPlan {
  /** The active path, root first (its front overwritten by `entries` when planned with overwritePath). */
  readonly path: Int32Array;
  /** The latest compaction on the path (an entry number), or -1 (also when a later reset is the boundary). */
  readonly compaction: number;
  /** How many of `entries` come from before the boundary (kept by it). */
  readonly retained: number;
  /** Path position of the first kept entry before the compaction, or -1 when nothing before it is kept. */
  readonly firstKept: number;
  /** Entries whose messages follow the compaction summary (or all, without one), in order. */
  readonly entries: Int32Array;
}

/** The position on the path where the kept range before the compaction at `boundary` starts, or -1. */
function firstKeptPosition(index: SessionIndex, path: Int32Array, boundary: number): number {
  const info = index.compactions.get(path[boundary]!);
  if (info === undefined || info.firstKeptName < 0) return -1;
  let name = info.firstKeptName;
  if (index.ids.entryOf.get(name) < 0 && index.opaqueParent.has(name)) name = resolveCanonicalName(index, name);
  if (name < 0) return -1;
  // Path entries are the ones their names resolve to (the last record with an id wins).
  const entry = index.ids.entryOf.get(name);
  for (let i = 0; i < boundary; i++) if (path[i] === entry) return i;
  return -1;
}

export interface PlanOptions {
  /** Database rules: what a reset keeps of the `message` entries of its window (reset-window.ts; it reads them). */
  resetKept?(window: Int32Array): Int32Array;
  /**
   * Write `entries` over the front of `path` instead of into an array of their own (4 MB at 1M
   * entries): the caller is done with the path. Safe because entries come from the path in its
   * order, so each is written at or before the position it is read from.
   */
  overwritePath?: boolean;
}

export function planEmission(index: SessionIndex, path: Int32Array = activePath(index), options: PlanOptions = {}): EmissionPlan {
  const db = index.rules === 'openclaw-2026.9';
  let boundary = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    const type = index.type.get(path[i]!);
    if (type === T_COMPACTION || (db && type === T_RESET)) {
      boundary = i;
      break;
    }
  }
  // F_EXCLUDED is only ever set under the database rules.
  const emits = (entry: number): boolean => (index.flags.get(entry) & (F_EMITS | F_DEAD | F_EXCLUDED)) === F_EMITS;
  const entries = options.overwritePath === true ? path : new Int32Array(path.length);
  let count = 0;
  let firstKept = -1;
  let retained = 0;
  const isReset = boundary >= 0 && index.type.get(path[boundary]!) === T_RESET;
  // Read before any entry is written: with overwritePath, entries may come to stand where it was.
  const compaction = boundary < 0 || isReset ? -1 : path[boundary]!;
  if (boundary < 0) {
    for (const entry of path) if (emits(entry)) entries[count++] = entry;
  } else {
    firstKept = firstKeptPosition(index, path, boundary);
    if (firstKept >= 0 && isReset) {
      const window: number[] = [];
      for (let i = firstKept; i < boundary; i++) if (index.type.get(path[i]!) === T_MESSAGE && (index.flags.get(path[i]!) & F_DEAD) === 0) window.push(path[i]!);
      if (options.resetKept === undefined) throw new Error('planEmission: a reset with kept entries needs options.resetKept');
      for (const entry of options.resetKept(Int32Array.from(window))) entries[count++] = entry;
    } else if (firstKept >= 0) {
      for (let i = firstKept; i < boundary; i++) if (emits(path[i]!)) entries[count++] = path[i]!;
    }
    retained = count;
    for (let i = boundary + 1; i < path.length; i++) if (emits(path[i]!)) entries[count++] = path[i]!;
  }
  return { path, compaction, retained, firstKept, entries: entries.subarray(0, count) };
}
