/**
 * Random transcripts for the thinking / assistant-replay rules (spec/thinking.md):
 * assistant replay normalization (§4.1: delivery mirrors, failed/empty turns,
 * NO_REPLY silent replies in the §4.2 variants, runtime-context wrappers in
 * assistant text, length-stopped reasoning-only turns, bare mirror duplicates),
 * thinking-signature cleanup (§4.5 compaction-stale, §4.6 invalid signatures
 * with the latest-assistant exemption), the Chat Completions reasoning drop
 * (§4.7, with and without `reasoning: true`), dropThinkingBlocks (§4.8), thought
 * signatures (§4.9), the provider-owned signed-thinking rule (§4.10) and OpenAI
 * Responses reasoning blocks (§4.12), with tool calls mixed in.
 *
 * The differential test compares the project's whole pipeline with the
 * reference's whole pipeline (sanitizeSessionHistory + validateReplayTurns), so
 * other rules may fire freely. What is kept out is where the project
 * deliberately differs from the reference (spec/README.md):
 * - provider `mistral` and Mistral model ids (strict9 vs strict): no such route;
 * - `google-antigravity` with a Claude model (unsigned thinking dropped): no such route;
 * - Bedrock Converse error turns with empty content, `null` content or the exact
 *   fallback text (repaired there, dropped by the reference): such turns are
 *   generated on every route but Bedrock; Bedrock error turns hold blank text or
 *   real content only;
 * - Bedrock histories that start with an assistant or do not alternate after
 *   hygiene (a project provider rule inserts a bootstrap turn): on Bedrock the
 *   first message is a non-blank user string, tool results are always followed
 *   by an assistant that survives every rule, no compaction summary, no
 *   displaced results, no role-less messages and no thinking turn whose call
 *   name differs from its result's. `breaksBedrockAlternation` checks the
 *   recorded answer as a safety net (the tests skip a case it flags);
 * - images (sharp's encoder differs from the reference's): none;
 * - non-object messages (the project drops them; the reference throws on the
 *   signed-thinking routes): none;
 * - tool-call ids outside Anthropic's `^[a-zA-Z0-9_-]+$` (a project provider
 *   rule rewrites them where the reference keeps them): ids are `[A-Za-z0-9_]`,
 *   plus `call_*|fc_*` pairs on the Responses routes only.
 * Timestamps are integers before the oracle's frozen clock (1798761600000),
 * which also stamps synthetic messages (the tests pass `now`).
 */
import type { DifferentialCase, DifferentialOptions } from './cases.ts';
import { stripUsage } from './load.ts';
import { Random, hashSeed } from './random.ts';

export type { DifferentialCase, DifferentialOptions } from './cases.ts';

export type RouteFamily = 'anthropic' | 'bedrock' | 'google' | 'openrouter-gemini' | 'openrouter-claude' | 'responses' | 'chat' | 'unknown';

export interface ThinkingRoute {
  /** Short label used in case names. */
  key: string;
  options: DifferentialOptions;
  family: RouteFamily;
  /** Pick `reasoning` per case (undefined, false or true). */
  reasoningVaries?: boolean;
}

export const THINKING_ROUTES: readonly ThinkingRoute[] = [
  { key: 'anthropic-sonnet', family: 'anthropic', options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' } },
  { key: 'anthropic-opus', family: 'anthropic', options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' } },
  // appendOnlyRuntimeContext: consecutive users are not merged on this route.
  { key: 'anthropic-fable', family: 'anthropic', options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-fable-5-1' } },
  {
    key: 'bedrock-sonnet',
    family: 'bedrock',
    options: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
  },
  { key: 'bedrock-opus', family: 'bedrock', options: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'us.anthropic.claude-opus-4-6-v1:0' } },
  { key: 'gemini', family: 'google', options: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' } },
  { key: 'gemini-cli', family: 'google', options: { provider: 'google-gemini-cli', modelApi: 'google-gemini-cli', modelId: 'gemini-2.5-pro' } },
  { key: 'openrouter-gemini', family: 'openrouter-gemini', options: { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'google/gemini-2.5-pro' } },
  { key: 'openrouter-claude', family: 'openrouter-claude', options: { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'anthropic/claude-sonnet-4.5' } },
  { key: 'openai-responses', family: 'responses', options: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' } },
  { key: 'codex', family: 'responses', options: { provider: 'openai-codex', modelApi: 'openai-chatgpt-responses', modelId: 'gpt-5-codex' } },
  { key: 'openai-chat', family: 'chat', options: { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' } },
  { key: 'vllm', family: 'chat', options: { provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3' }, reasoningVaries: true },
  { key: 'vllm-reasoning', family: 'chat', options: { provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3', reasoning: true } },
  { key: 'ollama', family: 'chat', options: { provider: 'ollama', modelApi: 'openai-completions', modelId: 'llama3' }, reasoningVaries: true },
  { key: 'xai', family: 'chat', options: { provider: 'xai', modelApi: 'openai-completions', modelId: 'grok-4' }, reasoningVaries: true },
  { key: 'kimi', family: 'chat', options: { provider: 'my-local', modelApi: 'openai-completions', modelId: 'kimi-k2-thinking' } },
  { key: 'copilot', family: 'chat', options: { provider: 'github-copilot', modelApi: 'openai-completions', modelId: 'gpt-4o' } },
  { key: 'copilot-claude', family: 'anthropic', options: { provider: 'github-copilot', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4.5' } },
  { key: 'unknown', family: 'unknown', options: { provider: 'something-else', modelApi: 'unknown-api', modelId: 'foo' } },
];

/** Case `i` runs on `ROUTE_CYCLE[i % length]`: the signed-thinking routes come up twice as often. */
const ROUTE_CYCLE: readonly string[] = [
  'anthropic-sonnet', 'anthropic-opus', 'anthropic-fable', 'bedrock-sonnet', 'bedrock-opus', 'gemini', 'gemini-cli',
  'openrouter-gemini', 'openrouter-claude', 'openai-responses', 'codex', 'openai-chat', 'vllm', 'vllm-reasoning',
  'ollama', 'xai', 'kimi', 'copilot', 'copilot-claude', 'unknown',
  'anthropic-sonnet', 'anthropic-opus', 'bedrock-sonnet', 'bedrock-opus',
];

/** spec/thinking.md constants. */
export const STREAM_ERROR_FALLBACK_TEXT = '[assistant turn failed before producing content]';
const INTERNAL_CONTEXT_BEGIN = '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>';
const INTERNAL_CONTEXT_END = '<<<END_OPENCLAW_INTERNAL_CONTEXT>>>';
const RUNTIME_CONTEXT_NOTICE = 'This context is runtime-generated, not user-authored. Keep internal details private.';
const INBOUND_CONTEXT_MARKER = '\u27e6openclaw:ctx\u27e7';

/** The newest input timestamp must stay before the oracle's frozen clock (2027-01-01). */
export const CLOCK = 1798761600000;

export type Json = Record<string, unknown>;

const TOOL_NAMES = ['read', 'write', 'exec', 'web_search', 'sessions_list', 'memory_get', 'apply_patch', 'browser'];
const ALNUM_MIXED = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';

// ---------------------------------------------------------------------------
// The Bedrock safety net

function callIdsOf(message: Json): Set<string> {
  const ids = new Set<string>();
  if (!Array.isArray(message.content)) return ids;
  for (const block of message.content as unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    const b = block as Json;
    if ((b.type === 'toolCall' || b.type === 'toolUse' || b.type === 'functionCall') && typeof b.id === 'string') ids.add(b.id);
  }
  return ids;
}

/**
 * Whether a recorded answer on a Bedrock Converse route is one the project's
 * Bedrock provider rule changes (spec README, "Provider rules come before the
 * reference"): it must start with a user turn, alternate user and assistant
 * turns (a run of tool results counts as the user side, right after the
 * assistant whose calls it answers), and hold no other role. Conservative:
 * anything unusual counts as breaking. Always false on other routes.
 */
export function breaksBedrockAlternation(options: DifferentialOptions, expected: readonly unknown[] | undefined): boolean {
  if (options.modelApi !== 'bedrock-converse-stream' || expected === undefined) return false;
  let previous: 'none' | 'user' | 'assistant' | 'result' = 'none';
  let pending = new Set<string>();
  for (const entry of expected) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return true;
    const message = entry as Json;
    if (message.role === 'user') {
      if (previous !== 'none' && previous !== 'assistant') return true;
      previous = 'user';
    } else if (message.role === 'assistant') {
      if (previous === 'none' || previous === 'assistant') return true;
      pending = callIdsOf(message);
      previous = 'assistant';
    } else if (message.role === 'toolResult') {
      if (previous !== 'assistant' && previous !== 'result') return true;
      if (typeof message.toolCallId !== 'string' || !pending.has(message.toolCallId)) return true;
      previous = 'result';
    } else {
      return true;
    }
  }
  return false;
}

/**
 * `stripUsage` (load.ts) and, in addition, `usage` on role-less objects. The
 * reference's usage snapshot (not required of the project, spec README) also
 * reaches an object without a role when turn validation folds an assistant into
 * it (turns-images-policy.md §3.1 quirk: the merge takes the later turn's
 * usage), so comparisons leave it out there too.
 */
export function stripReplayUsage(messages: readonly unknown[]): unknown[] {
  return stripUsage(messages).map((message) => {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return message;
    const m = message as Json;
    if ((typeof m.role === 'string' && m.role !== '') || !('usage' in m)) return message;
    const { usage: _usage, ...rest } = m;
    return rest;
  });
}

// ---------------------------------------------------------------------------
// The builder

export class CaseBuilder {
  readonly messages: Json[] = [];
  readonly tags = new Set<string>();
  /** The content of the last assistant pushed, for bare delivery-mirror duplicates. */
  lastAssistantContent: unknown[] | undefined;
  #timestamp: number;
  #callCounter = 0;

  constructor(
    readonly rng: Random,
    readonly route: ThinkingRoute,
  ) {
    // Leave room for 120 timestamps at up to 10 minutes apart.
    this.#timestamp = rng.int(1_600_000_000_000, CLOCK - 1 - 120 * 600_000);
  }

  get bedrock(): boolean {
    return this.route.family === 'bedrock';
  }

  get responses(): boolean {
    return this.route.family === 'responses';
  }

  timestamp(): number {
    this.#timestamp += this.rng.int(1, 600_000);
    return this.#timestamp;
  }

  tag(name: string): void {
    this.tags.add(name);
  }

  /** A tool call or result came after the last guaranteed survivor (Bedrock closes such a turn before a user). */
  openToolTurn = false;

  push(message: Json): Json {
    this.messages.push(message);
    if (message.role === 'assistant' && Array.isArray(message.content)) this.lastAssistantContent = message.content as unknown[];
    if (message.role === 'toolResult' || (message.role === 'assistant' && callIdsOf(message).size > 0)) this.openToolTurn = true;
    return message;
  }

  get last(): Json | undefined {
    return this.messages[this.messages.length - 1];
  }

  /** A fresh tool-call id: `[A-Za-z0-9_]` only, or a `call_*|fc_*` pair on the Responses routes. */
  callId(): string {
    this.#callCounter += 1;
    const { rng } = this;
    const n = this.#callCounter;
    if (this.responses) {
      return rng.weighted<() => string>([
        [() => `call_${rng.fromAlphabet(ALNUM_MIXED, rng.int(8, 16))}|fc_${rng.fromAlphabet(HEX, rng.int(12, 24))}`, 6],
        [() => `call_${rng.fromAlphabet(ALNUM_MIXED, rng.int(8, 20))}`, 3],
        [() => `toolu_0${n}${rng.fromAlphabet(ALNUM_MIXED, 10)}`, 1],
      ])();
    }
    return rng.weighted<() => string>([
      [() => `toolu_0${n}${rng.fromAlphabet(ALNUM_MIXED, rng.int(10, 20))}`, this.route.family === 'anthropic' || this.bedrock ? 6 : 2],
      [() => `call_${n}${rng.fromAlphabet(ALNUM_MIXED, rng.int(6, 16))}`, 4],
      [() => `call${n}${rng.alphanumeric(rng.int(3, 8))}`, 2],
    ])();
  }
}

// ---------------------------------------------------------------------------
// Small pieces

function base64Of(rng: Random, bytes: number, url = false): string {
  const data = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) data[i] = rng.int(0, 255);
  return data.toString(url ? 'base64url' : 'base64');
}

/** An Anthropic-like opaque signature (canonical base64). */
function anthropicSignature(rng: Random): string {
  return `Eq${base64Of(rng, rng.int(24, 60))}`.replace(/=+$/, '');
}

/** A value for a `thoughtSignature` / `thought_signature` field, valid base64 or not. */
function thoughtSignatureValue(b: CaseBuilder): unknown {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['base64', 8],
    ['base64url', 2],
    ['padded', 1],
    ['msg', 3],
    ['msg-b64url', 1],
    ['bad', 3],
    ['short', 1],
    ['non-string', 1],
    ['blank', 1],
  ]);
  b.tag(`tsig-${kind}`);
  switch (kind) {
    case 'base64':
      return base64Of(rng, rng.int(3, 40));
    case 'base64url':
      return `${base64Of(rng, rng.int(3, 30), true)}_-`.slice(0, -2) + rng.pick(['_x', '-Q', 'ab']);
    case 'padded':
      return ` ${base64Of(rng, rng.int(3, 12))} `;
    case 'msg':
      return `msg_${rng.int(100, 99999)}`;
    case 'msg-b64url':
      return rng.pick(['msg_abc', 'msg_abcd', 'msg_Zm9v']);
    case 'bad':
      return rng.pick(['not base64!', 'sig:abc', 'YR', '====', 'ab+_', 'a']);
    case 'short':
      return rng.pick(['YQ', 'abc', 'Zm9v', 'abcd====']);
    case 'non-string':
      return rng.pick<unknown>([12, null, true, { v: 1 }]);
    default:
      return rng.blank();
  }
}

/** Maybe give a text / tool-call block thought signatures (mostly on the Gemini-ish routes). */
function withThoughtSignatures(b: CaseBuilder, block: Json): Json {
  const { rng, route } = b;
  const gemini = route.family === 'google' || route.family === 'openrouter-gemini';
  if (!rng.chance(gemini ? 0.45 : 0.08)) return block;
  const which = rng.weighted<string>([
    ['camel', 4],
    ['snake', 4],
    ['both', 2],
  ]);
  const out = { ...block };
  if (which !== 'snake') out.thoughtSignature = thoughtSignatureValue(b);
  if (which !== 'camel') out.thought_signature = thoughtSignatureValue(b);
  b.tag('thought-signature');
  return out;
}

function visibleText(b: CaseBuilder): string {
  const { rng } = b;
  return rng.weighted<() => string>([
    [() => rng.sentence(), 6],
    [() => rng.unicodeSentence(), 1.5],
    [() => rng.padded(rng.sentence()), 1],
    [() => `${rng.sentence()}\n\n${rng.sentence()}`, 1],
  ])();
}

function textBlock(b: CaseBuilder, text: string = visibleText(b)): Json {
  const block: Json = { type: 'text', text };
  if (b.responses && b.rng.chance(0.35)) {
    b.tag('text-signature');
    block.textSignature = b.rng.weighted<() => string>([
      [() => JSON.stringify({ v: 1, id: `msg_${b.rng.fromAlphabet(HEX, 16)}`, phase: b.rng.pick(['final_answer', 'commentary']) }), 4],
      [() => JSON.stringify({ v: 1, id: `msg_${b.rng.fromAlphabet(HEX, 16)}` }), 1],
      [() => `msg_${b.rng.fromAlphabet(HEX, 12)}`, 1],
    ])();
  }
  return withThoughtSignatures(b, block);
}

function blankTextBlock(b: CaseBuilder): Json {
  b.tag('blank-text');
  return { type: 'text', text: b.rng.blank() };
}

function usage(rng: Random): Json {
  const input = rng.int(1, 4000);
  const output = rng.int(1, 800);
  const u: Json = { input, output, totalTokens: input + output };
  if (rng.chance(0.2)) u.cacheRead = rng.int(0, 2000);
  return u;
}

function zeroUsage(rng: Random): Json {
  return rng.pick<Json>([{}, { input: 0, output: 0 }, { input: 0, output: 0, totalTokens: 0 }, { totalTokens: 0 }, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }]);
}

/** An assistant message with the route's provider/api/model now and then. */
function assistant(b: CaseBuilder, content: unknown, stopReason: string, extra: Json = {}): Json {
  const { rng, route } = b;
  const message: Json = { role: 'assistant', content };
  if (rng.chance(0.4)) {
    message.provider = route.options.provider;
    message.api = route.options.modelApi;
    message.model = route.options.modelId;
  }
  message.stopReason = stopReason;
  message.usage = usage(rng);
  Object.assign(message, extra);
  // A few assistants without a timestamp (the compaction rule leaves them alone).
  if (!rng.chance(0.07)) message.timestamp = b.timestamp();
  else b.tag('no-timestamp');
  return message;
}

// ---------------------------------------------------------------------------
// Thinking blocks

const THOUGHTS = ['Let me check the file first.', 'The user wants a summary.', 'Plan: read, then answer.', 'Consider the edge cases.', 'I should call the tool.'];

function thoughtText(b: CaseBuilder): string {
  const { rng } = b;
  if (rng.chance(0.08)) {
    b.tag('blank-thinking');
    return rng.pick(['', ' ', '\n']);
  }
  return rng.chance(0.7) ? rng.pick(THOUGHTS) : rng.sentence(3, 10);
}

function anthropicThinking(b: CaseBuilder): Json {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['signed', 30],
    ['signature-field', 6],
    ['thought_signature-field', 4],
    ['unsigned', 12],
    ['blank-signed', 10],
    ['empty-signed', 5],
    ['non-string-signed', 3],
    ['redacted', 8],
    ['redacted-blank', 3],
    ['redacted-missing', 2],
    ['pi-redacted', 3],
    ['camel-only', 2],
    ['completions-style', 2],
  ]);
  b.tag(`th-${kind}`);
  const thinking = thoughtText(b);
  switch (kind) {
    case 'signed':
      return { type: 'thinking', thinking, thinkingSignature: anthropicSignature(rng) };
    case 'signature-field':
      return { type: 'thinking', thinking, signature: anthropicSignature(rng) };
    case 'thought_signature-field':
      return { type: 'thinking', thinking, thought_signature: anthropicSignature(rng) };
    case 'unsigned':
      return { type: 'thinking', thinking };
    case 'blank-signed':
      return { type: 'thinking', thinking, thinkingSignature: rng.pick(['  ', ' ', '\n', '\t ']) };
    case 'empty-signed':
      return { type: 'thinking', thinking, thinkingSignature: '' };
    case 'non-string-signed':
      return { type: 'thinking', thinking, thinkingSignature: rng.pick<unknown>([42, null, true]) };
    case 'redacted':
      return { type: 'redacted_thinking', data: `RD${base64Of(rng, rng.int(8, 30))}` };
    case 'redacted-blank':
      return { type: 'redacted_thinking', data: rng.pick(['', ' ', '  ']) };
    case 'redacted-missing':
      return { type: 'redacted_thinking' };
    case 'pi-redacted':
      return { type: 'thinking', thinking: '[Reasoning redacted]', redacted: true, thinkingSignature: `OPAQUE${rng.alphanumeric(8)}` };
    case 'camel-only':
      return { type: 'thinking', thinking, thoughtSignature: base64Of(rng, 12) };
    default:
      return { type: 'thinking', thinking, thinkingSignature: rng.pick(['reasoning_content', 'reasoning']) };
  }
}

function completionsThinking(b: CaseBuilder): Json {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['reasoning_content', 30],
    ['reasoning', 15],
    ['reasoning_text', 4],
    ['unsigned', 10],
    ['anthropic', 5],
    ['redacted', 3],
  ]);
  if (kind === 'anthropic') return anthropicThinking(b);
  if (kind === 'redacted') {
    b.tag('th-redacted');
    return { type: 'redacted_thinking', data: `RD${base64Of(rng, 12)}` };
  }
  b.tag(`th-${kind}`);
  const block: Json = { type: 'thinking', thinking: thoughtText(b) };
  if (kind !== 'unsigned') block.thinkingSignature = kind;
  return block;
}

function googleThinking(b: CaseBuilder): Json {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['thoughtSignature', 12],
    ['thought_signature', 6],
    ['thinkingSignature', 4],
    ['unsigned', 8],
    ['anthropic', 3],
  ]);
  if (kind === 'anthropic') return anthropicThinking(b);
  b.tag(`th-g-${kind}`);
  const block: Json = { type: 'thinking', thinking: thoughtText(b) };
  if (kind === 'thinkingSignature') block.thinkingSignature = rng.chance(0.7) ? base64Of(rng, 20) : 'not base64!';
  else if (kind !== 'unsigned') block[kind] = thoughtSignatureValue(b);
  return block;
}

/** A Responses reasoning block: `thinkingSignature` JSON `{"type":"reasoning","id":"rs_..."}`, or near misses. */
function responsesThinking(b: CaseBuilder): Json {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['reasoning', 20],
    ['reasoning-encrypted', 5],
    ['reasoning-summary', 4],
    ['reasoning-dotted', 1],
    ['not-rs', 2],
    ['opaque', 3],
    ['unsigned', 3],
    ['anthropic', 2],
  ]);
  if (kind === 'anthropic') return anthropicThinking(b);
  b.tag(`th-r-${kind}`);
  const id = `rs_${rng.fromAlphabet(HEX, rng.int(12, 32))}`;
  const thinking = rng.chance(0.5) ? '' : thoughtText(b);
  switch (kind) {
    case 'reasoning':
      return { type: 'thinking', thinking, thinkingSignature: JSON.stringify({ type: 'reasoning', id, summary: [] }) };
    case 'reasoning-encrypted':
      return { type: 'thinking', thinking, thinkingSignature: JSON.stringify({ type: 'reasoning', id, summary: [], encrypted_content: base64Of(rng, 24) }) };
    case 'reasoning-summary':
      return {
        type: 'thinking',
        thinking: thinking || 'Summary.',
        thinkingSignature: JSON.stringify({ type: 'reasoning', id, summary: [{ type: 'summary_text', text: thinking || 'Summary.' }] }),
      };
    case 'reasoning-dotted':
      return { type: 'thinking', thinking, thinkingSignature: JSON.stringify({ type: 'reasoning.encrypted', id }) };
    case 'not-rs':
      return { type: 'thinking', thinking, thinkingSignature: JSON.stringify({ type: 'reasoning', id: `x_${rng.alphanumeric(8)}` }) };
    case 'opaque':
      return { type: 'thinking', thinking: thinking || 'plain', thinkingSignature: 'opaque' };
    default:
      return { type: 'thinking', thinking: thinking || 'plain' };
  }
}

/** A thinking-like block in the route's native style, now and then another route's. */
export function thinkingBlock(b: CaseBuilder): Json {
  const { rng, route } = b;
  const native = (): Json => {
    switch (route.family) {
      case 'anthropic':
      case 'bedrock':
      case 'openrouter-claude':
        return anthropicThinking(b);
      case 'google':
      case 'openrouter-gemini':
        return googleThinking(b);
      case 'responses':
        return responsesThinking(b);
      case 'chat':
        return completionsThinking(b);
      default:
        return rng.pick([anthropicThinking, completionsThinking, googleThinking])(b);
    }
  };
  if (rng.chance(0.82)) return native();
  b.tag('foreign-thinking');
  return rng.pick([anthropicThinking, completionsThinking, googleThinking, responsesThinking])(b);
}

function thinkingBlocks(b: CaseBuilder, min: number, max: number): Json[] {
  const out: Json[] = [];
  for (let i = b.rng.int(min, max); i > 0; i--) out.push(thinkingBlock(b));
  if (out.length > 0) b.tag('thinking');
  return out;
}

// ---------------------------------------------------------------------------
// Silent replies (§4.2) and runtime context (turns-images §7)

const TAG_THINK = (name: string, body: string): string => `<${name}>${body}</${name}>`;

/** Texts the reference counts as a silent NO_REPLY payload, and near misses that are not (or may not be). */
export const SILENT_TEXTS: readonly string[] = [
  'NO_REPLY',
  ' no_reply ',
  'no_reply',
  'NO_REPLY NO_REPLY',
  'NO_REPLY\nNO_REPLY',
  '"NO_REPLY"',
  '"  NO_REPLY  "',
  '{"action":"NO_REPLY"}',
  '{ "action": " NO_REPLY " }',
  `${TAG_THINK('think', 'x')} NO_REPLY`,
  `${TAG_THINK('thinking', 'plan it')}\nNO_REPLY`,
  `${TAG_THINK('thought', 'quiet')} I will stay quiet. NO_REPLY`,
  `${TAG_THINK('antthinking', 'hm')}${TAG_THINK('think', 'again')} NO_REPLY`,
  `<${'antml'}:thinking>deliberate</${'antml'}:thinking> NO_REPLY`,
  '<think>unclosed and I will stay silent NO_REPLY',
  '**NO_REPLY**',
  'NO_REPLY.',
  '...NO_REPLY!!',
  '\u00bfNO_REPLY?',
  'Thinking:\nNO_REPLY',
  'reasoning\nI will stay quiet. NO_REPLY',
  'analysis:\nWe will not reply here.\nNO_REPLY',
  'Thinking:\nprivate reasoning NO_REPLY',
  'thought:\nThe user said thanks.\nI have nothing to say.\nNO_REPLY',
  '"no_reply"',
];

export const NOT_SILENT_TEXTS: readonly string[] = [
  'NO_REPLY because',
  'I will stay quiet. NO_REPLY',
  'Sure. NO_REPLY',
  'NO REPLY',
  'NOREPLY',
  '`NO_REPLY`',
  'HEARTBEAT_OK',
  '{"action":"NO_REPLY","x":1}',
  '["NO_REPLY"]',
  'Thinking:\nPlease try again later.\nI will stay quiet.\nNO_REPLY',
  'NO_REPLY_NOW',
  `${TAG_THINK('think', 'x')} Here is the answer.`,
];

function silentText(b: CaseBuilder): string {
  const { rng } = b;
  if (rng.chance(0.75)) {
    b.tag('silent');
    return rng.pick(SILENT_TEXTS);
  }
  b.tag('not-silent');
  return rng.pick(NOT_SILENT_TEXTS);
}

/** Assistant text wrapped in runtime context / inbound metadata the reference strips (turns-images §7 steps 1-2). */
function runtimeWrappedText(b: CaseBuilder): string {
  const { rng } = b;
  const body = rng.sentence();
  const kind = rng.weighted<string>([
    ['block-after', 5],
    ['block-before', 3],
    ['block-only', 2],
    ['block-then-silent', 2],
    ['unterminated', 2],
    ['stray-end', 2],
    ['inline-token', 2],
    ['preface', 2],
    ['preface-event', 1],
    ['timestamp-prefix', 2],
    ['ctx-header', 2],
    ['ctx-trailer', 2],
    ['delivery-hint', 2],
    ['legacy-block', 1],
    ['nested', 1],
  ]);
  b.tag(`rc-${kind}`);
  const block = `${INTERNAL_CONTEXT_BEGIN}\n${rng.pick(['secret: 42', 'current time: 10:00', `${rng.sentence()}\nmore`])}\n${INTERNAL_CONTEXT_END}`;
  switch (kind) {
    case 'block-after':
      return `${body}\n\n${block}`;
    case 'block-before':
      return `${block}\n\n${body}`;
    case 'block-only':
      return rng.chance(0.5) ? block : `\n${block}\n`;
    case 'block-then-silent':
      return `${block}\n${rng.pick(['NO_REPLY', 'no_reply.', '**NO_REPLY**'])}`;
    case 'unterminated':
      return `${body}\n${INTERNAL_CONTEXT_BEGIN}\n${rng.sentence()}`;
    case 'stray-end':
      return `${body}\n${INTERNAL_CONTEXT_END}${rng.chance(0.5) ? `\n${rng.sentence()}` : ''}`;
    case 'inline-token':
      return `${body} ${INTERNAL_CONTEXT_BEGIN} inline ${rng.chance(0.5) ? INTERNAL_CONTEXT_END : ''}`;
    case 'preface':
      return `OpenClaw runtime context for the active user request in this turn. Do not reply to or describe this context.\n${RUNTIME_CONTEXT_NOTICE}\n${body}`;
    case 'preface-event':
      return `${body}\nOpenClaw runtime event.\n${RUNTIME_CONTEXT_NOTICE}`;
    case 'timestamp-prefix':
      return `[${rng.pick(['Mon', 'Tue', 'Sat'])} 2026-0${rng.int(1, 9)}-1${rng.int(0, 9)} 1${rng.int(0, 9)}:${rng.int(10, 59)}${rng.pick(['', ' UTC', ' GMT+2'])}] ${body}`;
    case 'ctx-header':
      return `Conversation info: ${INBOUND_CONTEXT_MARKER}\n\`\`\`json\n{"sender":{"name":"Ann"}}\n\`\`\`\n\n${body}`;
    case 'ctx-trailer':
      return `${body}\n\nContext: ${INBOUND_CONTEXT_MARKER}\nchannel: #general`;
    case 'delivery-hint':
      return `Delivery: to send a message, use the \`message\` tool.\n${body}`;
    case 'legacy-block':
      return (
        `OpenClaw runtime context (internal):\n${RUNTIME_CONTEXT_NOTICE}\n\n[Internal task completion event]\n` +
        `task: build\n<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\nok\n<<<END_UNTRUSTED_CHILD_RESULT>>>\n\nAction:\nSummarize it.\n\n${body}`
      );
    default:
      return `${body}\n${INTERNAL_CONTEXT_BEGIN}\nouter\n${INTERNAL_CONTEXT_BEGIN}\ninner\n${INTERNAL_CONTEXT_END}\nstill outer\n${INTERNAL_CONTEXT_END}\ntail text`;
  }
}

// ---------------------------------------------------------------------------
// Tool calls

interface Call {
  id: string;
  name: string;
}

function toolCallBlock(b: CaseBuilder, call: Call, invalid = false): Json {
  const { rng } = b;
  const block: Json = { type: 'toolCall', id: call.id, name: call.name };
  if (invalid) {
    b.tag('call-no-arguments');
    return block;
  }
  block.arguments = rng.chance(0.6) ? {} : { path: `notes/${rng.alphanumeric(4)}.txt` };
  return withThoughtSignatures(b, block);
}

function toolResult(b: CaseBuilder, call: Call, toolName: string = call.name): Json {
  const { rng } = b;
  const message: Json = {
    role: 'toolResult',
    toolCallId: call.id,
    toolName,
    content: [{ type: 'text', text: rng.chance(0.8) ? rng.sentence() : `${rng.sentence()}\n${rng.sentence()}` }],
    isError: rng.chance(0.1),
    timestamp: b.timestamp(),
  };
  return message;
}

/**
 * Pushes `assistant` and answers its calls: mostly right after it; some calls
 * left without a result (pairing gives them a synthetic one), and off Bedrock a
 * few results carry another tool name or come after a user interjection.
 */
function pushWithResults(b: CaseBuilder, message: Json, calls: readonly Call[], hasThinking: boolean): void {
  const { rng } = b;
  b.push(message);
  const late: Json[] = [];
  let interjection: Json | undefined;
  for (const call of calls) {
    const fate = rng.weighted<string>([
      ['result', 84],
      ['missing', 9],
      ['mismatch', b.bedrock ? 0 : hasThinking ? 3 : 1.5],
      ['displaced', b.bedrock ? 0 : 3],
    ]);
    if (fate === 'missing') {
      b.tag('missing-result');
      continue;
    }
    if (fate === 'mismatch') {
      b.tag(hasThinking ? 'name-mismatch-thinking' : 'name-mismatch');
      b.push(toolResult(b, call, rng.pick(TOOL_NAMES.filter((n) => n !== call.name))));
      continue;
    }
    if (fate === 'displaced') {
      b.tag('displaced-result');
      interjection ??= userMessage(b, false);
      late.push(toolResult(b, call));
      continue;
    }
    b.push(toolResult(b, call));
  }
  if (interjection !== undefined) {
    b.push(interjection);
    for (const result of late) b.push(result);
  }
}

function makeCalls(b: CaseBuilder, count: number): Call[] {
  const calls: Call[] = [];
  for (let i = 0; i < count; i++) calls.push({ id: b.callId(), name: b.rng.pick(TOOL_NAMES) });
  return calls;
}

// ---------------------------------------------------------------------------
// Users

function userMessage(b: CaseBuilder, mayBeBlank: boolean): Json {
  const { rng } = b;
  const shape = rng.weighted<string>([
    ['string', 10],
    ['array', 3],
    ['blank', mayBeBlank ? 1 : 0],
  ]);
  let content: unknown;
  if (shape === 'string') content = rng.chance(0.15) ? rng.unicodeSentence() : rng.sentence();
  else if (shape === 'array') content = [{ type: 'text', text: rng.sentence() }, ...(rng.chance(0.3) ? [{ type: 'text', text: rng.sentence() }] : [])];
  else {
    b.tag('blank-user');
    content = rng.chance(0.5) ? rng.blank() : [{ type: 'text', text: rng.blank() }];
  }
  const message: Json = { role: 'user', content, timestamp: b.timestamp() };
  if (rng.chance(0.05)) {
    b.tag('inter-session');
    message.provenance = { kind: 'inter_session', sourceTool: rng.pick(['sessions_send', 'subagent_announce']) };
  }
  return message;
}

// ---------------------------------------------------------------------------
// Assistant steps

type StepKind =
  | 'answer'
  | 'tool'
  | 'thinking-only'
  | 'length'
  | 'error'
  | 'aborted'
  | 'silent'
  | 'mirror'
  | 'runtime'
  | 'zero-usage'
  | 'string';

function pickStep(b: CaseBuilder): StepKind {
  return b.rng.weighted<StepKind>([
    ['answer', 26],
    ['tool', 22],
    ['thinking-only', 8],
    ['length', 7],
    ['error', 8],
    ['aborted', 2],
    ['silent', 9],
    ['mirror', 5],
    ['runtime', 6],
    ['zero-usage', 2],
    ['string', 3],
  ]);
}

/** An answer no rule removes: visible text, `stop`, non-zero usage; maybe thinking in front. */
function safeAnswer(b: CaseBuilder): Json {
  const blocks = [...thinkingBlocks(b, 0, 1), textBlock(b, b.rng.sentence())];
  return assistant(b, blocks, 'stop');
}

function stepAnswer(b: CaseBuilder): void {
  const { rng } = b;
  const blocks: Json[] = [...thinkingBlocks(b, 0, 2)];
  for (let i = rng.int(1, 2); i > 0; i--) blocks.push(textBlock(b));
  if (rng.chance(0.12)) blocks.splice(rng.int(0, blocks.length), 0, blankTextBlock(b));
  if (rng.chance(0.08)) {
    // A thinking block after the text (interleaved thinking).
    b.tag('thinking-after-text');
    blocks.push(thinkingBlock(b));
  }
  const extra: Json = {};
  if ((b.route.family === 'chat' || b.route.family === 'unknown') && rng.chance(0.15)) {
    b.tag('reasoning-field');
    extra[rng.pick(['reasoning_content', 'reasoning'])] = rng.sentence(3, 8);
  }
  b.push(assistant(b, blocks, 'stop', extra));
}

function stepTool(b: CaseBuilder): void {
  const { rng } = b;
  const thinking = thinkingBlocks(b, rng.chance(0.75) ? 1 : 0, 2);
  const calls = makeCalls(b, rng.weighted<number>([
    [1, 7],
    [2, 3],
  ]));
  b.tag('tool-calls');
  const invalidAt = rng.chance(0.05) ? rng.int(0, calls.length - 1) : -1;
  const blocks: Json[] = [...thinking];
  if (rng.chance(0.35)) blocks.push(textBlock(b));
  calls.forEach((call, i) => blocks.push(toolCallBlock(b, call, i === invalidAt)));
  // Responses: a reasoning block after the calls now and then (it does not protect an fc_ id, §4.12).
  if (b.responses && rng.chance(0.15)) {
    b.tag('reasoning-after-call');
    blocks.push(responsesThinking(b));
  }
  const message = assistant(b, blocks, rng.chance(0.85) ? 'toolUse' : 'stop');
  pushWithResults(b, message, calls, thinking.length > 0);
}

function stepThinkingOnly(b: CaseBuilder): void {
  const blocks: Json[] = thinkingBlocks(b, 1, 2);
  if (b.rng.chance(0.25)) blocks.push(blankTextBlock(b));
  b.tag('thinking-only');
  b.push(assistant(b, blocks, 'stop'));
}

function stepLength(b: CaseBuilder): void {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['reasoning-only', 5],
    ['reasoning-blank', 3],
    ['redacted-only', 2],
    ['reasoning-text', 3],
    ['reasoning-call', 2],
    ['empty', 1],
    ['reasoning-unknown', 1],
    ['text', 1],
  ]);
  b.tag(`length-${kind}`);
  switch (kind) {
    case 'reasoning-only':
      b.push(assistant(b, thinkingBlocks(b, 1, 2), 'length'));
      return;
    case 'reasoning-blank':
      b.push(assistant(b, [...thinkingBlocks(b, 1, 1), blankTextBlock(b)], 'length'));
      return;
    case 'redacted-only':
      b.push(assistant(b, [{ type: 'redacted_thinking', data: `RD${base64Of(rng, 10)}` }], 'length'));
      return;
    case 'reasoning-text':
      b.push(assistant(b, [...thinkingBlocks(b, 1, 1), textBlock(b, `${rng.sentence()} and then`)], 'length'));
      return;
    case 'reasoning-call': {
      const calls = makeCalls(b, 1);
      const thinking = thinkingBlocks(b, 1, 1);
      pushWithResults(b, assistant(b, [...thinking, toolCallBlock(b, calls[0]!)], 'length'), calls, true);
      return;
    }
    case 'empty':
      b.push(assistant(b, [], 'length'));
      return;
    case 'reasoning-unknown':
      b.push(assistant(b, [...thinkingBlocks(b, 1, 1), { type: 'x_note', value: rng.sentence(1, 3) }], 'length'));
      return;
    default:
      b.push(assistant(b, [textBlock(b)], 'length'));
  }
}

function stepError(b: CaseBuilder): void {
  const { rng } = b;
  // On Bedrock Converse the project repairs empty / fallback-only error turns (seed deviation): not generated there.
  const fallbackOk = b.bedrock ? 0 : 1;
  const kind = rng.weighted<string>([
    ['empty', 4 * fallbackOk],
    ['blank-text', 3],
    ['fallback', 4 * fallbackOk],
    ['fallback-string', 1 * fallbackOk],
    ['fallback-and-blank', 1 * fallbackOk],
    ['fallback-output-text', 0.5 * fallbackOk],
    ['null', 1 * fallbackOk],
    ['blank-string', 1 * fallbackOk],
    ['partial', 4],
    ['thinking-text', 2],
    ['thinking-only', 2],
    ['text-call', 2],
    ['call-only', 1],
  ]);
  b.tag(`error-${kind}`);
  const extra: Json = rng.chance(0.5) ? { errorMessage: rng.pick(['terminated', 'overloaded_error', 'socket hang up']) } : {};
  const errorUsage = (): Json => (rng.chance(0.6) ? { usage: { input: 0, output: 0, totalTokens: 0 } } : {});
  const push = (content: unknown): void => {
    b.push(assistant(b, content, 'error', { ...extra, ...errorUsage() }));
  };
  switch (kind) {
    case 'empty':
      return push([]);
    case 'blank-text':
      return push(Array.from({ length: rng.int(1, 2) }, () => ({ type: 'text', text: rng.blank() })));
    case 'fallback':
      return push([{ type: 'text', text: STREAM_ERROR_FALLBACK_TEXT }]);
    case 'fallback-string':
      return push(rng.chance(0.5) ? STREAM_ERROR_FALLBACK_TEXT : ` ${STREAM_ERROR_FALLBACK_TEXT} `);
    case 'fallback-and-blank':
      return push([{ type: 'text', text: STREAM_ERROR_FALLBACK_TEXT }, { type: 'text', text: ' ' }]);
    case 'fallback-output-text':
      return push([{ type: 'output_text', text: STREAM_ERROR_FALLBACK_TEXT }]);
    case 'null':
      return push(null);
    case 'blank-string':
      return push(rng.blank());
    case 'partial':
      return push([textBlock(b, `${rng.sentence()} partial`)]);
    case 'thinking-text':
      return push([...thinkingBlocks(b, 1, 1), textBlock(b)]);
    case 'thinking-only':
      return push(thinkingBlocks(b, 1, 1));
    default: {
      const calls = makeCalls(b, 1);
      const blocks = kind === 'text-call' ? [textBlock(b), toolCallBlock(b, calls[0]!)] : [toolCallBlock(b, calls[0]!)];
      const message = assistant(b, blocks, 'error', extra);
      // A failed frame is dropped with its results; give it a result half the time.
      b.push(message);
      if (rng.chance(0.5)) b.push(toolResult(b, calls[0]!));
    }
  }
}

function stepAborted(b: CaseBuilder): void {
  const { rng } = b;
  const kind = rng.pick(['empty', 'thinking', 'text']);
  b.tag(`aborted-${kind}`);
  const content = kind === 'empty' ? [] : kind === 'thinking' ? thinkingBlocks(b, 1, 1) : [textBlock(b)];
  b.push(assistant(b, content, 'aborted'));
}

function stepSilent(b: CaseBuilder): void {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['string', 3],
    ['alone', 3],
    ['thinking', 4],
    ['thinking-blank', 1.5],
    ['thinking-call', 2],
    ['text-and-silent', 2],
    ['silent-blank', 1],
    ['unknown-block', 1],
    ['runtime-to-silent', 1],
  ]);
  b.tag(`silent-${kind}`);
  const silent = (): Json => ({ type: 'text', text: silentText(b) });
  switch (kind) {
    case 'string':
      b.push(assistant(b, rng.chance(0.8) ? silentText(b) : `  ${silentText(b)}\n`, 'stop'));
      return;
    case 'alone':
      b.push(assistant(b, [silent()], 'stop'));
      return;
    case 'thinking':
      b.push(assistant(b, [...thinkingBlocks(b, 1, 2), silent()], 'stop'));
      return;
    case 'thinking-blank':
      b.push(assistant(b, [...thinkingBlocks(b, 1, 1), silent(), blankTextBlock(b)], 'stop'));
      return;
    case 'thinking-call': {
      const calls = makeCalls(b, 1);
      const thinking = thinkingBlocks(b, 1, 1);
      const message = assistant(b, [...thinking, silent(), toolCallBlock(b, calls[0]!)], 'toolUse');
      pushWithResults(b, message, calls, true);
      return;
    }
    case 'text-and-silent':
      b.push(assistant(b, rng.chance(0.5) ? [textBlock(b), silent()] : [silent(), textBlock(b)], 'stop'));
      return;
    case 'silent-blank':
      b.push(assistant(b, [silent(), blankTextBlock(b)], 'stop'));
      return;
    case 'unknown-block':
      b.push(assistant(b, [...thinkingBlocks(b, 0, 1), silent(), { type: 'x_card', value: rng.sentence(1, 3) }], 'stop'));
      return;
    default:
      b.push(assistant(b, [...thinkingBlocks(b, 0, 1), { type: 'text', text: `${INTERNAL_CONTEXT_BEGIN}\nctx\n${INTERNAL_CONTEXT_END}\nNO_REPLY` }], 'stop'));
  }
}

function stepMirror(b: CaseBuilder): void {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['delivery-mirror', 3],
    ['gateway-injected', 1],
    ['mirror-kind', 3],
    ['mirror-odd-kind', 1],
    ['mirror-model-case', 1],
    ['duplicate', 5],
  ]);
  b.tag(`mirror-${kind}`);
  const text = (): Json[] => [textBlock(b)];
  switch (kind) {
    case 'delivery-mirror':
    case 'gateway-injected':
      b.push({ role: 'assistant', content: text(), provider: 'openclaw', model: kind, api: 'openai-responses', stopReason: 'stop', usage: zeroUsage(rng), timestamp: b.timestamp() });
      return;
    case 'mirror-model-case':
      // Case-sensitive match: this one is not a mirror.
      b.push({ role: 'assistant', content: text(), provider: 'openclaw', model: 'Delivery-Mirror', stopReason: 'stop', usage: usage(rng), timestamp: b.timestamp() });
      return;
    case 'mirror-kind':
    case 'mirror-odd-kind': {
      const mirrorKind =
        kind === 'mirror-kind'
          ? rng.pick(['channel-final', 'channel-final-suppressed', 'message-tool-source-reply', 'cron-direct-delivery-context'])
          : rng.pick(['channel-draft', 'CHANNEL-FINAL', '']);
      b.push(assistant(b, text(), 'stop', { openclawDeliveryMirror: { kind: mirrorKind, channel: rng.pick(['telegram', 'slack']) } }));
      return;
    }
    default: {
      // A bare duplicate of the previous assistant (or of a fresh one pushed now).
      if (b.lastAssistantContent === undefined || b.last?.role !== 'assistant' || rng.chance(0.3)) stepAnswer(b);
      const content = structuredClone(b.lastAssistantContent ?? [textBlock(b)]);
      const u = rng.weighted<() => Json | undefined>([
        [() => zeroUsage(rng), 6],
        [() => undefined, 1],
        [() => ({ input: 0, output: 1 }), 1],
      ])();
      const message: Json = { role: 'assistant', content, stopReason: rng.chance(0.85) ? 'stop' : 'length', timestamp: b.timestamp() };
      if (u !== undefined) message.usage = u;
      b.push(message);
    }
  }
}

function stepRuntime(b: CaseBuilder): void {
  const { rng } = b;
  if (rng.chance(0.3)) {
    b.tag('runtime-string');
    b.push(assistant(b, runtimeWrappedText(b), 'stop'));
    return;
  }
  const blocks: Json[] = [...thinkingBlocks(b, 0, 1), { type: 'text', text: runtimeWrappedText(b) }];
  if (rng.chance(0.3)) blocks.push(textBlock(b));
  b.push(assistant(b, blocks, 'stop'));
}

function stepZeroUsage(b: CaseBuilder): void {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['empty', 3],
    ['blank', 1],
    ['fallback', b.bedrock ? 0 : 1],
  ]);
  b.tag(`zero-usage-${kind}`);
  const content = kind === 'empty' ? [] : kind === 'blank' ? [{ type: 'text', text: ' ' }] : [{ type: 'text', text: STREAM_ERROR_FALLBACK_TEXT }];
  b.push({ role: 'assistant', content, stopReason: 'stop', usage: zeroUsage(rng), timestamp: b.timestamp() });
}

function stepString(b: CaseBuilder): void {
  const { rng } = b;
  b.tag('assistant-string');
  b.push(assistant(b, rng.chance(0.2) ? rng.padded(rng.sentence()) : rng.sentence(), 'stop'));
}

const STEPS: Record<StepKind, (b: CaseBuilder) => void> = {
  answer: stepAnswer,
  tool: stepTool,
  'thinking-only': stepThinkingOnly,
  length: stepLength,
  error: stepError,
  aborted: stepAborted,
  silent: stepSilent,
  mirror: stepMirror,
  runtime: stepRuntime,
  'zero-usage': stepZeroUsage,
  string: stepString,
};

// ---------------------------------------------------------------------------
// Cases

/**
 * On Bedrock, a tool turn is always closed by an assistant that survives every
 * rule before the next user turn (see the file comment): assistants in between
 * may be dropped, so the closer comes whatever they are.
 */
function closeToolTurn(b: CaseBuilder): void {
  if (!b.bedrock || !b.openToolTurn) return;
  b.push(safeAnswer(b));
  b.openToolTurn = false;
}

/**
 * A compaction summary first, with a timestamp among the assistants' (equal to
 * one, between two, before all or after all).
 */
function addCompactionSummary(b: CaseBuilder): void {
  const { rng } = b;
  const stamps = b.messages.filter((m) => m.role === 'assistant' && typeof m.timestamp === 'number').map((m) => m.timestamp as number);
  const all = b.messages.filter((m) => typeof m.timestamp === 'number').map((m) => m.timestamp as number);
  if (all.length === 0) return;
  const where = rng.weighted<string>([
    ['equal', stamps.length > 0 ? 2 : 0],
    ['between', 6],
    ['before-all', 1],
    ['after-all', 1.5],
  ]);
  let timestamp: number;
  if (where === 'equal') timestamp = rng.pick(stamps);
  else if (where === 'before-all') timestamp = Math.min(...all) - rng.int(1, 1000);
  else if (where === 'after-all') timestamp = Math.max(...all) + rng.int(1, 1000);
  else {
    const i = rng.int(0, all.length - 1);
    timestamp = all[i]! + 1;
  }
  b.tag(`compaction-${where}`);
  b.messages.unshift({
    role: 'compactionSummary',
    summary: `Summary of the earlier conversation: ${rng.sentence(4, 10)}`,
    tokensBefore: rng.int(1000, 200_000),
    timestamp,
  });
}

function buildCase(rng: Random, route: ThinkingRoute): CaseBuilder {
  const b = new CaseBuilder(rng, route);
  const turns = rng.weighted<number>([
    [1, 2],
    [2, 4],
    [3, 3],
    [4, 1],
  ]);
  // Off Bedrock, now and then an assistant-first history.
  if (!b.bedrock && rng.chance(0.06)) {
    b.tag('assistant-first');
    STEPS[pickStep(b)](b);
  }
  for (let turn = 0; turn < turns; turn++) {
    closeToolTurn(b);
    b.push(userMessage(b, !(b.bedrock && turn === 0)));
    const lastTurn = turn === turns - 1;
    const steps = rng.weighted<number>([
      [0, lastTurn ? 1.5 : 0.5],
      [1, 5],
      [2, 3],
      [3, 1.5],
    ]);
    for (let s = 0; s < steps; s++) STEPS[pickStep(b)](b);
  }
  // The ending decides the latest-assistant exemption: end on a user, an answer, or a tool turn.
  const ending = rng.weighted<string>([
    ['as-is', 6],
    ['tool-turn', 2],
    ['tool-no-result', 1],
    ['second-tool-turn', 1],
    ['user', 1.5],
  ]);
  b.tag(`end-${ending}`);
  if (ending === 'tool-turn') stepTool(b);
  else if (ending === 'tool-no-result' && !b.bedrock) {
    const calls = makeCalls(b, 1);
    b.push(assistant(b, [...thinkingBlocks(b, 1, 1), toolCallBlock(b, calls[0]!)], 'toolUse'));
  } else if (ending === 'second-tool-turn') {
    stepTool(b);
    stepTool(b);
  } else if (ending === 'user') {
    closeToolTurn(b);
    b.push(userMessage(b, !b.bedrock));
  }
  if (!b.bedrock && rng.chance(route.family === 'anthropic' ? 0.35 : 0.2)) addCompactionSummary(b);
  return b;
}

function chooseOptions(rng: Random, route: ThinkingRoute): DifferentialOptions {
  const options: DifferentialOptions = { ...route.options };
  if (route.reasoningVaries) {
    const reasoning = rng.weighted<boolean | undefined>([
      [undefined, 2],
      [false, 1],
      [true, 2],
    ]);
    if (reasoning !== undefined) options.reasoning = reasoning;
  } else if (options.reasoning === undefined && rng.chance(0.1)) {
    // `reasoning` only changes the fallback completions policy; elsewhere it must change nothing.
    options.reasoning = rng.chance(0.5);
  }
  return options;
}

/**
 * `count` cases from `seed`. Case `i` depends only on `(seed, i)`, so raising
 * `count` keeps the earlier cases unchanged. Routes take turns (`ROUTE_CYCLE`).
 */
export function generateThinkingCases(seed: number, count: number): DifferentialCase[] {
  const byKey = new Map(THINKING_ROUTES.map((route) => [route.key, route]));
  const cases: DifferentialCase[] = [];
  for (let i = 0; i < count; i++) {
    const route = byKey.get(ROUTE_CYCLE[i % ROUTE_CYCLE.length]!)!;
    const rng = new Random(hashSeed('thinking', seed, i));
    const options = chooseOptions(rng.fork('options'), route);
    const b = buildCase(rng, route);
    const tags = [...b.tags].sort();
    const reasoning = options.reasoning === undefined ? '' : ` reasoning=${options.reasoning}`;
    cases.push({
      name: `thinking ${seed}:${String(i).padStart(4, '0')} ${route.key}${reasoning} ${b.messages.length}msg${tags.length ? ` [${tags.join(',')}]` : ''}`,
      options,
      messages: b.messages,
    });
  }
  return cases;
}
