/**
 * normalize-tool-call-arguments: our provider rule, not the reference's. Near the end of the
 * replay steps, on every route, each tool call (`toolCall`, `toolUse`, `functionCall` block) holds
 * its arguments as a JSON object in `arguments`:
 * - a string that parses to an object becomes that object (`parsed`);
 * - an array, number, boolean, or any other string becomes `{}` (`emptied`);
 * - a call with no `arguments` (absent or null) that holds them in `input`, as some writers store
 *   them, gets them moved to `arguments` (`moved`), normalized the same way.
 * A call with neither keeps what it has (the runtime sends `{}` for it on Anthropic and Gemini;
 * input validation has already dropped such calls where it applies).
 *
 * Why: the runtime sends `arguments` as the call's input and nothing else. Anthropic answers
 * "tool_use.input: Input should be a valid dictionary", Bedrock "The format of the value at
 * messages.N.content.M.toolUse.input is invalid" (pi-ai's Converse builder sends `arguments` as
 * it is, and the field is required), and Gemini's `functionCall.args` is a Struct. The reference
 * sends whatever is there. Thinking blocks are not touched; a signature does not cover call input.
 *
 * Unit: message (stateless). Counters: `parsed`, `emptied`, `moved`. Untouched messages are
 * returned as the same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { recordEdits, setBlockField, type MessageEdit } from '../lib/message-edits.ts';
import { isCallTypeBlock } from './tool-call-shapes.ts';

export type ArgumentsRepair = 'parsed' | 'emptied' | 'moved';

const isObject = (value: unknown): value is Record<string, unknown> => isRecord(value);

/** A value as call arguments: the object itself, the object a string parses to, or `{}`. */
function asArguments(value: unknown): { value: Record<string, unknown>; repair?: 'parsed' | 'emptied' } {
  if (isObject(value)) return { value };
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isObject(parsed)) return { value: parsed, repair: 'parsed' };
    } catch {
      // not JSON: emptied below
    }
  }
  return { value: {}, repair: 'emptied' };
}

/** The call block with object arguments, and what was done (the same block when nothing was). */
export function normalizeCallArguments(block: Record<string, unknown>): { block: Record<string, unknown>; repairs: ArgumentsRepair[] } {
  const args = block.arguments;
  if (args === undefined || args === null) {
    if (block.input === undefined || block.input === null) return { block, repairs: [] };
    const { value, repair } = asArguments(block.input);
    const { input: _input, ...rest } = block;
    return { block: { ...rest, arguments: value }, repairs: repair === undefined ? ['moved'] : ['moved', repair] };
  }
  const { value, repair } = asArguments(args);
  if (repair === undefined) return { block, repairs: [] };
  return { block: { ...block, arguments: value }, repairs: [repair] };
}

/** The assistant with every call's arguments an object in `arguments`, and the repairs made. */
export function normalizeToolCallArguments(message: Message): { message: Message; repairs: ArgumentsRepair[] } {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return { message, repairs: [] };
  let content: unknown[] | undefined;
  const repairs: ArgumentsRepair[] = [];
  // A moved `input` removes a block field, which no edit records: then the copy is stringified.
  let edits: MessageEdit[] | undefined = [];
  message.content.forEach((block, index) => {
    if (!isCallTypeBlock(block)) return;
    const out = normalizeCallArguments(block as unknown as Record<string, unknown>);
    if (out.repairs.length === 0) return;
    content ??= [...(message.content as unknown[])];
    content[index] = out.block;
    repairs.push(...out.repairs);
    if (out.repairs.includes('moved')) edits = undefined;
    else edits?.push(setBlockField(index, 'arguments', (block as unknown as Record<string, unknown>).arguments, out.block.arguments));
  });
  if (content === undefined) return { message, repairs };
  return { message: recordEdits(message, { ...message, content } as Message, edits ?? []), repairs };
}

export const normalizeToolCallArgumentsRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'normalize-tool-call-arguments',
    summary: 'Ours: gives every tool call a JSON object in `arguments`: a string parsing to an object becomes it, any other non-object becomes {}, and arguments kept only in `input` move to `arguments`.',
    counters: ['parsed', 'emptied', 'moved'],
  },
  apply(message, ctx) {
    const { message: out, repairs } = normalizeToolCallArguments(message);
    for (const repair of repairs) ctx.count(repair);
    return out;
  },
};
