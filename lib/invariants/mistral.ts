/**
 * Mistral (chat completions routes whose policy gives `strict9` ids: provider `mistral` and Mistral
 * model ids, OpenRouter Mistral models): Mistral validates every tool call id it is sent, in the
 * assistant's `tool_calls` and in the `tool` messages, against 9 alphanumeric characters.
 * Applies on top of the chat-completions rules.
 */
import type { InvariantFamily, InvariantRule } from './types.ts';
import { callsOf, showId } from './turns.ts';

const FAMILY: InvariantFamily = 'mistral';

export const MISTRAL_TOOL_CALL_ID = /^[a-zA-Z0-9]{9}$/;

export const mistralToolCallId: InvariantRule = {
  id: 'mistral/tool-call-id',
  family: FAMILY,
  summary: 'Every tool call id (tool_calls[].id and tool_call_id) is exactly 9 characters of [a-zA-Z0-9].',
  source: 'Mistral 400: "Tool call id was <id> but must be a-z, A-Z, 0-9, with a length of 9."',
  check: (view, _context, out) => {
    for (const turn of view.turns) {
      for (const entry of turn.entries) {
        const ids: Array<{ id: unknown; block?: number }> =
          turn.kind === 'assistant' ? callsOf(entry.message).map((call) => ({ id: call.id, block: call.block })) : turn.kind === 'tool-results' ? [{ id: entry.message.toolCallId }] : [];
        for (const { id, block } of ids) {
          if (typeof id === 'string' && MISTRAL_TOOL_CALL_ID.test(id)) continue;
          out.push({
            rule: 'mistral/tool-call-id',
            family: FAMILY,
            index: entry.index,
            id: typeof id === 'string' ? id : '',
            ...(block === undefined ? {} : { block }),
            message: `Tool call id was ${showId(id)} but must be a-z, A-Z, 0-9, with a length of 9`,
          });
        }
      }
    }
  },
};

export const MISTRAL_RULES: readonly InvariantRule[] = Object.freeze([mistralToolCallId]);
