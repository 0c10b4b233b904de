/**
 * drop-thinking-blocks (spec thinking.md §4.8 `dropThinkingBlocks`; thinking.md §1.1 step 7, the
 * second half of step 7 of turns-images-policy.md §1: right after `drop-reasoning-from-history`,
 * before tool-call input validation).
 *
 * Invariant: on routes to older Claude models no assistant turn but the latest replays thinking.
 * The latest array assistant (L) is untouched whatever follows it; every other array assistant
 * loses all `thinking` and `redacted_thinking` blocks, signed or not, and one left with nothing
 * becomes `[{type: "text", text: "[assistant reasoning omitted]"}]`. Turns that lose nothing,
 * string content and every other role pass through.
 *
 * Error prevented: older Claude models (Sonnet 4.5, Opus 4.1, Haiku 4.5, 3.7 Sonnet, ...) reject
 * thinking blocks replayed in earlier assistant turns.
 *
 * Enabled when `policy.dropThinkingBlocks` (`dropThinkingBlocksEnabled`; thinking.md §2).
 *
 * Lookahead (exact, §4.8 "Streaming"): the most recent array assistant is held in a SpillQueue,
 * with the messages after it, until the next array assistant arrives (the held one is cleaned)
 * or the input ends (it is L, and kept). Unlike `strip-invalid-thinking-signatures`, a later
 * `user` message does not settle it (E13), so a trailing run of user turns and tool results is
 * held with it.
 *
 * Counters: `removedBlocks`, `placeholders`, `spilledEntries`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { Message } from '../lib/types.ts';
import { Holdback, isArrayAssistant, isThinkingLikeBlock, withoutBlocks } from './thinking-shared.ts';

function clean(message: Message): { message: Message; removed: number; placeholder: boolean } {
  return withoutBlocks(message, isThinkingLikeBlock);
}

/** The whole-array form: the same objects for untouched messages. */
export function dropThinkingBlocks(messages: readonly Message[]): Message[] {
  let latest = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isArrayAssistant(messages[i]!)) {
      latest = i;
      break;
    }
  }
  return messages.map((message, index) => (index === latest || !isArrayAssistant(message) ? message : clean(message).message));
}

interface DropThinkingProcessorOptions {
  memoryBudgetBytes: number;
  count: (counter: string, n?: number) => void;
}

class DropThinkingBlocksProcessor implements RuleProcessor {
  private readonly held: Holdback;

  constructor(private readonly options: DropThinkingProcessorOptions) {
    this.held = new Holdback(options.memoryBudgetBytes);
  }

  push(message: Message, emit: Emit): void {
    if (isArrayAssistant(message)) {
      this.settle(emit);
      this.held.push(message);
      return;
    }
    if (this.held.length > 0) this.held.push(message);
    else emit(message);
  }

  end(emit: Emit): void {
    // The held assistant is the latest: it goes out untouched.
    this.held.drain(emit);
    const spilled = this.held.spilledEntries;
    if (spilled > 0) this.options.count('spilledEntries', spilled);
  }

  dispose(): void {
    this.held.dispose();
  }

  /** A newer array assistant arrived: the held one is cleaned and goes out with what follows it. */
  private settle(emit: Emit): void {
    const assistant = this.held.shift();
    if (assistant === undefined) return;
    const result = clean(assistant);
    if (result.removed > 0) this.options.count('removedBlocks', result.removed);
    if (result.placeholder) this.options.count('placeholders');
    emit(result.message);
    this.held.drain(emit);
  }
}

/** The pipeline gate (thinking.md §1.1 step 7). */
export function dropThinkingBlocksEnabled(policy: TranscriptPolicy, _options?: ResolvedHygieneOptions): boolean {
  return policy.dropThinkingBlocks;
}

export const dropThinkingBlocksRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'drop-thinking-blocks',
    summary: 'Removes thinking blocks from every assistant turn but the latest (older Claude models); emptied turns get "[assistant reasoning omitted]".',
    counters: ['removedBlocks', 'placeholders', 'spilledEntries'],
  },
  create(ctx: RuleContext) {
    return new DropThinkingBlocksProcessor({ memoryBudgetBytes: ctx.options.memoryBudgetBytes, count: ctx.count });
  },
};
