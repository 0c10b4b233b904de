/**
 * strip-tool-result-details (spec tool-calls.md §9, Rule G; tool-calls.md §1.1 step 6,
 * turns-images-policy.md §1 step 11; every route).
 *
 * Invariant: no `toolResult` message replays a `details` field (the runtime's private payload,
 * including the synthetic-result marker). The key is removed whenever it is present, whatever its
 * value (`undefined` and `null` too); other roles keep theirs.
 *
 * Error prevented: leaking runtime-only tool metadata (often large) into the provider request.
 * Side effect (§2.5): a synthetic `aborted` result is no longer recognised as synthetic downstream.
 *
 * Unit: message (stateless). Counter: `detailsStripped`. Untouched messages are returned as the
 * same object. The copy records its one edit (the field removed), so the writer cuts it out of
 * the original line rather than stringifying the message.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { recordEdits, setField } from '../lib/message-edits.ts';

/** The message without `details` when it is a tool result that has the key; else the same object. */
export function stripToolResultDetails(message: Message): Message {
  if (message.role !== 'toolResult' || !('details' in message)) return message;
  const { details, ...rest } = message;
  // Recorded, so the writer cuts the field out of the original line instead of stringifying.
  return recordEdits(message, rest as Message, [setField('details', details, undefined)]);
}

export const stripToolResultDetailsRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'strip-tool-result-details',
    summary: 'Removes the runtime-only `details` field from every tool result.',
    counters: ['detailsStripped'],
  },
  apply(message, ctx) {
    const out = stripToolResultDetails(message);
    if (out !== message) ctx.count('detailsStripped');
    return out;
  },
};
