/**
 * Random transcripts for the tool-call rules (spec/tool-calls.md): input
 * validation (§3), result pairing with synthetic results (§4), id sanitization
 * (§5 strict, strict9, native Anthropic ids, Kimi ids, collisions), OpenAI
 * Responses id normalization (§6), the reasoning-pair downgrade (§7), the
 * Responses invariant check (§8, which throws) and the `details` strip (§9).
 *
 * Every route here runs the tool-call rules, but the reference also runs rules
 * of other areas on the same output (turn validation merges, the Google
 * bootstrap, assistant replay normalization, thinking-signature rules,
 * blank-text cleanup). The cases are built so that none of those ever fires:
 * - the input starts with a user message; every user message is a non-blank
 *   string; every text is non-blank and unique in its case; every assistant has
 *   a non-zero `usage`; no images, no blank text, no thinking blocks except the
 *   OpenAI reasoning blocks (`thinkingSignature` JSON `{"type":"reasoning","id":"rs_..."}`)
 *   that §7 needs, and only on the two Responses routes; tool results always
 *   hold text blocks (the blank-text pass turns string result content into
 *   `[empty content omitted]` on every route);
 * - the transcript is a sequence of *constructs* whose place in the OUTPUT is
 *   known (a user message; a tool step, which comes out as the assistant, its
 *   results and maybe a user interjection; a text-only assistant; a failed
 *   frame or an assistant made only of invalid calls, which come out as
 *   nothing), and the builder tracks the role the output ends with, so the
 *   output never holds two user or two assistant messages in a row, even where
 *   pairing moves interjections after the results, drops orphans and drops
 *   failed frames;
 * - results that pairing moves (displaced, duplicates, replacements of stored
 *   synthetic results, early and unknown-id orphans) are inserted afterwards,
 *   at places that leave the constructs' output unchanged: ids are fresh where
 *   an unintended owner could claim them (§4.2), and the only ambiguity is the
 *   deliberate one.
 * Checked by running the oracle on every case (and on the same input on the
 * `unknown` route, ids masked): no merged turns, no `(session bootstrap)`, no
 * `[tool calls omitted]` or other placeholders, thinking blocks unchanged.
 * Avoided on purpose (the project follows provider rules there, spec README
 * "Provider rules come before the reference"): results whose id is only in an
 * alias field, blank or padded result ids, Kimi ids on the Anthropic-pattern
 * routes (Anthropic Messages, Bedrock, and the Anthropic-validating local
 * chat route), and provider `mistral` or Mistral model ids outside OpenRouter.
 */
import type { DifferentialCase, DifferentialOptions } from './cases.ts';
import { Random, hashSeed } from './random.ts';

export type { DifferentialCase, DifferentialOptions } from './cases.ts';

export interface ToolCallRoute {
  /** Short label used in case names. */
  key: string;
  options: DifferentialOptions;
  /** OpenAI Responses family: `call_*|fc_*` ids, §6 normalization, §7 downgrade, §8 invariant, `aborted` synthetic text. */
  responses: boolean;
  /** Whether Kimi-native ids (`functions.read:0`) appear on this route (see the file comment). */
  kimiIds: boolean;
}

export const TOOL_CALL_ROUTES: readonly ToolCallRoute[] = [
  { key: 'anthropic-sonnet', options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }, responses: false, kimiIds: false },
  { key: 'anthropic-opus', options: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' }, responses: false, kimiIds: false },
  {
    key: 'bedrock',
    options: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
    responses: false,
    kimiIds: false,
  },
  { key: 'gemini', options: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' }, responses: false, kimiIds: true },
  { key: 'openai-responses', options: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' }, responses: true, kimiIds: true },
  { key: 'codex', options: { provider: 'openai-codex', modelApi: 'openai-chatgpt-responses', modelId: 'gpt-5-codex' }, responses: true, kimiIds: true },
  { key: 'openai-chat', options: { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' }, responses: false, kimiIds: true },
  { key: 'vllm', options: { provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3' }, responses: false, kimiIds: false },
  // strict9 in the reference (OpenRouter Mistral model ids) and in the project (Mistral model id hint).
  { key: 'openrouter-mistral', options: { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'mistralai/mistral-large' }, responses: false, kimiIds: true },
  { key: 'unknown', options: { provider: 'something-else', modelApi: 'unknown-api', modelId: 'foo' }, responses: false, kimiIds: true },
  { key: 'copilot', options: { provider: 'github-copilot', modelApi: 'openai-completions', modelId: 'gpt-4o' }, responses: false, kimiIds: true },
];

/** spec/tool-calls.md §2.5: the text of a stored synthetic result. */
export const SYNTHETIC_RESULT_TEXT = '[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.';
const SYNTHETIC_DETAILS = { openclawSyntheticMissingToolResult: true, reason: 'missing_tool_result' };

/** The newest input timestamp must stay before the oracle's frozen clock (2027-01-01). */
const CLOCK = 1798761600000;

type Json = Record<string, unknown>;
/** The role the output ends with, as far as the constructs so far decide it. */
type Tail = 'none' | 'user' | 'assistant' | 'result';

const TOOL_NAMES = ['read', 'write', 'exec', 'web_search', 'memory.get', 'browser:open', 'sessions_list', 'ns:tool.v-1_x', 'Read', 'apply_patch'];
/** 64 characters: the longest valid name (§2.3). */
const LONGEST_NAME = 'mcp__github__create_pull_request_review_comment_with_suggestions';
const ALNUM_MIXED = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';

/** A tool call the builder made, with what the pipeline will do to it. */
interface Call {
  id: string;
  /** The raw `name` (maybe padded). */
  name: unknown;
  /** The name a result carries: the trimmed name. */
  resultName: string;
}

/** A result to insert after the constructs are built (§4.2 displaced results, duplicates, replacements). */
interface LateResult {
  message: Json;
  /** The frame the result belongs to (its assistant). */
  origin: Json;
  /** 0: anywhere after `after` in the same frame; n > 0: n frames later. */
  distance: number;
  /** Insert after this message (same frame only). */
  after: Json;
  /** Tags to add once inserted (`within`: add displaced-within when it lands after a non-result). */
  tags: readonly string[];
  /** Tags to add when there is no frame that far (the result is then left out). */
  skippedTags: readonly string[];
  within?: boolean;
}

/** An orphan to insert at a random place before `before` (or anywhere, when undefined), after the first message. */
interface LooseResult {
  message: Json;
  before?: Json;
  /** Only in the unframed prefix (before the first frame). */
  prefix?: boolean;
}

/** An occurrence left without a real result, which a later same-id call can make ambiguous (§4.2). */
interface Unresolved {
  id: string;
  failed: boolean;
}

class CaseBuilder {
  readonly messages: Json[] = [];
  readonly tags = new Set<string>();
  readonly frames = new Set<Json>();
  readonly late: LateResult[] = [];
  readonly loose: LooseResult[] = [];
  tail: Tail = 'none';
  /** Every raw id used by a call or a result so far. */
  readonly usedIds = new Set<string>();
  /** Ids whose every occurrence so far holds an adjacent real result: safe to reuse in a later turn. */
  readonly reusable = new Set<string>();
  /** Occurrences without a real result whose id no later message mentions yet. */
  readonly unresolved: Unresolved[] = [];
  /** Ids that sanitize to the same string (`a-b`, `a_b`, ...), handed out first when present. */
  readonly collisionGroup: string[] = [];
  collisionSize = 0;
  /**
   * Whether one turn may repeat a call id. On Responses routes that always makes
   * the invariant check throw (§8), which hides the rest of the case, so only a
   * few Responses cases allow it.
   */
  duplicateIdsOk = true;
  /** Valid calls at their id's first use, with their assistant: owners for early (orphan) copies of their results. */
  readonly firstUses: { call: Call; assistant: Json }[] = [];
  #timestamp: number;
  #texts = new Set<string>();

  constructor(
    readonly rng: Random,
    readonly route: ToolCallRoute,
  ) {
    // Leave room for 200 timestamps at up to 10 minutes apart (cases stay far below that).
    this.#timestamp = rng.int(1_600_000_000_000, CLOCK - 1 - 200 * 600_000);
  }

  timestamp(): number {
    this.#timestamp += this.rng.int(1, 600_000);
    return this.#timestamp;
  }

  /** A non-blank sentence not used before in this case (so every output block can be traced to its input). */
  text(): string {
    const { rng } = this;
    let text = rng.chance(0.2) ? rng.unicodeSentence() : rng.sentence();
    while (this.#texts.has(text)) text = `${text} ${rng.pick(['Again.', 'Still.', 'Also.', 'Then.'])}`;
    this.#texts.add(text);
    return text;
  }

  push(message: Json): Json {
    this.messages.push(message);
    return message;
  }
}

// ---------------------------------------------------------------------------
// Ids

function mixed(rng: Random, length: number): string {
  return rng.fromAlphabet(ALNUM_MIXED, length);
}

/** A fresh id of some shape; Responses routes mostly get `call_*|fc_*` pairs. */
function idOfShape(b: CaseBuilder, name: string, index: number): { id: string; tag?: string } {
  const { rng, route } = b;
  const shape = rng.weighted<string>([
    ['openai', route.responses ? 10 : 6],
    ['pair', route.responses ? 30 : 3],
    ['anthropic', route.responses ? 1.5 : 5],
    ['anthropic-dash', 1],
    ['kimi', route.kimiIds ? (route.responses ? 1.5 : 3) : 0],
    ['dash', 2],
    ['dot', 1.5],
    ['colon', 1.5],
    ['space', 1],
    ['long', 1.5],
    ['short', 1.5],
    ['pipe-odd', route.responses ? 2 : 1],
    ['call-exact', route.responses ? 1 : 0],
  ]);
  switch (shape) {
    case 'openai':
      return { id: `call_${mixed(rng, rng.int(8, 24))}` };
    case 'pair':
      return { id: `call_${mixed(rng, rng.int(6, 24))}|fc_${rng.chance(0.7) ? rng.fromAlphabet(HEX, rng.int(12, 48)) : mixed(rng, rng.int(4, 12))}`, tag: 'pipe-id' };
    case 'anthropic':
      return { id: `toolu_01${mixed(rng, rng.chance(0.8) ? 22 : rng.int(3, 8))}`, tag: 'toolu-id' };
    case 'anthropic-dash':
      return { id: `toolu_${mixed(rng, rng.int(4, 10))}-${mixed(rng, rng.int(2, 6))}`, tag: 'toolu-id' };
    case 'kimi':
      return { id: `functions.${name}:${index}`, tag: 'kimi-id' };
    case 'dash':
      return rng.chance(0.5)
        ? { id: `${rng.fromAlphabet(HEX, 8)}-${rng.fromAlphabet(HEX, 4)}-${rng.fromAlphabet(HEX, 4)}-${rng.fromAlphabet(HEX, 12)}`, tag: 'dash-id' }
        : { id: `tool-call-${rng.int(0, 99)}-${rng.alphanumeric(3)}`, tag: 'dash-id' };
    case 'dot':
      return { id: rng.chance(0.5) ? `call.${rng.int(0, 999)}` : `${rng.pick(['read', 'exec', 'tool'])}.${rng.alphanumeric(rng.int(2, 6))}`, tag: 'dot-id' };
    case 'colon':
      return { id: rng.chance(0.5) ? `exec:${rng.int(0, 99)}` : `tool:${rng.alphanumeric(4)}:${rng.int(0, 9)}`, tag: 'colon-id' };
    case 'space':
      return { id: `call ${rng.alphanumeric(rng.int(2, 8))}`, tag: 'space-id' };
    case 'long': {
      const prefix = rng.pick(['call_', 'toolu_01', '', 'fc-']);
      const body = rng.chance(0.7) ? mixed(rng, rng.int(66, 96)) : `${mixed(rng, 30)}-${mixed(rng, 30)}_${mixed(rng, rng.int(8, 30))}`;
      return { id: `${prefix}${body}`, tag: 'long-id' };
    }
    case 'short':
      return { id: rng.fromAlphabet('abcdefghijklmnopqrstuvwxyz0123456789', rng.int(1, 2)), tag: 'short-id' };
    case 'pipe-odd':
      return {
        id: rng.pick([
          `call_${rng.alphanumeric(6)}|fc bad!`,
          `toolu_01${mixed(rng, 8)}|fc_${rng.alphanumeric(6)}`,
          `call_${rng.alphanumeric(6)}|`,
          `|fc_${rng.alphanumeric(6)}`,
          `call_${rng.alphanumeric(4)}|fc_${rng.alphanumeric(4)}|x`,
          `${rng.alphanumeric(5)}|${rng.alphanumeric(5)}`,
        ]),
        tag: 'pipe-odd-id',
      };
    default:
      // Exactly the longest valid Responses call id (64 characters) or one over it.
      return { id: `call_${mixed(rng, rng.chance(0.5) ? 59 : 60)}`, tag: 'long-id' };
  }
}

/** A raw id never used in this case (neither by a call nor by a result). */
function freshId(b: CaseBuilder, name: string, index: number): string {
  if (b.collisionGroup.length > 0 && b.rng.chance(0.6)) {
    const id = b.collisionGroup.shift()!;
    if (!b.usedIds.has(id)) {
      b.usedIds.add(id);
      if (b.collisionGroup.length < b.collisionSize - 1) b.tags.add('collide-id');
      return id;
    }
  }
  for (let attempt = 0; ; attempt++) {
    const { id, tag } = idOfShape(b, name, index);
    const candidate = attempt < 8 ? id : `${id}${attempt}`;
    if (b.usedIds.has(candidate)) continue;
    b.usedIds.add(candidate);
    if (tag !== undefined) b.tags.add(tag);
    return candidate;
  }
}

// ---------------------------------------------------------------------------
// Blocks and messages

function usage(rng: Random): Json {
  const input = rng.int(1, 4000);
  const output = rng.int(1, 800);
  const u: Json = { input, output, totalTokens: input + output };
  if (rng.chance(0.2)) u.cacheRead = rng.int(0, 2000);
  return u;
}

function userMessage(b: CaseBuilder): Json {
  const message: Json = { role: 'user', content: b.text(), timestamp: b.timestamp() };
  if (b.rng.chance(0.1)) message.idempotencyKey = `k${b.rng.alphanumeric(8)}`;
  return message;
}

function toolArguments(rng: Random): unknown {
  return rng.weighted<() => unknown>([
    [() => ({ path: rng.pick(['notes.txt', 'src/app.ts', 'README.md', '/tmp/out.log']) }), 5],
    [() => ({ command: rng.pick(['ls -la', 'npm test', 'git status']), timeout: rng.int(1, 120) }), 3],
    [() => ({ query: rng.sentence(1, 4) }), 2],
    [() => ({}), 2],
    [() => '{}', 0.4],
    [() => '{"path":"notes.txt"}', 0.3],
    [() => '', 0.2],
    [() => 0, 0.1],
  ])();
}

/** A valid call name (§2.3), sometimes padded (trimmed by §3). */
function validName(b: CaseBuilder): { name: string; trimmed: string } {
  const { rng } = b;
  const trimmed = rng.chance(0.04) ? LONGEST_NAME : rng.pick(TOOL_NAMES);
  if (trimmed === LONGEST_NAME) b.tags.add('name-64');
  if (rng.chance(0.08)) {
    b.tags.add('name-trim');
    return { name: rng.pick([` ${trimmed} `, `${trimmed}\n`, `\t${trimmed}`, `  ${trimmed}`]), trimmed };
  }
  return { name: trimmed, trimmed };
}

interface BuiltCall {
  block: Json;
  call: Call;
}

/** A valid paired call: a `toolCall` (mostly), `toolUse` with `input`, or `functionCall`. */
function validCall(b: CaseBuilder, id: string, name: string, stopReason: string): Json {
  const { rng, route } = b;
  const type = rng.weighted<string>([
    ['toolCall', 90],
    ['toolUse', 6],
    ['functionCall', 4],
  ]);
  if (type !== 'toolCall') b.tags.add(`block-${type}`);
  const block: Json = { type, id, name };
  if (type === 'toolUse') block.input = toolArguments(rng);
  else block.arguments = toolArguments(rng);
  // §3 partialJson: a finalized Responses call keeps its block (partialJson removed).
  const sep = id.indexOf('|');
  const args = block.arguments;
  if (
    type !== 'toolUse' &&
    stopReason === 'toolUse' &&
    sep > 0 &&
    sep < id.length - 1 &&
    typeof args === 'object' &&
    args !== null &&
    rng.chance(route.responses ? 0.3 : 0.1)
  ) {
    const empty = Object.keys(args).length === 0;
    block.partialJson = empty && rng.chance(0.4) ? rng.pick(['', ' ', '\n']) : rng.pick([JSON.stringify(args), `  ${JSON.stringify(args)}`, '{"other":true}', '{}']);
    b.tags.add('partial-json-kept');
  } else if (rng.chance(0.006)) {
    // Not a string: ignored by §3 and kept.
    block.partialJson = rng.pick<unknown>([null, 7, { p: 1 }]);
    b.tags.add('partial-json-non-string');
  }
  return block;
}

/** A call that §3 removes; its id (when it has one) is fresh, so its result is an orphan. */
function invalidCall(b: CaseBuilder, index: number, stopReason: string): { block: Json; id?: string; name: string } {
  const { rng } = b;
  const kind = rng.weighted<string>([
    ['no-input', 4],
    ['null-args', 2],
    ['no-id', 2],
    ['blank-id', 1],
    ['bad-name', 5],
    ['partial-json', 3],
  ]);
  const { trimmed } = validName(b);
  let name: unknown = trimmed;
  let resultName = trimmed;
  if (kind === 'bad-name') {
    const bad = rng.weighted<string>([
      ['slash', 3],
      ['long', 2],
      ['space', 2],
      ['empty', 1],
      ['blank', 1],
      ['non-string', 1],
      ['missing', 1],
      ['toolName-only', 1],
    ]);
    b.tags.add(`bad-name-${bad}`);
    switch (bad) {
      case 'slash':
        name = rng.pick(['bad/slash', 'tools/read', 'read?', 'exec!', 'web search/2']);
        break;
      case 'long':
        name = `${LONGEST_NAME}x`;
        break;
      case 'space':
        name = rng.pick(['read file', 'web search', ' read  file ']);
        break;
      case 'empty':
        name = '';
        break;
      case 'blank':
        name = rng.pick([' ', '\n\t']);
        break;
      case 'non-string':
        name = rng.pick<unknown>([42, null, { name: 'read' }]);
        break;
      default:
        name = undefined;
    }
    if (typeof name === 'string' && name.trim() !== '') resultName = name.trim();
  } else if (kind !== 'partial-json') {
    b.tags.add(kind === 'null-args' || kind === 'no-input' ? 'no-input' : kind);
  }
  const id = kind === 'no-id' || kind === 'blank-id' ? undefined : freshId(b, resultName, index);
  const block: Json = { type: 'toolCall' };
  if (id !== undefined) block.id = id;
  else if (kind === 'blank-id') block.id = rng.pick(['', ' ', '  \n']);
  if (name !== undefined) block.name = name;
  if (kind === 'bad-name' && name === undefined && rng.chance(0.5)) block.toolName = trimmed;
  switch (kind) {
    case 'no-input':
      if (rng.chance(0.3)) block.input = undefined;
      break;
    case 'null-args':
      block.arguments = null;
      if (rng.chance(0.3)) block.input = null;
      break;
    case 'partial-json': {
      // Not a finalized Responses call: §3 drops it.
      const variant = rng.pick(['truncated', 'no-pipe', 'stop-reason', 'array-args', 'with-input', 'edge-pipe', 'not-object']);
      b.tags.add('partial-json-dropped');
      block.arguments = { path: 'notes.txt' };
      block.partialJson = '{"path":"notes.txt"}';
      if (variant === 'truncated') {
        block.id = `call_${rng.alphanumeric(6)}|fc_${rng.alphanumeric(6)}`;
        block.partialJson = rng.pick(['{"path":', '{"path":"no', '{', '[1]']);
      } else if (variant === 'no-pipe') {
        // Without a `|` inside the id a call is never a finalized Responses call.
        block.id = `call_${rng.alphanumeric(8)}`;
      } else if (variant === 'stop-reason') {
        block.id = `call_${rng.alphanumeric(6)}|fc_${rng.alphanumeric(6)}`;
        if (stopReason === 'toolUse') block.partialJson = '{"path":';
      } else if (variant === 'array-args') {
        block.id = `call_${rng.alphanumeric(6)}|fc_${rng.alphanumeric(6)}`;
        block.arguments = ['notes.txt'];
      } else if (variant === 'with-input') {
        block.id = `call_${rng.alphanumeric(6)}|fc_${rng.alphanumeric(6)}`;
        block.input = { path: 'notes.txt' };
      } else if (variant === 'edge-pipe') {
        block.id = rng.chance(0.5) ? `call_${rng.alphanumeric(6)}|` : `|fc_${rng.alphanumeric(6)}`;
      } else {
        block.id = `call_${rng.alphanumeric(6)}|fc_${rng.alphanumeric(6)}`;
        block.partialJson = rng.pick(['"text"', '42', 'null']);
      }
      const partialId = block.id as string;
      if (b.usedIds.has(partialId)) block.id = `${partialId}x${index}`;
      b.usedIds.add(block.id as string);
      return { block, id: block.id as string, name: resultName };
    }
  }
  if (kind !== 'no-input' && kind !== 'null-args') block.arguments = toolArguments(rng);
  return { block, id, name: resultName };
}

/** A real tool result, with the variations §4.4, §5.1 and §9 care about. */
function realResult(b: CaseBuilder, call: Call, options: { aliases?: boolean } = {}): Json {
  const { rng } = b;
  const message: Json = { role: 'toolResult', toolCallId: call.id };
  const nameShape = rng.weighted<string>([
    ['same', 85],
    ['padded', 4],
    ['missing', 4],
    ['blank', 3],
    ['other', 2],
    ['raw', 2],
  ]);
  switch (nameShape) {
    case 'same':
      message.toolName = call.resultName;
      break;
    case 'padded':
      b.tags.add('result-name-trim');
      message.toolName = ` ${call.resultName} `;
      break;
    case 'missing':
      b.tags.add('result-name-missing');
      break;
    case 'blank':
      b.tags.add('result-name-blank');
      message.toolName = rng.pick(['', ' ']);
      break;
    case 'other':
      b.tags.add('result-name-other');
      message.toolName = rng.pick(['read', 'exec', 'search']);
      break;
    default:
      message.toolName = call.name;
  }
  // Always blocks: the image/blank-text pass (another area) turns string result content into "[empty content omitted]".
  const content = [{ type: 'text', text: b.text() }];
  if (rng.chance(0.1)) content.push({ type: 'text', text: b.text() });
  message.content = content;
  const isError = rng.weighted<boolean | undefined>([
    [false, 7],
    [undefined, 2],
    [true, 1],
  ]);
  if (isError !== undefined) message.isError = isError;
  if (rng.chance(0.15)) {
    b.tags.add('details');
    message.details = rng.pick<unknown>([{ exitCode: 0, durationMs: rng.int(1, 900) }, { truncated: true }, null, { diff: '+a\n-b' }]);
  }
  if (options.aliases !== false && rng.chance(0.1)) {
    b.tags.add('alias-ids');
    for (const field of rng.shuffle(['toolUseId', 'call_id', 'tool_call_id', 'tool_use_id', 'callId']).slice(0, rng.int(1, 2))) message[field] = call.id;
  }
  message.timestamp = b.timestamp();
  return message;
}

/** A synthetic result as the live session guard stores it (§2.5), recognized by pairing. */
function storedSynthetic(b: CaseBuilder, call: Call): Json {
  const { rng, route } = b;
  const aborted = route.responses && rng.chance(0.4);
  b.tags.add(aborted ? 'synthetic-aborted-input' : 'synthetic-input');
  const message: Json = {
    role: 'toolResult',
    toolCallId: call.id,
    toolName: typeof call.name === 'string' ? call.name : 'unknown',
    content: [{ type: 'text', text: aborted ? 'aborted' : SYNTHETIC_RESULT_TEXT }],
  };
  // Recognized by the details marker, or (default text only) by the text alone.
  if (aborted || rng.chance(0.75)) message.details = { ...SYNTHETIC_DETAILS };
  message.isError = true;
  message.timestamp = b.timestamp();
  return message;
}

/** §4.3: a result with no id in any field. */
function legacyResult(b: CaseBuilder, call: Call, match: boolean): Json {
  const { rng } = b;
  const message: Json = { role: 'toolResult' };
  if (match) {
    const shape = rng.pick(['same', 'padded', 'missing', 'blank']);
    if (shape === 'same') message.toolName = call.resultName;
    else if (shape === 'padded') message.toolName = ` ${call.resultName}\n`;
    else if (shape === 'blank') message.toolName = ' ';
  } else {
    message.toolName = call.resultName === 'exec' ? 'read' : 'exec';
  }
  message.content = [{ type: 'text', text: b.text() }];
  if (rng.chance(0.6)) message.isError = false;
  message.timestamp = b.timestamp();
  return message;
}

/** An OpenAI reasoning block (§7): replayable (`rs_*` id, reasoning type) or not. */
function reasoningBlock(b: CaseBuilder, replayable: boolean): Json {
  const { rng } = b;
  const thinking = rng.chance(0.85) ? b.text() : '';
  if (replayable) {
    const id = `rs_${rng.fromAlphabet(HEX, rng.int(8, 40))}`;
    const signature = rng.weighted<() => unknown>([
      [() => JSON.stringify({ type: 'reasoning', id }), 5],
      [() => JSON.stringify({ type: 'reasoning', id, summary: [{ type: 'summary_text', text: 'plan' }], encrypted_content: rng.alphanumeric(24) }), 3],
      [() => ` ${JSON.stringify({ id, type: 'reasoning.encrypted' })} `, 1],
      [() => ({ type: 'reasoning', id }), 1],
    ])();
    if (typeof signature === 'object') b.tags.add('reasoning-object-signature');
    return { type: 'thinking', thinking, thinkingSignature: signature };
  }
  b.tags.add('reasoning-not-replayable');
  const signature = rng.pick<unknown>([
    JSON.stringify({ type: 'reasoning', id: `msg_${rng.alphanumeric(8)}` }),
    JSON.stringify({ type: 'message', id: `rs_${rng.alphanumeric(8)}` }),
    JSON.stringify({ id: `rs_${rng.alphanumeric(8)}` }),
    `rs_${rng.alphanumeric(8)}`,
  ]);
  return { type: 'thinking', thinking, thinkingSignature: signature };
}

// ---------------------------------------------------------------------------
// Constructs

type Treatment =
  | 'adjacent'
  | 'missing'
  | 'synthetic'
  | 'synthetic-then-real'
  | 'synthetic-then-late'
  | 'duplicate'
  | 'duplicate-later'
  | 'deferred'
  | 'displaced'
  | 'legacy'
  | 'legacy-mismatch';

/**
 * A tool step: an assistant with paired calls and its results. Comes out as the
 * assistant, then its results (real or synthetic), then an interjected user
 * message if any; a failed step (stopReason error/aborted) comes out as nothing.
 */
function toolStep(b: CaseBuilder, options: { failed: boolean; allowInterjection: boolean }): void {
  const { rng, route } = b;
  const { failed } = options;
  const stopReason = failed ? rng.pick(['error', 'aborted']) : rng.chance(0.9) ? 'toolUse' : 'stop';
  const validCount = rng.weighted<number>([
    [1, 50],
    [2, 30],
    [3, 14],
    [4, 6],
  ]);
  const invalidCount = rng.chance(failed ? 0.08 : 0.2) ? rng.int(1, 2) : 0;

  // Calls. A repeat of an id inside this turn is a second occurrence (§4.1).
  const calls: Call[] = [];
  const blocks: Json[] = [];
  const usedInTurn = new Set<string>();
  let ambiguous: Unresolved | undefined;
  const fcCollision = route.responses && validCount >= 2 && rng.chance(0.06);
  /** Calls whose id is used here for the first time in the case. */
  const freshCalls: Call[] = [];
  for (let i = 0; i < validCount; i++) {
    const { name, trimmed } = validName(b);
    let id: string | undefined;
    const repeatable = calls.filter((call) => call.id !== ambiguous?.id);
    let fresh = false;
    if (b.duplicateIdsOk && repeatable.length > 0 && rng.chance(route.responses ? 0.3 : 0.05)) {
      id = rng.pick(repeatable).id;
      b.tags.add('repeat-id-in-turn');
    } else if (i === 1 && fcCollision) {
      const first = calls[0]!.id;
      const callPart = first.includes('|') ? first.slice(0, first.indexOf('|')) : first;
      id = `${callPart}|fc_${rng.alphanumeric(8)}`;
      if (b.usedIds.has(id)) id = undefined;
      else {
        b.usedIds.add(id);
        fresh = true;
        b.tags.add('fc-pair-collision');
      }
    } else if (ambiguous === undefined && b.unresolved.length > 0 && rng.chance(0.1)) {
      // A second owner for an id left unresolved earlier (§4.2 ambiguity, case E1 when the earlier frame failed).
      ambiguous = b.unresolved.splice(rng.int(0, b.unresolved.length - 1), 1)[0]!;
      id = ambiguous.id;
    } else if (b.reusable.size > 0 && rng.chance(0.1)) {
      const candidates = [...b.reusable].filter((candidate) => !usedInTurn.has(candidate));
      if (candidates.length > 0) {
        id = rng.pick(candidates);
        b.tags.add('repeat-id-turns');
      }
    }
    if (id === undefined && route.kimiIds && rng.chance(0.06)) {
      // Kimi numbers calls per turn from 0, so the same id comes back in later turns.
      const kimi = `functions.${trimmed}:${i}`;
      if (!b.usedIds.has(kimi)) {
        b.usedIds.add(kimi);
        id = kimi;
        fresh = true;
        b.tags.add('kimi-id');
      } else if (b.reusable.has(kimi) && !usedInTurn.has(kimi)) {
        id = kimi;
        b.tags.add('kimi-id');
        b.tags.add('repeat-id-turns');
      }
    }
    if (id === undefined) {
      id = freshId(b, trimmed, i);
      fresh = true;
    }
    usedInTurn.add(id);
    const call: Call = { id, name, resultName: trimmed };
    if (fresh) freshCalls.push(call);
    calls.push(call);
    blocks.push(validCall(b, id, name, stopReason));
  }
  const repeatedInTurn = new Set(calls.filter((call, i) => calls.findIndex((other) => other.id === call.id) !== i).map((call) => call.id));

  // Invalid calls (§3) mixed in; their results, if any, become orphans.
  const invalidResults: Json[] = [];
  for (let i = 0; i < invalidCount; i++) {
    const bad = invalidCall(b, validCount + i, stopReason);
    blocks.splice(rng.int(0, blocks.length), 0, bad.block);
    if (bad.id !== undefined && rng.chance(0.5)) {
      invalidResults.push(realResult(b, { id: bad.id, name: bad.name, resultName: bad.name }, { aliases: false }));
      b.tags.add('orphan-invalid-call');
    }
  }

  // Text before, between or after the calls; sometimes calls only.
  const textCount = rng.weighted<number>([
    [0, failed ? 1 : 4],
    [1, 5],
    [2, 1],
  ]);
  for (let i = 0; i < textCount; i++) blocks.splice(rng.int(0, blocks.length), 0, { type: 'text', text: b.text() });
  if (textCount === 0) b.tags.add('calls-only');

  // OpenAI reasoning (§7): before the calls protects their `|fc_*` ids, after them it does not.
  // A `call_a|fc_1`, `call_a|fc_2` pair collides once downgraded (§7), unless reasoning comes first.
  const protect = fcCollision && !b.duplicateIdsOk;
  // Reasoning between two occurrences of one `|fc_*` id downgrades only the first: the ids then differ,
  // the downgrade remaps both results to the first, and the second pairing (after the §9 strip) gives the
  // second occurrence a synthetic result that keeps its `details`.
  const split = route.responses && !protect ? [...repeatedInTurn].find((id) => id.indexOf('|') > 0 && id.slice(id.indexOf('|') + 1).startsWith('fc_')) : undefined;
  if (route.responses && (protect || split !== undefined || rng.chance(0.55))) {
    const where = protect
      ? 'before'
      : split !== undefined && rng.chance(0.6)
        ? 'split'
        : rng.weighted<string>([
            ['before', 5],
            ['after', 2],
            ['between', 1],
            ['not-replayable', 1.5],
          ]);
    const firstCall = blocks.findIndex((block) => block.type !== 'text');
    if (where === 'split') {
      blocks.splice(blocks.findIndex((block) => block.id === split) + 1, 0, reasoningBlock(b, true));
      b.tags.add('reasoning-splits-repeat');
    } else if (where === 'before') {
      blocks.splice(rng.int(0, firstCall), 0, reasoningBlock(b, true));
      b.tags.add('reasoning-before');
    } else if (where === 'after') {
      blocks.push(reasoningBlock(b, true));
      b.tags.add('reasoning-after');
    } else if (where === 'between') {
      blocks.splice(rng.int(firstCall + 1, blocks.length), 0, reasoningBlock(b, true));
      b.tags.add('reasoning-between');
    } else {
      blocks.splice(rng.int(0, firstCall), 0, reasoningBlock(b, false));
    }
  }

  const assistant: Json = { role: 'assistant', content: blocks, stopReason, usage: usage(rng), timestamp: b.timestamp() };
  if (stopReason === 'error') assistant.errorMessage = rng.pick(['terminated', 'Connection error.', '429 rate limit exceeded', 'An unknown error occurred']);
  if (failed) b.tags.add(`failed-${stopReason}`);
  b.push(assistant);
  b.frames.add(assistant);
  for (const call of freshCalls) b.firstUses.push({ call, assistant });

  // Results for the valid occurrences.
  const block: Json[] = [];
  let anyUnresolved = false;
  const treatments: Treatment[] = calls.map((call, i) => {
    const repeated = repeatedInTurn.has(call.id);
    const choices: [Treatment, number][] = [
      ['adjacent', 60],
      ['missing', 10],
      ['synthetic', failed ? 0 : 4],
      ['synthetic-then-real', failed || repeated ? 0 : 3],
      ['synthetic-then-late', failed || repeated ? 0 : 2],
      ['duplicate', repeated ? 0 : 4],
      ['duplicate-later', repeated || failed ? 0 : 2],
      ['deferred', 5],
      ['displaced', repeated ? 0 : 7],
      ['legacy', calls.length === 1 && !failed ? 5 : 0],
      ['legacy-mismatch', calls.length === 1 && !failed ? 1.5 : 0],
    ];
    if (ambiguous !== undefined && call.id === ambiguous.id && calls.findIndex((other) => other.id === call.id) === i) {
      // The second owner stays unresolved too, and a late result follows.
      return rng.chance(0.8) ? 'missing' : 'synthetic';
    }
    return rng.weighted(choices);
  });
  const keepReusable: string[] = [];
  calls.forEach((call, i) => {
    const treatment = treatments[i]!;
    const repeated = repeatedInTurn.has(call.id);
    switch (treatment) {
      case 'adjacent':
        block.push(realResult(b, call));
        break;
      case 'missing':
        b.tags.add(failed ? 'failed-missing' : 'missing-result');
        anyUnresolved = true;
        break;
      case 'synthetic':
        block.push(storedSynthetic(b, call));
        anyUnresolved = true;
        break;
      case 'synthetic-then-real': {
        const synthetic = storedSynthetic(b, call);
        block.push(synthetic);
        b.late.push({ message: realResult(b, call), origin: assistant, distance: 0, after: synthetic, tags: ['synthetic-replaced'], skippedTags: [], within: true });
        break;
      }
      case 'synthetic-then-late': {
        const synthetic = storedSynthetic(b, call);
        block.push(synthetic);
        b.late.push({
          message: realResult(b, call),
          origin: assistant,
          distance: rng.int(1, 3),
          after: assistant,
          tags: ['synthetic-replaced-late'],
          skippedTags: [],
        });
        break;
      }
      case 'duplicate': {
        const first = realResult(b, call);
        block.push(first);
        const copy = rng.chance(0.5) ? { ...first, content: [{ type: 'text', text: b.text() }], timestamp: b.timestamp() } : { ...first };
        b.late.push({ message: copy, origin: assistant, distance: 0, after: first, tags: ['duplicate-result'], skippedTags: [], within: true });
        break;
      }
      case 'duplicate-later': {
        const first = realResult(b, call);
        block.push(first);
        b.late.push({
          message: { ...first, content: [{ type: 'text', text: b.text() }], timestamp: b.timestamp() },
          origin: assistant,
          distance: rng.int(1, 3),
          after: assistant,
          tags: ['duplicate-later-frame'],
          skippedTags: [],
        });
        break;
      }
      case 'deferred':
        b.late.push({ message: realResult(b, call), origin: assistant, distance: 0, after: assistant, tags: [], skippedTags: [], within: true });
        break;
      case 'displaced':
        b.late.push({
          message: realResult(b, call),
          origin: assistant,
          distance: rng.weighted<number>([
            [1, 5],
            [2, 3],
            [3, 2],
            [4, 1],
          ]),
          after: assistant,
          tags: [failed ? 'displaced-into-failed' : 'displaced-cross'],
          skippedTags: [failed ? 'failed-missing' : 'missing-result'],
        });
        anyUnresolved = true;
        break;
      case 'legacy':
        b.tags.add('legacy-result');
        block.push(legacyResult(b, call, true));
        break;
      default:
        b.tags.add('legacy-mismatch');
        block.push(legacyResult(b, call, false));
        anyUnresolved = true;
    }
    const later = treatment === 'synthetic-then-late' || treatment === 'duplicate-later' || treatment === 'displaced';
    if (treatment === 'adjacent' && !failed && !repeated && !later) keepReusable.push(call.id);
    else b.reusable.delete(call.id);
    if ((treatment === 'missing' || treatment === 'synthetic') && !repeated && call.id !== ambiguous?.id) {
      b.unresolved.push({ id: call.id, failed });
    }
  });
  for (const id of keepReusable) b.reusable.add(id);

  // The ambiguous second owner: a real result one or more frames later has two candidates.
  if (ambiguous !== undefined) {
    const owner = calls.find((call) => call.id === ambiguous.id)!;
    b.late.push({
      message: realResult(b, owner, { aliases: false }),
      origin: assistant,
      distance: rng.int(1, 2),
      after: assistant,
      tags: [ambiguous.failed || failed ? 'ambiguous-failed-owner' : 'ambiguous'],
      skippedTags: ['repeat-id-unresolved'],
    });
  }
  if (anyUnresolved && failed) b.tags.add('failed-unresolved');

  const ordered = block.length > 1 && rng.chance(0.2) ? rng.shuffle(block) : block;
  if (ordered !== block && ordered.some((message, i) => message !== block[i])) b.tags.add('reorder');
  for (const result of invalidResults) ordered.splice(rng.int(0, ordered.length), 0, result);

  // A user interjection while the tools run: pairing moves it after the results.
  if (!failed && options.allowInterjection && rng.chance(0.25)) {
    const at = rng.int(0, ordered.length);
    ordered.splice(at, 0, userMessage(b));
    b.tags.add(at < ordered.length - 1 ? 'interjection' : 'user-after-results');
    for (const message of ordered) b.push(message);
    b.tail = 'user';
    return;
  }
  for (const message of ordered) b.push(message);
  if (!failed) b.tail = 'result';
}

/** An assistant made only of calls §3 drops: it disappears, and its results are orphans. */
function droppedAssistant(b: CaseBuilder): void {
  const { rng } = b;
  const stopReason = rng.chance(0.8) ? 'toolUse' : 'stop';
  const count = rng.int(1, 2);
  const blocks: Json[] = [];
  const results: Json[] = [];
  for (let i = 0; i < count; i++) {
    const bad = invalidCall(b, i, stopReason);
    blocks.push(bad.block);
    if (bad.id !== undefined && rng.chance(0.6)) results.push(realResult(b, { id: bad.id, name: bad.name, resultName: bad.name }, { aliases: false }));
  }
  b.tags.add('assistant-dropped');
  b.push({ role: 'assistant', content: blocks, stopReason, usage: usage(rng), timestamp: b.timestamp() });
  for (const result of results) b.push(result);
  if (results.length > 0) b.tags.add('orphan-invalid-call');
}

/** A text-only assistant (the final answer of a turn), sometimes with an OpenAI reasoning block. */
function textAssistant(b: CaseBuilder): void {
  const { rng, route } = b;
  const content: Json[] = [{ type: 'text', text: b.text() }];
  if (rng.chance(0.15)) content.push({ type: 'text', text: b.text() });
  if (route.responses && rng.chance(0.2)) {
    content.unshift(reasoningBlock(b, true));
    b.tags.add('reasoning-text-turn');
  }
  b.push({ role: 'assistant', content, stopReason: 'stop', usage: usage(rng), timestamp: b.timestamp() });
  b.tail = 'assistant';
}

// ---------------------------------------------------------------------------
// Post-pass: displaced results and orphans

/** Input indexes of the frames' assistants, in order. */
function frameIndexes(b: CaseBuilder): number[] {
  const out: number[] = [];
  b.messages.forEach((message, i) => {
    if (b.frames.has(message)) out.push(i);
  });
  return out;
}

function insertLate(b: CaseBuilder): void {
  const { rng } = b;
  for (const late of b.late) {
    const frames = frameIndexes(b);
    const originIndex = b.messages.indexOf(late.origin);
    const k = frames.indexOf(originIndex);
    const target = k + late.distance;
    if (target >= frames.length) {
      for (const tag of late.skippedTags) b.tags.add(tag);
      continue;
    }
    const start = Math.max(frames[target]!, late.distance === 0 ? b.messages.indexOf(late.after) : -1) + 1;
    const end = target + 1 < frames.length ? frames[target + 1]! : b.messages.length;
    const at = rng.int(start, end);
    b.messages.splice(at, 0, late.message);
    for (const tag of late.tags) b.tags.add(tag);
    if (late.within) {
      // Displaced inside its own frame: some non-result sits between the assistant and the result.
      const between = b.messages.slice(originIndex + 1, at);
      if (between.some((message) => message.role !== 'toolResult')) b.tags.add('displaced-within');
    }
  }
}

function insertLoose(b: CaseBuilder): void {
  const { rng } = b;
  for (const loose of b.loose) {
    const frames = frameIndexes(b);
    let end = loose.before !== undefined ? b.messages.indexOf(loose.before) : b.messages.length;
    if (loose.prefix) end = Math.min(end, frames[0] ?? b.messages.length);
    b.messages.splice(rng.int(1, Math.max(1, end)), 0, loose.message);
  }
}

/** Orphans: results before any call, results for unknown ids, and early results of later calls. */
function planOrphans(b: CaseBuilder): void {
  const { rng } = b;
  if (rng.chance(0.2)) {
    const count = rng.int(1, 2);
    for (let i = 0; i < count; i++) {
      const name = rng.pick(TOOL_NAMES);
      const id = freshId(b, name, i);
      b.loose.push({ message: realResult(b, { id, name, resultName: name }), prefix: true });
    }
    b.tags.add('orphan-prefix');
  }
  if (rng.chance(0.2)) {
    const name = rng.pick(TOOL_NAMES);
    const id = freshId(b, name, 0);
    b.loose.push({ message: realResult(b, { id, name, resultName: name }) });
    b.tags.add('orphan-unknown-id');
  }
  if (rng.chance(0.12) && b.firstUses.length > 0) {
    // A copy of some call's result placed before that call's assistant: no frame before it knows the id.
    const { call, assistant } = rng.pick(b.firstUses);
    b.loose.push({ message: realResult(b, call, { aliases: false }), before: assistant });
    b.tags.add('early-result');
  }
}

// ---------------------------------------------------------------------------
// Cases

type Construct = 'step' | 'failed' | 'dropped' | 'text';

function buildCase(rng: Random, route: ToolCallRoute): CaseBuilder {
  const b = new CaseBuilder(rng, route);
  b.duplicateIdsOk = !route.responses || rng.chance(0.3);
  if (rng.chance(0.15)) {
    const p = rng.fromAlphabet('abcdefghijklmnopqrstuvwxyz', rng.int(1, 3));
    const q = rng.fromAlphabet('abcdefghijklmnopqrstuvwxyz0123456789', rng.int(1, 3));
    const group = [`${p}-${q}`, `${p}_${q}`, `${p}.${q}`, `${p}${q}`, `${p} ${q}`, `${p}:${q}`];
    b.collisionGroup.push(...rng.shuffle(group).slice(0, rng.int(2, 4)));
    b.collisionSize = b.collisionGroup.length;
  }
  const turns = rng.weighted<number>([
    [1, 4],
    [2, 4],
    [3, 3],
    [4, 1],
  ]);
  for (let turn = 0; turn < turns; turn++) {
    const last = turn === turns - 1;
    userTurn(b);
    const constructs = last ? rng.int(0, 4) : rng.int(1, 4);
    for (let c = 0; c < constructs; c++) {
      if (b.tail === 'assistant') break;
      const kind = rng.weighted<Construct>([
        ['step', 70],
        ['failed', 8],
        ['dropped', 5],
        ['text', c === 0 ? 4 : 10],
      ]);
      construct(b, kind, !last || c < constructs - 1 || rng.chance(0.5));
    }
    // The next user message must not follow a user message in the output.
    if (!last && b.tail === 'user') construct(b, rng.chance(0.7) ? 'step' : 'text', false);
  }
  planOrphans(b);
  insertLate(b);
  insertLoose(b);
  return b;
}

function userTurn(b: CaseBuilder): void {
  b.push(userMessage(b));
  b.tail = 'user';
}

function construct(b: CaseBuilder, kind: Construct, allowInterjection: boolean): void {
  switch (kind) {
    case 'step':
      toolStep(b, { failed: false, allowInterjection });
      break;
    case 'failed':
      toolStep(b, { failed: true, allowInterjection: false });
      break;
    case 'dropped':
      droppedAssistant(b);
      break;
    default:
      textAssistant(b);
  }
}

/**
 * `count` cases from `seed`. Case `i` depends only on `(seed, i)`, so raising
 * `count` keeps the earlier cases unchanged. Routes take turns (`i % 11`).
 */
export function generateToolCallCases(seed: number, count: number): DifferentialCase[] {
  const cases: DifferentialCase[] = [];
  for (let i = 0; i < count; i++) {
    const route = TOOL_CALL_ROUTES[i % TOOL_CALL_ROUTES.length]!;
    const rng = new Random(hashSeed('tool-calls', seed, i));
    const b = buildCase(rng, route);
    const options: DifferentialOptions = { ...route.options };
    // `reasoning` changes only the local chat route's reasoning drop, which no block here triggers.
    if (rng.chance(0.15)) options.reasoning = rng.chance(0.5);
    const tags = [...b.tags].sort();
    cases.push({
      name: `tool-calls ${seed}:${String(i).padStart(4, '0')} ${route.key} ${b.messages.length}msg${tags.length ? ` [${tags.join(',')}]` : ''}`,
      options,
      messages: b.messages,
    });
  }
  return cases;
}
