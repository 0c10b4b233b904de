/**
 * repair-partless-gemini-turns: our provider rule, not the reference's. At the end of the replay
 * steps, on Gemini routes (`google-generative-ai`, `google-gemini-cli`, `google-vertex`), no turn
 * goes out without a part:
 * - an assistant turn none of whose blocks becomes a part (only blank unsigned thinking, only a
 *   `redacted_thinking` block, only block types the runtime does not send) is dropped;
 * - a user turn with array content none of whose blocks becomes a part (no text, no image) gets
 *   an `[empty content omitted]` text block at its end (its other blocks are kept).
 *
 * What becomes a part (the runtime's Google projection): non-blank text; thinking with non-blank
 * text or a signature; a call (`toolCall`, `toolUse`, `functionCall`); in user turns also images
 * and string content (blank strings go out as a space).
 *
 * Why: Gemini answers "contents.parts must not be empty" for such a turn. The reference sends it.
 * The merge of consecutive assistants has run by now, so a dropped turn sits between turns of
 * the user side and leaves no two model turns together.
 *
 * Unit: message (stateless). Counters: `droppedTurns`, `placeholders`. Untouched messages are
 * returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import { EMPTY_CONTENT_PLACEHOLDER } from './drop-blank-text-blocks.ts';
import { isCallTypeBlock } from './tool-call-shapes.ts';

const isNonBlankString = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';
const SIGNATURE_FIELDS = ['thinkingSignature', 'signature', 'thought_signature', 'thoughtSignature'] as const;

/** Whether an assistant block becomes a Gemini part. */
function isModelPart(block: unknown): boolean {
  if (!isRecord(block)) return false;
  if (block.type === 'text') return isNonBlankString(block.text);
  if (block.type === 'thinking') return isNonBlankString(block.thinking) || SIGNATURE_FIELDS.some((field) => isNonBlankString(block[field]));
  return isCallTypeBlock(block);
}

/** Whether a user block becomes a Gemini part. */
function isUserPart(block: unknown): boolean {
  if (!isRecord(block)) return false;
  return (block.type === 'text' && isNonBlankString(block.text)) || block.type === 'image';
}

/** The turn as Gemini can take it: the same object, a copy with a placeholder, or `null` (dropped). */
export function repairPartlessGeminiTurn(message: Message): Message | null {
  const content = message.content;
  if (!Array.isArray(content)) return message;
  if (message.role === 'assistant') {
    // A providerReplay turn kept with no blocks is replayed from its checkpoint (thinking.md §4.2).
    if (content.length === 0 && message.providerReplay) return message;
    return content.some(isModelPart) ? message : null;
  }
  if (message.role === 'user') {
    if (content.some(isUserPart)) return message;
    return { ...message, content: [...content, { type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }] } as Message;
  }
  return message;
}

export function repairPartlessGeminiTurnsEnabled(policy: TranscriptPolicy): boolean {
  return policy.repairPartlessGeminiTurns;
}

export const repairPartlessGeminiTurnsRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'repair-partless-gemini-turns',
    summary: `Ours: on Gemini routes, drops an assistant turn with nothing Gemini gets as a part (blank unsigned thinking, redacted_thinking only) and gives a user turn without text or image "${EMPTY_CONTENT_PLACEHOLDER}".`,
    counters: ['droppedTurns', 'placeholders'],
  },
  apply(message, ctx) {
    const out = repairPartlessGeminiTurn(message);
    if (out === null) ctx.count('droppedTurns');
    else if (out !== message) ctx.count('placeholders');
    return out;
  },
};
