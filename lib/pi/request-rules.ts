/**
 * Which provider's rules a pi request gets, from what the request will be: the model's api, its id
 * and the base URL it goes to. pi's provider name is never read: a user's `models.json` names a
 * company proxy, a gateway or a test emulator as it likes, and the same name (`anthropic`,
 * `openai`) can point elsewhere. The README's "Which rules a request gets" is this table in words.
 *
 * In order:
 * 1. a host whose own rules differ from its API's (GitHub Copilot, OpenRouter, MiniMax, xAI, and
 *    Anthropic's and OpenAI's own APIs);
 * 2. the API with the model: `anthropic-messages` to a Claude model gets Anthropic's rules,
 *    a Responses or chat completions request to an OpenAI model OpenAI's, a Gemini API Google's,
 *    Converse Bedrock's, `mistral-conversations` Mistral's;
 * 3. anything else gets its API's generic rules (the policy table's transport fallback, as for
 *    any provider it does not know: provider `custom`).
 */
import { isClaudeFamilyModelId } from '../policy-claude.ts';

export interface PiRequest {
  readonly api: string;
  readonly modelId: string;
  readonly baseUrl?: string | undefined;
}

export interface RequestRules {
  /** The provider id the hygiene's policy table is given. */
  readonly provider: string;
  /** The model api the policy table is given (pi's name, but for the one api the table calls otherwise). */
  readonly modelApi: string;
  /** What the status line calls the rules: `anthropic`, `openai`, ..., or `generic <api>`. */
  readonly label: string;
}

/** The provider id for an API's generic rules: unknown to the policy table, so it takes the transport fallback. */
export const GENERIC_PROVIDER = 'custom';

const RESPONSES_APIS: ReadonlySet<string> = new Set(['openai-responses', 'azure-openai-responses', 'openai-codex-responses']);
const GEMINI_APIS: ReadonlySet<string> = new Set(['google-generative-ai', 'google-gemini-cli']);

/** pi's api names the policy table spells otherwise (pi's ChatGPT-plan Responses transport). */
const TABLE_API: ReadonlyMap<string, string> = new Map([['openai-codex-responses', 'openai-chatgpt-responses']]);

/** Hosts (the host itself or a subdomain of it) whose rules are not their API's. */
const HOSTS: ReadonlyArray<readonly [suffix: string, provider: string]> = [
  ['githubcopilot.com', 'github-copilot'],
  ['openrouter.ai', 'openrouter'],
  ['api.minimax.io', 'minimax'],
  ['api.minimaxi.com', 'minimax'],
  ['api.x.ai', 'xai'],
  ['api.anthropic.com', 'anthropic'],
  ['api.openai.com', 'openai'],
];

function hostOf(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined || baseUrl === '') return undefined;
  try {
    return new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function providerByHost(host: string | undefined): string | undefined {
  if (host === undefined) return undefined;
  for (const [suffix, provider] of HOSTS) if (host === suffix || host.endsWith(`.${suffix}`)) return provider;
  return undefined;
}

/** An OpenAI model by id: `gpt-*`, `o1`..`o9` and their variants, `codex-*`, `chatgpt-*`, optionally after `openai/`. */
export function isOpenAIModelId(modelId: string): boolean {
  const id = modelId.trim().toLowerCase().replace(/^openai\//, '');
  return /^(?:gpt-|o[1-9](?:$|[-.])|codex-|chatgpt-)/.test(id);
}

function byApi(api: string, modelId: string): string | undefined {
  if (api === 'anthropic-messages') return isClaudeFamilyModelId(modelId) ? 'anthropic' : undefined;
  if (api === 'bedrock-converse-stream') return 'amazon-bedrock';
  if (api === 'azure-openai-responses') return 'azure-openai-responses';
  if (api === 'openai-codex-responses') return 'openai-codex';
  if (RESPONSES_APIS.has(api) || api === 'openai-completions') return isOpenAIModelId(modelId) ? 'openai' : undefined;
  if (GEMINI_APIS.has(api)) return 'google';
  if (api === 'google-vertex') return 'google-vertex';
  if (api === 'mistral-conversations') return 'mistral';
  return undefined;
}

export function requestRules(request: PiRequest): RequestRules {
  const api = request.api;
  const modelApi = TABLE_API.get(api) ?? api;
  const provider = providerByHost(hostOf(request.baseUrl)) ?? byApi(api, request.modelId);
  if (provider === undefined) return { provider: GENERIC_PROVIDER, modelApi, label: `generic ${api === '' ? 'unknown-api' : api}` };
  return { provider, modelApi, label: provider };
}
