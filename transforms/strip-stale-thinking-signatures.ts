/**
 * strip-stale-thinking-signatures (spec thinking.md §4.5, `stripStaleThinkingSignaturesForCompactionReplay`;
 * thinking.md §1.1 step 5, the first half of step 6 of turns-images-policy.md §1: after the
 * image + blank-text pass, before `strip-invalid-thinking-signatures`).
 *
 * Invariant: no assistant turn from before the session's latest compaction replays a thinking
 * signature. C is the largest parsed `timestamp` of any `compactionSummary` message in the input
 * (wherever it sits; summaries without a parseable timestamp are ignored; none → no-op). Every
 * array assistant whose parsed timestamp is strictly less than C has, in each `thinking` or
 * `redacted_thinking` block that holds a non-null `thinkingSignature`, `signature` or
 * `thought_signature` (or, for `redacted_thinking`, a non-null `data`), those three fields
 * deleted, and `data` too for `redacted_thinking`. The thinking text stays; `thoughtSignature`
 * (camelCase) is not touched; equal, missing or unparseable timestamps leave the turn alone.
 * The unsigned block is then removed by `strip-invalid-thinking-signatures` unless it belongs to
 * the preserved latest assistant.
 *
 * Error prevented: Anthropic "Invalid signature in thinking block": a signature is bound to the
 * conversation prefix it was made for, and compaction replaced that prefix.
 *
 * Enabled when `providerRequiresSignedThinking(options.provider) || policy.preserveSignatures`
 * (`stripStaleThinkingSignaturesEnabled`).
 *
 * Lookahead (DESIGN.md, "whole-history facts"): C is a fact of the whole input. A session file's
 * reader knows it up front (its projection emits the one summary first) and can build the rule
 * with `createStripStaleThinkingSignaturesRule({ compactionTimestamp })`: then nothing is held.
 * On a bare message stream (`stripStaleThinkingSignaturesRule`) a summary may still come, so an
 * assistant whose signatures would be stripped by a large enough C, and whose timestamp is not
 * already below the largest C seen so far, is held in a SpillQueue with everything after it,
 * until a summary arrives whose timestamp decides it, or the end of input. Messages before the
 * first such assistant, and every message while nothing is held, stream through at once. (C only
 * grows, so an assistant below the C seen so far is final.)
 *
 * The reference throws on a `null` message here (§4.5); that is not reproduced: non-objects are
 * dropped by `drop-non-object-messages` and never reach this rule.
 *
 * Counters: `unsignedBlocks` (blocks whose signature fields were deleted), `unsignedTurns`,
 * `spilledEntries`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { Holdback, isArrayAssistant, isThinkingLikeBlock, parseTimestampMs, providerRequiresSignedThinking } from './thinking-shared.ts';
import { compactionTimestampOf } from '../lib/timestamps.ts';

const SIGNATURE_FIELDS = ['thinkingSignature', 'signature', 'thought_signature'] as const;

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** A thinking-like block that §4.5 unsigns: it holds a non-null signature field (or `data`, for redacted thinking). */
function isStaleSignedBlock(block: unknown): block is Record<string, unknown> {
  if (!isThinkingLikeBlock(block)) return false;
  if (isPresent(block.thinkingSignature) || isPresent(block.signature) || isPresent(block.thought_signature)) return true;
  return block.type === 'redacted_thinking' && isPresent(block.data);
}

function unsign(block: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...block };
  for (const field of SIGNATURE_FIELDS) delete copy[field];
  if (copy.type === 'redacted_thinking') delete copy.data;
  return copy;
}

export { compactionTimestampOf };

/**
 * The parsed timestamp of an assistant that §4.5 would change for a large enough C: an array
 * assistant with a parseable timestamp and at least one signed thinking-like block. Undefined
 * for every other message.
 */
function staleCandidateTimestamp(message: Message): number | undefined {
  if (!isArrayAssistant(message)) return undefined;
  const timestamp = parseTimestampMs(message.timestamp);
  if (timestamp === undefined) return undefined;
  return message.content.some(isStaleSignedBlock) ? timestamp : undefined;
}

/** One message under a known C: the same object unless it is a signed array assistant older than C. */
function unsignIfStale(message: Message, compactionAt: number | undefined): { message: Message; blocks: number } {
  if (compactionAt === undefined) return { message, blocks: 0 };
  const timestamp = staleCandidateTimestamp(message);
  if (timestamp === undefined || !(timestamp < compactionAt)) return { message, blocks: 0 };
  let blocks = 0;
  const content = (message.content as unknown[]).map((block) => {
    if (!isStaleSignedBlock(block)) return block;
    blocks++;
    return unsign(block);
  });
  return { message: { ...message, content: content as ContentBlock[] }, blocks };
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a > b ? a : b;
}

export interface StripStaleThinkingSignaturesOptions {
  /**
   * The compaction time known before the messages flow (a session file's index pass): the
   * largest `compactionSummary` timestamp of the input, as epoch milliseconds. Summaries in the
   * input still count (the larger value wins). `null`: known up front that the input holds no
   * summary, so nothing is held either.
   */
  compactionTimestamp?: number | null;
}

/**
 * The whole-array form (a pre-pass for C, then one pass): the same objects for untouched
 * messages, new ones for assistants whose signatures were stale.
 */
export function stripStaleThinkingSignatures(
  messages: readonly Message[],
  options: StripStaleThinkingSignaturesOptions = {},
): Message[] {
  let compactionAt = options.compactionTimestamp ?? undefined;
  for (const message of messages) compactionAt = maxDefined(compactionAt, compactionTimestampOf(message));
  return messages.map((message) => unsignIfStale(message, compactionAt).message);
}

interface StaleProcessorOptions {
  /** C is final from the start: never hold. */
  /** Undefined: not known, hold as needed; null: known to be none. */
  knownCompactionTimestamp: number | null | undefined;
  memoryBudgetBytes: number;
  count: (counter: string, n?: number) => void;
}

class StripStaleThinkingSignaturesProcessor implements RuleProcessor {
  private compactionAt: number | undefined;
  private readonly known: boolean;
  private readonly held: Holdback;
  private ended = false;

  constructor(private readonly options: StaleProcessorOptions) {
    this.compactionAt = options.knownCompactionTimestamp ?? undefined;
    this.known = options.knownCompactionTimestamp !== undefined;
    this.held = new Holdback(options.memoryBudgetBytes);
  }

  push(message: Message, emit: Emit): void {
    const summaryAt = compactionTimestampOf(message);
    if (summaryAt !== undefined) this.compactionAt = maxDefined(this.compactionAt, summaryAt);
    if (this.held.length > 0) {
      this.held.push(message);
      if (summaryAt !== undefined) this.release(emit);
      return;
    }
    if (this.isUndecided(message)) {
      this.held.push(message);
      return;
    }
    this.emitFinal(message, emit);
  }

  end(emit: Emit): void {
    this.ended = true;
    this.release(emit);
    const spilled = this.held.spilledEntries;
    if (spilled > 0) this.options.count('spilledEntries', spilled);
  }

  dispose(): void {
    this.held.dispose();
  }

  /** A signed assistant that a summary still to come could make stale. */
  private isUndecided(message: Message): boolean {
    if (this.known || this.ended) return false;
    const timestamp = staleCandidateTimestamp(message);
    if (timestamp === undefined) return false;
    return this.compactionAt === undefined || !(timestamp < this.compactionAt);
  }

  /** Emits held messages from the front until one is still undecided. */
  private release(emit: Emit): void {
    for (;;) {
      const front = this.held.peek();
      if (front === undefined || this.isUndecided(front)) return;
      this.held.shift();
      this.emitFinal(front, emit);
    }
  }

  private emitFinal(message: Message, emit: Emit): void {
    const result = unsignIfStale(message, this.compactionAt);
    if (result.blocks > 0) {
      this.options.count('unsignedBlocks', result.blocks);
      this.options.count('unsignedTurns');
    }
    emit(result.message);
  }
}

/** The pipeline gate (thinking.md §1.1 step 5): a provider that requires signed thinking, or a policy that preserves signatures. */
export function stripStaleThinkingSignaturesEnabled(policy: TranscriptPolicy, options: ResolvedHygieneOptions): boolean {
  return providerRequiresSignedThinking(options.provider) || policy.preserveSignatures;
}

const META = {
  name: 'strip-stale-thinking-signatures',
  summary: 'Removes thinking signatures from assistant turns older than the latest compaction summary, keeping the thinking text.',
  counters: ['unsignedBlocks', 'unsignedTurns', 'spilledEntries'],
} as const;

/**
 * The rule with the compaction time known up front (session files): holds nothing. Without
 * `compactionTimestamp` it is the bare-stream rule, which holds as described above.
 */
export function createStripStaleThinkingSignaturesRule(options: StripStaleThinkingSignaturesOptions = {}): BufferedRule {
  return {
    unit: 'buffered',
    meta: META,
    create(ctx: RuleContext) {
      return new StripStaleThinkingSignaturesProcessor({
        // The rule's own option wins; else what the reader learned up front (file pre-scan, session index).
        knownCompactionTimestamp: options.compactionTimestamp !== undefined ? options.compactionTimestamp : ctx.options.compactionTimestamp,
        memoryBudgetBytes: ctx.options.memoryBudgetBytes,
        count: ctx.count,
      });
    },
  };
}

/** The bare-message-stream rule: the compaction time comes from the `compactionSummary` messages it sees. */
export const stripStaleThinkingSignaturesRule: BufferedRule = createStripStaleThinkingSignaturesRule();
