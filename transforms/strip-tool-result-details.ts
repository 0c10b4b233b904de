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
 * same object.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';

/** The message without `details` when it is a tool result that has the key; else the same object. */
export function stripToolResultDetails(message: Message): Message {
  if (message.role !== 'toolResult' || !('details' in message)) return message;
  const { details: _details, ...rest } = message;
  return rest as Message;
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
