/**
 * Random transcripts for turn validation and ordering
 * (spec/turns-images-policy.md §3): consecutive user turns (merged on the
 * Anthropic-validating routes, with the last turn's fields and provenance, not
 * on Claude Fable 5.1's Messages route), consecutive assistant turns (the
 * Gemini / Anthropic merge: fields from the first, usage / stopReason /
 * errorMessage from the last), assistant-first histories (the Google bootstrap
 * turn), dangling tool calls with and without thinking (toolName mismatches,
 * id-less calls beside calls with ids, aborted / error turns), role-less
 * objects (the §3.1 quirk) and other roles mixed in.
 *
 * The differential test compares the whole pipelines, so every other rule may
 * fire. Kept out, because the project deliberately differs from the reference
 * there (spec/README.md): provider `mistral` and Mistral model ids;
 * `google-antigravity` with a Claude model; Bedrock error turns with empty
 * content or the fallback text (none here: error turns hold real text);
 * Bedrock histories that start with an assistant or do not alternate after
 * hygiene (on Bedrock: the first message is a non-blank user string, tool
 * results are followed by an assistant that survives, no role-less objects or
 * other roles, no displaced results, no thinking turn with a name mismatch;
 * `breaksBedrockAlternation` checks the recorded answer as a safety net);
 * images; non-object messages; results whose id is only in an alias field or is
 * blank or padded; tool-call ids outside `[A-Za-z0-9_]` (plus `call_*|fc_*` on
 * the Responses routes).
 *
 * Tag `name-mismatch-thinking`: a thinking turn whose call name is not among
 * its results' names. The reference replaces its whole content with
 * `[tool calls omitted]` and leaves the results orphaned (spec E13); spec
 * README lists such orphaned results among the shapes a provider rejects, so
 * these cases are the first to look at if the project adds a provider rule there.
 */
import type { DifferentialCase, DifferentialOptions } from './cases.ts';
import { CLOCK, type Json } from './generate-thinking.ts';
import { Random, hashSeed } from './random.ts';

export type { DifferentialCase, DifferentialOptions } from './cases.ts';

export interface TurnsRoute {
  key: string;
  options: DifferentialOptions;
  bedrock?: boolean;
  responses?: boolean;
  /** Anthropic-style signatures on thinking blocks (the signed-thinking routes keep them). */
  signed?: boolean;
  reasoningVaries?: boolean;
}

export const TURNS_ROUTES: readonly TurnsRoute[] = [
  { key: 'anthropic-sonnet', signed: true, options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' } },
  { key: 'anthropic-opus', signed: true, options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' } },
  { key: 'anthropic-fable', signed: true, options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-fable-5-1' } },
  {
    key: 'bedrock',
    bedrock: true,
    signed: true,
    options: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
  },
  { key: 'gemini', options: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' } },
  { key: 'gemini-cli', options: { provider: 'google-gemini-cli', modelApi: 'google-gemini-cli', modelId: 'gemini-2.5-pro' } },
  { key: 'openrouter-gemini', options: { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'google/gemini-2.5-pro' } },
  { key: 'openrouter-claude', signed: true, options: { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'anthropic/claude-sonnet-4.5' } },
  { key: 'openai-responses', responses: true, options: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' } },
  { key: 'codex', responses: true, options: { provider: 'openai-codex', modelApi: 'openai-chatgpt-responses', modelId: 'gpt-5-codex' } },
  // An unowned Responses provider with a Claude-family id validates Anthropic turns (§2.3).
  { key: 'proxy-claude-responses', responses: true, options: { provider: 'my-proxy', modelApi: 'openai-responses', modelId: 'claude-sonnet-4-5' } },
  { key: 'openai-chat', options: { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' } },
  { key: 'vllm', options: { provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3' }, reasoningVaries: true },
  { key: 'ollama', options: { provider: 'ollama', modelApi: 'openai-completions', modelId: 'llama3' } },
  { key: 'xai', options: { provider: 'xai', modelApi: 'openai-completions', modelId: 'grok-4' } },
  { key: 'kimi', options: { provider: 'my-local', modelApi: 'openai-completions', modelId: 'kimi-k2-thinking' } },
  { key: 'copilot', options: { provider: 'github-copilot', modelApi: 'openai-completions', modelId: 'gpt-4o' } },
  { key: 'copilot-claude', signed: true, options: { provider: 'github-copilot', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4.5' } },
  { key: 'unknown', options: { provider: 'something-else', modelApi: 'unknown-api', modelId: 'foo' } },
];

/** The validating routes come up twice as often. */
const ROUTE_CYCLE: readonly string[] = [
  ...TURNS_ROUTES.map((route) => route.key),
  'anthropic-sonnet', 'anthropic-fable', 'bedrock', 'gemini', 'vllm', 'xai',
];

const TOOL_NAMES = ['read', 'write', 'exec', 'web_search', 'sessions_list', 'memory_get'];
const ALNUM_MIXED = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
const SESSION_KEYS = ['agent:main:telegram:direct:42', 'agent:ops:slack:channel:C01', 'session-7f3a'];
const CHANNELS = ['telegram', 'discord', 'slack', 'webchat'];
const TOOLS = ['sessions_send', 'subagent_announce', 'cron'];

class Builder {
  readonly messages: Json[] = [];
  readonly tags = new Set<string>();
  #timestamp: number;
  #calls = 0;

  constructor(
    readonly rng: Random,
    readonly route: TurnsRoute,
  ) {
    this.#timestamp = rng.int(1_600_000_000_000, CLOCK - 1 - 120 * 600_000);
  }

  get bedrock(): boolean {
    return this.route.bedrock === true;
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

  push(message: Json): void {
    this.messages.push(message);
    const hasCalls =
      message.role === 'assistant' &&
      Array.isArray(message.content) &&
      (message.content as Json[]).some((block) => ['toolCall', 'toolUse', 'functionCall'].includes(block.type as string));
    if (message.role === 'toolResult' || hasCalls) this.openToolTurn = true;
  }

  get last(): Json | undefined {
    return this.messages[this.messages.length - 1];
  }

  callId(): string {
    this.#calls += 1;
    const { rng } = this;
    if (this.route.responses && rng.chance(0.6)) return `call_${rng.fromAlphabet(ALNUM_MIXED, rng.int(8, 14))}|fc_${rng.fromAlphabet(HEX, 16)}`;
    return rng.pick([`toolu_0${this.#calls}${rng.fromAlphabet(ALNUM_MIXED, 12)}`, `call_${this.#calls}${rng.fromAlphabet(ALNUM_MIXED, 8)}`]);
  }
}

// ---------------------------------------------------------------------------
// Users

function provenance(b: Builder): unknown {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['inter_session', 6],
    ['external_user', 1],
    ['internal_system', 1],
    ['odd', 1],
  ]);
  b.tag(kind === 'inter_session' ? 'inter-session' : `provenance-${kind}`);
  const p: Json = { kind: kind === 'odd' ? rng.pick(['inter-session', 'INTER_SESSION']) : kind };
  if (rng.chance(0.6)) p.sourceSessionKey = rng.pick(SESSION_KEYS);
  if (rng.chance(0.5)) p.sourceChannel = rng.pick(CHANNELS);
  if (rng.chance(0.5)) p.sourceTool = rng.pick(TOOLS);
  if (rng.chance(0.2)) p.runId = `run-${rng.alphanumeric(4)}`;
  return p;
}

type UserShape = 'string' | 'array' | 'multi-array' | 'blank-string' | 'blank-array' | 'blank-media' | 'unknown-block' | 'odd-content' | 'empty-array';

function userMessage(b: Builder, nonBlank: boolean, inRun: boolean): Json {
  const { rng } = b;
  const shape = nonBlank
    ? 'string'
    : rng.weighted<UserShape>([
        ['string', 10],
        ['array', 5],
        ['multi-array', 2],
        ['blank-string', 1.5],
        ['blank-array', 1],
        ['blank-media', 0.7],
        ['unknown-block', 1],
        ['empty-array', 0.5],
        // Content that is neither a string nor an array: a merge absorbs it (§3.3).
        ['odd-content', inRun && !b.bedrock ? 0.7 : 0],
      ]);
  let content: unknown;
  const message: Json = { role: 'user' };
  switch (shape) {
    case 'string':
      content = rng.chance(0.15) ? rng.unicodeSentence() : rng.sentence();
      break;
    case 'array':
      content = [{ type: 'text', text: rng.sentence() }];
      break;
    case 'multi-array':
      content = [{ type: 'text', text: rng.sentence() }, { type: 'text', text: rng.chance(0.3) ? rng.blank() : rng.sentence() }];
      break;
    case 'blank-string':
      b.tag('blank-user');
      content = rng.blank();
      break;
    case 'blank-array':
      b.tag('blank-user');
      content = [{ type: 'text', text: rng.blank() }];
      break;
    case 'blank-media':
      b.tag('blank-user-media');
      content = rng.chance(0.5) ? [{ type: 'text', text: ' ' }] : '';
      message.__openclaw = { media: [{ path: 'media/a.png', contentType: 'image/png' }] };
      break;
    case 'unknown-block':
      b.tag('user-unknown-block');
      content = [{ type: 'custom_note', value: rng.sentence(1, 3) }];
      break;
    case 'empty-array':
      b.tag('blank-user');
      content = [];
      break;
    default:
      b.tag('user-odd-content');
      content = rng.pick<unknown>([42, { text: 'x' }, null]);
  }
  message.content = content;
  if (rng.chance(0.85)) message.timestamp = b.timestamp();
  else b.tag('user-no-timestamp');
  if (rng.chance(inRun ? 0.35 : 0.12)) message.provenance = provenance(b);
  if (rng.chance(0.15)) message.idempotencyKey = `k${rng.alphanumeric(8)}`;
  if (rng.chance(0.08)) message.senderLabel = rng.pick(['Ann (@ann)', 'bot']);
  return message;
}

function userRun(b: Builder, first: boolean): void {
  const { rng } = b;
  const count = rng.weighted<number>([
    [1, 4],
    [2, 4],
    [3, 2],
    [4, 0.7],
  ]);
  if (count > 1) b.tag('consecutive-users');
  for (let i = 0; i < count; i++) b.push(userMessage(b, first && i === 0 && b.bedrock, count > 1));
}

// ---------------------------------------------------------------------------
// Assistants

function usage(rng: Random): Json {
  const input = rng.int(1, 4000);
  const output = rng.int(1, 800);
  return { input, output, totalTokens: input + output };
}

function signedThinking(b: Builder): Json {
  const { rng } = b;
  b.tag('thinking');
  const signature = Buffer.from(Array.from({ length: rng.int(16, 40) }, () => rng.int(0, 255))).toString('base64');
  if (rng.chance(0.15)) return { type: 'redacted_thinking', data: `RD${signature}` };
  if (!b.route.signed && rng.chance(0.4)) return { type: 'thinking', thinking: rng.sentence(3, 8), thinkingSignature: 'reasoning_content' };
  if (b.route.responses && rng.chance(0.5)) {
    return { type: 'thinking', thinking: '', thinkingSignature: JSON.stringify({ type: 'reasoning', id: `rs_${rng.fromAlphabet(HEX, 16)}`, summary: [] }) };
  }
  return { type: 'thinking', thinking: rng.sentence(3, 8), thinkingSignature: `Eq${signature}` };
}

/** One assistant of a run: text (array or string), blank, with odd fields, maybe failed. */
function assistantMessage(b: Builder): Json {
  const { rng, route } = b;
  const shape = rng.weighted<string>([
    ['text', 10],
    ['multi-text', 2],
    ['string', 3],
    ['thinking-text', 2],
    ['blank', 1.5],
    ['blank-replay', 0.7],
    ['error-text', 1],
    ['aborted-text', 0.7],
    ['unknown-block', 0.5],
  ]);
  const message: Json = { role: 'assistant' };
  let stopReason = 'stop';
  switch (shape) {
    case 'text':
      message.content = [{ type: 'text', text: rng.sentence() }];
      break;
    case 'multi-text':
      message.content = [{ type: 'text', text: rng.sentence() }, { type: 'text', text: rng.sentence() }];
      break;
    case 'string':
      b.tag('assistant-string');
      message.content = rng.sentence();
      break;
    case 'thinking-text':
      message.content = [signedThinking(b), { type: 'text', text: rng.sentence() }];
      break;
    case 'blank':
      b.tag('assistant-blank');
      message.content = rng.chance(0.5) ? [{ type: 'text', text: rng.blank() }] : [];
      break;
    case 'blank-replay':
      b.tag('assistant-blank-replay');
      message.content = [{ type: 'text', text: ' ' }];
      message.providerReplay = { id: `rs_${rng.alphanumeric(6)}` };
      break;
    case 'error-text':
      b.tag('assistant-error');
      message.content = [{ type: 'text', text: `${rng.sentence()} partial` }];
      stopReason = 'error';
      message.errorMessage = rng.pick(['terminated', 'overloaded_error']);
      break;
    case 'aborted-text':
      b.tag('assistant-aborted');
      message.content = [{ type: 'text', text: rng.sentence() }];
      stopReason = 'aborted';
      break;
    default:
      b.tag('assistant-unknown-block');
      message.content = [{ type: 'text', text: rng.sentence() }, { type: 'x_card', value: rng.sentence(1, 2) }];
  }
  message.stopReason = stopReason;
  if (rng.chance(0.9)) message.usage = usage(rng);
  if (rng.chance(0.4)) {
    message.provider = route.options.provider;
    message.api = route.options.modelApi;
    message.model = rng.chance(0.8) ? route.options.modelId : 'other-model';
  }
  if (rng.chance(0.1)) message.responseId = `resp_${rng.alphanumeric(8)}`;
  if (rng.chance(0.9)) message.timestamp = b.timestamp();
  return message;
}

function assistantRun(b: Builder): void {
  const count = b.rng.weighted<number>([
    [1, 5],
    [2, 4],
    [3, 1.5],
  ]);
  if (count > 1) b.tag('consecutive-assistants');
  for (let i = 0; i < count; i++) b.push(assistantMessage(b));
}

/** A guaranteed survivor: plain visible text, `stop`. */
function safeAssistant(b: Builder): Json {
  return { role: 'assistant', content: [{ type: 'text', text: b.rng.sentence() }], stopReason: 'stop', usage: usage(b.rng), timestamp: b.timestamp() };
}

// ---------------------------------------------------------------------------
// Tool steps (dangling calls)

interface Call {
  id: string;
  name: string;
}

function result(b: Builder, call: Call, toolName: unknown = call.name): Json {
  const { rng } = b;
  const message: Json = { role: 'toolResult', toolCallId: call.id };
  if (toolName !== undefined) message.toolName = toolName;
  message.content = [{ type: 'text', text: rng.sentence() }];
  message.isError = rng.chance(0.1);
  message.timestamp = b.timestamp();
  return message;
}

function mismatchedName(b: Builder, name: string): unknown {
  const { rng } = b;
  return rng.weighted<() => unknown>([
    [() => rng.pick(TOOL_NAMES.filter((n) => n !== name)), 5],
    [() => name.toUpperCase(), 1],
    [() => ` ${name} `, 1],
    [() => '', 1],
    [() => undefined, 1],
  ])();
}

function toolStep(b: Builder): void {
  const { rng } = b;
  b.tag('tool-calls');
  const thinking = rng.chance(0.4);
  const count = rng.weighted<number>([
    [1, 5],
    [2, 3],
    [3, 1],
  ]);
  const calls: Call[] = [];
  for (let i = 0; i < count; i++) calls.push({ id: b.callId(), name: rng.pick(TOOL_NAMES) });
  const blocks: Json[] = [];
  if (thinking) blocks.push(signedThinking(b));
  if (rng.chance(0.4)) blocks.push({ type: 'text', text: rng.sentence() });
  for (const call of calls) {
    const type = rng.weighted<string>([
      ['toolCall', 12],
      ['toolUse', 0.7],
      ['functionCall', 0.7],
    ]);
    if (type !== 'toolCall') b.tag(`call-${type}`);
    blocks.push({ type, id: call.id, name: call.name, arguments: rng.chance(0.6) ? {} : { q: rng.sentence(1, 3) } });
  }
  const idless = rng.weighted<string>([
    ['none', 12],
    ['beside', 1.2],
    ['all', b.bedrock ? 0 : 0.6],
  ]);
  if (idless === 'beside') {
    b.tag('idless-call-beside');
    blocks.splice(rng.int(thinking ? 1 : 0, blocks.length), 0, { type: 'toolCall', id: rng.pick(['', '  ']), name: rng.pick(TOOL_NAMES), arguments: {} });
  } else if (idless === 'all') {
    b.tag('idless-calls-only');
    blocks.length = 0;
    if (thinking) blocks.push(signedThinking(b));
    blocks.push({ type: 'text', text: rng.sentence() }, { type: 'toolCall', name: rng.pick(TOOL_NAMES), arguments: {} });
    calls.length = 0;
  }
  const stopReason = rng.weighted<string>([
    ['toolUse', 10],
    ['stop', 1.5],
    ['aborted', 1],
    ['error', 1],
  ]);
  if (stopReason === 'aborted' || stopReason === 'error') b.tag(`failed-tool-turn-${stopReason}`);
  const message: Json = { role: 'assistant', content: blocks, stopReason, usage: usage(rng), timestamp: b.timestamp() };
  if (stopReason === 'error') message.errorMessage = 'terminated';
  b.push(message);
  const late: Json[] = [];
  let interjection: Json | undefined;
  for (const call of calls) {
    const fate = rng.weighted<string>([
      ['result', 7],
      ['missing', 3],
      ['mismatch', b.bedrock && thinking ? 0 : 2],
      ['displaced', b.bedrock ? 0 : 1.5],
      ['duplicate', 0.5],
    ]);
    if (fate === 'missing') {
      b.tag(thinking ? 'dangling-thinking' : 'dangling');
      continue;
    }
    if (fate === 'mismatch') {
      b.tag(thinking ? 'name-mismatch-thinking' : 'name-mismatch');
      b.push(result(b, call, mismatchedName(b, call.name)));
      continue;
    }
    if (fate === 'displaced') {
      b.tag('displaced-result');
      interjection ??= userMessage(b, false, false);
      late.push(result(b, call));
      continue;
    }
    b.push(result(b, call));
    if (fate === 'duplicate') {
      b.tag('duplicate-result');
      b.push(result(b, call));
    }
  }
  if (interjection !== undefined) {
    b.push(interjection);
    for (const r of late) b.push(r);
  }
  if (!b.bedrock && rng.chance(0.05)) {
    b.tag('orphan-result');
    b.push(result(b, { id: b.callId(), name: rng.pick(TOOL_NAMES) }));
  }
}

// ---------------------------------------------------------------------------
// Role-less objects and other roles

function otherMessage(b: Builder): void {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['role-less-string', 3],
    ['role-less-array', 2],
    ['role-less-custom', 1.5],
    ['empty-role', 1],
    ['null-role', 0.7],
    ['system', 1],
    ['developer', 0.5],
    ['custom', 1],
    ['bash', 1],
    ['branch-summary', 0.7],
    ['tool-role', 0.7],
  ]);
  b.tag(`other-${kind}`);
  const ts = (): Json => (rng.chance(0.7) ? { timestamp: b.timestamp() } : {});
  switch (kind) {
    case 'role-less-string':
      b.push({ content: rng.sentence(), ...ts() });
      return;
    case 'role-less-array':
      b.push({ content: [{ type: 'text', text: rng.sentence() }], ...ts() });
      return;
    case 'role-less-custom':
      b.push({ type: 'custom', customType: 'note', data: { n: rng.int(0, 9) }, ...ts() });
      return;
    case 'empty-role':
      b.push({ role: '', content: rng.sentence(), ...ts() });
      return;
    case 'null-role':
      b.push({ role: null, content: [{ type: 'text', text: rng.sentence() }], ...ts() });
      return;
    case 'system':
    case 'developer':
      b.push({ role: kind, content: rng.sentence(), ...ts() });
      return;
    case 'custom':
      b.push({ role: 'custom', customType: 'openclaw.note', content: rng.sentence(), display: false, ...ts() });
      return;
    case 'bash':
      b.push({ role: 'bashExecution', command: 'ls', output: 'a.txt', exitCode: 0, cancelled: false, truncated: false, ...ts() });
      return;
    case 'branch-summary':
      b.push({ role: 'branchSummary', summary: rng.sentence(), fromId: `e${rng.alphanumeric(6)}`, ...ts() });
      return;
    default:
      b.push({ role: 'tool', tool_call_id: `call_${rng.alphanumeric(8)}`, content: rng.sentence(), ...ts() });
  }
}

// ---------------------------------------------------------------------------
// Cases

/** On Bedrock, a tool turn is closed by an assistant that survives before the next user turn (see the file comment). */
function closeToolTurn(b: Builder): void {
  if (!b.bedrock || !b.openToolTurn) return;
  b.push(safeAssistant(b));
  b.openToolTurn = false;
}

function buildCase(rng: Random, route: TurnsRoute): Builder {
  const b = new Builder(rng, route);
  if (!b.bedrock) {
    const start = rng.weighted<string>([
      ['user', 12],
      ['assistant', 4],
      ['tool', 1],
      ['orphan-result', 0.6],
      ['other', 1],
    ]);
    b.tag(`start-${start}`);
    if (start === 'assistant') assistantRun(b);
    else if (start === 'tool') toolStep(b);
    else if (start === 'orphan-result') b.push(result(b, { id: b.callId(), name: 'read' }));
    else if (start === 'other') otherMessage(b);
  }
  userRun(b, true);
  const segments = rng.int(1, 7);
  for (let i = 0; i < segments; i++) {
    const last = b.last?.role;
    const kind = rng.weighted<string>([
      ['user', last === 'user' ? 1 : 4],
      ['assistant', 4],
      ['tool', 4],
      ['other', b.bedrock ? 0 : 1.2],
    ]);
    if (kind === 'user') {
      closeToolTurn(b);
      userRun(b, false);
    } else if (kind === 'assistant') assistantRun(b);
    else if (kind === 'tool') toolStep(b);
    else otherMessage(b);
  }
  return b;
}

/**
 * `count` cases from `seed`; case `i` depends only on `(seed, i)`. Routes take
 * turns (`ROUTE_CYCLE`).
 */
export function generateTurnsCases(seed: number, count: number): DifferentialCase[] {
  const byKey = new Map(TURNS_ROUTES.map((route) => [route.key, route]));
  const cases: DifferentialCase[] = [];
  for (let i = 0; i < count; i++) {
    const route = byKey.get(ROUTE_CYCLE[i % ROUTE_CYCLE.length]!)!;
    const rng = new Random(hashSeed('turns', seed, i));
    const options: DifferentialOptions = { ...route.options };
    if (route.reasoningVaries && rng.chance(0.5)) options.reasoning = rng.chance(0.6);
    const b = buildCase(rng, route);
    const tags = [...b.tags].sort();
    const reasoning = options.reasoning === undefined ? '' : ` reasoning=${options.reasoning}`;
    cases.push({
      name: `turns ${seed}:${String(i).padStart(4, '0')} ${route.key}${reasoning} ${b.messages.length}msg${tags.length ? ` [${tags.join(',')}]` : ''}`,
      options,
      messages: b.messages,
    });
  }
  return cases;
}
