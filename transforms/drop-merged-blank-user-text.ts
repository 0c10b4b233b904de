/**
 * drop-merged-blank-user-text: our provider rule, not the reference's. Right after
 * merge-consecutive-users, a user turn's array content holds no blank text block; one emptied
 * by that gets `[empty content omitted]`, as step 5 (drop-blank-text-blocks) does.
 *
 * Why: step 5 already removed every blank text block from user arrays, but the merge turns each
 * string part into a text block (turns-images-policy.md §3.3), so a media-only user turn (E11:
 * `content: ""`, its media kept in `__openclaw`) merged with its neighbour becomes a blank text
 * block, which Anthropic and Bedrock reject ("text content blocks must be non-empty"). The
 * reference sends it.
 *
 * Unit: message (stateless); only user turns with array content are looked at. Counters:
 * `droppedBlocks`, `placeholders`. Untouched messages are returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import { dropBlankTextBlocks, EMPTY_CONTENT_PLACEHOLDER } from './drop-blank-text-blocks.ts';
import { isBlankTextBlock } from './drop-blank-user-text.ts';

/** The user turn without blank text blocks (the same object when it has none). */
export function dropMergedBlankUserText(message: Message): Message {
  if (message.role !== 'user' || !Array.isArray(message.content)) return message;
  return dropBlankTextBlocks(message) ?? message;
}

/** Where merge-consecutive-users runs (lib/pipeline.ts). */
export function dropMergedBlankUserTextEnabled(policy: TranscriptPolicy): boolean {
  return policy.validateAnthropicTurns && policy.mergeConsecutiveUserTurns;
}

export const dropMergedBlankUserTextRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'drop-merged-blank-user-text',
    summary: `Ours: after the user-turn merge, removes the blank text blocks it made of media-only turns' empty strings; an emptied turn gets "${EMPTY_CONTENT_PLACEHOLDER}".`,
    counters: ['droppedBlocks', 'placeholders'],
  },
  apply(message, ctx) {
    const out = dropMergedBlankUserText(message);
    if (out === message) return message;
    const blocks = message.content as unknown[];
    const blank = blocks.filter(isBlankTextBlock).length;
    ctx.count('droppedBlocks', blank);
    if (blank === blocks.length) ctx.count('placeholders');
    return out;
  },
};
