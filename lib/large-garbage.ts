/**
 * Prompt collection of large strings let go, where the process allows it.
 *
 * An image-heavy session makes several multi-MB strings per image (the input line, the base64
 * data, the re-encoded data, the output line), all garbage a moment later. V8 collects its old
 * space when it reaches a limit sized from the heap's maximum, and with the default maximum (about
 * 4 GB on a 24 GB machine) hundreds of MB of such strings wait for that: measured, peak RSS
 * 450-660 MB on the image benchmark. A heap limit of 1 GB bounded it too, but made text-only runs
 * 15-20% slower; so instead the image stage reports what it lets go, and after every 16 MB of it
 * a major collection is started, incrementally (`execution: 'async'`: measured, a synchronous one
 * every 32-64 MB left the peak at 400-437 MB, an incremental one every 16 MB at 323-340 MB), so no
 * run waits for it. On Node 20 that call is a minor collection (its V8 reads any argument as the
 * old minor-collection flag: collectGarbageNow() below), which is what those figures measured there.
 *
 * `gc` exists only when node runs with --expose-gc, as the command's process does
 * (lib/process-settings.js); in a library user's process this does nothing.
 */

/** Characters of large strings released between two collections. */
export const COLLECT_AFTER_CHARS = 16 * 1024 * 1024;

export type GcFunction = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async' }) => void;

export interface GarbageAccountant {
  /** Counts `chars` characters of strings that are garbage now; starts a collection past the threshold. */
  released(chars: number): void;
  /** How many collections were started. */
  readonly collections: number;
}

export function createGarbageAccountant(
  gc: GcFunction | undefined,
  threshold = COLLECT_AFTER_CHARS,
  collection: Parameters<GcFunction>[0] = { type: 'major', execution: 'async' },
): GarbageAccountant {
  let pending = 0;
  let collections = 0;
  return {
    released(chars) {
      if (gc === undefined) return;
      pending += chars;
      if (pending < threshold) return;
      pending = 0;
      collections++;
      gc(collection);
    },
    get collections() {
      return collections;
    },
  };
}

const processAccountant = createGarbageAccountant(exposedGc());

/** The process's gc, where node runs with --expose-gc. */
export function exposedGc(): GcFunction | undefined {
  return (globalThis as { gc?: GcFunction }).gc;
}

/** The process-wide accountant's `released`. */
export function releasedLargeStrings(chars: number): void {
  processAccountant.released(chars);
}

/**
 * A full, synchronous collection now, where node runs with --expose-gc; returns whether it ran.
 *
 * `gc()` is called without options: Node 20's V8 (11.3) takes any argument as its old "minor
 * collection" flag, so `gc({ type: 'major' })` there collects only the young generation (a 50 MB
 * old-space garbage survived it; Node 24 honours the option). It runs twice: memory held by
 * old-generation ArrayBuffers is given back by the sweep after a full collection, which the next
 * one finishes (a 1M-entry session index let go of 32 MB only at the second).
 */
export function collectGarbageNow(): boolean {
  const gc = exposedGc() as (() => void) | undefined;
  if (gc === undefined) return false;
  gc();
  gc();
  return true;
}
