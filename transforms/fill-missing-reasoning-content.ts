/**
 * fill-missing-reasoning-content: our provider rule, on DeepSeek thinking models over chat
 * completions (policy `fillMissingReasoningContent`: deepseek-v4-pro, deepseek-v4-flash,
 * deepseek-reasoner, by the last segment of the model id, on `openai-completions` or OpenRouter).
 *
 * Why: in thinking mode, "for turns that do perform tool calls, the reasoning_content must be
 * fully passed back to the API in all subsequent requests" (DeepSeek's thinking-mode guide);
 * without it DeepSeek answers "The `reasoning_content` in the thinking mode must be passed back
 * to the API" (pi#3636). A tool-call turn made by another model before a switch has none.
 *
 * What the runtime's builder sends (pi-ai 0.73.1, `openai-completions` convertMessages and
 * transformMessages): a thinking block goes out as `<thinkingSignature>: <thinking>` (so
 * `reasoning_content` when the signature names that field), but only when the thinking is
 * non-blank and the message is of the request's own model (provider, api and model id equal);
 * another model's thinking goes out as plain text. Only on provider `deepseek` (or a deepseek.com
 * base URL) does the builder add an empty `reasoning_content` to assistant messages itself
 * (compat `requiresReasoningContentOnAssistantMessages`); OpenRouter, opencode-go, Fireworks and
 * the other relays get nothing. So the replay copy of such a turn must contain, for the builder
 * to send `reasoning_content`:
 * - `provider`, `api` and `model` of the route (the turn is sent as the route's own);
 * - a non-blank thinking block with `thinkingSignature: "reasoning_content"`: the turn's own
 *   reasoning when it has some (another model's thinking, which the builder would have sent as
 *   text), otherwise the placeholder `(no reasoning recorded for this turn)`; DeepSeek asks for
 *   the field, not for its contents, and an empty string never reaches the wire (the builder
 *   drops blank thinking);
 * - no other model's `thoughtSignature` on its calls (the builder would parse it into
 *   `reasoning_details`).
 * A turn of the route's own model whose reasoning names no reasoning field (`reasoning_content`,
 * `reasoning`, `reasoning_text`: what pi-ai reads back) gets `reasoning_content` as its signature; one that already sends it is the same object. Turns without tool calls are left
 * alone: DeepSeek ignores their reasoning.
 *
 * Unit: message (stateless). Counters: `filled` (placeholder added), `relabelled` (another
 * model's turn, its reasoning kept), `signed` (own turn, field named).
 */
import type { MessageRule } from '../lib/rule.ts';
import type { TranscriptPolicy } from '../lib/policy.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';
import { isCallTypeBlock } from './tool-call-shapes.ts';

export const MISSING_REASONING_TEXT = '(no reasoning recorded for this turn)';
export const REASONING_FIELD = 'reasoning_content';
/** The reasoning fields of chat completions that pi-ai reads back into thinking blocks (and so sends again). */
const REASONING_FIELDS: ReadonlySet<unknown> = new Set(['reasoning_content', 'reasoning', 'reasoning_text']);

export interface RouteModel {
  readonly provider: string;
  readonly modelApi: string;
  readonly modelId: string;
}

function isNonBlankThinking(block: unknown): block is { type: 'thinking'; thinking: string; thinkingSignature?: unknown } {
  return isRecord(block) && block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim() !== '' && block.redacted !== true;
}

export type FillOutcome = 'same' | 'filled' | 'relabelled' | 'signed';

/** The turn as it must be for the builder to send `reasoning_content`; the same object when it already does. */
export function fillMissingReasoningContent(message: Message, route: RouteModel): { message: Message; outcome: FillOutcome } {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return { message, outcome: 'same' };
  const content = message.content as unknown[];
  if (!content.some(isCallTypeBlock)) return { message, outcome: 'same' };
  const sameModel = message.provider === route.provider && message.api === route.modelApi && message.model === route.modelId;
  const thinking = content.filter(isNonBlankThinking);
  if (sameModel && thinking.length > 0) {
    const first = thinking[0]!;
    if (REASONING_FIELDS.has(first.thinkingSignature)) return { message, outcome: 'same' };
    const signed = content.map((block) => (block === first ? { ...first, thinkingSignature: REASONING_FIELD } : block));
    return { message: { ...message, content: signed } as Message, outcome: 'signed' };
  }
  // Another model's turn, or none of its own reasoning: sent as the route's own, with reasoning.
  const reasoning = thinking.map((block) => block.thinking).join('\n\n');
  const rest = content
    .filter((block) => !(isRecord(block) && (block.type === 'thinking' || block.type === 'redacted_thinking' || block.type === 'redactedThinking')))
    .map((block) => {
      if (!isCallTypeBlock(block) || !('thoughtSignature' in block)) return block;
      const { thoughtSignature: _dropped, ...call } = block;
      return call;
    });
  const head = { type: 'thinking', thinking: reasoning === '' ? MISSING_REASONING_TEXT : reasoning, thinkingSignature: REASONING_FIELD };
  const out = { ...message, provider: route.provider, api: route.modelApi, model: route.modelId, content: [head, ...rest] } as Message;
  return { message: out, outcome: reasoning === '' ? 'filled' : 'relabelled' };
}

export function fillMissingReasoningContentEnabled(policy: TranscriptPolicy): boolean {
  return policy.fillMissingReasoningContent;
}

function routeOf(options: ResolvedHygieneOptions): RouteModel {
  return { provider: options.provider, modelApi: options.modelApi, modelId: options.modelId };
}

export const fillMissingReasoningContentRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'fill-missing-reasoning-content',
    summary: 'DeepSeek thinking models on chat completions (our provider rule): every tool-call turn goes out with reasoning_content; another model\'s turn is sent as the route\'s own with its reasoning, or "(no reasoning recorded for this turn)" when it has none.',
    counters: ['filled', 'relabelled', 'signed'],
  },
  apply(message, ctx) {
    const { message: out, outcome } = fillMissingReasoningContent(message, routeOf(ctx.options));
    if (outcome !== 'same') ctx.count(outcome);
    return out;
  },
};
