/**
 * align-tool-call-ids: our provider rule, not the reference's. Before any other step, on every
 * route, a tool call (`toolCall`, `toolUse` or `functionCall` block) whose `id` is missing or
 * blank but that holds an id in an alias field (`call_id`, `tool_call_id`, `toolCallId`,
 * `tool_use_id`, `toolUseId`, first non-blank in that order, trimmed) gets that id as its `id`.
 *
 * Why: input validation accepts a call whose id is only in an alias (tool-calls.md §3 step 4),
 * but pairing, the id sanitizer and the runtime read `id` alone, so the call went out with no id
 * and no result: Gemini "the number of function response parts is equal to the number of
 * function call parts", Mistral "Tool call id was  but must be ...", chat completions "tool_call_ids
 * did not have response messages". Inside a signed-thinking turn the thinking blocks stay as they
 * are; only the call block changes (a signature covers the thinking, not the call ids). With the
 * id in place every later step treats the call as any other: the sanitizer gives it the route's
 * id shape, and pairing answers it (its own result if one carries that id, a synthetic one if not).
 *
 * The reference's answer to the aligned input is this pipeline's answer, so the differential
 * fixtures send the reference the aligned input (test/differential/load.ts).
 *
 * Unit: message (stateless). Counter: `aligned` (calls). Untouched messages are returned as the
 * same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { recordEdits, setBlockField, type MessageEdit } from '../lib/message-edits.ts';
import { isCallTypeBlock } from './tool-call-shapes.ts';

/** Where a call block may hold its id besides `id`, in the order the first non-blank one is taken. */
const CALL_ID_ALIASES = ['call_id', 'tool_call_id', 'toolCallId', 'tool_use_id', 'toolUseId'] as const;

const isBlankId = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';

/** The id a blank-id call takes from its aliases, or undefined (the call has an id, or none at all). */
export function aliasIdOf(block: Record<string, unknown>): string | undefined {
  if (!isBlankId(block.id)) return undefined;
  for (const field of CALL_ID_ALIASES) {
    const value = block[field];
    if (!isBlankId(value)) return (value as string).trim();
  }
  return undefined;
}

/** The assistant with every blank-id call given its alias id (the same object when none needs it). */
export function alignToolCallIds(message: Message): Message {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
  let content: unknown[] | undefined;
  const edits: MessageEdit[] = [];
  message.content.forEach((block, index) => {
    if (!isCallTypeBlock(block)) return;
    const id = aliasIdOf(block as unknown as Record<string, unknown>);
    if (id === undefined) return;
    content ??= [...(message.content as unknown[])];
    content[index] = { ...block, id };
    edits.push(setBlockField(index, 'id', (block as unknown as Record<string, unknown>).id, id));
  });
  return content === undefined ? message : recordEdits(message, { ...message, content } as Message, edits);
}

export const alignToolCallIdsRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'align-tool-call-ids',
    summary: 'Ours: a tool call whose id is blank but held in an alias field (call_id, toolCallId, ...) gets it as its id, so pairing answers it and the sanitizer shapes it instead of it going out with no id.',
    counters: ['aligned'],
  },
  apply(message, ctx) {
    const out = alignToolCallIds(message);
    if (out === message) return message;
    const before = message.content as unknown[];
    ctx.count('aligned', before.filter((block, i) => block !== (out.content as unknown[])[i]).length);
    return out;
  },
};
