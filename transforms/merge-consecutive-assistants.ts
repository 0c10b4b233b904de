/**
 * merge-consecutive-assistants (spec turns-images-policy.md §3.2, and step 1 of §3.3's
 * `validateAnthropicTurns`; runs in `validateReplayTurns`, after step 16).
 *
 * Invariant: no assistant turn directly follows another assistant turn. A run of them becomes the
 * first one with the run's content blocks concatenated (string content contributes nothing) and
 * `usage`, `stopReason` and `errorMessage` taken from the last turn that has them truthy; every
 * other field comes from the first turn. `assistant, toolResult, assistant` is not a run. The §3.1
 * role-less quirk is kept: an assistant after a role-less object that follows an assistant is
 * folded into the role-less object (oracle: `{content:"x"}` between two assistants on Anthropic).
 *
 * Error prevented: Gemini rejects consecutive model turns, Anthropic and Bedrock Converse require
 * user/assistant alternation ("roles must alternate between user and assistant").
 *
 * One rule serves both validators: `validateGeminiTurns` and step 1 of `validateAnthropicTurns`
 * are the same merge, and it is idempotent, so on routes that enable both the reference's second
 * pass changes nothing.
 *
 * Unit: the latest assistant turn (with what was folded into it), or a role-less object after it,
 * held until a message of another role arrives or the input ends (§3.7); nothing else is held.
 * Counter: `merged` (assistant turns folded into an earlier one).
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import { ConsecutiveTurnMerger, mergeConsecutiveTurns } from './merge-consecutive-turns.ts';
import { fillMissingReasoningContent } from './fill-missing-reasoning-content.ts';

/** The whole-array form (the reference's `validateGeminiTurns`): the specification of the rule. */
export function mergeConsecutiveAssistants(messages: readonly Message[]): Message[] {
  return mergeConsecutiveTurns(messages, 'assistant');
}

export const mergeConsecutiveAssistantsRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'merge-consecutive-assistants',
    summary: 'Merges consecutive assistant turns into the first one (content concatenated; usage, stopReason and errorMessage from the last).',
    counters: ['merged', 'reasoningRefilled'],
  },
  create(ctx) {
    const merger = new ConsecutiveTurnMerger('assistant', ctx.count);
    return ctx.policy.fillMissingReasoningContent ? new RefillingMerger(merger, ctx) : merger;
  },
};

/**
 * DeepSeek (fill-missing-reasoning-content) filled each tool-call turn before the merge; a merged
 * turn keeps the first turn's fields, so a call folded into a text turn of another model would
 * lose what the builder needs to send reasoning_content. Filled again here; a turn that was not
 * merged comes back as the same object. A class, so a forked copy (lib/fork-state.ts) is its own.
 */
class RefillingMerger implements RuleProcessor {
  constructor(
    private readonly merger: ConsecutiveTurnMerger,
    private readonly ctx: RuleContext,
  ) {}

  push(message: Message, emit: Emit): void {
    this.merger.push(message, (out) => this.refill(out, emit));
  }

  end(emit: Emit): void {
    this.merger.end((out) => this.refill(out, emit));
  }

  private refill(message: Message, emit: Emit): void {
    const { options } = this.ctx;
    const { message: out, outcome } = fillMissingReasoningContent(message, { provider: options.provider, modelApi: options.modelApi, modelId: options.modelId });
    if (outcome !== 'same') this.ctx.count('reasoningRefilled');
    emit(out);
  }
}
