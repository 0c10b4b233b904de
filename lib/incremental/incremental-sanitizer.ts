/**
 * The in-memory hygiene for a caller that sends a growing context again and again (a runner before
 * each model call): a call whose context starts with the previous call's pays for the new messages,
 * not the whole history. Its result equals `sanitizeInMemory`'s for the same messages and options
 * (test/properties/incremental.property.test.ts holds the two equal call by call).
 *
 * Why that is sound. The pipeline is a chain of streaming rules: what it emits before message k is
 * written, and every rule's state at that point, depend only on messages 0..k-1 and on what the
 * pipeline was created with (the options and the two whole-history facts the in-memory path reads
 * up front: the latest compaction time and the image census). So it keeps:
 * - a private deep copy of every message it was given, frozen (nothing the caller or a rule does
 *   later reaches it);
 * - a live pipeline fed those copies and never ended, and what it emitted so far.
 * A new call reuses them only when its options and whole-history facts are the same and its first
 * k messages equal the k kept copies exactly (every value is read and compared with the copy's
 * tape, ./value-tape.ts; no sampling, no ids or timestamps as stand-ins). It then writes the new
 * messages into the live pipeline, ends a fork of it (lib/fork-state.ts copies every rule's
 * state), and joins what the live pipeline emitted with what the fork emitted at the end. Rules
 * whose decisions reach back (the latest assistant, the current turn, trailing prefill, held
 * frames) hold those messages in their state until the end, so the fork decides them exactly as a
 * full run would.
 *
 * It runs in full, and starts over from that run, whenever it is not sure: different options or
 * facts (a model, thinking or tools switch; a new compaction; a new image), a context that does
 * not start with the kept one (an edit, a compaction, a branch switch), a value that is not plain
 * JSON, or a rule with work in flight (image recompression). A rule state that cannot be copied,
 * or a fork that fails inside (not a rule's own error), ends the live pipeline itself as the full
 * run, keeping nothing. `counts` says how many calls ran each way.
 *
 * Synthetic messages (a missing tool result) are stamped with `options.now` by the call that first
 * makes them and keep that time on later calls; a full run stamps them anew.
 *
 * Output: untouched messages are the caller's own objects of this call, as from a full run; a
 * message a rule made is given out with the caller's objects of this call wherever it kept a part
 * of its input, and new objects elsewhere (./caller-objects.ts), so a caller changing what it gets
 * cannot change what is kept. Memory: one private copy of the context and its tape, plus the
 * rules' state.
 */
import { createPipeline, type HygienePipeline } from '../pipeline.ts';
import { NO_SPILL_BUDGET, sanitizeInMemory, type InMemoryOptions, type InMemoryResult } from '../in-memory.ts';
import type { ImageCensus } from '../image-census.ts';
import { lastUnforkable } from '../stage.ts';
import { isHygieneError } from '../errors.ts';
import { imagesToReplace } from '../../transforms/limit-request-images.ts';
import type { HygieneStats } from '../stats.ts';
import type { Message } from '../types.ts';
import { HistoryFacts } from './history-facts.ts';
import { freshCopy, NotJsonLike, privateCopy, sameJson } from './same-json.ts';
import { matchesTape, tapeOf, type ValueTape } from './value-tape.ts';
import { withCallerObjects } from './caller-objects.ts';
import { sameOptions } from './same-options.ts';

/**
 * What the rules read of the whole-history facts: the compaction time; of the image census,
 * limit-request-images how many of the oldest images to replace (`imagesToReplace`) and
 * sanitize-images the image count (`perImageLimits`). Nothing else reads `options.imageCensus`, so
 * two histories with the same effect get the same rules, though the census itself (its byte
 * total) moves with every new message.
 */
function effectOf(pipeline: HygienePipeline, compactionTimestamp: number | null, census: ImageCensus | undefined): readonly (number | null)[] {
  if (census === undefined) return [compactionTimestamp];
  const replaced = pipeline.policy.requestImageLimits === undefined ? 0 : imagesToReplace(pipeline.policy, { ...pipeline.options, imageCensus: census });
  return [compactionTimestamp, census.imageChars.length, replaced];
}

interface Retained {
  readonly options: InMemoryOptions;
  /** Running totals of the whole-history facts over `inputs`. */
  readonly facts: HistoryFacts;
  /** What the live pipeline was created with, as the rules read it (`effectOf`). */
  readonly effect: readonly (number | null)[];
  /** Private copies of the messages written so far, in input order. */
  readonly inputs: unknown[];
  /** The tape of each of `inputs` (./value-tape.ts), to check the next call's context against. */
  readonly tapes: ValueTape[];
  /** A private copy -> its index in the input. */
  readonly inputIndex: Map<object, number>;
  /** Fed `inputs`, never ended. */
  readonly live: HygienePipeline;
  /** What `live` emitted so far. */
  readonly emitted: Message[];
  /**
   * For `emitted[k]` (filled as they come): the index of the input copy it is; for a message a
   * rule made, -2 - the index of the input it shares parts with (`madeFrom`), or -1 when none.
   */
  readonly emittedSource: number[];
}

export interface IncrementalCounts {
  /** Calls that ran the whole context. */
  full: number;
  /** Calls that reused the previous call's work. */
  incremental: number;
}

export class IncrementalSanitizer {
  private retained: Retained | undefined;
  readonly counts: IncrementalCounts = { full: 0, incremental: 0 };
  /** Why the last call ran in full (for the bench and tests). */
  lastFullReason: string | undefined;

  /** The hygiene of `messages`, equal to `sanitizeInMemory(messages, options)`. */
  sanitize(messages: readonly unknown[], options: InMemoryOptions): InMemoryResult | Promise<InMemoryResult> {
    const retained = this.retained;
    const reason = this.whyNotExtend(messages, options);
    if (reason === undefined) {
      const result = this.extend(retained!, messages);
      if (result !== undefined) {
        this.counts.incremental++;
        return result;
      }
    } else {
      this.lastFullReason = reason;
    }
    this.counts.full++;
    return this.runFull(messages, options);
  }

  /** Forgets what was kept (the next call runs in full). */
  reset(): void {
    this.retained?.live.dispose();
    this.retained = undefined;
  }

  /** Undefined when `messages` extends what was kept and the rules would see the same facts; else why not. */
  private whyNotExtend(messages: readonly unknown[], options: InMemoryOptions): string | undefined {
    const retained = this.retained;
    if (retained === undefined) return 'first call';
    if (!sameOptions(retained.options, options)) return 'options changed';
    const { inputs, tapes } = retained;
    if (messages.length < inputs.length) return 'context shorter than the last one';
    for (let i = 0; i < tapes.length; i++) if (!matchesTape(messages[i], tapes[i]!)) return 'context differs from the last one';
    // The prefix is what was counted already: only the new messages are added to the totals.
    const { facts } = retained;
    facts.add(messages, inputs.length, inputs);
    if (!sameJson(retained.effect, effectOf(retained.live, facts.compactionTimestamp, facts.census()))) return 'compaction time or image census changed';
    return undefined;
  }

  private runFull(messages: readonly unknown[], options: InMemoryOptions): InMemoryResult | Promise<InMemoryResult> {
    this.reset();
    const facts = new HistoryFacts();
    facts.add(messages, 0, []);
    const { requestTime = true, ...rest } = options;
    const emitted: Message[] = [];
    const census = facts.census();
    const live = createPipeline(
      { memoryBudgetBytes: NO_SPILL_BUDGET, compactionTimestamp: facts.compactionTimestamp, imageCensus: census, ...rest },
      (message) => emitted.push(message),
      { requestTime },
    );
    const effect = effectOf(live, facts.compactionTimestamp, census);
    const retained: Retained = { options, facts, effect, inputs: [], tapes: [], inputIndex: new Map(), live, emitted, emittedSource: [] };
    this.retained = retained;
    const result = this.extend(retained, messages);
    if (result !== undefined) return result;
    // Not something the kept pipeline can do (see extend): the plain path, nothing kept.
    this.reset();
    return sanitizeInMemory(messages, options);
  }

  /**
   * Writes messages from `retained.inputs.length` on into the live pipeline, then ends a fork of it.
   * Undefined (and nothing kept) when that cannot be done exactly; a rule's error is thrown.
   */
  private extend(retained: Retained, messages: readonly unknown[]): InMemoryResult | Promise<InMemoryResult> | undefined {
    const { inputs, tapes, inputIndex, live } = retained;
    try {
      for (let i = inputs.length; i < messages.length; i++) {
        const copy = privateCopy(messages[i]);
        inputs.push(copy);
        tapes.push(tapeOf(copy));
        if (typeof copy === 'object' && copy !== null) inputIndex.set(copy, i);
        const wait = live.write(copy);
        if (wait !== undefined) {
          // An asynchronous rule has work in flight: its state cannot be forked.
          wait.catch(() => {});
          this.lastFullReason = 'a rule has work in flight';
          this.reset();
          return undefined;
        }
      }
    } catch (error) {
      this.reset();
      if (error instanceof NotJsonLike) {
        this.lastFullReason = error.message;
        return undefined;
      }
      throw error;
    }
    const tail: Message[] = [];
    // The private copies are frozen, so the fork shares them without being told.
    const fork = live.fork((message) => tail.push(message), () => false);
    if (fork === undefined) {
      // The live pipeline has read the whole context: ending it is this call's full run. Nothing is kept.
      this.lastFullReason = lastUnforkable;
      this.retained = undefined;
      return this.endKeepingNothing(retained, messages);
    }
    // A rule's own error (invalid_replay_transcript) is the answer; anything else from the copy
    // (a state the copy missed) must not be: the live pipeline then ends as the full run.
    const distrust = (error: unknown): InMemoryResult | Promise<InMemoryResult> => {
      if (isHygieneError(error) && error.code !== 'rule_failed') throw error;
      this.lastFullReason = `the forked rules failed: ${error instanceof Error ? error.message : String(error)}`;
      if (this.retained === retained) this.retained = undefined;
      return this.endKeepingNothing(retained, messages);
    };
    let sync = true;
    try {
      const ended = fork.end();
      if (ended !== undefined) {
        sync = false;
        return ended.then(() => this.result(retained, messages, tail, fork.stats()), distrust).finally(() => fork.dispose());
      }
      return this.result(retained, messages, tail, fork.stats());
    } catch (error) {
      return distrust(error);
    } finally {
      if (sync) fork.dispose();
    }
  }

  /** Ends the live pipeline itself (a full run's result) and disposes of it. */
  private endKeepingNothing(retained: Retained, messages: readonly unknown[]): InMemoryResult | Promise<InMemoryResult> {
    const { live } = retained;
    let sync = true;
    try {
      const ended = live.end();
      if (ended !== undefined) {
        sync = false;
        return ended.then(() => this.result(retained, messages, [], live.stats())).finally(() => live.dispose());
      }
      return this.result(retained, messages, [], live.stats());
    } finally {
      if (sync) live.dispose();
    }
  }

  /** The output: kept copies become the caller's objects of this call; what rules made gets them too (./caller-objects.ts). */
  private result(retained: Retained, messages: readonly unknown[], tail: readonly Message[], stats: HygieneStats): InMemoryResult {
    const { emitted, emittedSource, inputIndex, inputs } = retained;
    for (let k = emittedSource.length; k < emitted.length; k++) {
      const index = inputIndex.get(emitted[k]!);
      if (index !== undefined) {
        emittedSource.push(index);
        continue;
      }
      // A rule's message mostly stands where its input did: just after the last input emitted.
      let near = 0;
      for (let j = k - 1; j >= Math.max(0, k - SOURCE_LOOKBACK); j--) {
        const before = emittedSource[j]!;
        if (before >= 0) {
          near = before + 1;
          break;
        }
        if (before <= -2) {
          near = -2 - before + 1;
          break;
        }
      }
      emittedSource.push(-2 - madeFrom(emitted[k]!, inputs, near));
    }
    const total = emitted.length + tail.length;
    const out = new Array<Message>(total);
    let changed = total !== messages.length;
    for (let k = 0; k < emitted.length; k++) {
      const index = emittedSource[k]!;
      if (index >= 0) {
        out[k] = messages[index] as Message;
        if (index !== k) changed = true;
      } else {
        const from = -2 - index;
        out[k] = (from >= 0 ? withCallerObjects(emitted[k], inputs[from], messages[from]) : freshCopy(emitted[k]!)) as Message;
        changed = true;
      }
    }
    // What the fork emitted at the end is new on every call (and short: the last turn or two).
    for (let k = emitted.length; k < total; k++) {
      const message = tail[k - emitted.length]!;
      const index = inputIndex.get(message);
      if (index !== undefined) {
        out[k] = messages[index] as Message;
        if (index !== k) changed = true;
      } else {
        out[k] = freshCopy(message);
        changed = true;
      }
    }
    return { messages: changed ? out : (messages as readonly Message[]), changed, stats };
  }
}

/** How many emitted messages back `result` looks for the last one whose input is known. */
const SOURCE_LOOKBACK = 8;

/** How far from its guessed place `madeFrom` looks for a rule's message's input. */
const SOURCE_REACH = 2;

/**
 * The index of an input copy that the rule-made `message` shares a part with (a top-level value,
 * or a block of its content), looked for around `near`; -1 when none is found (it is then given
 * out as a whole copy). Only a cheaper answer: any input would be sound (./caller-objects.ts).
 */
function madeFrom(message: Message, inputs: readonly unknown[], near: number): number {
  for (let step = 0; step <= 2 * SOURCE_REACH; step++) {
    const at = near + (step % 2 === 0 ? step / 2 : -(step + 1) / 2);
    if (at >= 0 && at < inputs.length && sharesPart(message, inputs[at])) return at;
  }
  return -1;
}

function sharesPart(message: Message, input: unknown): boolean {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const kept = input as Record<string, unknown>;
  for (const key in message) {
    const value: unknown = (message as Record<string, unknown>)[key];
    if (typeof value !== 'object' || value === null) continue;
    const keptValue = kept[key];
    if (value === keptValue) return true;
    if (Array.isArray(value) && Array.isArray(keptValue)) {
      for (const item of value) if (typeof item === 'object' && item !== null && keptValue.includes(item)) return true;
    }
  }
  return false;
}
