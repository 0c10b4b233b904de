/**
 * sanitize-tool-call-ids (spec tool-calls.md §5, Rule C; tool-calls.md §1.1 step 5,
 * turns-images-policy.md §1 step 10, after pairing repair).
 *
 * Invariant: every paired call id (§2.1) is in the character set and length the route accepts
 * (`strict`: alphanumerics, at most 40; `strict9`: exactly 9 alphanumerics), ids stay unique
 * across the transcript, and every tool result points at the rewritten id of the call it answers.
 * Native Anthropic `toolu_…` ids (when the policy preserves them), first-use Kimi `functions.x:N`
 * ids, first-use `call_…` ids under the "openai" duplicate style, and the ids of replay-safe
 * thinking turns (§5.5) are kept verbatim.
 *
 * Error prevented: providers reject tool-call ids outside their pattern (Gemini / Cloud Code
 * Assist, Mistral's 9-character ids) and duplicate ids ("tool_use ids must be unique").
 *
 * Unit: a left-to-right fold (state: ids in use, occurrence counters, FIFO of assigned ids per raw
 * id); each message is emitted as soon as it arrives. With §5.5 on, the reservations need the whole
 * transcript, so every message is held in a SpillQueue (bounded by `memoryBudgetBytes`, spilling to
 * disk past it) until the end, while the pre-scan collects the reservations; the fold then runs over
 * the queue. Counters: `idsRewritten` (call ids changed), `resultsRewritten` (results changed),
 * `orphanResultIds` (results with no pending call id, given `<raw>:tool_result:<n>` ids),
 * `preservedThinkingTurns` (replay-safe thinking turns whose ids were reserved), `spilledMessages`.
 * Untouched messages are returned as the same object.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { recordEdits } from '../lib/message-edits.ts';
import { isRecord } from '../lib/types.ts';
import { SpillQueue } from '../lib/frames.ts';
import { lineKeepingCodec } from '../lib/spill-lines.ts';
import { HashedIdCounter, HashedIdSet } from '../lib/hashed-ids.ts';
import {
  allowProviderOwnedThinkingReplay,
  hasToolCallInput,
  isCallTypeBlock,
  isPairedCallBlock,
  isSyntheticToolResult,
  isThinkingLikeBlock,
  isValidToolNameSyntax,
  mapCallBlockIds,
  normalizeAllowedToolNames,
  resultIdOf,
  rewriteRawIdOf,
  rewriteResultIds,
  sha256Hex,
} from './tool-call-shapes.ts';
import { deleteKey } from '../lib/young-maps.ts';

/** `strict`, `strict9`, or any other string (a variant of strict with `_` separators, §5.4). */
export type ToolCallIdSanitizeMode = string;

export interface SanitizeToolCallIdsOptions {
  readonly preserveNativeAnthropicToolUseIds?: boolean;
  /** `"openai"`: first-use `call_…` ids kept, repeats become `call_<24 hex>` (§5.2). */
  readonly duplicateToolCallIdStyle?: string;
  /** §5.5: reserve and keep the ids of replay-safe thinking turns (needs the whole transcript). */
  readonly preserveReplaySafeThinkingToolCallIds?: boolean;
  readonly allowedToolNames?: readonly string[];
  /** Clock of the practically unreachable fallbacks after 1000 collisions (default Date.now). */
  readonly now?: () => number;
}

const MAX_ID_LENGTH = 40;
const KIMI_NATIVE_ID = /^functions\.[A-Za-z0-9_-]+:\d+$/;
const OPENAI_CALL_ID = /^call_[A-Za-z0-9_-]+$/;
const ANTHROPIC_NATIVE_ID = /^toolu_[A-Za-z0-9_]+$/;
const NON_ALNUM = /[^a-zA-Z0-9]/g;

// ---------------------------------------------------------------------------------------------
// §5.4 character rule and unique allocation

/** `sanitizeToolCallId(id, mode)`: the character rule alone, without uniqueness (§5.4). */
export function sanitizeToolCallId(id: unknown, mode: ToolCallIdSanitizeMode): string {
  const strict9 = mode === 'strict9';
  if (typeof id !== 'string' || id === '') return strict9 ? 'defaultid' : 'defaulttoolid';
  if (strict9) {
    const alnum = id.replace(NON_ALNUM, '');
    if (alnum.length >= 9) return alnum.slice(0, 9);
    return sha256Hex(alnum.length > 0 ? alnum : 'sanitized').slice(0, 9);
  }
  if (KIMI_NATIVE_ID.test(id)) return id;
  const alnum = id.replace(NON_ALNUM, '');
  return alnum.length > 0 ? alnum : 'sanitizedtoolid';
}

/** The ids taken so far: a Set<string>, or the fold's HashedIdSet (lib/hashed-ids.ts). */
export interface UsedIds {
  has(id: string): boolean;
  add(id: string): unknown;
}

/** Takes `candidate` when it is free: adds it to `used`. */
function claim(used: UsedIds, candidate: string): boolean {
  if (used instanceof HashedIdSet) return used.claim(candidate); // one hash instead of two
  if (used.has(candidate)) return false;
  used.add(candidate);
  return true;
}

/** `makeUniqueToolId(seed, used, mode)` (§5.4): allocates an id not in `used` and adds it there. */
export function makeUniqueToolId(
  seed: string,
  used: UsedIds,
  mode: ToolCallIdSanitizeMode,
  now: () => number = Date.now,
): string {
  if (mode === 'strict9') {
    const candidate = sanitizeToolCallId(seed, mode);
    if (claim(used, candidate)) return candidate;
    for (let i = 0; i < 1000; i++) {
      const hashed = sha256Hex(`${seed}:${i}`).slice(0, 9);
      if (claim(used, hashed)) return hashed;
    }
    const last = sha256Hex(`${seed}:${now()}`).slice(0, 9);
    used.add(last);
    return last;
  }
  const base = sanitizeToolCallId(seed, mode).slice(0, MAX_ID_LENGTH);
  if (claim(used, base)) return base;
  const strict = mode === 'strict';
  const separator = strict ? '' : '_';
  const hashed = base.slice(0, MAX_ID_LENGTH - separator.length - 8) + separator + sha256Hex(seed).slice(0, 8);
  if (claim(used, hashed)) return hashed;
  for (let i = 2; i < 1000; i++) {
    const suffix = strict ? `x${i}` : `_${i}`;
    const candidate = hashed.slice(0, MAX_ID_LENGTH - suffix.length) + suffix;
    if (claim(used, candidate)) return candidate;
  }
  // Unreachable in practice; the spec only says the clock is appended.
  const suffix = strict ? `t${now()}` : `_${now()}`;
  const last = hashed.slice(0, Math.max(0, MAX_ID_LENGTH - suffix.length)) + suffix;
  used.add(last);
  return last;
}

// ---------------------------------------------------------------------------------------------
// §5.5 pre-scan: replay-safe thinking turns

interface ThinkingCandidate {
  readonly index: number;
  readonly ids: readonly string[];
  /** Call ids whose name is outside the allowlist and that still need a real result to be completed. */
  readonly uncompleted: Set<string> | undefined;
}

/**
 * The candidate record of an assistant that is replay-safe apart from the completed exemption, or
 * undefined: a thinking or redacted_thinking block, at least one call block, and every call block
 * with input, a non-blank id unique in the message, a name that needs no trimming and is syntactically
 * valid (or, ours, belongs to a call a real result answers in its frame).
 */
function thinkingCandidate(content: readonly unknown[], index: number, allowlist: ReadonlySet<string> | undefined): ThinkingCandidate | undefined {
  let thinking = false;
  let ids: string[] | undefined;
  let uncompleted: Set<string> | undefined;
  for (const block of content) {
    if (isThinkingLikeBlock(block)) {
      thinking = true;
      continue;
    }
    if (!isCallTypeBlock(block)) continue;
    if (!hasToolCallInput(block)) return undefined;
    const id = block.id;
    if (typeof id !== 'string') return undefined;
    const trimmed = id.trim();
    if (trimmed === '') return undefined;
    if (ids !== undefined) {
      for (const other of ids) if (other.trim() === trimmed) return undefined;
    }
    const name = block.name;
    if (typeof name === 'string' && name.trim() !== name) return undefined;
    // Ours (issue 20): a name outside §2.3 stays only on a call a tool answered
    // (validate-tool-call-inputs), so like a disallowed name it needs a real result in its frame;
    // answered, the turn is as replay-safe as with a valid name. The reference drops such turns.
    if (!isValidToolNameSyntax(name) || (allowlist !== undefined && !allowlist.has(name.toLowerCase()))) (uncompleted ??= new Set()).add(id);
    (ids ??= []).push(id);
  }
  if (!thinking || ids === undefined) return undefined;
  return { index, ids, uncompleted };
}

/** What the pre-scan yields: ids reserved up front, and the indices of the preserved assistants. */
export interface ThinkingReservations {
  readonly reserved: ReadonlySet<string>;
  readonly preserved: ReadonlySet<number>;
}

/**
 * The §5.5 pre-scan, fed one message at a time in transcript order.
 *
 * The completed exemption (§2.4) asks whether pairing classification of this step's input gives the
 * call a real (non-synthetic, §2.5) result. This step runs after pairing repair (tool-calls.md §1.1
 * step 4 before step 5; pairing is on for every policy), so each call's result already sits in the
 * call's own frame. The scan therefore approximates the classification by "a real result whose
 * result id (§2.2) equals the call id appears later in the same frame" (up to the next assistant
 * with paired calls), which is exact on repaired input; on unrepaired input it misses results that
 * pairing would move back from a later frame, and can count a result that pairing would treat as a
 * duplicate. Only calls that need the exemption (valid name outside the allowlist) are tracked, so
 * memory grows with the replay-safe candidates, not with the transcript.
 */
export class ReplaySafeThinkingScan {
  private index = 0;
  private readonly candidates: ThinkingCandidate[] = [];
  /** The candidate owning the current frame, while some of its calls are not yet completed. */
  private open: ThinkingCandidate | undefined;
  private readonly allowlist: ReadonlySet<string> | undefined;

  constructor(allowedToolNames?: readonly unknown[]) {
    this.allowlist = normalizeAllowedToolNames(allowedToolNames);
  }

  observe(message: Message): void {
    const index = this.index++;
    if (!isRecord(message)) return;
    const role = message.role;
    if (role === 'assistant') {
      const content = message.content;
      if (!Array.isArray(content)) return;
      let paired = false;
      for (const block of content) {
        if (isPairedCallBlock(block)) {
          paired = true;
          break;
        }
      }
      if (!paired) return; // frames end only at assistants with paired calls
      this.open = undefined;
      const candidate = thinkingCandidate(content, index, this.allowlist);
      if (candidate === undefined) return;
      this.candidates.push(candidate);
      if (candidate.uncompleted !== undefined) this.open = candidate;
      return;
    }
    if (role === 'toolResult' && this.open !== undefined) {
      const uncompleted = this.open.uncompleted!;
      const id = resultIdOf(message);
      if (id === undefined || !uncompleted.has(id) || isSyntheticToolResult(message)) return;
      uncompleted.delete(id);
      if (uncompleted.size === 0) this.open = undefined;
    }
  }

  /** Reserves, in transcript order, the ids of each replay-safe turn none of whose ids is reserved yet. */
  finish(): ThinkingReservations {
    const reserved = new Set<string>();
    const preserved = new Set<number>();
    for (const candidate of this.candidates) {
      if (candidate.uncompleted !== undefined && candidate.uncompleted.size > 0) continue;
      if (candidate.ids.some((id) => reserved.has(id))) continue;
      for (const id of candidate.ids) reserved.add(id);
      preserved.add(candidate.index);
    }
    return { reserved, preserved };
  }
}

// ---------------------------------------------------------------------------------------------
// The fold (§5.1–§5.3)

export type ToolCallIdCounter = 'idsRewritten' | 'resultsRewritten' | 'orphanResultIds';

/** The left-to-right fold of §5.1: one instance per transcript. */
export class ToolCallIdFold {
  // Transcript-wide, one entry per call: hashed, and moved to disk past a bound, so a 1M-message
  // session holds about 2 MiB a table (lib/hashed-ids.ts); dispose() closes their file.
  private readonly used: HashedIdSet;
  private readonly assistantOccurrences = new HashedIdCounter();
  private readonly orphanOccurrences = new HashedIdCounter();
  /** Not readonly: replaced by a new map when it empties (lib/young-maps.ts). */
  private pendingByRawId = new Map<string, string[]>();
  private readonly mode: ToolCallIdSanitizeMode;
  private readonly openaiStyle: boolean;
  private readonly preserveNative: boolean;
  private readonly now: () => number;

  constructor(
    mode: ToolCallIdSanitizeMode,
    options: SanitizeToolCallIdsOptions = {},
    reserved: Iterable<string> = [],
    private readonly onCount?: (counter: ToolCallIdCounter, n: number) => void,
  ) {
    this.mode = mode;
    this.openaiStyle = options.duplicateToolCallIdStyle === 'openai';
    this.preserveNative = options.preserveNativeAnthropicToolUseIds === true;
    this.now = options.now ?? Date.now;
    this.used = new HashedIdSet(reserved);
  }

  /** Releases the tables' run files; the fold answers nothing after this. */
  dispose(): void {
    this.used.dispose();
    this.assistantOccurrences.dispose();
    this.orphanOccurrences.dispose();
  }

  /** The message with its ids resolved; `preserved` marks a replay-safe thinking turn (§5.5). */
  apply(message: Message, preserved = false): Message {
    if (!isRecord(message)) return message;
    const role = message.role;
    if (role === 'assistant') return this.applyAssistant(message, preserved);
    if (role === 'toolResult') return this.applyResult(message);
    return message;
  }

  private applyAssistant(message: Message, preserved: boolean): Message {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    const { content: out, edits } = mapCallBlockIds(content, isPairedCallBlock, (raw) => {
      const next = preserved ? raw : this.resolveCallId(raw);
      this.enqueue(raw, next);
      return next;
    });
    if (out === undefined) return message;
    this.onCount?.('idsRewritten', edits.length);
    // Only block ids changed, and the edits say which.
    return recordEdits(message, { ...message, content: out }, edits);
  }

  private enqueue(raw: string, assigned: string): void {
    const queue = this.pendingByRawId.get(raw);
    if (queue === undefined) this.pendingByRawId.set(raw, [assigned]);
    else queue.push(assigned);
  }

  /** §5.2. */
  private resolveCallId(raw: string): string {
    const occurrence = this.assistantOccurrences.increment(raw);
    const used = this.used;
    if (this.openaiStyle) {
      if (occurrence > 1) {
        for (let attempt = 0; ; attempt++) {
          const candidate = `call_${sha256Hex(`${raw}:${occurrence}:${attempt}`).slice(0, 24)}`;
          if (claim(used, candidate)) return candidate;
        }
      }
      if (OPENAI_CALL_ID.test(raw) && claim(used, raw)) return raw;
    }
    if (this.preserveNative && occurrence === 1 && ANTHROPIC_NATIVE_ID.test(raw) && claim(used, raw)) return raw;
    return makeUniqueToolId(occurrence === 1 ? raw : `${raw}:${occurrence}`, used, this.mode, this.now);
  }

  /** §5.3 and the §5.1 alias rewrite. */
  private applyResult(message: Message): Message {
    const raw = rewriteRawIdOf(message);
    if (raw === undefined) return message;
    let resolved: string | undefined;
    const queue = this.pendingByRawId.get(raw);
    if (queue !== undefined) {
      resolved = queue.shift()!;
      if (queue.length === 0) this.pendingByRawId = deleteKey(this.pendingByRawId, raw);
    } else {
      const n = this.orphanOccurrences.increment(raw);
      this.onCount?.('orphanResultIds', 1);
      // Oracle: a kept native orphan id is taken into `used` like any allocated id.
      if (this.preserveNative && n === 1 && ANTHROPIC_NATIVE_ID.test(raw) && claim(this.used, raw)) resolved = raw;
      else resolved = makeUniqueToolId(`${raw}:tool_result:${n}`, this.used, this.mode, this.now);
    }
    const out = rewriteResultIds(message, resolved);
    if (out !== message) this.onCount?.('resultsRewritten', 1);
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Pure core over an array

/**
 * `sanitizeToolCallIdsForCloudCodeAssist(messages, mode, options)` over a whole array: the same
 * array when no message changed, else a new array whose untouched messages are the same objects.
 */
export function sanitizeToolCallIds(
  messages: readonly Message[],
  mode: ToolCallIdSanitizeMode = 'strict',
  options: SanitizeToolCallIdsOptions = {},
): readonly Message[] {
  let reservations: ThinkingReservations | undefined;
  if (options.preserveReplaySafeThinkingToolCallIds === true) {
    const scan = new ReplaySafeThinkingScan(options.allowedToolNames);
    for (const message of messages) scan.observe(message);
    reservations = scan.finish();
  }
  const fold = new ToolCallIdFold(mode, options, reservations?.reserved);
  const preserved = reservations?.preserved;
  let out: Message[] | undefined;
  try {
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      const next = fold.apply(message, preserved !== undefined && preserved.has(i));
      if (out === undefined && next !== message) out = messages.slice(0, i);
      if (out !== undefined) out.push(next);
    }
  } finally {
    fold.dispose();
  }
  return out ?? messages;
}

// ---------------------------------------------------------------------------------------------
// Rule

function optionsFor(ctx: RuleContext): SanitizeToolCallIdsOptions {
  const { policy, options } = ctx;
  return {
    preserveNativeAnthropicToolUseIds: policy.preserveNativeAnthropicToolUseIds,
    duplicateToolCallIdStyle: policy.duplicateToolCallIdStyle,
    preserveReplaySafeThinkingToolCallIds: allowProviderOwnedThinkingReplay(policy, options),
    allowedToolNames: options.allowedToolNames,
    now: ctx.now,
  };
}

/** The fold alone: each message is emitted as it arrives. */
class StreamingIdSanitizer implements RuleProcessor {
  private readonly fold: ToolCallIdFold;

  constructor(ctx: RuleContext, mode: ToolCallIdSanitizeMode, options: SanitizeToolCallIdsOptions) {
    this.fold = new ToolCallIdFold(mode, options, [], ctx.count);
  }

  push(message: Message, emit: Emit): void {
    emit(this.fold.apply(message));
  }

  end(): void {
    this.fold.dispose();
  }

  dispose(): void {
    this.fold.dispose();
  }
}

/** §5.5: hold everything (spilling past the budget) while pre-scanning; fold at the end. */
class HeldIdSanitizer implements RuleProcessor {
  private readonly queue: SpillQueue<Message>;
  private readonly scan: ReplaySafeThinkingScan;
  private folded: ToolCallIdFold | undefined;

  constructor(
    private readonly ctx: RuleContext,
    private readonly mode: ToolCallIdSanitizeMode,
    private readonly options: SanitizeToolCallIdsOptions,
  ) {
    this.queue = new SpillQueue<Message>(lineKeepingCodec, { budgetBytes: ctx.options.memoryBudgetBytes });
    this.scan = new ReplaySafeThinkingScan(options.allowedToolNames);
  }

  push(message: Message): void {
    this.scan.observe(message);
    this.queue.push(message);
  }

  end(emit: Emit): void {
    const { ctx, queue } = this;
    const { reserved, preserved } = this.scan.finish();
    if (preserved.size > 0) ctx.count('preservedThinkingTurns', preserved.size);
    if (queue.spilledEntries > 0) ctx.count('spilledMessages', queue.spilledEntries);
    const fold = new ToolCallIdFold(this.mode, this.options, reserved, ctx.count);
    this.folded = fold;
    for (let index = 0; queue.length > 0; index++) {
      const message = queue.shift()!;
      emit(fold.apply(message, preserved.has(index)));
    }
    queue.dispose();
    fold.dispose();
  }

  dispose(): void {
    this.queue.dispose();
    this.folded?.dispose();
  }
}

export const sanitizeToolCallIdsRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'sanitize-tool-call-ids',
    summary: 'Rewrites tool-call ids to the route\'s strict or strict9 shape, unique across the transcript, and points each tool result at its call\'s new id.',
    counters: ['idsRewritten', 'resultsRewritten', 'orphanResultIds', 'preservedThinkingTurns', 'spilledMessages'],
  },
  create(ctx) {
    const mode = ctx.policy.toolCallIdMode ?? 'strict';
    const options = optionsFor(ctx);
    return options.preserveReplaySafeThinkingToolCallIds === true
      ? new HeldIdSanitizer(ctx, mode, options)
      : new StreamingIdSanitizer(ctx, mode, options);
  },
};
