/**
 * replace-unreadable-user-content: our provider rule, not the reference's. Before any other step,
 * a user turn whose content is neither a string nor an array (`42`, `null`, an object, or none)
 * gets `[{type: "text", text: "[empty content omitted]"}]`, the placeholder step 5 gives a user
 * turn whose array content is emptied.
 *
 * Why: the reference leaves such a turn untouched (turns-images-policy.md §4.1), and its user
 * merge turns it into `[]` (§3.3), so the request carries a user message with no readable content,
 * which every provider rejects ("all messages must have non-empty content"; Bedrock: "The content
 * field in the Message object at messages.N is empty"). Dropping the turn instead would change the
 * turn order the later steps repair; replacing its content keeps the turn, its fields and its
 * place.
 *
 * It changes no tool-call or result id, so the differential fixtures record the reference's
 * answer to the input after this rule (test/differential/load.ts, referenceInput).
 *
 * Unit: message (stateless). Counter: `replaced`. Other messages are returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { EMPTY_CONTENT_PLACEHOLDER } from './drop-blank-text-blocks.ts';

/** The user turn with readable content: the same object when its content is a string or an array. */
export function replaceUnreadableUserContent(message: Message): Message {
  if (message.role !== 'user') return message;
  const content: unknown = message.content;
  if (typeof content === 'string' || Array.isArray(content)) return message;
  return { ...message, content: [{ type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }] };
}

export const replaceUnreadableUserContentRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'replace-unreadable-user-content',
    summary: `Ours: a user turn whose content is neither a string nor an array gets "${EMPTY_CONTENT_PLACEHOLDER}" instead of being sent with no readable content.`,
    counters: ['replaced'],
  },
  apply(message, ctx) {
    const out = replaceUnreadableUserContent(message);
    if (out !== message) ctx.count('replaced');
    return out;
  },
};
