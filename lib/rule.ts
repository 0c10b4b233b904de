/**
 * The contract between a hygiene rule and the machinery that runs it.
 *
 * A rule never sees a stream. A message rule is a pure function from one message to
 * its replacement; a buffered rule is a small processor that holds back what it needs
 * for lookahead and emits when it can. `lib/stage.ts` turns either into a Transform.
 */
import type { Message } from './types.ts';
import type { TranscriptPolicy } from './policy.ts';
import type { ResolvedHygieneOptions } from './options.ts';

/**
 * What a message rule returns: the same object when untouched (the output writer then
 * copies the original line), a new object when changed (never mutate the input),
 * `null` to drop it, or an array to expand it into several messages.
 */
export type RuleOutput = Message | readonly Message[] | null;

export interface RuleMeta {
  /** kebab-case, verb first; shown in errors, stats and `transcript-hygiene policy`. */
  readonly name: string;
  /** One sentence for the README table and `policy` output. */
  readonly summary: string;
  /** The counters this rule reports into the stats. */
  readonly counters: readonly string[];
}

export interface RuleContext {
  readonly policy: TranscriptPolicy;
  readonly options: ResolvedHygieneOptions;
  /** Adds `n` (default 1) to one of this rule's counters. */
  count(counter: string, n?: number): void;
  /** The clock for synthetic messages; injectable so outputs are reproducible. */
  now(): number;
}

export interface MessageRule {
  readonly unit: 'message';
  readonly meta: RuleMeta;
  apply(message: Message, ctx: RuleContext): RuleOutput;
}

export type Emit = (message: Message) => void;

/** One instance per stream: holds back messages for lookahead. */
export interface RuleProcessor {
  push(message: Message, emit: Emit): void;
  /** End of input: emit everything still held. An asynchronous processor returns a promise that settles once it has. */
  end(emit: Emit): void | Promise<void>;
  /**
   * Asynchronous processors only (image recompression): a promise while the processor is
   * at its in-flight limit; the runner waits for it before writing the next message, so
   * work in flight, not input, bounds memory. A processor that emits from a callback must
   * catch what `emit` throws and reject this promise (or `end`'s) with it.
   */
  ready?(): Promise<void> | undefined;
  /** Called once when the stream is torn down (error or destroy) to release resources such as spill files. */
  dispose?(): void;
  /**
   * A copy of this processor's state that counts into `ctx` (the incremental runner path). Only
   * for processors whose state lib/fork-state.ts cannot copy by itself (closures, work in flight);
   * throws `Unforkable` (lib/fork-state.ts) when it cannot be copied now.
   */
  fork?(ctx: RuleContext): RuleProcessor;
}

export interface BufferedRule {
  readonly unit: 'buffered';
  readonly meta: RuleMeta;
  create(ctx: RuleContext): RuleProcessor;
}

export type Rule = MessageRule | BufferedRule;
