/**
 * The runner's real pattern for `npm run bench:runner`: a context that grows by one turn between
 * model calls, each call handed to the extension as pi 1.x hands it (a fresh `structuredClone` of
 * the whole history, which is pi's cost and not timed). For each size: the cold call (a new pi
 * process: the extension's first call at that size), the CPU time of each following call that
 * adds one turn, the prompt-cache share, and how many calls ran in full or reused the last one.
 * Mode `incremental` is the extension as it runs; `full` the handler without the incremental
 * path, for comparison in the same run.
 *
 * Prompt-cache share: providers cache a request by its prefix, so the bytes of the previous call's
 * output that come back unchanged at the start of the next call's output are bytes the user pays
 * the cache price for, not the full one. Measured on the JSON of the output messages, in order:
 * the common prefix of the two outputs' bytes over the previous output's bytes.
 */
import { registerContextHandler } from '../lib/pi/extension.ts';
import { IncrementalSanitizer } from '../lib/incremental/incremental-sanitizer.ts';
import type { PiContextEvent, PiContextEventResult, PiContextHandler, PiExtensionAPI, PiExtensionContext, PiModel } from '../lib/pi/types.ts';

export interface GrowthResult {
  readonly messages: number;
  /** `incremental`: the extension as it runs; `full`: without the incremental path (each call in full), for comparison in the same run. */
  readonly mode: 'incremental' | 'full';
  /** Calls that each added one turn (after the cold one). */
  readonly calls: number;
  /** CPU time of the first call of a fresh extension at this size. */
  readonly coldCpuMs: number;
  readonly cpuP50Ms: number;
  readonly cpuP95Ms: number;
  /** Prompt-cache share over the calls: the lowest and the mean. */
  readonly cacheShareMin: number;
  readonly cacheShareMean: number;
  /** Calls (the cold one included) that ran the whole context, and that reused the previous call's work. */
  readonly fullCalls: number;
  readonly incrementalCalls: number;
  /** Why the last full call after the cold one ran in full, if one did. */
  readonly lastFullReason: string | undefined;
  /**
   * CPU time of one walk over the last call's context that reads every value and compares
   * nothing (median of 5): the least any check that the context is what was seen can cost,
   * since pi hands over a fresh deep copy each call.
   */
  readonly readFloorMs: number;
  /**
   * CPU time of comparing every string of that context with the same string of another deep
   * copy of it (median of 5; collecting the strings is not timed). A copy's strings are new
   * strings, so an exact check compares their characters: with `readFloorMs`, the least it costs.
   */
  readonly stringCompareMs: number;
  /** How many characters those strings hold. */
  readonly stringChars: number;
}

/** Reads every key and value once; returns how many it read, so the walk cannot be optimized away. */
function readEveryValue(value: unknown): number {
  if (typeof value !== 'object' || value === null) return typeof value === 'string' ? value.length & 1 : 0;
  let read = 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) read += readEveryValue(value[i]);
    return read;
  }
  for (const key in value) read += readEveryValue((value as Record<string, unknown>)[key]);
  return read;
}

function readFloor(messages: readonly unknown[]): number {
  const times: number[] = [];
  let read = 0;
  for (let i = 0; i < 5; i++) {
    const copy = structuredClone(messages);
    const start = process.cpuUsage();
    read += readEveryValue(copy);
    times.push(cpuMs(start));
  }
  if (read === 0) throw new Error('the context is empty');
  times.sort((a, b) => a - b);
  return times[2]!;
}

function stringsOf(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (typeof value === 'object' && value !== null) for (const key in value) stringsOf((value as Record<string, unknown>)[key], into);
  return into;
}

function stringCompare(messages: readonly unknown[]): { ms: number; chars: number } {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const kept = stringsOf(structuredClone(messages), []);
    const fresh = stringsOf(structuredClone(messages), []);
    const start = process.cpuUsage();
    for (let k = 0; k < kept.length; k++) if (kept[k] !== fresh[k]) throw new Error('a deep copy changed a string');
    times.push(cpuMs(start));
  }
  times.sort((a, b) => a - b);
  let chars = 0;
  for (const text of stringsOf(messages, [])) chars += text.length;
  return { ms: times[2]!, chars };
}

function contextHandler(incremental: IncrementalSanitizer | undefined): PiContextHandler {
  let handler: PiContextHandler | undefined;
  const api: PiExtensionAPI = {
    on: (_event, registered) => {
      handler = registered;
    },
    getThinkingLevel: () => 'medium',
  };
  registerContextHandler(api, incremental);
  return handler!;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Where a runner calls the model: right before each assistant message (the history then ends with a user turn or tool results). */
export function callPoints(history: readonly unknown[], from: number, count: number): number[] {
  const points: number[] = [];
  for (let i = from; i < history.length && points.length < count; i++) {
    const message = history[i] as { role?: unknown };
    if (message.role === 'assistant') points.push(i);
  }
  return points;
}

/** The share of `previous`'s bytes that `next` starts with (both: the JSON of each message, in order). */
export function prefixShare(previous: readonly string[], next: readonly string[]): number {
  let total = 0;
  for (const text of previous) total += Buffer.byteLength(text);
  if (total === 0) return 1;
  let same = 0;
  for (let i = 0; i < previous.length; i++) {
    const a = previous[i]!;
    const b = next[i];
    if (a === b) {
      same += Buffer.byteLength(a);
      continue;
    }
    if (b !== undefined) {
      let k = 0;
      while (k < a.length && k < b.length && a.charCodeAt(k) === b.charCodeAt(k)) k++;
      same += Buffer.byteLength(a.slice(0, k));
    }
    break;
  }
  return same / total;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** `history` holds at least `size` messages plus `calls` more turns. */
export async function measureGrowth(history: readonly unknown[], size: number, calls: number, model: PiModel, mode: 'incremental' | 'full' = 'incremental'): Promise<GrowthResult> {
  const incremental = new IncrementalSanitizer();
  const handler = contextHandler(mode === 'incremental' ? incremental : undefined);
  const ctx: PiExtensionContext = { hasUI: true, model, ui: { notify: () => {}, setStatus: () => {} } };
  const points = callPoints(history, size, calls + 1);
  if (points.length < calls + 1) throw new Error(`the history has ${points.length - 1} turns after ${size} messages, ${calls} wanted`);
  const run = async (end: number): Promise<{ cpu: number; output: string[] }> => {
    const messages = structuredClone(history.slice(0, end)) as unknown[];
    const event: PiContextEvent = { type: 'context', messages };
    const start = process.cpuUsage();
    const result = (await handler(event, ctx)) as PiContextEventResult | undefined;
    const cpu = cpuMs(start);
    return { cpu, output: (result?.messages ?? messages).map((message) => JSON.stringify(message)) };
  };
  const cold = await run(points[0]!);
  let lastEnd = points[0]!;
  let previous = cold.output;
  const cpus: number[] = [];
  const shares: number[] = [];
  for (const end of points.slice(1)) {
    const { cpu, output } = await run(end);
    lastEnd = end;
    cpus.push(cpu);
    shares.push(prefixShare(previous, output));
    previous = output;
  }
  cpus.sort((a, b) => a - b);
  const context = history.slice(0, lastEnd);
  const strings = stringCompare(context);
  return {
    messages: size,
    mode,
    calls,
    coldCpuMs: cold.cpu,
    cpuP50Ms: percentile(cpus, 50),
    cpuP95Ms: percentile(cpus, 95),
    cacheShareMin: Math.min(...shares),
    cacheShareMean: shares.reduce((sum, share) => sum + share, 0) / shares.length,
    fullCalls: mode === 'incremental' ? incremental.counts.full : calls + 1,
    incrementalCalls: incremental.counts.incremental,
    lastFullReason: incremental.counts.full > 1 ? incremental.lastFullReason : undefined,
    readFloorMs: readFloor(context),
    stringCompareMs: strings.ms,
    stringChars: strings.chars,
  };
}
