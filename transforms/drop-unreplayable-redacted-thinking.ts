/**
 * drop-unreplayable-redacted-thinking: our provider rule, not the reference's. Right after the
 * thinking steps (6-7), on every route, an assistant turn holds no redacted thinking without its
 * opaque data: a `thinking` block with `redacted: true` and no non-blank `thinkingSignature`, or a
 * `redacted_thinking` (`redactedThinking`) block without non-blank `data` (or a signature field).
 * Such blocks are removed; a turn left with no content at all is dropped, unless a truthy
 * `providerReplay` keeps it (as step 5 keeps such turns with `content: []`).
 *
 * Why: the runtime sends `redacted: true` thinking as `redacted_thinking` with
 * `data: thinkingSignature`; without it pi-ai's Anthropic transport throws "redacted thinking
 * block is missing its opaque signature" and the API answers `data: Field required`. The latest
 * assistant turn included: the thinking rules keep it untouched (thinking.md §4.6) and leave
 * corrupted latest thinking to a recovery retry that a replay copy never gets. The block carries
 * nothing a model can read (its text is a placeholder), so every route drops it; plain thinking
 * without a signature is left alone (the transports send it as text).
 *
 * It runs before the id sanitizer, which keeps the call ids of a turn with thinking verbatim
 * (tool-calls.md §5.5): once such a block is gone the sanitizer sees the turn as it is sent, so a
 * second run changes nothing.
 *
 * Unit: message (stateless). Counters: `droppedBlocks`, `droppedTurns`. Untouched messages are
 * returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { recordEdits, removeBlock } from '../lib/message-edits.ts';

const SIGNATURE_FIELDS = ['thinkingSignature', 'signature', 'thought_signature'] as const;

const isNonBlankString = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

/** A redacted thinking block whose opaque data is missing or blank. */
export function isUnreplayableRedactedThinking(block: unknown): boolean {
  if (!isRecord(block)) return false;
  if (block.type === 'thinking') return block.redacted === true && !isNonBlankString(block.thinkingSignature);
  if (block.type !== 'redacted_thinking' && block.type !== 'redactedThinking') return false;
  return !isNonBlankString(block.data) && !SIGNATURE_FIELDS.some((field) => isNonBlankString(block[field]));
}

/**
 * The assistant without such blocks: the same object when it has none, `null` when nothing is
 * left to send (and no `providerReplay` keeps it).
 */
export function dropUnreplayableRedactedThinking(message: Message): Message | null {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
  const content = message.content as unknown[];
  if (!content.some(isUnreplayableRedactedThinking)) return message;
  const kept = content.filter((block) => !isUnreplayableRedactedThinking(block));
  if (kept.length === 0 && !message.providerReplay) return null;
  const edits = content.flatMap((block, index) => (isUnreplayableRedactedThinking(block) ? [removeBlock(index, block)] : []));
  return recordEdits(message, { ...message, content: kept } as Message, edits);
}

export const dropUnreplayableRedactedThinkingRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'drop-unreplayable-redacted-thinking',
    summary: 'Ours: removes redacted thinking without its opaque data (redacted: true with a blank signature, redacted_thinking without data), the latest turn\'s too; a turn left empty is dropped.',
    counters: ['droppedBlocks', 'droppedTurns'],
  },
  apply(message, ctx) {
    const out = dropUnreplayableRedactedThinking(message);
    if (out === message) return message;
    ctx.count('droppedBlocks', (message.content as unknown[]).filter(isUnreplayableRedactedThinking).length);
    if (out === null) ctx.count('droppedTurns');
    return out;
  },
};
