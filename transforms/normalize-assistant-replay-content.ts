/**
 * normalize-assistant-replay-content (spec thinking.md §4.1–§4.4 and §4.14, turns-images-policy.md
 * §8.1; pipeline step 4, assistant side).
 *
 * Invariant: no assistant turn in the replay copy is an OpenClaw-only artifact (delivery mirror,
 * gateway-injected turn, bare mirror duplicate), a failed or empty stream turn, a silent
 * `NO_REPLY` turn, or a reasoning-only turn cut off by the output limit; no assistant text carries
 * runtime context or inbound metadata; no assistant carries display-only blocks (`attachment`,
 * `attachment_error`, `audio`, `image`, `video`); and every kept assistant has array content.
 *
 * Error prevented: providers reject or misread such history — empty or content-less assistant
 * turns ("all messages must have non-empty content"), hidden reasoning merged into the next
 * tool-use turn by strict providers, internal context leaked back to the model, and Bedrock
 * Converse's rejection of `content: []`.
 *
 * Per assistant message, in order (other roles pass through untouched):
 * 3. transcript-only OpenClaw assistants are dropped;
 * 4. failed turns (fallback-only content with `stopReason: "error"`, or empty content with a
 *    zero-usage `stop`) are dropped — except that on `policy.repairBedrockEmptyErrorTurns` routes an
 *    error turn with `content: []` is given the fallback text and one already holding exactly that
 *    text is kept (seed deviation, spec/README.md); both go on through the later steps;
 * 5. string content is stripped; blank or silent → dropped, else one text block (skips 7–9);
 * 6. other non-array content: an object is wrapped in an array, anything else becomes `[]`;
 * 7. array content loses display blocks and silent texts, texts are stripped; a turn left with no
 *    block, or with only reasoning after a silent text went, is dropped;
 * 8. reasoning-only `length` turns are dropped;
 * 9. a bare delivery-mirror duplicate of the previous emitted assistant is dropped.
 * Content rewrites go through the compaction-checkpoint rule (§4.3).
 *
 * Unit: buffered, but nothing is held: each message is emitted (or dropped) as it arrives; the
 * processor only keeps a reference to the last message it emitted, for step 9's one-message
 * lookbehind. Runs after drop-blank-user-text (a blank user turn dropped there is not "emitted",
 * exactly as in the reference, where both halves are one function).
 *
 * Counters: droppedTranscriptOnly, droppedFailedTurns, repairedFailedTurns, droppedSilentTurns,
 * droppedEmptiedTurns, droppedReasoningOnlyLengthTurns, droppedMirrorDuplicates (turns removed or
 * repaired); removedBlocks, strippedTexts, wrappedContent (changes to turns that are kept).
 * Untouched messages are emitted as the same object.
 */
import { isDeepStrictEqual } from 'node:util';
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { stripInternalMetadataForDisplay } from './runtime-context.ts';
import { isSilentReplyPayloadText } from './silent-reply.ts';

/** What OpenClaw persists for an assistant whose stream failed before producing anything. */
export const STREAM_ERROR_FALLBACK_TEXT = '[assistant turn failed before producing content]';

/** Block types OpenClaw shows in its own UI but never replays to a model. */
export const MANAGED_DISPLAY_BLOCK_TYPES: ReadonlySet<string> = new Set(['attachment', 'attachment_error', 'audio', 'image', 'video']);

const TRANSCRIPT_ONLY_MODELS: ReadonlySet<string> = new Set(['delivery-mirror', 'gateway-injected']);
const DELIVERY_MIRROR_KINDS: ReadonlySet<string> = new Set([
  'channel-final',
  'channel-final-suppressed',
  'message-tool-source-reply',
  'cron-direct-delivery-context',
]);
const FALLBACK_TEXT_BLOCK_TYPES: ReadonlySet<string> = new Set(['text', 'input_text', 'output_text']);
const PAIRED_CALL_TYPES: ReadonlySet<string> = new Set(['toolCall', 'toolUse', 'functionCall']);

// ---------------------------------------------------------------------------------------------
// Predicates (spec thinking.md §3, §4.1)

/** Step 3: a delivery mirror or gateway-injected turn, which exists only in OpenClaw's transcript. */
export function isTranscriptOnlyOpenClawAssistant(message: Message): boolean {
  if (message.provider === 'openclaw' && TRANSCRIPT_ONLY_MODELS.has(message.model as string)) return true;
  const mirror = message.openclawDeliveryMirror;
  return isRecord(mirror) && DELIVERY_MIRROR_KINDS.has(mirror.kind as string);
}

/**
 * Content a failed stream leaves: missing, a blank string or the fallback text (trimmed), or an
 * array whose every element is a text-like block holding such a string (so `[]` too).
 */
export function isStreamErrorFallbackContent(content: unknown): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === 'string') {
    const trimmed = content.trim();
    return trimmed === '' || trimmed === STREAM_ERROR_FALLBACK_TEXT;
  }
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) {
    if (!isRecord(block) || !FALLBACK_TEXT_BLOCK_TYPES.has(block.type as string)) return false;
    if (typeof block.text !== 'string' || !isStreamErrorFallbackContent(block.text)) return false;
  }
  return true;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * A usage object that records no tokens: with a finite total (`total`, `totalTokens`,
 * `total_tokens`, first present), the total is 0 and `input`, `output`, `cacheRead`, `cacheWrite`
 * are each 0 or not finite; without one, at least one of those four is finite and all finite ones are 0.
 */
export function hasZeroTokenUsageSnapshot(usage: unknown): boolean {
  if (typeof usage !== 'object' || usage === null) return false;
  const u = usage as Record<string, unknown>;
  const parts = [u.input, u.output, u.cacheRead, u.cacheWrite];
  const total = u.total ?? u.totalTokens ?? u.total_tokens;
  if (isFiniteNumber(total)) return total === 0 && parts.every((part) => !isFiniteNumber(part) || part === 0);
  let anyFinite = false;
  for (const part of parts) {
    if (!isFiniteNumber(part)) continue;
    if (part !== 0) return false;
    anyFinite = true;
  }
  return anyFinite;
}

/** Step 4's second case, judged as if the content were `[]`: a `stop` turn with a zero-usage snapshot. */
function isZeroUsageStop(message: Message): boolean {
  return message.stopReason === 'stop' && hasZeroTokenUsageSnapshot(message.usage);
}

/**
 * Only reasoning: every block is `thinking` or `redacted_thinking` or a blank-text `text` block,
 * and at least one is reasoning. Non-array object content counts as one block; other content as none.
 */
export function hasOnlyAssistantReasoningContent(message: Message): boolean {
  if (message.role !== 'assistant') return false;
  const content = message.content;
  const blocks: readonly unknown[] = Array.isArray(content) ? content : typeof content === 'object' && content !== null ? [content] : [];
  let hasThinking = false;
  for (const block of blocks) {
    if (!isRecord(block)) return false;
    if (block.type === 'thinking' || block.type === 'redacted_thinking') hasThinking = true;
    else if (!(block.type === 'text' && typeof block.text === 'string' && block.text.trim() === '')) return false;
  }
  return hasThinking;
}

/** Step 8: the provider's output limit cut the turn off while it was still reasoning. */
export function isReasoningOnlyLengthAssistantTurn(message: Message): boolean {
  return message.stopReason === 'length' && hasOnlyAssistantReasoningContent(message);
}

function hasPairedToolCalls(message: Message): boolean {
  const content = message.content;
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) {
    if (isRecord(block) && PAIRED_CALL_TYPES.has(block.type as string) && typeof block.id === 'string' && block.id !== '') return true;
  }
  return false;
}

/** The first alias present (not null or undefined), as the reference's usage normalizer reads it. */
function firstPresent(usage: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) {
    const dot = key.indexOf('.');
    let value: unknown;
    if (dot === -1) value = usage[key];
    else {
      const parent = usage[key.slice(0, dot)];
      value = isRecord(parent) ? parent[key.slice(dot + 1)] : undefined;
    }
    if (value !== null && value !== undefined) return value;
  }
  return undefined;
}

/** A token count: finite numbers truncated and floored at 0; anything else is 0. */
function tokenCount(value: unknown): number {
  return isFiniteNumber(value) ? Math.max(0, Math.trunc(value)) : 0;
}

/** Usage fields and their aliases, in the order the reference tries them (pinned on the oracle). */
const USAGE_ALIASES: readonly (readonly string[])[] = [
  ['input', 'inputTokens', 'input_tokens', 'promptTokens', 'prompt_tokens'],
  ['output', 'outputTokens', 'output_tokens', 'completionTokens', 'completion_tokens'],
  ['cacheRead', 'cache_read_input_tokens', 'cached_input_tokens', 'cached_tokens', 'input_tokens_details.cached_tokens', 'prompt_tokens_details.cached_tokens'],
  ['cacheWrite', 'cache_creation_input_tokens', 'cache_write_input_tokens'],
  ['total', 'totalTokens', 'total_tokens'],
  ['reasoningTokens', 'reasoning_tokens', 'completion_tokens_details.reasoning_tokens', 'output_tokens_details.reasoning_tokens'],
];

function hasContextUsage(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (value.state === 'unavailable') return true;
  if (value.state !== 'available' || !isFiniteNumber(value.promptTokens) || !isFiniteNumber(value.totalTokens)) return false;
  const prompt = tokenCount(value.promptTokens);
  const total = tokenCount(value.totalTokens);
  return prompt <= total && total > 0;
}

/**
 * Whether a usage object records anything: a positive input, output, cache read or write, total
 * or reasoning count (each read from its first present alias, truncated), or a context-usage
 * snapshot that is `unavailable` or `available` with a positive total.
 */
export function hasNonzeroUsage(usage: unknown): boolean {
  if (!isRecord(usage) && !Array.isArray(usage)) return false;
  const u = usage as Record<string, unknown>;
  for (const aliases of USAGE_ALIASES) if (tokenCount(firstPresent(u, aliases)) > 0) return true;
  return hasContextUsage(u.contextUsage);
}

/**
 * Step 9: `next` repeats the previous emitted assistant without cost — a zero (but present,
 * object) usage, `stopReason: "stop"`, no paired tool calls on either side, and the same
 * non-empty array content, deep-equal.
 */
export function isBareDeliveryMirrorDuplicate(previous: Message | undefined, next: Message): boolean {
  if (previous === undefined || previous.role !== 'assistant') return false;
  const usage = next.usage;
  if (typeof usage !== 'object' || usage === null || hasNonzeroUsage(usage)) return false;
  if (next.stopReason !== 'stop') return false;
  const content = previous.content;
  if (!Array.isArray(content) || content.length === 0) return false;
  if (hasPairedToolCalls(previous) || hasPairedToolCalls(next)) return false;
  return isDeepStrictEqual(content, next.content);
}

// ---------------------------------------------------------------------------------------------
// Compaction replay owner content (spec thinking.md §4.3)

const CHECKPOINT_TYPES: ReadonlySet<string> = new Set(['anthropic-compaction', 'openai-responses-compaction']);

function withoutProviderReplay(message: Message, content: ContentBlock[]): Message {
  const { providerReplay: _dropped, ...rest } = message;
  return { ...rest, content };
}

/**
 * Replaces an assistant's content, keeping a server-compaction checkpoint (`providerReplay`) in
 * step with it. Anthropic and OpenAI Responses compaction checkpoints point into the content by
 * `replayIndex` (default 0): when the new content is a subsequence of the old blocks (the same
 * objects, in order), the index is recounted as the kept blocks that were before it; when a block
 * is new (a rewritten text counts as new), the content was emptied, or the index was past the end,
 * the checkpoint is removed. Old string content always loses it. Other `providerReplay` values,
 * including retained compactions, are left as they are.
 */
export function replaceCompactionReplayOwnerContent(message: Message, content: ContentBlock[], oldContent: unknown = message.content): Message {
  const replay = message.providerReplay;
  if (!isRecord(replay) || !CHECKPOINT_TYPES.has(replay.type as string)) return { ...message, content };
  if (!Array.isArray(oldContent)) return withoutProviderReplay(message, content);
  const replayIndex: unknown = replay.replayIndex ?? 0;
  const limit = Number(replayIndex);
  if ((content.length === 0 && oldContent.length > 0) || limit > oldContent.length) return withoutProviderReplay(message, content);
  let oldIndex = 0;
  let keptBefore = 0;
  for (const block of content) {
    while (oldIndex < oldContent.length && oldContent[oldIndex] !== block) oldIndex++;
    if (oldIndex === oldContent.length) return withoutProviderReplay(message, content);
    if (oldIndex < limit) keptBefore++;
    oldIndex++;
  }
  if (keptBefore === replayIndex) return { ...message, content };
  return { ...message, content, providerReplay: { ...replay, replayIndex: keptBefore } };
}

// ---------------------------------------------------------------------------------------------
// The per-message normalization

export type ReplayOutcome =
  | 'kept'
  | 'droppedTranscriptOnly'
  | 'droppedFailedTurns'
  | 'droppedSilentTurns'
  | 'droppedEmptiedTurns'
  | 'droppedReasoningOnlyLengthTurns';

export interface ReplayNormalization {
  /** The message to emit (the input itself when untouched), or null when dropped. */
  readonly message: Message | null;
  readonly outcome: ReplayOutcome;
  /** Step 9 applies: the content came as an array (or a non-array object), not as a string. */
  readonly duplicateCheck: boolean;
  readonly repaired: boolean;
  readonly wrapped: boolean;
  readonly removedBlocks: number;
  readonly strippedTexts: number;
}

export interface ReplayNormalizationOptions {
  /** Bedrock Converse: repair `content: []` error turns instead of dropping them. */
  readonly repairBedrockEmptyErrorTurns?: boolean;
}

const KEPT_UNTOUCHED: Omit<ReplayNormalization, 'message'> = Object.freeze({
  outcome: 'kept',
  duplicateCheck: true,
  repaired: false,
  wrapped: false,
  removedBlocks: 0,
  strippedTexts: 0,
});

function dropped(outcome: ReplayOutcome): ReplayNormalization {
  return { message: null, outcome, duplicateCheck: false, repaired: false, wrapped: false, removedBlocks: 0, strippedTexts: 0 };
}

/** A turn the on-disk Bedrock repair leaves: exactly one text block holding exactly the fallback text. */
function holdsExactlyFallbackText(content: unknown): boolean {
  if (!Array.isArray(content) || content.length !== 1) return false;
  const block: unknown = content[0];
  return isRecord(block) && block.type === 'text' && block.text === STREAM_ERROR_FALLBACK_TEXT;
}

interface BlockPass {
  readonly content: unknown[];
  readonly changed: boolean;
  readonly removedSilentText: boolean;
  readonly removed: number;
  readonly stripped: number;
}

/** Step 7 over the blocks: the same array back when nothing changes. */
function normalizeBlocks(blocks: readonly unknown[]): BlockPass {
  let out: unknown[] | undefined;
  let removedSilentText = false;
  let removed = 0;
  let stripped = 0;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    let replacement: unknown = block;
    if (isRecord(block)) {
      if (MANAGED_DISPLAY_BLOCK_TYPES.has(block.type as string)) replacement = undefined;
      else if (typeof block.text === 'string') {
        const text = block.text;
        const cleaned = stripInternalMetadataForDisplay(text);
        if (cleaned === text) {
          if (isSilentReplyPayloadText(text.trim())) {
            replacement = undefined;
            removedSilentText = true;
          }
        } else {
          const trimmed = cleaned.trim();
          if (trimmed === '') replacement = undefined;
          else if (isSilentReplyPayloadText(trimmed)) {
            replacement = undefined;
            removedSilentText = true;
          } else {
            replacement = { ...block, text: cleaned };
            stripped++;
          }
        }
      }
    }
    if (replacement === block) {
      out?.push(block);
      continue;
    }
    out ??= blocks.slice(0, i);
    if (replacement === undefined) removed++;
    else out.push(replacement);
  }
  return out === undefined
    ? { content: blocks as unknown[], changed: false, removedSilentText, removed, stripped }
    : { content: out, changed: true, removedSilentText, removed, stripped };
}

/**
 * Steps 3–8 for one message (step 9 needs the previous emitted message; see the rule). Every
 * message that is not an assistant comes back untouched.
 */
export function normalizeAssistantReplayMessage(message: Message, options: ReplayNormalizationOptions = {}): ReplayNormalization {
  if (message.role !== 'assistant') return { message, ...KEPT_UNTOUCHED, duplicateCheck: false };
  if (isTranscriptOnlyOpenClawAssistant(message)) return dropped('droppedTranscriptOnly');

  let current: Message = message;
  let repaired = false;
  const content = message.content;
  if (isStreamErrorFallbackContent(content)) {
    const isError = message.stopReason === 'error';
    if (isError && options.repairBedrockEmptyErrorTurns === true && Array.isArray(content) && content.length === 0) {
      current = replaceCompactionReplayOwnerContent(message, [{ type: 'text', text: STREAM_ERROR_FALLBACK_TEXT }]);
      repaired = true;
    } else if (!(isError && options.repairBedrockEmptyErrorTurns === true && holdsExactlyFallbackText(content))) {
      if (isError || isZeroUsageStop(message)) return dropped('droppedFailedTurns');
    }
  }

  if (typeof content === 'string') {
    const cleaned = stripInternalMetadataForDisplay(content);
    const trimmed = cleaned.trim();
    if (trimmed === '') return dropped('droppedEmptiedTurns');
    if (isSilentReplyPayloadText(trimmed)) return dropped('droppedSilentTurns');
    return {
      message: replaceCompactionReplayOwnerContent(message, [{ type: 'text', text: cleaned }]),
      outcome: 'kept',
      duplicateCheck: false,
      repaired: false,
      wrapped: true,
      removedBlocks: 0,
      strippedTexts: cleaned === content ? 0 : 1,
    };
  }

  let wrapped = false;
  let blocks = current.content as unknown;
  if (!Array.isArray(blocks)) {
    blocks = typeof blocks === 'object' && blocks !== null ? [blocks] : [];
    // The reference throws here when a compaction checkpoint needs reindexing (it looks for the
    // blocks in the original object); the wrapped array is the old content instead.
    current = { ...current, content: blocks as ContentBlock[] };
    wrapped = true;
  }

  const pass = normalizeBlocks(blocks as unknown[]);
  if (pass.changed) {
    if (pass.content.length === 0) return dropped(pass.removedSilentText ? 'droppedSilentTurns' : 'droppedEmptiedTurns');
    current = replaceCompactionReplayOwnerContent(current, pass.content as ContentBlock[]);
    if (pass.removedSilentText && hasOnlyAssistantReasoningContent(current)) return dropped('droppedSilentTurns');
  }

  if (isReasoningOnlyLengthAssistantTurn(current)) return dropped('droppedReasoningOnlyLengthTurns');

  return {
    message: current,
    outcome: 'kept',
    duplicateCheck: true,
    repaired,
    wrapped,
    removedBlocks: pass.changed ? pass.removed : 0,
    strippedTexts: pass.changed ? pass.stripped : 0,
  };
}

// ---------------------------------------------------------------------------------------------
// The rule

class NormalizeAssistantReplayProcessor implements RuleProcessor {
  /** The last message emitted, for step 9; a reference only, never held back. */
  private lastEmitted: Message | undefined;
  private readonly options: ReplayNormalizationOptions;

  constructor(private readonly ctx: RuleContext) {
    this.options = { repairBedrockEmptyErrorTurns: ctx.policy.repairBedrockEmptyErrorTurns };
  }

  push(message: Message, emit: Emit): void {
    if (message.role !== 'assistant') {
      this.lastEmitted = message;
      emit(message);
      return;
    }
    const result = normalizeAssistantReplayMessage(message, this.options);
    const out = result.message;
    if (out === null) {
      this.ctx.count(result.outcome);
      return;
    }
    if (result.duplicateCheck && isBareDeliveryMirrorDuplicate(this.lastEmitted, out)) {
      this.ctx.count('droppedMirrorDuplicates');
      return;
    }
    if (result.repaired) this.ctx.count('repairedFailedTurns');
    if (result.wrapped) this.ctx.count('wrappedContent');
    if (result.removedBlocks > 0) this.ctx.count('removedBlocks', result.removedBlocks);
    if (result.strippedTexts > 0) this.ctx.count('strippedTexts', result.strippedTexts);
    this.lastEmitted = out;
    emit(out);
  }

  end(): void {
    this.lastEmitted = undefined;
  }
}

export const normalizeAssistantReplayContentRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'normalize-assistant-replay-content',
    summary:
      'Drops OpenClaw-only, failed, silent and reasoning-only length assistant turns and bare mirror duplicates, strips runtime context and display blocks from assistant content (Bedrock: repairs empty error turns).',
    counters: [
      'droppedTranscriptOnly',
      'droppedFailedTurns',
      'repairedFailedTurns',
      'droppedSilentTurns',
      'droppedEmptiedTurns',
      'droppedReasoningOnlyLengthTurns',
      'droppedMirrorDuplicates',
      'removedBlocks',
      'strippedTexts',
      'wrappedContent',
    ],
  },
  create(ctx: RuleContext): RuleProcessor {
    return new NormalizeAssistantReplayProcessor(ctx);
  },
};
