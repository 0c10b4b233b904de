/**
 * drop-reasoning-from-history (spec thinking.md §4.7 `dropReasoningFromHistory`; thinking.md §1.1
 * step 6, the first half of step 7 of turns-images-policy.md §1: after the signature cleanup,
 * before `drop-thinking-blocks`).
 *
 * Invariant: on OpenAI-compatible Chat Completions routes no assistant turn replays reasoning,
 * except the current same-turn tool-call continuation: the first assistant after the latest
 * `user` message (or the start, when there is none) that holds a `toolCall`, `tool_use` or
 * `function_call` block and is followed by a `toolResult`. Every other array assistant loses all
 * `thinking` and `redacted_thinking` blocks, whatever the field its provider used
 * (`reasoning_content`, `reasoning`, ...); one left with nothing becomes
 * `[{type: "text", text: "[assistant reasoning omitted]"}]`. Turns that lose nothing, string
 * content and every other role pass through.
 *
 * Error prevented: local and proxy OpenAI-compatible servers that reject, or mis-handle,
 * `reasoning` / `reasoning_content` fields on earlier assistant turns.
 *
 * Enabled when `policy.dropReasoningFromHistory` (`dropReasoningFromHistoryEnabled`): unowned and
 * local `openai-completions` routes unless the model declares reasoning or needs its reasoning
 * replayed; ollama and xai always (thinking.md §2, §4.7).
 *
 * Lookahead (exact, §4.7 "Streaming"): an assistant that is not the first since the last `user`
 * message, or has no such tool-call block, is cleaned at once. The first tool-calling assistant
 * after a `user` message is held in a SpillQueue, with everything after it, until the next
 * `user` message (it is cleaned) or the end of input (it keeps its reasoning when a `toolResult`
 * came after it). The hold can cover a whole agent loop of tool calls.
 *
 * Counters: `removedBlocks`, `placeholders`, `keptCurrentToolTurn` (the current tool turn kept its
 * reasoning), `spilledEntries`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { Message } from '../lib/types.ts';
import { Holdback, hasReplayToolCallBlock, isArrayAssistant, isThinkingLikeBlock, withoutBlocks } from './thinking-shared.ts';
import { isCurrentToolTurn, lastUserIndex } from './strip-invalid-thinking-signatures.ts';

function clean(message: Message): { message: Message; removed: number; placeholder: boolean } {
  return withoutBlocks(message, isThinkingLikeBlock);
}

/** The whole-array form: the same objects for untouched messages. */
export function dropReasoningFromHistory(messages: readonly Message[]): Message[] {
  const lastUser = lastUserIndex(messages);
  return messages.map((message, index) => {
    if (!isArrayAssistant(message) || isCurrentToolTurn(messages, index, lastUser)) return message;
    return clean(message).message;
  });
}

interface DropReasoningProcessorOptions {
  memoryBudgetBytes: number;
  count: (counter: string, n?: number) => void;
}

class DropReasoningFromHistoryProcessor implements RuleProcessor {
  /** The held first tool-calling assistant of the user turn (front) and everything after it. */
  private readonly held: Holdback;
  private assistantSinceUser = false;
  private toolResultAfterHeld = false;

  constructor(private readonly options: DropReasoningProcessorOptions) {
    this.held = new Holdback(options.memoryBudgetBytes);
  }

  push(message: Message, emit: Emit): void {
    const role = message.role;
    if (role === 'user') {
      this.settle(false, emit);
      this.assistantSinceUser = false;
      emit(message);
      return;
    }
    let out = message;
    if (role === 'assistant') {
      const first = !this.assistantSinceUser;
      this.assistantSinceUser = true;
      if (isArrayAssistant(message)) {
        if (first && hasReplayToolCallBlock(message)) {
          this.toolResultAfterHeld = false;
          this.held.push(message);
          return;
        }
        out = this.clean(message);
      }
    } else if (role === 'toolResult' && this.held.length > 0) {
      this.toolResultAfterHeld = true;
    }
    if (this.held.length > 0) this.held.push(out);
    else emit(out);
  }

  end(emit: Emit): void {
    this.settle(this.toolResultAfterHeld, emit);
    const spilled = this.held.spilledEntries;
    if (spilled > 0) this.options.count('spilledEntries', spilled);
  }

  dispose(): void {
    this.held.dispose();
  }

  private clean(message: Message): Message {
    const result = clean(message);
    if (result.removed > 0) this.options.count('removedBlocks', result.removed);
    if (result.placeholder) this.options.count('placeholders');
    return result.message;
  }

  /** Emits the held assistant (kept when `keep`, else cleaned) and what follows it. */
  private settle(keep: boolean, emit: Emit): void {
    const assistant = this.held.shift();
    if (assistant === undefined) return;
    if (keep) {
      if ((assistant.content as unknown[]).some(isThinkingLikeBlock)) this.options.count('keptCurrentToolTurn');
      emit(assistant);
    } else {
      emit(this.clean(assistant));
    }
    this.held.drain(emit);
  }
}

/** The pipeline gate (thinking.md §1.1 step 6). */
export function dropReasoningFromHistoryEnabled(policy: TranscriptPolicy, _options?: ResolvedHygieneOptions): boolean {
  return policy.dropReasoningFromHistory;
}

export const dropReasoningFromHistoryRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'drop-reasoning-from-history',
    summary: 'Removes reasoning from earlier assistant turns on Chat Completions routes, keeping it only on the current tool-call turn; emptied turns get "[assistant reasoning omitted]".',
    counters: ['removedBlocks', 'placeholders', 'keptCurrentToolTurn', 'spilledEntries'],
  },
  create(ctx: RuleContext) {
    return new DropReasoningFromHistoryProcessor({ memoryBudgetBytes: ctx.options.memoryBudgetBytes, count: ctx.count });
  },
};
