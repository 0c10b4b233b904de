/**
 * The transcript policy: which replay rules a provider route needs, as a frozen flat record.
 * Resolution is a static table (spec/turns-images-policy.md §2), so nothing here reads config or plugins.
 *
 * Three layers, applied in order:
 * 1. the reference's policy: the owning bundled plugin's hook (§2.4, `OWNER_BY_PROVIDER` and
 *    `OWNER_HOOKS`) or, for unowned providers and plugins without a hook, the transport fallback (§2.3);
 * 2. the seed's Mistral rule (spec/README.md, "Mistral detection"), the only place where the
 *    project's reference fields differ from the reference's matrix (§2.5);
 * 3. the project-only fields, so rules never sniff provider, api or model ids themselves.
 *
 * Owner hooks for routes outside the §2.5 matrix were pinned by running the reference
 * (`../shared/oracle`) on a probe transcript; fields no replay step shows (`sanitizeMode`,
 * `allowSyntheticToolResults`, ids on Responses apis) follow the owner's documented shape.
 */
import {
  bindsClaudeThinkingPrefix,
  isClaudeFamilyModelId,
  shouldDropClaudeThinkingBlocks,
} from './policy-claude.ts';
import type { ToolNameRule } from './tool-names.ts';
import { ANTHROPIC_IMAGE_LIMITS, BEDROCK_IMAGE_LIMITS, OPENAI_IMAGE_LIMITS, type RequestImageLimits } from './image-census.ts';

export type ToolCallIdMode = 'strict' | 'strict9';

/** A provider's tool-call id rule (see `enforceToolUseIdPattern`). */
export type ToolUseIdFamily = 'anthropic' | 'bedrock' | 'openai-chat';

export interface ThoughtSignatureSanitizing {
  readonly allowBase64Only: boolean;
  readonly includeCamelCase: boolean;
}

export interface TranscriptPolicy {
  /** Carried for parity with the reference; no rule reads it (images and blank text are always sanitized). */
  readonly sanitizeMode: 'images-only' | 'full';
  readonly sanitizeToolCallIds: boolean;
  readonly toolCallIdMode: ToolCallIdMode | undefined;
  readonly duplicateToolCallIdStyle: string | undefined;
  readonly preserveNativeAnthropicToolUseIds: boolean;
  readonly repairToolUseResultPairing: boolean;
  readonly preserveSignatures: boolean;
  readonly appendOnlyRuntimeContext: boolean;
  readonly sanitizeThoughtSignatures: ThoughtSignatureSanitizing | undefined;
  readonly dropThinkingBlocks: boolean;
  readonly dropReasoningFromHistory: boolean;
  readonly applyGoogleTurnOrdering: boolean;
  readonly validateGeminiTurns: boolean;
  readonly validateAnthropicTurns: boolean;
  readonly allowSyntheticToolResults: boolean;

  // project rules beyond the reference's policy object

  /**
   * `modelApi` is one of `OPENAI_RESPONSES_APIS`: pairing repair, reasoning and id normalization
   * for Responses run, and the strict/strict9 id sanitizer never does (spec/tool-calls.md §1.1).
   */
  readonly responsesFamily: boolean;
  /**
   * `modelApi === 'bedrock-converse-stream'`: an error turn with `content: []` gets the stream-error
   * fallback text instead of being dropped (seed deviation, spec/README.md; spec/thinking.md §4.14).
   */
  readonly repairBedrockEmptyErrorTurns: boolean;
  /**
   * Provider `google-antigravity` with a Claude-family model id: thinking signatures are normalized
   * and unsigned thinking blocks dropped (seed deviation, spec/README.md; spec/thinking.md §4.18).
   */
  readonly normalizeAntigravityClaudeThinking: boolean;
  /**
   * The request-time trailing-prefill strip applies when thinking is on for the request: any route on
   * `anthropic-messages`, and verified OpenRouter Anthropic models (provider `openrouter`, api
   * `openai-completions` or unset, model id starting with `anthropic/` once a leading `openrouter/`
   * and `~` are removed). Never part of the replay copy (spec/thinking.md §4.15b–c, spec/README.md).
   */
  readonly stripTrailingPrefillWhenThinking: boolean;
  /**
   * `validateAnthropicTurns` merges consecutive user turns, except for prefix-binding Claude models
   * on the Messages API: `!(appendOnlyRuntimeContext && modelApi === 'anthropic-messages')`
   * (spec/turns-images-policy.md §3.3 `shouldMergeConsecutiveUserTurns`).
   */
  readonly mergeConsecutiveUserTurns: boolean;
  /**
   * `modelApi === 'bedrock-converse-stream'`: a history that starts with an assistant turn gets the
   * `(session bootstrap)` user turn, as Google routes do. Our provider rule, not the reference's:
   * Converse rejects a conversation whose first message is not a user message.
   */
  readonly insertBedrockBootstrapTurn: boolean;
  /**
   * Provider `github-copilot` on `anthropic-messages` or an OpenAI Responses api: the provider's
   * replay hook removes every thinking block, the latest assistant's too (turns-images-policy.md
   * §8.5; observed with the oracle).
   */
  readonly stripAllThinkingBlocks: boolean;
  /**
   * The tool-call id pattern of the model the request reaches, which the ids the sanitizer keeps
   * verbatim must match too (our provider rule): `'anthropic'` (`^[a-zA-Z0-9_-]+$`, where the ids
   * reach Claude: provider `anthropic`, `anthropic-vertex` or `claude-cli` and Claude model ids on
   * `anthropic-messages`, verified OpenRouter Anthropic models, Claude behind `google-antigravity`),
   * `'bedrock'` (`^[a-zA-Z0-9_.:-]{1,64}$`, every `bedrock-converse-stream` route), `'openai-chat'`
   * (at most 40 characters: provider `openai` or `github-copilot` on `openai-completions`), or
   * false (other gateways on `anthropic-messages`, such as MiniMax, issue and check their own ids).
   */
  readonly enforceToolUseIdPattern: ToolUseIdFamily | false;
  /**
   * `modelApi === 'bedrock-converse-stream'`: two messages that would go out as consecutive user
   * messages (a user turn right after tool results) get an assistant turn between them; Converse
   * requires strict alternation and its transport merges nothing. Our provider rule.
   */
  readonly bridgeBedrockUserTurns: boolean;
  /**
   * A Gemini api (`google-generative-ai`, `google-gemini-cli`, `google-vertex`): no turn goes out
   * without a part ("contents.parts must not be empty"). Our provider rule.
   */
  readonly repairPartlessGeminiTurns: boolean;
  /**
   * Which tool-call names the route's provider takes (lib/tool-names.ts; our provider rule):
   * `'claude'` (any non-blank name up to 200 characters) on `anthropic-messages` where the request
   * reaches Claude (the routes whose id family is `'anthropic'`), `'gemini'` on the apis that send
   * Gemini contents, `'strict'` (`^[a-zA-Z0-9_-]{1,64}$`) everywhere else.
   */
  readonly toolNameRule: ToolNameRule;
  /**
   * A DeepSeek thinking model (`isDeepSeekThinkingModel`) on `openai-completions` or OpenRouter:
   * every assistant tool-call turn goes out with `reasoning_content` ("The `reasoning_content` in
   * the thinking mode must be passed back to the API", DeepSeek's thinking-mode guide). Our rule.
   */
  readonly fillMissingReasoningContent: boolean;
  /**
   * A Gemini 3 (or later) model on the apis that send Gemini contents (google, google-vertex,
   * google-gemini-cli, Antigravity's Gemini): the first function call of each step of the current
   * turn needs its thought signature ("Function call is missing a thought_signature in
   * functionCall parts"). Our rule.
   */
  readonly signGemini3CurrentTurn: boolean;
  /**
   * The limits the route's provider puts on a request's images as a whole (lib/image-census.ts):
   * Anthropic on `anthropic-messages`, Bedrock on `bedrock-converse-stream`, OpenAI for provider
   * `openai` or `azure-openai` on chat completions and Responses; undefined elsewhere. Our rule.
   */
  readonly requestImageLimits: RequestImageLimits | undefined;
}

export interface TranscriptRoute {
  provider?: string;
  modelApi?: string;
  modelId?: string;
  /** The model declares reasoning support (pi-ai `model.reasoning`). */
  reasoning?: boolean;
}

/** The OpenAI Responses family: these apis replay through the Responses rules, not the id sanitizer. */
export const OPENAI_RESPONSES_APIS = Object.freeze([
  'openai-responses',
  'openai-chatgpt-responses',
  'azure-openai-responses',
] as const);

type ProjectField =
  | 'responsesFamily'
  | 'repairBedrockEmptyErrorTurns'
  | 'normalizeAntigravityClaudeThinking'
  | 'stripTrailingPrefillWhenThinking'
  | 'mergeConsecutiveUserTurns'
  | 'insertBedrockBootstrapTurn'
  | 'stripAllThinkingBlocks'
  | 'enforceToolUseIdPattern'
  | 'bridgeBedrockUserTurns'
  | 'repairPartlessGeminiTurns'
  | 'toolNameRule'
  | 'fillMissingReasoningContent'
  | 'signGemini3CurrentTurn'
  | 'requestImageLimits';

/** The reference's policy object, while it is being built. */
type ReferencePolicy = { -readonly [K in Exclude<keyof TranscriptPolicy, ProjectField>]: TranscriptPolicy[K] };
/** What a plugin hook or the fallback sets over the defaults. */
type PolicyPatch = Partial<ReferencePolicy>;

/**
 * The route after normalization: provider trimmed and lower-cased; api and model id as given
 * (the reference compares the api exactly; model-id tests normalize for themselves).
 */
interface Route {
  readonly provider: string;
  readonly modelApi: string;
  readonly modelId: string;
  readonly reasoning: boolean;
}

const RESPONSES_APIS: ReadonlySet<string> = new Set(OPENAI_RESPONSES_APIS);
const GOOGLE_APIS: ReadonlySet<string> = new Set(['google-generative-ai', 'google-gemini-cli']);
/** The apis that send Gemini `contents` (the reference's Google policy skips `google-vertex`; the wire does not). */
const GEMINI_WIRE_APIS: ReadonlySet<string> = new Set(['google-generative-ai', 'google-gemini-cli', 'google-vertex']);
const ANTHROPIC_APIS: ReadonlySet<string> = new Set(['anthropic-messages', 'bedrock-converse-stream']);
const COMPLETIONS_API = 'openai-completions';

const BASE64_THOUGHT_SIGNATURES: ThoughtSignatureSanitizing = Object.freeze({
  allowBase64Only: true,
  includeCamelCase: true,
});

const DEFAULTS: Readonly<ReferencePolicy> = Object.freeze({
  sanitizeMode: 'images-only',
  sanitizeToolCallIds: false,
  toolCallIdMode: undefined,
  duplicateToolCallIdStyle: undefined,
  preserveNativeAnthropicToolUseIds: false,
  repairToolUseResultPairing: true,
  preserveSignatures: false,
  appendOnlyRuntimeContext: false,
  sanitizeThoughtSignatures: undefined,
  dropThinkingBlocks: false,
  dropReasoningFromHistory: false,
  applyGoogleTurnOrdering: false,
  validateGeminiTurns: false,
  validateAnthropicTurns: false,
  allowSyntheticToolResults: false,
});

// ---------------------------------------------------------------------------------------------
// Model-id predicates

/**
 * DeepSeek's models in thinking mode, whose tool-call turns must carry their `reasoning_content`
 * in every later request (api-docs.deepseek.com/guides/thinking_mode, "Tool Calls"; pi#3636).
 * Checked against pi-ai 0.73.1's catalogue (provider deepseek: deepseek-v4-flash, deepseek-v4-pro;
 * openrouter, vercel-ai-gateway, opencode-go, fireworks, huggingface list the same names) and
 * DeepSeek's docs (`deepseek-reasoner`, the thinking-mode alias).
 */
const DEEPSEEK_THINKING_MODELS: readonly string[] = ['deepseek-v4-pro', 'deepseek-v4-flash', 'deepseek-reasoner'];

/** The last path segment (or its first or last `:` piece) is one of `names`. */
function modelNameIn(modelId: string, names: ReadonlySet<string>): boolean {
  const lower = modelId.trim().toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  if (names.has(name)) return true;
  if (!name.includes(':')) return false;
  const pieces = name.split(':');
  return names.has(pieces[0] ?? '') || names.has(pieces[pieces.length - 1] ?? '');
}

const DEEPSEEK_THINKING_SET: ReadonlySet<string> = new Set(DEEPSEEK_THINKING_MODELS);

/** A DeepSeek thinking model, by the last path segment of its id (`openrouter/deepseek/deepseek-v4-pro`). */
export function isDeepSeekThinkingModel(modelId: string): boolean {
  return modelNameIn(modelId, DEEPSEEK_THINKING_SET);
}

const REASONING_REPLAY_MODELS: ReadonlySet<string> = new Set([
  'kimi-for-coding', 'kimi-k2.5', 'kimi-k2.6', 'kimi-k2.7-code', 'kimi-k2.7-code-highspeed', 'kimi-k3',
  'kimi-k2-thinking', 'kimi-k2-thinking-turbo', 'mimo-v2-pro', 'mimo-v2-omni', 'mimo-v2.5', 'mimo-v2.5-pro',
  'mimo-v2.6-flash', 'mimo-v2.6-pro', 'mimo-v2.6-pro-ultraspeed',
  // Ours, not the reference's: DeepSeek's thinking models (issue 29).
  ...DEEPSEEK_THINKING_MODELS,
]);

/**
 * Models whose protocol needs their reasoning replayed, so the completions fallback keeps it:
 * the last path segment, or its first or last `:` piece, is a listed id (`moonshot/kimi-k2.5:cloud`).
 */
export function requiresReasoningContentReplay(modelId: string): boolean {
  return modelNameIn(modelId, REASONING_REPLAY_MODELS);
}

/** A Gemini model of major version 3 or later, by the last path segment of its id (`gemini-3-pro-preview`, `gemini-3.1-flash`). */
export function isGemini3OrLater(modelId: string): boolean {
  const lower = modelId.trim().toLowerCase();
  const match = /^gemini(?:-live)?-(\d+)/.exec(lower.slice(lower.lastIndexOf('/') + 1));
  return match !== null && Number(match[1]) >= 3;
}

/** An OpenRouter model ref reduced to its family id: trimmed, lower-cased, leading `openrouter/` then `~` removed. */
function openRouterFamilyId(modelId: string): string {
  return modelId.trim().toLowerCase().replace(/^openrouter\//, '').replace(/^~/, '');
}

/** The reference's OpenRouter Mistral test (§2.4): a prefix list, narrower than the seed's. */
const OPENROUTER_MISTRAL_PREFIXES: readonly string[] = [
  'mistralai/', 'mistral/', 'mistral-', 'codestral-', 'devstral-', 'ministral-', 'mixtral-', 'pixtral-', 'voxtral-',
];

/** The seed's Mistral hints, as a segment start anywhere in the id (spec/README.md, "Mistral detection"). */
const MISTRAL_MODEL_HINT = /(?:^|[/:~])(?:mistral|mixtral|codestral|devstral|ministral|pixtral|voxtral|magistral)/i;

/** A Mistral route by the seed: provider `mistral`, or a model id naming a Mistral model. */
export function isMistralRoute(provider: string, modelId: string): boolean {
  return provider.trim().toLowerCase() === 'mistral' || MISTRAL_MODEL_HINT.test(openRouterFamilyId(modelId));
}

/**
 * `azure-openai` also hosts other vendors' models, so the openai plugin claims it only for OpenAI
 * ids. Observed on the reference: `gpt-5`, `gpt-`, `o3-pro`, `o10`, ` gpt-5` and `OPENAI/foo` are
 * claimed; `GPT-4o`, `gpt5`, `o5`, `x/gpt-5`, `o3/x` and `openai/` are not (case-sensitive prefixes).
 */
function isAzureOpenAIModel(modelId: string): boolean {
  const id = modelId.trim();
  const slash = id.indexOf('/');
  if (slash >= 0) return id.slice(0, slash).toLowerCase() === 'openai' && id.slice(slash + 1).trim() !== '';
  return /^(?:gpt-|o1|o3|o4)/.test(id);
}

// ---------------------------------------------------------------------------------------------
// Shapes shared by the fallback and the owners

/** The Anthropic Messages / Converse shape (fallback `anth` branch; anthropic and minimax owners). */
function anthropicShape(route: Route): PolicyPatch {
  return {
    sanitizeMode: 'full',
    sanitizeToolCallIds: true,
    toolCallIdMode: 'strict',
    preserveSignatures: true,
    appendOnlyRuntimeContext: bindsClaudeThinkingPrefix(route.modelId),
    // The fallback's other trigger, `model.compat.supportsReasoningEffort === false`, needs a model
    // object; a route has none, so it cannot fire here.
    dropThinkingBlocks: shouldDropClaudeThinkingBlocks(route.modelId),
    validateAnthropicTurns: true,
    allowSyntheticToolResults: true,
  };
}

/** The Gemini shape (fallback `google` branch; google owner on every api). */
const GOOGLE_SHAPE: PolicyPatch = Object.freeze({
  sanitizeMode: 'full',
  sanitizeToolCallIds: true,
  toolCallIdMode: 'strict',
  sanitizeThoughtSignatures: BASE64_THOUGHT_SIGNATURES,
  applyGoogleTurnOrdering: true,
  validateGeminiTurns: true,
  allowSyntheticToolResults: true,
});

/** OpenAI-compatible Chat Completions: strict ids, Google ordering and both validators. */
const OPENAI_COMPATIBLE_SHAPE: PolicyPatch = Object.freeze({
  sanitizeToolCallIds: true,
  toolCallIdMode: 'strict',
  applyGoogleTurnOrdering: true,
  validateGeminiTurns: true,
  validateAnthropicTurns: true,
});

// ---------------------------------------------------------------------------------------------
// Transport fallback (§2.3): unowned providers and plugins without a hook (lmstudio, vllm, together)

function transportFallback(route: Route): PolicyPatch {
  const api = route.modelApi;
  if (GOOGLE_APIS.has(api)) return GOOGLE_SHAPE;
  if (ANTHROPIC_APIS.has(api)) return anthropicShape(route);
  if (api === COMPLETIONS_API) {
    return {
      ...OPENAI_COMPATIBLE_SHAPE,
      // `reasoning: true` matters only here: self-hosted reasoning models keep their reasoning.
      dropReasoningFromHistory: !(route.reasoning || requiresReasoningContentReplay(route.modelId)),
    };
  }
  if (RESPONSES_APIS.has(api)) {
    return {
      sanitizeToolCallIds: true,
      toolCallIdMode: 'strict',
      validateAnthropicTurns: isClaudeFamilyModelId(route.modelId),
      allowSyntheticToolResults: true,
    };
  }
  // Any other api (including `google-vertex` and `mistral-conversations`): image sanitization only.
  return {};
}

// ---------------------------------------------------------------------------------------------
// Owners (§2.4): bundled plugins with a `buildReplayPolicy` hook

type OwnerId =
  | 'openai' | 'anthropic' | 'google' | 'minimax' | 'openrouter' | 'ollama'
  | 'xai' | 'sglang' | 'clawrouter' | 'github-copilot' | 'opencode-go';

/** A plugin's `buildReplayPolicy`: a patch over the defaults; `undefined` means the plain defaults. */
type OwnerHook = (route: Route) => PolicyPatch | undefined;

/**
 * Provider id (and manifest alias) → owning plugin. `azure-openai` is owned by model id
 * (`isAzureOpenAIModel`). Not here, hence the fallback: `openai-codex`, `google-antigravity`,
 * `amazon-bedrock`, `anthropic-vertex`, `mistral`, `cloudflare-ai-gateway`, `groq`, `deepseek`,
 * custom ids, and the hook-less plugins `lmstudio`, `vllm`, `together`.
 */
const OWNER_BY_PROVIDER: ReadonlyMap<string, OwnerId> = new Map<string, OwnerId>([
  ['openai', 'openai'],
  ['azure-openai-responses', 'openai'],
  ['anthropic', 'anthropic'],
  ['claude-cli', 'anthropic'],
  ['google', 'google'],
  ['google-gemini-cli', 'google'],
  ['google-vertex', 'google'],
  ['minimax', 'minimax'],
  ['minimax-cn', 'minimax'],
  ['minimax-portal', 'minimax'],
  ['openrouter', 'openrouter'],
  ['ollama', 'ollama'],
  ['ollama-cloud', 'ollama'],
  ['xai', 'xai'],
  ['sglang', 'sglang'],
  ['clawrouter', 'clawrouter'],
  ['github-copilot', 'github-copilot'],
  ['opencode-go', 'opencode-go'],
]);

const anthropicOwner: OwnerHook = (route) => ({ ...anthropicShape(route), preserveNativeAnthropicToolUseIds: true });
const googleOwner: OwnerHook = () => GOOGLE_SHAPE;

const OWNER_HOOKS: Readonly<Record<OwnerId, OwnerHook>> = Object.freeze({
  openai: (route) => {
    if (RESPONSES_APIS.has(route.modelApi)) return { appendOnlyRuntimeContext: true, allowSyntheticToolResults: true };
    if (route.modelApi === COMPLETIONS_API) return { sanitizeToolCallIds: true, toolCallIdMode: 'strict' };
    return { sanitizeToolCallIds: false };
  },
  // The anthropic shape on every api (observed: the same flags on openai-completions and unknown apis).
  anthropic: anthropicOwner,
  // Every api gets the Gemini shape (observed on openai-completions and anthropic-messages too).
  google: googleOwner,
  minimax: (route) => {
    // The Claude helpers still apply (observed: a Claude id drops thinking, Opus 5.5 keeps user turns apart).
    if (ANTHROPIC_APIS.has(route.modelApi)) return anthropicShape(route);
    // Observed: reasoning dropped even with `reasoning: true` or a Kimi id.
    if (route.modelApi === COMPLETIONS_API) return { ...OPENAI_COMPATIBLE_SHAPE, dropReasoningFromHistory: true };
    return undefined;
  },
  // Passthrough on every api: no ordering or validation; OpenRouter rewrites only Mistral ids.
  openrouter: (route) => {
    const family = openRouterFamilyId(route.modelId);
    const patch: PolicyPatch = {};
    if (route.modelId.toLowerCase().includes('gemini')) patch.sanitizeThoughtSignatures = BASE64_THOUGHT_SIGNATURES;
    if (OPENROUTER_MISTRAL_PREFIXES.some((prefix) => family.startsWith(prefix))) {
      patch.sanitizeToolCallIds = true;
      patch.toolCallIdMode = 'strict9';
    }
    return patch;
  },
  ollama: (route) => {
    if (route.modelApi === COMPLETIONS_API) return { ...OPENAI_COMPATIBLE_SHAPE, dropReasoningFromHistory: true };
    if (route.modelApi === 'ollama') {
      return { applyGoogleTurnOrdering: true, validateGeminiTurns: true, validateAnthropicTurns: true, dropReasoningFromHistory: true };
    }
    return undefined;
  },
  xai: (route) => {
    if (route.modelApi === COMPLETIONS_API) return { ...OPENAI_COMPATIBLE_SHAPE, dropReasoningFromHistory: true };
    // Unlike the fallback, no Anthropic validation for Claude ids (observed).
    if (RESPONSES_APIS.has(route.modelApi)) {
      return { sanitizeToolCallIds: true, toolCallIdMode: 'strict', allowSyntheticToolResults: true };
    }
    return undefined;
  },
  sglang: (route) => (route.modelApi === COMPLETIONS_API ? OPENAI_COMPATIBLE_SHAPE : undefined),
  // A router: each api gets its transport owner's shape (observed for these three; other apis,
  // Responses included, show plain defaults).
  clawrouter: (route) => {
    if (route.modelApi === COMPLETIONS_API) return OPENAI_COMPATIBLE_SHAPE;
    if (route.modelApi === 'anthropic-messages') return anthropicOwner(route);
    if (route.modelApi === 'google-generative-ai') return googleOwner(route);
    return undefined;
  },
  // Copilot keeps its own ids; only its Anthropic Messages transport gets Anthropic validation, whatever the model.
  'github-copilot': (route) => {
    if (route.modelApi !== 'anthropic-messages') return undefined;
    return {
      sanitizeMode: 'full',
      preserveSignatures: true,
      dropThinkingBlocks: shouldDropClaudeThinkingBlocks(route.modelId),
      validateAnthropicTurns: true,
      allowSyntheticToolResults: true,
    };
  },
  'opencode-go': (route) =>
    route.modelId.toLowerCase().includes('gemini') ? { sanitizeThoughtSignatures: BASE64_THOUGHT_SIGNATURES } : undefined,
});

/**
 * The providers this table knows: the owners' ids, and those it names as taking the transport
 * fallback on purpose. Any other id also gets the fallback; the command asks the user to say
 * that this is deliberate (lib/route-check.ts).
 */
export const KNOWN_PROVIDERS: readonly string[] = Object.freeze([
  ...OWNER_BY_PROVIDER.keys(),
  'azure-openai', 'openai-codex', 'google-antigravity', 'amazon-bedrock', 'anthropic-vertex', 'mistral',
  'cloudflare-ai-gateway', 'groq', 'deepseek', 'lmstudio', 'vllm', 'together',
]);

/** The model APIs the table tells apart (any other gets the defaults: image sanitization only). */
export const KNOWN_MODEL_APIS: readonly string[] = Object.freeze([
  'anthropic-messages', 'bedrock-converse-stream', COMPLETIONS_API, ...OPENAI_RESPONSES_APIS, ...GOOGLE_APIS,
  'google-vertex', 'mistral-conversations', 'ollama',
]);

function ownerOf(route: Route): OwnerId | undefined {
  if (route.provider === 'azure-openai') return isAzureOpenAIModel(route.modelId) ? 'openai' : undefined;
  return OWNER_BY_PROVIDER.get(route.provider);
}

/** The reference's policy for a route (§2.2 steps 3–4). */
function referencePolicy(route: Route): ReferencePolicy {
  const owner = ownerOf(route);
  const patch = owner === undefined ? transportFallback(route) : OWNER_HOOKS[owner](route);
  return { ...DEFAULTS, ...patch };
}

// ---------------------------------------------------------------------------------------------
// Project layers

/**
 * Seed: Mistral routes get strict9 ids (9 alphanumerics), by provider or model id, on every api.
 * The reference gives `strict` (no Mistral plugin in its build) or nothing (`mistral-conversations`,
 * whose transport rewrites ids at payload time). Responses apis keep the reference's value: the id
 * sanitizer never runs there (spec/README.md, "Mistral detection").
 */
function applySeedMistralIds(policy: ReferencePolicy, route: Route): void {
  if (RESPONSES_APIS.has(route.modelApi) || !isMistralRoute(route.provider, route.modelId)) return;
  policy.sanitizeToolCallIds = true;
  policy.toolCallIdMode = 'strict9';
}

/**
 * OpenRouter's Anthropic payload check (spec/thinking.md §4.15c). A route has no `baseUrl`, so
 * "verified" reduces to provider `openrouter`; an empty api counts as unset.
 */
function isVerifiedOpenRouterAnthropic(route: Route): boolean {
  return route.provider === 'openrouter'
    && (route.modelApi === COMPLETIONS_API || route.modelApi === '')
    && openRouterFamilyId(route.modelId).startsWith('anthropic/');
}

/** Providers on `anthropic-messages` that only serve Claude. */
const CLAUDE_PROVIDERS: ReadonlySet<string> = new Set(['anthropic', 'anthropic-vertex', 'claude-cli']);
/** Chat completions providers that cap tool-call ids at 40 characters (litellm#17343, opencode#12653). */
const OPENAI_CHAT_ID_PROVIDERS: ReadonlySet<string> = new Set(['openai', 'github-copilot']);

/** Whose tool-call id rule applies on a route (`enforceToolUseIdPattern`). */
function toolUseIdFamilyOf(route: Route): ToolUseIdFamily | false {
  if (route.modelApi === 'bedrock-converse-stream') return 'bedrock';
  if (route.modelApi === 'anthropic-messages') return CLAUDE_PROVIDERS.has(route.provider) || isClaudeFamilyModelId(route.modelId) ? 'anthropic' : false;
  if (isVerifiedOpenRouterAnthropic(route)) return 'anthropic';
  if (route.provider === 'google-antigravity' && isClaudeFamilyModelId(route.modelId)) return 'anthropic';
  if (route.modelApi === COMPLETIONS_API && OPENAI_CHAT_ID_PROVIDERS.has(route.provider)) return 'openai-chat';
  return false;
}

/** The request-wide image limits of the route's provider (`requestImageLimits`). */
function requestImageLimitsOf(route: Route): RequestImageLimits | undefined {
  if (route.modelApi === 'anthropic-messages') return ANTHROPIC_IMAGE_LIMITS;
  if (route.modelApi === 'bedrock-converse-stream') return BEDROCK_IMAGE_LIMITS;
  if ((route.provider === 'openai' || route.provider === 'azure-openai') && (route.modelApi === COMPLETIONS_API || RESPONSES_APIS.has(route.modelApi))) return OPENAI_IMAGE_LIMITS;
  return undefined;
}

/** Which tool-call names the route's provider takes (`toolNameRule`). */
function toolNameRuleOf(route: Route): ToolNameRule {
  if (route.modelApi === 'anthropic-messages' && toolUseIdFamilyOf(route) === 'anthropic') return 'claude';
  if (GEMINI_WIRE_APIS.has(route.modelApi)) return 'gemini';
  return 'strict';
}

function projectFields(policy: ReferencePolicy, route: Route): Pick<TranscriptPolicy, ProjectField> {
  return {
    responsesFamily: RESPONSES_APIS.has(route.modelApi),
    repairBedrockEmptyErrorTurns: route.modelApi === 'bedrock-converse-stream',
    normalizeAntigravityClaudeThinking: route.provider === 'google-antigravity' && isClaudeFamilyModelId(route.modelId),
    // Every `anthropic-messages` route, not just the anthropic plugin's (the reference's §4.15b
    // wrapper) and Cloudflare's (the seed): Anthropic rejects a thinking request that ends with
    // an assistant turn, whoever relays it.
    stripTrailingPrefillWhenThinking: route.modelApi === 'anthropic-messages' || isVerifiedOpenRouterAnthropic(route),
    mergeConsecutiveUserTurns: !(policy.appendOnlyRuntimeContext && route.modelApi === 'anthropic-messages'),
    insertBedrockBootstrapTurn: route.modelApi === 'bedrock-converse-stream',
    stripAllThinkingBlocks: route.provider === 'github-copilot' && (route.modelApi === 'anthropic-messages' || RESPONSES_APIS.has(route.modelApi)),
    enforceToolUseIdPattern: toolUseIdFamilyOf(route),
    bridgeBedrockUserTurns: route.modelApi === 'bedrock-converse-stream',
    repairPartlessGeminiTurns: GEMINI_WIRE_APIS.has(route.modelApi),
    toolNameRule: toolNameRuleOf(route),
    requestImageLimits: requestImageLimitsOf(route),
    signGemini3CurrentTurn: GEMINI_WIRE_APIS.has(route.modelApi) && isGemini3OrLater(route.modelId),
    fillMissingReasoningContent: (route.modelApi === COMPLETIONS_API || route.provider === 'openrouter') && isDeepSeekThinkingModel(route.modelId),
  };
}

// ---------------------------------------------------------------------------------------------
// Resolution

/** Policies are frozen, so one object per route is shared; the bound guards against endless distinct model ids. */
const CACHE_LIMIT = 512;
const cache = new Map<string, TranscriptPolicy>();

function normalizeRoute(route: TranscriptRoute): Route {
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  return {
    provider: text(route.provider).trim().toLowerCase(),
    modelApi: text(route.modelApi),
    modelId: text(route.modelId),
    reasoning: route.reasoning === true,
  };
}

/**
 * The replay policy for a route: the reference's flags (§2.5 matrix) with the seed's Mistral ids,
 * plus the project-only fields. Unknown providers get the transport fallback; unknown apis the defaults.
 */
export function resolveTranscriptPolicy(route: TranscriptRoute): TranscriptPolicy {
  const normalized = normalizeRoute(route);
  const key = `${normalized.provider}\u0000${normalized.modelApi}\u0000${normalized.modelId}\u0000${normalized.reasoning ? 1 : 0}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;

  const policy = referencePolicy(normalized);
  applySeedMistralIds(policy, normalized);
  const resolved: TranscriptPolicy = Object.freeze({ ...policy, ...projectFields(policy, normalized) });

  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, resolved);
  return resolved;
}
