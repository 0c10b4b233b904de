/**
 * Provider invariants for a route: which provider families' rules apply (`invariantsFor`) and the
 * violations of a transcript as it stands (`checkTranscript`).
 *
 * Route → families, by the model API first (it decides the wire format), then the provider:
 * - `anthropic-messages` → Anthropic (its tool-use id pattern only where the ids reach Claude:
 *   not on gateways such as MiniMax, which issue and check their own ids);
 * - `bedrock-converse-stream` → Bedrock Converse (its own rules plus the Anthropic pairing);
 * - `google-generative-ai`, `google-gemini-cli`, `google-vertex` → Gemini, plus Anthropic's id
 *   pattern for Claude behind Antigravity;
 * - the Responses apis (`openai-responses`, `openai-chatgpt-responses`, `azure-openai-responses`)
 *   → OpenAI Responses;
 * - `openai-completions`, and any other api on provider `openrouter` → chat completions, plus the
 *   Mistral id rule when the policy gives `strict9` ids, the 40-character id limit for OpenAI and
 *   GitHub Copilot; on verified OpenRouter Anthropic models
 *   also Anthropic's tool-use id pattern and trailing-prefill rule, because OpenRouter relays the
 *   ids and the conversation to Anthropic unchanged (spec README: "OpenRouter Anthropic routes,
 *   which rewrite no ids").
 * Any other route (`mistral-conversations`, native `ollama`, unknown apis) has no known rules:
 * nothing is reported for it.
 */
import { OPENAI_RESPONSES_APIS, resolveTranscriptPolicy } from '../policy.ts';
import { ANTHROPIC_RULES, anthropicToolUseIdPattern, anthropicToolUseInput, anthropicTrailingPrefill } from './anthropic.ts';
import { BEDROCK_RULES } from './bedrock.ts';
import { CHAT_COMPLETIONS_RULES, chatToolCallIdLength } from './chat-completions.ts';
import { GEMINI_RULES } from './gemini.ts';
import { MISTRAL_RULES } from './mistral.ts';
import { OPENAI_RESPONSES_RULES } from './openai-responses.ts';
import { buildReplayView } from './turns.ts';
import { geminiUnsignedFunctionCall } from './gemini-signatures.ts';
import { REQUEST_IMAGES_RULES } from './request-images.ts';
import { TOOL_RESULT_SIZE_RULES, anthropicToolBlocksWithoutTools, bedrockToolBlocksWithoutToolConfig } from './request-options.ts';
import { INVARIANT_FAMILIES, type CheckContext, type CheckRoute, type InvariantFamily, type InvariantRule, type RouteInvariants, type Violation } from './types.ts';

export { INVARIANT_FAMILIES };
export type { CheckContext, CheckRoute, InvariantFamily, InvariantRule, RouteInvariants, Violation } from './types.ts';

const GEMINI_APIS: ReadonlySet<string> = new Set(['google-generative-ai', 'google-gemini-cli', 'google-vertex']);
const RESPONSES_APIS: ReadonlySet<string> = new Set(OPENAI_RESPONSES_APIS);

/** Every rule of every family, by family (for documentation and `check --json`). */
export const INVARIANT_RULES: Readonly<Record<InvariantFamily, readonly InvariantRule[]>> = Object.freeze({
  anthropic: [...ANTHROPIC_RULES, anthropicToolBlocksWithoutTools, TOOL_RESULT_SIZE_RULES.anthropic, REQUEST_IMAGES_RULES.anthropic],
  bedrock: [...BEDROCK_RULES, bedrockToolBlocksWithoutToolConfig, TOOL_RESULT_SIZE_RULES.bedrock, REQUEST_IMAGES_RULES.bedrock],
  gemini: [...GEMINI_RULES, geminiUnsignedFunctionCall, TOOL_RESULT_SIZE_RULES.gemini],
  'openai-responses': [...OPENAI_RESPONSES_RULES, TOOL_RESULT_SIZE_RULES['openai-responses'], REQUEST_IMAGES_RULES['openai-responses']],
  'chat-completions': [...CHAT_COMPLETIONS_RULES, chatToolCallIdLength, TOOL_RESULT_SIZE_RULES['chat-completions'], REQUEST_IMAGES_RULES['chat-completions']],
  mistral: [...MISTRAL_RULES, TOOL_RESULT_SIZE_RULES.mistral],
});

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The provider families and rules that apply to a route. */
export function invariantsFor(route: CheckRoute): RouteInvariants {
  const policy = resolveTranscriptPolicy(route);
  const provider = text(route.provider).trim().toLowerCase();
  const modelApi = text(route.modelApi);
  const context: CheckContext = { policy, provider, modelApi, modelId: text(route.modelId), thinking: route.thinking === true, tools: route.tools !== false, maxToolResultBytes: route.maxToolResultBytes };
  const families: InvariantFamily[] = [];
  const rules: InvariantRule[] = [];
  const add = (family: InvariantFamily, list: readonly InvariantRule[]): void => {
    if (!families.includes(family)) families.push(family);
    rules.push(...list);
  };

  // Whose id rule applies: the model the ids reach (the policy's id family, lib/policy.ts).
  const claudeIds = policy.enforceToolUseIdPattern === 'anthropic';
  if (modelApi === 'anthropic-messages') add('anthropic', claudeIds ? ANTHROPIC_RULES : ANTHROPIC_RULES.filter((rule) => rule !== anthropicToolUseIdPattern));
  else if (modelApi === 'bedrock-converse-stream') add('bedrock', BEDROCK_RULES);
  else if (GEMINI_APIS.has(modelApi)) {
    add('gemini', [...GEMINI_RULES, geminiUnsignedFunctionCall]);
    // Claude behind Antigravity: the function-call ids go to Claude.
    if (claudeIds) add('anthropic', [anthropicToolUseIdPattern]);
  } else if (RESPONSES_APIS.has(modelApi)) add('openai-responses', OPENAI_RESPONSES_RULES);
  else if (modelApi === 'openai-completions' || provider === 'openrouter') {
    add('chat-completions', policy.enforceToolUseIdPattern === 'openai-chat' ? [...CHAT_COMPLETIONS_RULES, chatToolCallIdLength] : CHAT_COMPLETIONS_RULES);
    if (policy.toolCallIdMode === 'strict9') add('mistral', MISTRAL_RULES);
    // The policy's verified-OpenRouter-Anthropic flag (its only non-Messages case).
    if (policy.stripTrailingPrefillWhenThinking) add('anthropic', [anthropicToolUseIdPattern, anthropicToolUseInput, anthropicTrailingPrefill]);
  }
  // What the request is (its options), on the families whose providers are known to reject it.
  if (!context.tools) {
    if (families.includes('anthropic')) add('anthropic', [anthropicToolBlocksWithoutTools]);
    if (families.includes('bedrock')) add('bedrock', [bedrockToolBlocksWithoutToolConfig]);
  }
  // The provider's request-wide image limits, under the route's wire family (the first).
  if (policy.requestImageLimits !== undefined && families.length > 0) add(families[0]!, [REQUEST_IMAGES_RULES[families[0]!]]);
  // The runner's tool result limit, once per route, under its wire family (the first).
  if (context.maxToolResultBytes !== undefined && families.length > 0) add(families[0]!, [TOOL_RESULT_SIZE_RULES[families[0]!]]);
  return { families, rules, context };
}

/**
 * The violations of the route's provider rules in a message list as it stands, in message order.
 * Non-objects and messages of other roles are skipped (see turns.ts). Pure: nothing is changed.
 */
export function checkTranscript(messages: readonly unknown[], route: CheckRoute): Violation[] {
  const { rules, context } = invariantsFor(route);
  if (rules.length === 0) return [];
  const view = buildReplayView(messages);
  const out: Violation[] = [];
  for (const rule of rules) rule.check(view, context, out);
  // Stable: within one message, in rule order.
  return out.map((violation, order) => ({ violation, order })).sort((a, b) => a.violation.index - b.violation.index || a.order - b.order).map(({ violation }) => violation);
}
