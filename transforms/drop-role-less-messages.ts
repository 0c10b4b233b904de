/**
 * drop-role-less-messages: our provider rule, not the reference's. Before any other step, an
 * object without a `role`, or with a falsy one (`""`, `null`, `0`: the turn rules treat those the
 * same way), is dropped and counted.
 *
 * Why: the runtime cannot convert such an object and filters it out of every request
 * (lib/invariants/turns.ts), but the reference's turn rules treat it by the §3.1 quirk
 * (turns-images-policy.md §3.1, §3.7: kept "only if exact parity is required"): a merge run goes
 * on through it and lands in it, the bootstrap rules take it for the first message, and results
 * after it are orphaned. What reaches the provider is then two turns of one role in a row, a
 * conversation that starts with an assistant, or a call without its results. Dropping it first
 * lets every later step see the conversation as it will be sent.
 *
 * Objects with any other role, known or not, pass; in JSONL input, a line with a `type` and no role is
 * a session entry and never gets here. The differential fixtures record the reference's answer to
 * the input without such objects (test/differential/load.ts, referenceInput).
 *
 * Unit: message (stateless). Counter: `dropped`.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';

export function isRoleLess(message: Message): boolean {
  return !message.role;
}

export const dropRoleLessMessagesRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'drop-role-less-messages',
    summary: 'Ours: drops objects without a role, which the runtime never sends, before the turn rules can merge into them.',
    counters: ['dropped'],
  },
  apply(message, ctx) {
    if (!isRoleLess(message)) return message;
    ctx.count('dropped');
    return null;
  },
};
