/**
 * align-tool-result-ids: our provider rule, not the reference's. Before any other step, on every
 * route, a tool result's id fields all hold its pairing id: the
 * first non-empty id in pairing order, trimmed (tool-calls.md §2.2). `toolCallId` is set to it
 * (added when absent or blank), and every other id field holding a different non-empty string
 * is set to it too. A result with no pairing id has its whitespace-only id fields emptied (`""`),
 * which pairing already reads as no id.
 *
 * Why: pairing repair matches a result by that trimmed id, but the id sanitizer resolves it
 * from another field order, untrimmed (§2.2, §5.3), and the runtime sends `toolCallId` verbatim.
 * So a result whose id is padded (`" a "`), or only in an alias field, or different between
 * fields, is paired with its call by step 10 and then orphaned: it gets an id of its own (or
 * keeps one no call has), drop-orphaned-tool-results removes it, and the call goes out with no
 * result ("tool_use ids were found without tool_result blocks immediately after"). The spec
 * README lists these among the cases that end up orphaned. With the fields aligned first, every
 * step reads the same id, and a result pairs or does not pair exactly as pairing decides.
 * OpenAI Responses routes too: there a result with a blank `toolCallId` and its id in `call_id`
 * was paired (the pairing and the replay invariant read the alias) and then sent as a
 * `function_call_output` with `call_id ""`, its call unanswered ("No tool output found for
 * function call"). A `call|item` id is aligned whole; the Responses steps split it later.
 *
 * Pairing ids do not change (the aligned value is the pairing id), so the reference's answer to
 * the aligned input is this pipeline's answer: that is how the differential fixtures are
 * recorded (test/differential/record.ts).
 *
 * Unit: message (stateless). Counter: `aligned`. Untouched messages are returned as the same
 * object; the copy records which id fields were set.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { recordEdits, setField, type MessageEdit } from '../lib/message-edits.ts';
import { REWRITE_ID_FIELDS, resultIdOf } from './tool-call-shapes.ts';

/** The result with every id field set to its pairing id (the same object when they all are). */
export function alignToolResultIds(message: Message): Message {
  if (message.role !== 'toolResult') return message;
  // No pairing id: pairing treats the result as id-less (it may adopt it for a call), so a
  // whitespace-only field must not give the id sanitizer an id of its own to resolve either.
  const id = resultIdOf(message) ?? '';
  let copy: Record<string, unknown> | undefined;
  const edits: MessageEdit[] = [];
  for (const field of REWRITE_ID_FIELDS) {
    const value = message[field];
    const stale =
      id === ''
        ? typeof value === 'string' && value !== '' && value.trim() === ''
        : field === 'toolCallId'
          ? value !== id
          : typeof value === 'string' && value !== '' && value !== id;
    if (!stale) continue;
    copy ??= { ...message };
    copy[field] = id;
    edits.push(setField(field, value, id));
  }
  if (copy === undefined) return message;
  return recordEdits(message, copy as Message, edits);
}

export const alignToolResultIdsRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'align-tool-result-ids',
    summary: 'Ours: sets every id field of a tool result to its pairing id (trimmed, toolCallId first), so a padded or alias-only id is not paired by one step and orphaned by the next.',
    counters: ['aligned'],
  },
  apply(message, ctx) {
    const out = alignToolResultIds(message);
    if (out !== message) ctx.count('aligned');
    return out;
  },
};
