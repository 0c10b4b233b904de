/**
 * The in-memory path: a message array in, the hygiene output out, for callers that already hold
 * the messages as objects (a runner's context before a model call).
 *
 * Same rules and order as every other entry point (`createPipeline`); what differs is only what an
 * array makes unnecessary:
 * - nothing is parsed or stringified, and nothing spills: the messages are in memory already, so
 *   held frames get no memory budget (a spill would also replace the caller's objects by copies);
 * - the compaction time is read from the array before the messages flow, so the stale-signature
 *   rule never holds signed turns to the end;
 * - it runs synchronously and returns a plain value unless an asynchronous rule (image
 *   recompression) has work in flight; only then is the result a promise.
 * Untouched messages come back as the same objects; when nothing changed at all, `messages` is the
 * input array itself.
 */
import { createPipeline, type HygienePipeline } from './pipeline.ts';
import type { HygieneOptions } from './options.ts';
import { imageCensusIfImages } from './image-census.ts';
import type { HygieneStats } from './stats.ts';
import { isRecord, type Message } from './types.ts';
import { compactionTimestampOf } from './timestamps.ts';

export interface InMemoryOptions extends HygieneOptions {
  /**
   * Apply the request-time steps (trailing prefill with thinking on): true for a copy about to be
   * sent (the default here), false for the replay copy that `sanitizeSessionHistory` returns.
   */
  requestTime?: boolean;
}

export interface InMemoryResult {
  /** The output; the input array itself when no rule changed, dropped or added anything. */
  readonly messages: readonly Message[];
  /** False when `messages` is the input array. */
  readonly changed: boolean;
  readonly stats: HygieneStats;
}

/** Larger than any array a process can hold: held frames never spill. */
export const NO_SPILL_BUDGET = Number.MAX_SAFE_INTEGER;

/** The largest compactionSummary timestamp of the array, or null when it has none. */
export function compactionTimestampIn(messages: readonly unknown[]): number | null {
  let latest: number | null = null;
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'compactionSummary') continue;
    const at = compactionTimestampOf(message as Message);
    if (at !== undefined && (latest === null || at > latest)) latest = at;
  }
  return latest;
}

function sameArray(input: readonly unknown[], output: readonly Message[]): boolean {
  if (input.length !== output.length) return false;
  for (let i = 0; i < input.length; i++) if (input[i] !== output[i]) return false;
  return true;
}

function finish(input: readonly unknown[], output: Message[], pipeline: HygienePipeline): InMemoryResult {
  const changed = !sameArray(input, output);
  return { messages: changed ? output : (input as readonly Message[]), changed, stats: pipeline.stats() };
}

/**
 * Continues a run that an asynchronous rule paused: before message `from`, or (`from` undefined)
 * while ending.
 */
async function continueAsync(input: readonly unknown[], output: Message[], pipeline: HygienePipeline, wait: Promise<void>, from: number | undefined): Promise<InMemoryResult> {
  try {
    await wait;
    if (from !== undefined) {
      for (let i = from; i < input.length; i++) {
        const next = pipeline.write(input[i]);
        if (next !== undefined) await next;
      }
      const ended = pipeline.end();
      if (ended !== undefined) await ended;
    }
    return finish(input, output, pipeline);
  } finally {
    pipeline.dispose();
  }
}

/** The hygiene output of a message array for one route (see the module comment). */
export function sanitizeInMemory(messages: readonly unknown[], options: InMemoryOptions): InMemoryResult | Promise<InMemoryResult> {
  const { requestTime = true, ...rest } = options;
  const output: Message[] = [];
  const pipeline = createPipeline(
    { memoryBudgetBytes: NO_SPILL_BUDGET, compactionTimestamp: compactionTimestampIn(messages), imageCensus: imageCensusIfImages(messages), ...rest },
    (message) => output.push(message),
    { requestTime },
  );
  let sync = true;
  try {
    for (let i = 0; i < messages.length; i++) {
      const wait = pipeline.write(messages[i]);
      if (wait !== undefined) {
        sync = false;
        return continueAsync(messages, output, pipeline, wait, i + 1);
      }
    }
    const ended = pipeline.end();
    if (ended !== undefined) {
      sync = false;
      return continueAsync(messages, output, pipeline, ended, undefined);
    }
    return finish(messages, output, pipeline);
  } finally {
    if (sync) pipeline.dispose();
  }
}
