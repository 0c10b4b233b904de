/**
 * strip-invalid-thinking-signatures (spec thinking.md §4.6 `stripInvalidThinkingSignatures` with
 * §4.6.1 `shouldPreserveLatestAssistantThinking`; thinking.md §1.1 steps 4–5, the second half of
 * step 6 of turns-images-policy.md §1: right after `strip-stale-thinking-signatures`).
 *
 * Invariant: no assistant turn replays a `thinking` or `redacted_thinking` block without a
 * replayable signature, except the latest one when it is exempt. Replayable = at least one of
 * `signature`, `thinkingSignature`, `thought_signature` (and `data`, for `redacted_thinking`) is a
 * string that is not blank after trim; nothing else is checked (`thoughtSignature` is not read).
 * A turn that loses blocks keeps the rest; one left with nothing becomes
 * `[{type: "text", text: "[assistant reasoning omitted]"}]`, so its turn structure stays.
 * String-content assistants and every other role pass through. Error turns are treated like any
 * other (oracle).
 *
 * The latest array assistant L is left untouched (Anthropic rejects a *modified* latest thinking
 * block) when §4.6.1 says so: L is the last message, or L is the current tool turn: at or after
 * the last `user` message, holding a `toolCall`/`tool_use`/`function_call` block, the first
 * assistant since that user message (or the start), with a `toolResult` somewhere after it.
 *
 * Error prevented: Anthropic "thinking.signature: Field required" / "Invalid signature in
 * thinking block" for unsigned or blank-signed thinking replayed in history.
 *
 * Enabled when `providerRequiresSignedThinking(options.provider) || policy.preserveSignatures`
 * (`stripInvalidThinkingSignaturesEnabled`): anthropic, amazon-bedrock and anthropic-vertex on
 * any api, and every route whose policy preserves signatures (all anthropic-messages and
 * bedrock-converse-stream routes, minimax, Copilot's Anthropic transport).
 *
 * Lookahead (exact, §4.6.1 "Streaming"): the most recent array assistant is held in a SpillQueue
 * with the messages after it until another array assistant arrives (the held one is not L: it is
 * cleaned), a `user` message arrives (it may be L, but then §4.6.1 answers false: it is cleaned),
 * or the input ends (decided by §4.6.1). Normally the hold is one assistant and its tool results.
 *
 * Counters: `removedBlocks`, `placeholders`, `preservedLatest` (a latest assistant left untouched
 * although it held blocks this rule would remove), `spilledEntries`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { Message } from '../lib/types.ts';
import {
  Holdback,
  hasReplayToolCallBlock,
  isArrayAssistant,
  isThinkingLikeBlock,
  providerRequiresSignedThinking,
  withoutBlocks,
} from './thinking-shared.ts';

function isReplayableSignature(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/** A thinking-like block with a replayable signature (§4.6). */
export function hasReplayableSignature(block: Record<string, unknown>): boolean {
  if (isReplayableSignature(block.signature) || isReplayableSignature(block.thinkingSignature) || isReplayableSignature(block.thought_signature)) {
    return true;
  }
  return block.type === 'redacted_thinking' && isReplayableSignature(block.data);
}

function isUnsignedThinking(block: unknown): boolean {
  return isThinkingLikeBlock(block) && !hasReplayableSignature(block);
}

/** §4.6 for one array assistant that is not exempt. */
function clean(message: Message): { message: Message; removed: number; placeholder: boolean } {
  return withoutBlocks(message, isUnsignedThinking);
}

/** Whether an array assistant holds a block this rule would remove. */
function hasUnsignedThinking(message: Message): boolean {
  return (message.content as unknown[]).some(isUnsignedThinking);
}

/**
 * `isCurrentToolTurn(i)` (§4.6.1), shared with `drop-reasoning-from-history`: at or after the last
 * `user` message, an array assistant with a `toolCall`/`tool_use`/`function_call` block, the
 * first assistant since the previous `user` message (or the start), and followed by a
 * `toolResult` before any `user` message.
 */
export function isCurrentToolTurn(messages: readonly Message[], index: number, lastUserIndex: number): boolean {
  if (index < lastUserIndex) return false;
  const message = messages[index];
  if (message === undefined || !isArrayAssistant(message) || !hasReplayToolCallBlock(message)) return false;
  for (let i = index - 1; i >= 0; i--) {
    const role = messages[i]!.role;
    if (role === 'user') break;
    if (role === 'assistant') return false;
  }
  for (let i = index + 1; i < messages.length; i++) {
    const role = messages[i]!.role;
    if (role === 'toolResult') return true;
    if (role === 'user') return false;
  }
  return false;
}

/** Index of the last message with `role: "user"`, or -1. */
export function lastUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return i;
  return -1;
}

function lastArrayAssistantIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (isArrayAssistant(messages[i]!)) return i;
  return -1;
}

/** `shouldPreserveLatestAssistantThinking` (§4.6.1), on the whole list. */
export function shouldPreserveLatestAssistantThinking(messages: readonly Message[]): boolean {
  const latest = lastArrayAssistantIndex(messages);
  if (latest < 0) return false;
  if (latest === messages.length - 1) return true;
  return isCurrentToolTurn(messages, latest, lastUserIndex(messages));
}

export interface StripInvalidThinkingSignaturesOptions {
  /**
   * Leave the latest array assistant untouched. Default: `shouldPreserveLatestAssistantThinking`
   * of the input, as the replay pipeline decides it (the reference function's own default is
   * `true`; manual compaction passes `false`).
   */
  preserveLatestAssistant?: boolean;
}

/** The whole-array form: the same objects for untouched messages. */
export function stripInvalidThinkingSignatures(
  messages: readonly Message[],
  options: StripInvalidThinkingSignaturesOptions = {},
): Message[] {
  const preserve = options.preserveLatestAssistant ?? shouldPreserveLatestAssistantThinking(messages);
  const exempt = preserve ? lastArrayAssistantIndex(messages) : -1;
  return messages.map((message, index) => (index === exempt || !isArrayAssistant(message) ? message : clean(message).message));
}

interface InvalidProcessorOptions {
  memoryBudgetBytes: number;
  count: (counter: string, n?: number) => void;
}

class StripInvalidThinkingSignaturesProcessor implements RuleProcessor {
  /** The held array assistant (front of the queue) and everything after it. */
  private readonly held: Holdback;
  /** An assistant message of any shape was seen since the last user message (or the start). */
  private assistantSinceUser = false;
  /** Facts about the held assistant, for the decision at the end of input. */
  private heldIsFirstOfTurn = false;
  private heldHasToolCall = false;
  private toolResultAfterHeld = false;

  constructor(private readonly options: InvalidProcessorOptions) {
    this.held = new Holdback(options.memoryBudgetBytes);
  }

  push(message: Message, emit: Emit): void {
    const role = message.role;
    if (isArrayAssistant(message)) {
      // The held assistant is not the latest one.
      this.settle(false, emit);
      this.heldIsFirstOfTurn = !this.assistantSinceUser;
      this.heldHasToolCall = hasReplayToolCallBlock(message);
      this.toolResultAfterHeld = false;
      this.assistantSinceUser = true;
      this.held.push(message);
      return;
    }
    if (role === 'assistant') this.assistantSinceUser = true;
    if (role === 'user') {
      // The held assistant may be the latest, but it is then before the last user message.
      this.settle(false, emit);
      this.assistantSinceUser = false;
      emit(message);
      return;
    }
    if (this.held.length === 0) {
      emit(message);
      return;
    }
    if (role === 'toolResult') this.toolResultAfterHeld = true;
    this.held.push(message);
  }

  end(emit: Emit): void {
    if (this.held.length > 0) {
      const isLastMessage = this.held.length === 1;
      this.settle(isLastMessage || (this.heldHasToolCall && this.heldIsFirstOfTurn && this.toolResultAfterHeld), emit);
    }
    const spilled = this.held.spilledEntries;
    if (spilled > 0) this.options.count('spilledEntries', spilled);
  }

  dispose(): void {
    this.held.dispose();
  }

  /** Emits the held assistant (untouched when `preserve`, else cleaned) and what follows it. */
  private settle(preserve: boolean, emit: Emit): void {
    const assistant = this.held.shift();
    if (assistant === undefined) return;
    if (preserve) {
      if (hasUnsignedThinking(assistant)) this.options.count('preservedLatest');
      emit(assistant);
    } else {
      const result = clean(assistant);
      if (result.removed > 0) this.options.count('removedBlocks', result.removed);
      if (result.placeholder) this.options.count('placeholders');
      emit(result.message);
    }
    this.held.drain(emit);
  }
}

/** The pipeline gate (thinking.md §1.1 step 5): a provider that requires signed thinking, or a policy that preserves signatures. */
export function stripInvalidThinkingSignaturesEnabled(policy: TranscriptPolicy, options: ResolvedHygieneOptions): boolean {
  return providerRequiresSignedThinking(options.provider) || policy.preserveSignatures;
}

export const stripInvalidThinkingSignaturesRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'strip-invalid-thinking-signatures',
    summary: 'Removes thinking blocks without a replayable signature (emptied turns get "[assistant reasoning omitted]"), leaving the latest assistant alone when it is the current turn.',
    counters: ['removedBlocks', 'placeholders', 'preservedLatest', 'spilledEntries'],
  },
  create(ctx: RuleContext) {
    return new StripInvalidThinkingSignaturesProcessor({ memoryBudgetBytes: ctx.options.memoryBudgetBytes, count: ctx.count });
  },
};

/** Exported for tests: whether a block counts as signed for §4.6. */
export function isReplayableThinkingBlock(block: unknown): boolean {
  return isThinkingLikeBlock(block) && hasReplayableSignature(block);
}
