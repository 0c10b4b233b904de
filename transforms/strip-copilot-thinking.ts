/**
 * strip-copilot-thinking: GitHub Copilot's replay-history hook (spec turns-images-policy.md
 * §8.5, "Copilot strips thinking"; pipeline step 13) removes every `thinking` and
 * `redacted_thinking` block from every assistant turn, the latest one included. A turn left
 * with nothing keeps its place with `[assistant reasoning omitted]`.
 *
 * Why: Copilot relays Anthropic and OpenAI Responses models without their signatures, so a
 * replayed thinking block cannot be verified there. The reference does this on Copilot's
 * `anthropic-messages` and OpenAI Responses routes and not on `openai-completions` (observed
 * with the oracle; camel-case `redactedThinking` is not touched).
 *
 * Unit: message. Counters: `removedBlocks`, `placeholders`.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { Message } from '../lib/types.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import { isArrayAssistant, isThinkingLikeBlock, withoutBlocks } from './thinking-shared.ts';

/** The replay copy of one message under Copilot's hook. */
export function stripCopilotThinking(message: Message): { message: Message; removed: number; placeholder: boolean } {
  if (!isArrayAssistant(message)) return { message, removed: 0, placeholder: false };
  return withoutBlocks(message, isThinkingLikeBlock);
}

export function stripCopilotThinkingEnabled(policy: TranscriptPolicy): boolean {
  return policy.stripAllThinkingBlocks;
}

export const stripCopilotThinkingRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'strip-copilot-thinking',
    summary: 'GitHub Copilot routes: removes every thinking block from every assistant turn; an emptied turn becomes "[assistant reasoning omitted]".',
    counters: ['removedBlocks', 'placeholders'],
  },
  apply(message, ctx) {
    const result = stripCopilotThinking(message);
    if (result.removed > 0) ctx.count('removedBlocks', result.removed);
    if (result.placeholder) ctx.count('placeholders');
    return result.message;
  },
};
