/**
 * strip-trailing-prefill (spec thinking.md §4.15b–c and spec/README.md, the seed's request-time
 * rule). Not part of the replay copy (`sanitizeSessionHistory` never removes trailing assistant
 * turns): run it only on the outgoing request, after every replay step and turn validation,
 * when thinking is on for that request.
 *
 * Invariant: with thinking enabled, a request to an Anthropic Messages route (any provider on
 * `anthropic-messages`, Cloudflare AI Gateway included) or to a verified OpenRouter Anthropic
 * model ends with a non-assistant turn. Trailing `assistant` messages are removed from the end
 * while the last one holds no tool call; an assistant with a `toolCall`, `toolUse` or
 * `functionCall` block stops the strip and is kept with everything before it. Ours, not the
 * reference's: the reference also stops at a snake-case `tool_use` block or a non-empty
 * `tool_calls` array (E20), but the runtime sends neither as a call, so such a turn went out as
 * a prefill and the thinking request failed.
 *
 * Error prevented: Anthropic rejects a thinking request that ends with an assistant turn
 * ("extended thinking requires conversations to end with a user turn"; assistant prefill is not
 * supported with thinking).
 *
 * Enabled when `options.thinking && policy.stripTrailingPrefillWhenThinking`
 * (`stripTrailingPrefillEnabled`). The reference's wider context-level strip on every route that
 * validates Anthropic or Gemini turns, whatever the thinking setting (§4.15a), and the Claude 5
 * no-prefill step (§4.15d) are not copied (spec/README.md, "Request-time prefill").
 *
 * Lookahead: only the trailing run of tool-less assistant messages is held (in a SpillQueue);
 * any other message releases it, and the end of input drops it.
 *
 * Counter: `removedTurns`.
 */
import type { BufferedRule, Emit, RuleContext, RuleProcessor } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { Holdback } from './thinking-shared.ts';

/** The call blocks the runtime sends (lib/invariants/turns.ts). */
const PREFILL_STOPPING_CALL_TYPES: ReadonlySet<unknown> = new Set(['toolCall', 'toolUse', 'functionCall']);

/** An assistant message the strip removes when it is trailing: one without any tool call the runtime sends. */
export function isPrefillAssistant(message: Message): boolean {
  if (message.role !== 'assistant') return false;
  const content = message.content;
  if (!Array.isArray(content)) return true;
  return !content.some((block) => isRecord(block) && PREFILL_STOPPING_CALL_TYPES.has(block.type));
}

/** The whole-array form: the input without its trailing tool-less assistant messages (the same objects). */
export function stripTrailingPrefill(messages: readonly Message[]): Message[] {
  let end = messages.length;
  while (end > 0 && isPrefillAssistant(messages[end - 1]!)) end--;
  return messages.slice(0, end);
}

interface PrefillProcessorOptions {
  memoryBudgetBytes: number;
  count: (counter: string, n?: number) => void;
}

class StripTrailingPrefillProcessor implements RuleProcessor {
  private readonly held: Holdback;

  constructor(private readonly options: PrefillProcessorOptions) {
    this.held = new Holdback(options.memoryBudgetBytes);
  }

  push(message: Message, emit: Emit): void {
    if (isPrefillAssistant(message)) {
      this.held.push(message);
      return;
    }
    this.held.drain(emit);
    emit(message);
  }

  end(): void {
    const removed = this.held.discard();
    if (removed > 0) this.options.count('removedTurns', removed);
  }

  dispose(): void {
    this.held.dispose();
  }
}

/** The request-time gate: thinking is on for this request and the route needs the strip. */
export function stripTrailingPrefillEnabled(policy: TranscriptPolicy, options: ResolvedHygieneOptions): boolean {
  return options.thinking && policy.stripTrailingPrefillWhenThinking;
}

export const stripTrailingPrefillRule: BufferedRule = {
  unit: 'buffered',
  meta: {
    name: 'strip-trailing-prefill',
    summary: 'Request time, thinking on: removes trailing assistant turns without tool calls from Anthropic Messages and OpenRouter Anthropic requests.',
    counters: ['removedTurns'],
  },
  create(ctx: RuleContext) {
    return new StripTrailingPrefillProcessor({ memoryBudgetBytes: ctx.options.memoryBudgetBytes, count: ctx.count });
  },
};
