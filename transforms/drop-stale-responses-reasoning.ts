/**
 * drop-stale-responses-reasoning (spec thinking.md §4.11 `dropStaleOpenAIReasoning`; thinking.md
 * §1.1 step 9 and turns-images-policy.md §1 step 9: on the OpenAI Responses family, after the
 * first pairing repair (`repair-responses-tool-result-pairing`), before id normalization and the
 * function-call downgrade).
 *
 * Invariant: after the session switched model route at time S, no assistant turn from before
 * the switch replays OpenAI reasoning items (their encrypted state belongs to the old route).
 * Each array assistant whose parsed `timestamp` is not greater than S (a missing or unparseable
 * timestamp counts as before) loses its falsy blocks and every `thinking` block whose
 * `thinkingSignature` is an OpenAI reasoning item (an object, or a string that trims to `{…}` and
 * JSON-parses, with an `id` starting `rs_` and a `type` of `reasoning` or `reasoning.*`); other
 * thinking blocks stay. A turn left with nothing is removed (no placeholder). When reasoning was
 * removed, every `text` block with a `textSignature` loses its paired message id: a JSON
 * signature `{v: 1, phase: "commentary" | "final_answer", ...}` becomes exactly
 * `{"v":1,"phase":...}`, any other signature is deleted. The new content goes through the
 * compaction-owner rule (§4.3): a server-compaction checkpoint (`providerReplay`) whose blocks no
 * longer match is removed, and its `replayIndex` is moved when blocks before it went away.
 *
 * Error prevented: OpenAI "Item with id 'rs_…' not found" / encrypted reasoning that cannot be
 * decrypted after the route changed model or account.
 *
 * S comes from the option `modelSwitchedAt` (the session index pass reads it from the
 * `model-snapshot` entries; a bare message stream has none). Without it the rule is a no-op, as
 * the reference is on a session without snapshots.
 *
 * Enabled when `policy.responsesFamily && options.modelSwitchedAt !== undefined`
 * (`dropStaleResponsesReasoningEnabled`). Unit: message (S is known before messages flow).
 * Counters: `removedReasoning` (reasoning blocks removed), `removedFalsyBlocks`, `droppedTurns`,
 * `textSignatures` (text signatures rewritten or removed), `droppedCheckpoints`.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { isArrayAssistant, parseTimestampMs } from './thinking-shared.ts';

/**
 * `parseOpenAIReasoningSignature` (§4.11): the reasoning item a `thinkingSignature` holds, or
 * undefined when it holds none.
 */
export function parseOpenAIReasoningSignature(signature: unknown): Record<string, unknown> | undefined {
  let item: unknown = signature;
  if (typeof signature === 'string') {
    const trimmed = signature.trim();
    if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
    try {
      item = JSON.parse(trimmed);
    } catch {
      return undefined;
    }
  }
  if (!isRecord(item)) return undefined;
  const { id, type } = item;
  if (typeof id !== 'string' || !id.startsWith('rs_')) return undefined;
  if (type !== 'reasoning' && !(typeof type === 'string' && type.startsWith('reasoning.'))) return undefined;
  return item;
}

const TEXT_PHASES: ReadonlySet<unknown> = new Set(['commentary', 'final_answer']);

/** The phase of a `{v: 1, phase}` text signature (a JSON string or an object), else undefined. */
function textSignaturePhase(signature: unknown): string | undefined {
  let value: unknown = signature;
  if (typeof signature === 'string') {
    try {
      value = JSON.parse(signature);
    } catch {
      return undefined;
    }
  }
  if (!isRecord(value) || value.v !== 1 || !TEXT_PHASES.has(value.phase)) return undefined;
  return value.phase as string;
}

/** A text block without the paired message id in its `textSignature`; the same block when it has none. */
function unpairTextSignature(block: unknown): unknown {
  if (!isRecord(block) || block.type !== 'text' || !Object.hasOwn(block, 'textSignature')) return block;
  const phase = textSignaturePhase(block.textSignature);
  if (phase !== undefined) return { ...block, textSignature: JSON.stringify({ v: 1, phase }) };
  const copy: Record<string, unknown> = { ...block };
  delete copy.textSignature;
  return copy;
}

const CHECKPOINT_TYPES: ReadonlySet<unknown> = new Set(['anthropic-compaction', 'openai-responses-compaction']);

/**
 * `replaceCompactionReplayOwnerContent` (§4.3): the message with new content, keeping a
 * server-compaction checkpoint consistent. `dropped` is true when the checkpoint was removed.
 */
export function replaceCompactionReplayOwnerContent(
  message: Message,
  oldContent: readonly unknown[],
  newContent: readonly unknown[],
): { message: Message; dropped: boolean } {
  const replay = message.providerReplay;
  if (!isRecord(replay) || !CHECKPOINT_TYPES.has(replay.type)) {
    // Not a checkpoint, or `openai-responses-retained-compaction` (its checkpoint is left as is).
    return { message: { ...message, content: newContent as ContentBlock[] }, dropped: false };
  }
  const replayIndex = Number(replay.replayIndex ?? 0);
  let consistent = !(newContent.length === 0 && oldContent.length > 0) && !(replayIndex > oldContent.length);
  let keptBefore = 0;
  let cursor = 0;
  for (let i = 0; consistent && i < newContent.length; i++) {
    while (cursor < oldContent.length && oldContent[cursor] !== newContent[i]) cursor++;
    if (cursor === oldContent.length) consistent = false;
    else if (cursor++ < replayIndex) keptBefore++;
  }
  if (!consistent) {
    const copy: Message = { ...message, content: newContent as ContentBlock[] };
    delete copy.providerReplay;
    return { message: copy, dropped: true };
  }
  const providerReplay = keptBefore === replayIndex ? replay : { ...replay, replayIndex: keptBefore };
  return { message: { ...message, content: newContent as ContentBlock[], providerReplay }, dropped: false };
}

interface Tally {
  removedReasoning: number;
  removedFalsyBlocks: number;
  textSignatures: number;
  droppedCheckpoints: number;
}

function dropStale(message: Message, switchedAt: number | undefined, tally: Tally | undefined): Message | null {
  if (switchedAt === undefined || !isArrayAssistant(message)) return message;
  const timestamp = parseTimestampMs(message.timestamp);
  if (timestamp !== undefined && timestamp > switchedAt) return message;
  const content = message.content as unknown[];
  let kept: unknown[] | undefined;
  let removedReasoning = 0;
  for (let i = 0; i < content.length; i++) {
    const block = content[i];
    const reasoning = isRecord(block) && block.type === 'thinking' && parseOpenAIReasoningSignature(block.thinkingSignature) !== undefined;
    if (!block || reasoning) {
      kept ??= content.slice(0, i);
      if (reasoning) removedReasoning++;
    } else if (kept !== undefined) {
      kept.push(block);
    }
  }
  if (kept === undefined) return message;
  if (tally) {
    tally.removedReasoning += removedReasoning;
    tally.removedFalsyBlocks += content.length - kept.length - removedReasoning;
  }
  if (kept.length === 0) return null;
  let next = kept;
  if (removedReasoning > 0) {
    next = kept.map((block) => {
      const out = unpairTextSignature(block);
      if (out !== block && tally) tally.textSignatures++;
      return out;
    });
  }
  const result = replaceCompactionReplayOwnerContent(message, content, next);
  if (result.dropped && tally) tally.droppedCheckpoints++;
  return result.message;
}

/**
 * §4.11 for one message, with the switch time S: the same object when untouched, a new one when
 * reasoning or falsy blocks were removed, null when nothing remained. S undefined: a no-op.
 */
export function dropStaleResponsesReasoning(message: Message, switchedAt: number | undefined): Message | null {
  return dropStale(message, switchedAt, undefined);
}

/** The whole-array form. */
export function dropStaleResponsesReasoningFromMessages(messages: readonly Message[], switchedAt: number | undefined): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const next = dropStale(message, switchedAt, undefined);
    if (next !== null) out.push(next);
  }
  return out;
}

/** The pipeline gate (thinking.md §1.1 step 9): the Responses family, with a known switch time. */
export function dropStaleResponsesReasoningEnabled(policy: TranscriptPolicy, options: ResolvedHygieneOptions): boolean {
  return policy.responsesFamily && options.modelSwitchedAt !== undefined;
}

const scratch: Tally = { removedReasoning: 0, removedFalsyBlocks: 0, textSignatures: 0, droppedCheckpoints: 0 };

export const dropStaleResponsesReasoningRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'drop-stale-responses-reasoning',
    summary: 'After a model switch, removes OpenAI Responses reasoning items from assistant turns before the switch and unpairs their text signatures.',
    counters: ['removedReasoning', 'removedFalsyBlocks', 'droppedTurns', 'textSignatures', 'droppedCheckpoints'],
  },
  apply(message, ctx) {
    scratch.removedReasoning = 0;
    scratch.removedFalsyBlocks = 0;
    scratch.textSignatures = 0;
    scratch.droppedCheckpoints = 0;
    const out = dropStale(message, ctx.options.modelSwitchedAt, scratch);
    if (out === message) return out;
    if (scratch.removedReasoning > 0) ctx.count('removedReasoning', scratch.removedReasoning);
    if (scratch.removedFalsyBlocks > 0) ctx.count('removedFalsyBlocks', scratch.removedFalsyBlocks);
    if (out === null) {
      ctx.count('droppedTurns');
      return null;
    }
    if (scratch.textSignatures > 0) ctx.count('textSignatures', scratch.textSignatures);
    if (scratch.droppedCheckpoints > 0) ctx.count('droppedCheckpoints', scratch.droppedCheckpoints);
    return out;
  },
};
