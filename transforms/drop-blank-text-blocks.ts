/**
 * drop-blank-text-blocks (spec turns-images-policy.md §4.2, pass B, pipeline step 5).
 *
 * Invariant: no user, assistant or tool-result turn with array content replays a blank `text`
 * block, and none replays empty content. A tool result always has array content (string or other
 * content is discarded); an emptied tool result or user array gets the single placeholder block
 * `[empty content omitted]`; an emptied assistant turn is dropped unless it has a truthy
 * `providerReplay` (kept with `content: []`). User string content and every other role pass through.
 *
 * Error prevented: providers reject empty or whitespace-only text blocks, tool results with empty
 * content, and assistant turns with no content ("text content blocks must be non-empty",
 * "all messages must have non-empty content").
 *
 * Unit: message (stateless). Counters: `droppedBlocks` (blank text blocks removed from turns that
 * are kept), `placeholders` (turns given `[empty content omitted]`), `droppedTurns` (assistant turns
 * removed). Untouched messages are returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { ContentBlock, Message } from '../lib/types.ts';
import { isBlankTextBlock } from './drop-blank-user-text.ts';

/** The text of the block that replaces emptied tool-result and user content. */
export const EMPTY_CONTENT_PLACEHOLDER = '[empty content omitted]';

interface Tally {
  droppedBlocks: number;
  placeholders: number;
}

/** The array without blank text blocks: the same array when it has none. */
function withoutBlankTextBlocks(blocks: readonly unknown[]): unknown[] {
  let first = -1;
  for (let i = 0; i < blocks.length; i++) {
    if (isBlankTextBlock(blocks[i])) {
      first = i;
      break;
    }
  }
  if (first === -1) return blocks as unknown[];
  const kept = blocks.slice(0, first);
  for (let i = first + 1; i < blocks.length; i++) {
    const block = blocks[i];
    if (!isBlankTextBlock(block)) kept.push(block);
  }
  return kept;
}

function placeholderContent(): ContentBlock[] {
  return [{ type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }];
}

function clean(message: Message, tally: Tally | undefined): Message | null {
  const role = message.role;
  if (role === 'toolResult' || role === 'user') {
    const content = message.content;
    if (!Array.isArray(content)) {
      // User string content passes; a tool result's non-array content is discarded (spec E9).
      if (role === 'user') return message;
      if (tally) tally.placeholders++;
      return { ...message, content: placeholderContent() };
    }
    // Image sanitization (§5) runs before the blank-text drop; it is a separate stage.
    const kept = withoutBlankTextBlocks(content);
    if (kept.length === 0) {
      if (tally) {
        tally.droppedBlocks += content.length;
        tally.placeholders++;
      }
      return { ...message, content: placeholderContent() };
    }
    if (kept === content) return message;
    if (tally) tally.droppedBlocks += content.length - kept.length;
    return { ...message, content: kept as ContentBlock[] };
  }
  if (role === 'assistant') {
    const content = message.content;
    if (!Array.isArray(content)) return message;
    // Thought-signature stripping runs before this drop and image sanitization (§5) after it;
    // both are separate stages.
    const kept = withoutBlankTextBlocks(content);
    if (kept.length === 0) {
      if (!message.providerReplay) return null;
      if (content.length === 0) return message;
      if (tally) tally.droppedBlocks += content.length;
      return { ...message, content: [] };
    }
    if (kept === content) return message;
    if (tally) tally.droppedBlocks += content.length - kept.length;
    return { ...message, content: kept as ContentBlock[] };
  }
  return message;
}

/**
 * Pass B's blank-text cleanup for one message: returns the same object when nothing changes, a
 * copy when blocks were removed or a placeholder added, or null for an emptied assistant turn
 * without `providerReplay`.
 */
export function dropBlankTextBlocks(message: Message): Message | null {
  return clean(message, undefined);
}

// Rules run synchronously one message at a time, so one scratch tally serves every call.
const scratch: Tally = { droppedBlocks: 0, placeholders: 0 };

export const dropBlankTextBlocksRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'drop-blank-text-blocks',
    summary: 'Removes blank text blocks; emptied tool results and user turns get "[empty content omitted]", emptied assistant turns are dropped unless they carry providerReplay.',
    counters: ['droppedBlocks', 'placeholders', 'droppedTurns'],
  },
  apply(message, ctx) {
    scratch.droppedBlocks = 0;
    scratch.placeholders = 0;
    const out = clean(message, scratch);
    if (out === message) return out;
    if (out === null) {
      ctx.count('droppedTurns');
      return null;
    }
    if (scratch.droppedBlocks > 0) ctx.count('droppedBlocks', scratch.droppedBlocks);
    if (scratch.placeholders > 0) ctx.count('placeholders', scratch.placeholders);
    return out;
  },
};
