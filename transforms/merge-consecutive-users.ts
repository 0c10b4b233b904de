/**
 * merge-consecutive-users (spec turns-images-policy.md §3.3 `mergeConsecutiveUserMessages`, step 3
 * of `validateAnthropicTurns`; runs in `validateReplayTurns`, after the dangling-tool-call strip).
 *
 * Invariant: no user turn directly follows another user turn. A run of them becomes one turn with
 * the fields of the *last* one, the content of all of them as one array (a string becomes a text
 * block; other content shapes contribute nothing) and `timestamp` from the last turn that has one
 * (`??`, so `null` counts as missing). The earlier turns' other fields (`provenance`,
 * `idempotencyKey`, ...) are lost: this is the reference's shape, kept because Anthropic and
 * Bedrock need the single turn and the merged fields are not sent to the model anyway (spec
 * README: "merges that drop an earlier turn's provenance"). The §3.1 role-less quirk is kept.
 *
 * Error prevented: Anthropic Messages and Bedrock Converse require user/assistant alternation.
 * Disabled where `shouldMergeConsecutiveUserTurns` is false (policy `mergeConsecutiveUserTurns`:
 * prefix-binding Claude models on `anthropic-messages`, whose cached prefix must not change).
 *
 * Unit: the latest user turn (with what was folded into it), or a role-less object after it, held
 * until a message of another role arrives or the input ends (§3.7). Counter: `merged`.
 */
import type { BufferedRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { ConsecutiveTurnMerger, mergeConsecutiveTurns } from './merge-consecutive-turns.ts';

/** The whole-array form (the reference's `mergeConsecutiveUserMessages`): the specification of the rule. */
export function mergeConsecutiveUsers(messages: readonly Message[]): Message[] {
  return mergeConsecutiveTurns(messages, 'user');
}

export const mergeConsecutiveUsersRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'merge-consecutive-users',
    summary: 'Merges consecutive user turns into one (content concatenated as blocks; fields and timestamp from the last).',
    counters: ['merged'],
  },
  create(ctx) {
    return new ConsecutiveTurnMerger('user', ctx.count);
  },
};
