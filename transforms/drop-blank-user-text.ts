/**
 * drop-blank-user-text (spec turns-images-policy.md §4.1, pass A user side, pipeline step 4).
 *
 * Invariant: no user turn carries a blank `text` block, and no user turn is left with nothing to
 * say. A blank string turn is dropped; blank `text` blocks are removed from array content; a turn
 * left with no blocks is dropped, except that a turn with persisted media facts
 * (`__openclaw.media`) is kept (a blank string verbatim, an emptied array as `content: ""`).
 *
 * Error prevented: providers reject empty or whitespace-only text blocks and empty user turns
 * ("text content blocks must be non-empty", "messages: content must not be empty").
 *
 * Unit: message (stateless). Counters: `droppedTurns` (user turns removed), `droppedBlocks`
 * (blank text blocks removed from user turns that are kept). Only `role: "user"` is touched; the
 * assistant side of pass A is a separate rule. Untouched messages are returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isBlankString } from '../lib/types.ts';
import { hasPersistedMediaFacts } from '../lib/persisted-media.ts';

// Shared with the provider checks (lib/invariants), which must not import rules.
export { hasPersistedMediaFacts };

/** A `text` block whose `text` is a blank string (non-objects and non-string `text` are not). */
export function isBlankTextBlock(block: unknown): boolean {
  return typeof block === 'object' && block !== null && (block as ContentBlock).type === 'text' && isBlankString((block as ContentBlock).text);
}

/**
 * Pass A for one message: user turns lose blank text blocks and are dropped (null) when nothing is
 * left, unless they carry persisted media facts. Every other message is returned unchanged.
 */
export function dropBlankUserText(message: Message): Message | null {
  if (message.role !== 'user') return message;
  const content = message.content;
  if (typeof content === 'string') {
    if (!isBlankString(content) || hasPersistedMediaFacts(message)) return message;
    return null;
  }
  if (!Array.isArray(content)) return message;
  // Scan first: most turns have no blank block and must come back as the same object.
  let first = -1;
  for (let i = 0; i < content.length; i++) {
    if (isBlankTextBlock(content[i])) {
      first = i;
      break;
    }
  }
  if (first === -1) {
    if (content.length > 0) return message;
    return hasPersistedMediaFacts(message) ? { ...message, content: '' } : null;
  }
  const kept: unknown[] = content.slice(0, first);
  for (let i = first + 1; i < content.length; i++) {
    const block: unknown = content[i];
    if (!isBlankTextBlock(block)) kept.push(block);
  }
  if (kept.length > 0) return { ...message, content: kept as ContentBlock[] };
  return hasPersistedMediaFacts(message) ? { ...message, content: '' } : null;
}

export const dropBlankUserTextRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'drop-blank-user-text',
    summary: 'Removes blank text blocks from user turns and drops user turns left empty, unless they carry persisted media facts.',
    counters: ['droppedTurns', 'droppedBlocks'],
  },
  apply(message, ctx) {
    const out = dropBlankUserText(message);
    if (out === message) return out;
    if (out === null) {
      ctx.count('droppedTurns');
      return null;
    }
    // Changed and kept: array content lost blocks (all of them when it became "").
    const before = (message.content as unknown[]).length;
    const after = Array.isArray(out.content) ? out.content.length : 0;
    if (before > after) ctx.count('droppedBlocks', before - after);
    return out;
  },
};
