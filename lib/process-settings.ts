// The process settings the command runs under, and when the command re-executes itself to get
// them (lib/cli/launch.ts).
//
// Why re-exec at all: two settings decide the peak RSS of an image-heavy run and can only be
// given when a process starts.
// - MALLOC_ARENA_MAX=2: glibc gives each thread that decodes an image (libuv's pool, libvips'
//   workers) an arena of its own, and an arena keeps the freed pixel buffers mapped.
// - --expose-gc: the image stage starts a major collection after every 64 MB of large strings it
//   lets go (lib/large-garbage.ts). With the default heap maximum (about 4 GB here) V8 lets such
//   strings pile up to hundreds of MB; a 1 GB heap limit bounded them as well but made text-only
//   runs 15-20% slower, so no heap limit is set unless TRANSCRIPT_HYGIENE_HEAP_MB asks for one.
// - --max-semi-space-size=8: the young generation's semi-spaces stop growing at 8 MB. Node 20
//   and 22 let them reach 16 MB, V8 13 (Node 24) sizes them from the heap limit, to several times
//   that; on a 200k-message stream that spills held frames Node 24's own size took peak RSS from
//   169 to 290 MB and the run from 41 to 96 s (test/stream/long-holdback.test.ts). A text run's
//   objects live for one batch, so the larger space held garbage and nothing else: at 8 MB a
//   200k-message run peaks 15-20 MB lower on every Node version (Node 20: 105-108 against
//   87-90 MB), with about twice the scavenges, each half as long: 0-60 ms more in all, within
//   the noise of the run's 5-6 s (issue 27).
// - --heap-growing-percent=25: after a full collection V8 lets the old generation grow to 1.25
//   times what survived, not its default 2-4 times. A long text run keeps ~10 MB live in the old
//   generation but let it reach 30-40 MB between collections, so peak RSS grew with the run's
//   length: 1M mixed-details messages peaked at 201-205 MB without it and 185-187 MB with it,
//   200k at 146-157 and 139-140, CPU time unchanged within noise (issue 27).
// - MALLOC_MMAP_THRESHOLD_=262144: glibc serves allocations of 128 KiB and more with their own
//   mappings, returned to the system when freed, but raises that threshold to the size of each
//   such block it frees (up to 32 MiB). The session index frees MBs of typed arrays when its pass
//   ends, after which glibc kept blocks up to that size in its heap, where freed ones stayed
//   resident: on 1M mixed-details messages the read pass then sat at 161-166 MB, against
//   128-140 MB with the threshold fixed (which also stops its adjustment). At 128 KiB the hot
//   path's own blocks were mapped and unmapped over and over: 25% more CPU at 200k messages;
//   at 256 KiB (the index's 64K-entry blocks) the CPU time is the same as without.

import { getHeapStatistics } from 'node:v8';

/** Set in the re-executed child, so it does not re-exec again. */
export const TUNED_MARK = 'TRANSCRIPT_HYGIENE_TUNED';
/** The child's end of a pipe to the command, which closes when the command dies. */
export const LIFELINE_ENV = 'TRANSCRIPT_HYGIENE_LIFELINE_FD';
/** Overrides the heap limit, in MB; 0 leaves V8's default. */
export const HEAP_LIMIT_ENV = 'TRANSCRIPT_HYGIENE_HEAP_MB';
/** No heap limit of our own by default (node's); TRANSCRIPT_HYGIENE_HEAP_MB sets one. */
export const DEFAULT_HEAP_LIMIT_MB = 0;
/** The old generation's growth after a full collection (see the top of this file). */
export const HEAP_GROWING_FLAG = '--heap-growing-percent=25';
/** The young generation's cap (see the top of this file). */
export const SEMI_SPACE_FLAG = '--max-semi-space-size=8';
/** Node flags the command's process always runs with. */
export const NODE_FLAGS = ['--expose-gc', HEAP_GROWING_FLAG, SEMI_SPACE_FLAG];

/** A flag is given when the same option is, whatever its value (the user's own value wins). */
function isGiven(flag: string, given: readonly string[]): boolean {
  const name = flag.split('=')[0]!;
  return given.some((other) => other === flag || other.split('=')[0] === name);
}
export const DEFAULT_MALLOC_ARENA_MAX = '2';
/** glibc's mmap threshold, fixed (see the top of this file). */
export const DEFAULT_MALLOC_MMAP_THRESHOLD = '262144';
/** The exit code when the child ran out of its heap (V8 aborts it with SIGABRT). */
export const OUT_OF_MEMORY_EXIT = 10;

export interface TunedProcessSettings {
  execArgv: string[];
  env: NodeJS.ProcessEnv;
  heapLimitMb: number | undefined;
}

/** Commands that print and exit: they need no tuning and no second start-up. */
const LIGHT_COMMANDS = new Set<string | undefined>([undefined, 'help', '--help', '-h', 'policy', '--version', '-v']);

/**
 * The child's node flags and environment, or undefined when this process should run the
 * command itself (already tuned, a light command, or the user's own settings cover both).
 *
 * @param args the command's arguments (argv after the script)
 * @param execArgv node's own flags of this process
 */
export function tunedProcessSettings(args: readonly string[], env: NodeJS.ProcessEnv, execArgv: readonly string[]): TunedProcessSettings | undefined {
  if (env[TUNED_MARK] === '1' || LIGHT_COMMANDS.has(args[0]) || args.includes('--help') || args.includes('-h')) return undefined;
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  const userHeapFlag = given.some((flag) => /^--max-old-space-size(=|$)/.test(flag));
  const requested = env[HEAP_LIMIT_ENV];
  const heapLimitMb = userHeapFlag ? undefined : requested === undefined || requested === '' ? DEFAULT_HEAP_LIMIT_MB : Number(requested);
  if (heapLimitMb !== undefined && !(Number.isInteger(heapLimitMb) && heapLimitMb >= 0)) {
    throw new Error(`${HEAP_LIMIT_ENV} must be a whole number of MB (0 for node's default), got ${JSON.stringify(requested)}`);
  }
  const heapFlags = heapLimitMb ? [`--max-old-space-size=${heapLimitMb}`] : [];
  const missing = NODE_FLAGS.filter((flag) => !isGiven(flag, given));
  if (heapFlags.length === 0 && missing.length === 0 && env.MALLOC_ARENA_MAX !== undefined && env.MALLOC_MMAP_THRESHOLD_ !== undefined) return undefined;
  return {
    execArgv: [...execArgv, ...missing, ...heapFlags],
    env: {
      ...env,
      MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? DEFAULT_MALLOC_ARENA_MAX,
      MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? DEFAULT_MALLOC_MMAP_THRESHOLD,
      [TUNED_MARK]: '1',
    },
    heapLimitMb: heapLimitMb || undefined,
  };
}

/** The one line printed when the child ran out of heap. */
export function outOfMemoryMessage(heapLimitMb: number | undefined): string {
  const nodeDefaultMb = Math.round(getHeapStatistics().heap_size_limit / 1048576);
  const limit = heapLimitMb === undefined ? `node's heap limit, about ${nodeDefaultMb} MB` : `its ${heapLimitMb} MB heap limit`;
  const next = (heapLimitMb ?? nodeDefaultMb) * 2;
  return `transcript-hygiene: the run ran out of memory (${limit}) and stopped, no output file was replaced; run it again with ${HEAP_LIMIT_ENV}=${next}`;
}
