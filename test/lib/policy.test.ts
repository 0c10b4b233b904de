/**
 * resolveTranscriptPolicy: the reference's §2.5 matrix row by row, the seed's deviations, the
 * helpers' worked examples from §2.3, and the project-only fields (spec/turns-images-policy.md §2).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  OPENAI_RESPONSES_APIS,
  isMistralRoute,
  requiresReasoningContentReplay,
  resolveTranscriptPolicy,
  type TranscriptPolicy,
  type TranscriptRoute,
} from '../../lib/policy.ts';
import {
  bindsClaudeThinkingPrefix,
  claudeIdentity,
  isClaudeFamilyModelId,
  shouldDropClaudeThinkingBlocks,
} from '../../lib/policy-claude.ts';

const REFERENCE_FIELDS = [
  'sanitizeMode', 'sanitizeToolCallIds', 'toolCallIdMode', 'duplicateToolCallIdStyle',
  'preserveNativeAnthropicToolUseIds', 'repairToolUseResultPairing', 'preserveSignatures',
  'appendOnlyRuntimeContext', 'sanitizeThoughtSignatures', 'dropThinkingBlocks', 'dropReasoningFromHistory',
  'applyGoogleTurnOrdering', 'validateGeminiTurns', 'validateAnthropicTurns', 'allowSyntheticToolResults',
] as const satisfies readonly (keyof TranscriptPolicy)[];

const PROJECT_FIELDS = [
  'responsesFamily', 'repairBedrockEmptyErrorTurns', 'normalizeAntigravityClaudeThinking',
  'stripTrailingPrefillWhenThinking', 'mergeConsecutiveUserTurns', 'insertBedrockBootstrapTurn', 'stripAllThinkingBlocks', 'enforceToolUseIdPattern',
  'bridgeBedrockUserTurns', 'repairPartlessGeminiTurns', 'toolNameRule', 'fillMissingReasoningContent', 'signGemini3CurrentTurn', 'requestImageLimits',
] as const satisfies readonly (keyof TranscriptPolicy)[];

type ReferenceField = (typeof REFERENCE_FIELDS)[number];
type ReferenceView = Pick<TranscriptPolicy, ReferenceField>;

/** spec/turns-images-policy.md §2.5, copied verbatim (the `owner` column is informational). */
const MATRIX = `
| openai | openai-responses | gpt-5 | openai | img | · | · | · | Y | · | · | · | · | · | · | Y |
| openai | openai-completions | gpt-4o | openai | img | strict | · | · | · | · | · | · | · | · | · | · |
| openai-codex | openai-chatgpt-responses | gpt-5-codex | fallback | img | strict | · | · | · | · | · | · | · | · | · | Y |
| openai | openai-chatgpt-responses | gpt-5.1-codex | openai | img | · | · | · | Y | · | · | · | · | · | · | Y |
| azure-openai-responses | azure-openai-responses | gpt-5 | openai | img | · | · | · | Y | · | · | · | · | · | · | Y |
| azure-openai | azure-openai-responses | gpt-5 | openai | img | · | · | · | Y | · | · | · | · | · | · | Y |
| my-proxy | openai-responses | gpt-5 | fallback | img | strict | · | · | · | · | · | · | · | · | · | Y |
| my-proxy | openai-responses | claude-sonnet-4-5 | fallback | img | strict | · | · | · | · | · | · | · | · | Y | Y |
| my-local | openai-completions | qwen3-32b | fallback | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| my-local | openai-completions | kimi-k2-thinking | fallback | img | strict | · | · | · | · | · | · | Y | Y | Y | · |
| lmstudio | openai-completions | qwen3-32b | lmstudio (no hook→fallback) | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| ollama | openai-completions | llama3 | ollama | img | strict | · | · | · | · | · | Y | Y | Y | Y | · |
| ollama | ollama | llama3 | ollama | img | · | · | · | · | · | · | Y | Y | Y | Y | · |
| vllm | openai-completions | qwen3 | vllm (no hook→fallback) | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| sglang | openai-completions | qwen3 | sglang | img | strict | · | · | · | · | · | · | Y | Y | Y | · |
| google | google-generative-ai | gemini-2.5-pro | google | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| google-gemini-cli | google-gemini-cli | gemini-2.5-pro | google | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| google-antigravity | google-gemini-cli | gemini-3-pro | fallback | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| google-antigravity | google-gemini-cli | claude-sonnet-4-5 | fallback | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| google-antigravity | google-gemini-cli | claude-opus-4-5-thinking | fallback | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| google-vertex | google-vertex | gemini-2.5-pro | google | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| my-gem | google-generative-ai | gemini-2.5-pro | fallback | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| anthropic | anthropic-messages | claude-sonnet-4-5 | anthropic | full | strict | Y | Y | · | · | Y | · | · | · | Y | Y |
| anthropic | anthropic-messages | claude-opus-4-6 | anthropic | full | strict | Y | Y | · | · | · | · | · | · | Y | Y |
| anthropic | anthropic-messages | claude-3-7-sonnet-latest | anthropic | full | strict | Y | Y | · | · | Y | · | · | · | Y | Y |
| anthropic | anthropic-messages | claude-fable-5-1 | anthropic | full | strict | Y | Y | Y | · | · | · | · | · | Y | Y |
| anthropic | anthropic-messages | claude-opus-5-5 | anthropic | full | strict | Y | Y | Y | · | · | · | · | · | Y | Y |
| minimax | anthropic-messages | MiniMax-M2 | minimax | full | strict | · | Y | · | · | · | · | · | · | Y | Y |
| minimax-portal | anthropic-messages | MiniMax-M2 | minimax | full | strict | · | Y | · | · | · | · | · | · | Y | Y |
| my-anthropic-compat | anthropic-messages | some-model | fallback | full | strict | · | Y | · | · | · | · | · | · | Y | Y |
| amazon-bedrock | bedrock-converse-stream | anthropic.claude-sonnet-4-5-20250929-v1:0 | fallback | full | strict | · | Y | · | · | Y | · | · | · | Y | Y |
| amazon-bedrock | bedrock-converse-stream | us.anthropic.claude-3-7-sonnet-20250219-v1:0 | fallback | full | strict | · | Y | · | · | Y | · | · | · | Y | Y |
| amazon-bedrock | bedrock-converse-stream | amazon.nova-pro-v1:0 | fallback | full | strict | · | Y | · | · | · | · | · | · | Y | Y |
| mistral | openai-completions | mistral-large-latest | fallback | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| mistral | mistral-conversations | mistral-large-latest | fallback | img | · | · | · | · | · | · | · | · | · | · | · |
| my-local | openai-completions | mistral-small | fallback | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| openrouter | openai-completions | google/gemini-2.5-pro | openrouter | img | · | · | · | · | b64 | · | · | · | · | · | · |
| openrouter | openai-completions | anthropic/claude-sonnet-4.5 | openrouter | img | · | · | · | · | · | · | · | · | · | · | · |
| openrouter | openai-completions | mistralai/mistral-large | openrouter | img | strict9 | · | · | · | · | · | · | · | · | · | · |
| openrouter | openai-completions | openai/gpt-5 | openrouter | img | · | · | · | · | · | · | · | · | · | · | · |
| cloudflare-ai-gateway | anthropic-messages | claude-sonnet-4-5 | fallback | full | strict | · | Y | · | · | Y | · | · | · | Y | Y |
| github-copilot | openai-completions | gpt-4o | github-copilot | img | · | · | · | · | · | · | · | · | · | · | · |
| github-copilot | anthropic-messages | claude-sonnet-4.5 | github-copilot | full | · | · | Y | · | · | Y | · | · | · | Y | Y |
| github-copilot | openai-responses | gpt-5 | github-copilot | img | · | · | · | · | · | · | · | · | · | · | · |
| xai | openai-completions | grok-4 | xai | img | strict | · | · | · | · | · | Y | Y | Y | Y | · |
| xai | openai-responses | grok-4 | xai | img | strict | · | · | · | · | · | · | · | · | · | Y |
| together | openai-completions | meta-llama/Llama-3-70b | together (no hook→fallback) | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| groq | openai-completions | llama-3.3-70b | fallback | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| deepseek | openai-completions | deepseek-reasoner | fallback | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| opencode-go | openai-completions | gemini-3-pro | opencode-go | img | · | · | · | · | b64 | · | · | · | · | · | · |
| clawrouter | openai-completions | gpt-5 | clawrouter | img | strict | · | · | · | · | · | · | Y | Y | Y | · |
| something-else | unknown-api | foo | fallback | img | · | · | · | · | · | · | · | · | · | · | · |
| "" | "" | "" | fallback | img | · | · | · | · | · | · | · | · | · | · | · |
`;

/**
 * Routes outside the matrix, in the same columns. The replay-visible columns (ordering, validators,
 * ids, signatures, thinking and reasoning drops, user merges) were observed by running the reference
 * (../shared/oracle) on a probe transcript; the others follow the owner's shape.
 */
const BEYOND_MATRIX = `
| claude-cli | anthropic-messages | claude-sonnet-4-5 | anthropic | full | strict | Y | Y | · | · | Y | · | · | · | Y | Y |
| anthropic | openai-completions | claude-opus-4-6 | anthropic | full | strict | Y | Y | · | · | · | · | · | · | Y | Y |
| anthropic-vertex | anthropic-messages | claude-sonnet-4-5 | fallback | full | strict | · | Y | · | · | Y | · | · | · | Y | Y |
| azure-openai | openai-completions | o3 | openai | img | strict | · | · | · | · | · | · | · | · | · | · |
| azure-openai | openai-completions | openai/gpt-4.1 | openai | img | strict | · | · | · | · | · | · | · | · | · | · |
| azure-openai | openai-completions | GPT-4o | fallback | img | strict | · | · | · | · | · | Y→·ᴿ | Y | Y | Y | · |
| azure-openai | azure-openai-responses | claude-sonnet-4-5 | fallback | img | strict | · | · | · | · | · | · | · | · | Y | Y |
| openai | anthropic-messages | claude-sonnet-4-5 | openai | img | · | · | · | · | · | · | · | · | · | · | · |
| minimax-cn | anthropic-messages | MiniMax-M2 | minimax | full | strict | · | Y | · | · | · | · | · | · | Y | Y |
| minimax | anthropic-messages | claude-opus-5-5 | minimax | full | strict | · | Y | Y | · | · | · | · | · | Y | Y |
| minimax | bedrock-converse-stream | claude-sonnet-4-5 | minimax | full | strict | · | Y | · | · | Y | · | · | · | Y | Y |
| minimax | openai-completions | MiniMax-M2 | minimax | img | strict | · | · | · | · | · | Y | Y | Y | Y | · |
| minimax | google-generative-ai | x | minimax | img | · | · | · | · | · | · | · | · | · | · | · |
| google | openai-completions | gemini-2.5-pro | google | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| google-antigravity | anthropic-messages | claude-sonnet-4-5 | fallback | full | strict | · | Y | · | · | Y | · | · | · | Y | Y |
| google-antigravity | google-vertex | gemini-3-pro | fallback | img | · | · | · | · | · | · | · | · | · | · | · |
| github-copilot | anthropic-messages | gpt-4o | github-copilot | full | · | · | Y | · | · | · | · | · | · | Y | Y |
| github-copilot | anthropic-messages | claude-opus-5-5 | github-copilot | full | · | · | Y | · | · | · | · | · | · | Y | Y |
| github-copilot | openai-completions | claude-sonnet-4.5 | github-copilot | img | · | · | · | · | · | · | · | · | · | · | · |
| opencode-go | openai-completions | glm-5 | opencode-go | img | · | · | · | · | · | · | · | · | · | · | · |
| opencode-go | google-generative-ai | gemini-3-pro | opencode-go | img | · | · | · | · | b64 | · | · | · | · | · | · |
| ollama-cloud | openai-completions | llama3 | ollama | img | strict | · | · | · | · | · | Y | Y | Y | Y | · |
| ollama | openai-completions | kimi-k2.5 | ollama | img | strict | · | · | · | · | · | Y | Y | Y | Y | · |
| ollama | anthropic-messages | claude-sonnet-4-5 | ollama | img | · | · | · | · | · | · | · | · | · | · | · |
| xai | openai-responses | claude-sonnet-4-5 | xai | img | strict | · | · | · | · | · | · | · | · | · | Y |
| xai | anthropic-messages | claude-sonnet-4-5 | xai | img | · | · | · | · | · | · | · | · | · | · | · |
| sglang | anthropic-messages | claude-sonnet-4-5 | sglang | img | · | · | · | · | · | · | · | · | · | · | · |
| clawrouter | anthropic-messages | claude-opus-5-5 | clawrouter | full | strict | Y | Y | Y | · | · | · | · | · | Y | Y |
| clawrouter | google-generative-ai | gemini-2.5-pro | clawrouter | full | strict | · | · | · | b64 | · | · | Y | Y | · | Y |
| clawrouter | google-gemini-cli | gemini-2.5-pro | clawrouter | img | · | · | · | · | · | · | · | · | · | · | · |
| openrouter | google-generative-ai | google/gemini-2.5-pro | openrouter | img | · | · | · | · | b64 | · | · | · | · | · | · |
| openrouter | anthropic-messages | anthropic/claude-sonnet-4.5 | openrouter | img | · | · | · | · | · | · | · | · | · | · | · |
| lmstudio | anthropic-messages | claude-sonnet-4-5 | fallback | full | strict | · | Y | · | · | Y | · | · | · | Y | Y |
`;

/**
 * Where the project follows the seed instead of the reference (spec/README.md, "Mistral detection"):
 * the matrix row's `ids` column is replaced.
 */
const SEED_IDS: ReadonlyMap<string, { readonly ids: string; readonly reference: string }> = new Map([
  ['mistral / openai-completions / mistral-large-latest', { ids: 'strict9', reference: 'strict' }],
  ['mistral / mistral-conversations / mistral-large-latest', { ids: 'strict9', reference: 'none' }],
  ['my-local / openai-completions / mistral-small', { ids: 'strict9', reference: 'strict' }],
]);

interface Row {
  readonly title: string;
  readonly route: TranscriptRoute;
  readonly cells: readonly string[];
}

function parseRows(table: string): Row[] {
  return table.trim().split('\n').map((line) => {
    const cols = line.split('|').slice(1, -1).map((cell) => cell.trim());
    assert.equal(cols.length, 16, `malformed row: ${line}`);
    const [provider = '', modelApi = '', modelId = ''] = cols.slice(0, 3).map((cell) => (cell === '""' ? '' : cell));
    const show = (value: string): string => value === '' ? '""' : value;
    return { title: `${show(provider)} / ${show(modelApi)} / ${show(modelId)}`, route: { provider, modelApi, modelId }, cells: cols.slice(4) };
  });
}

function flag(cell: string, reasoning: boolean): boolean {
  if (cell === 'Y') return true;
  if (cell === '·') return false;
  if (cell === 'Y→·ᴿ') return !reasoning;
  throw new Error(`unknown cell ${cell}`);
}

/** The compact columns (mode … synth) as the reference fields of a policy. */
function expand(cells: readonly string[], reasoning: boolean): ReferenceView {
  const [mode, ids, natIds, sig, aoRC, thSig, dropTh, dropRs, gOrd, vGem, vAnt, synth] = cells;
  assert.ok(mode === 'img' || mode === 'full', `mode ${mode}`);
  assert.ok(ids === '·' || ids === 'strict' || ids === 'strict9', `ids ${ids}`);
  assert.ok(thSig === '·' || thSig === 'b64', `thSig ${thSig}`);
  return {
    sanitizeMode: mode === 'full' ? 'full' : 'images-only',
    sanitizeToolCallIds: ids !== '·',
    toolCallIdMode: ids === 'strict' || ids === 'strict9' ? ids : undefined,
    duplicateToolCallIdStyle: undefined,
    preserveNativeAnthropicToolUseIds: flag(natIds, reasoning),
    repairToolUseResultPairing: true,
    preserveSignatures: flag(sig, reasoning),
    appendOnlyRuntimeContext: flag(aoRC, reasoning),
    sanitizeThoughtSignatures: thSig === 'b64' ? { allowBase64Only: true, includeCamelCase: true } : undefined,
    dropThinkingBlocks: flag(dropTh, reasoning),
    dropReasoningFromHistory: flag(dropRs, reasoning),
    applyGoogleTurnOrdering: flag(gOrd, reasoning),
    validateGeminiTurns: flag(vGem, reasoning),
    validateAnthropicTurns: flag(vAnt, reasoning),
    allowSyntheticToolResults: flag(synth, reasoning),
  };
}

function referenceView(policy: TranscriptPolicy): ReferenceView {
  return Object.fromEntries(REFERENCE_FIELDS.map((field) => [field, policy[field]])) as ReferenceView;
}

function checkRow(row: Row, cells: readonly string[]): void {
  for (const reasoning of [false, true]) {
    const policy = resolveTranscriptPolicy({ ...row.route, reasoning });
    assert.deepEqual(referenceView(policy), expand(cells, reasoning), `reasoning: ${reasoning}`);
    assert.equal(policy.repairToolUseResultPairing, true);
    assert.equal(policy.duplicateToolCallIdStyle, undefined);
  }
}

const resolve = (provider: string, modelApi: string, modelId: string, reasoning?: boolean): TranscriptPolicy =>
  resolveTranscriptPolicy(reasoning === undefined ? { provider, modelApi, modelId } : { provider, modelApi, modelId, reasoning });

describe('resolveTranscriptPolicy: the reference matrix (§2.5), one test per row', () => {
  const rows = parseRows(MATRIX);
  test('the matrix has all 53 rows', () => assert.equal(rows.length, 53));
  for (const row of rows) {
    const seed = SEED_IDS.get(row.title);
    if (row.title === 'deepseek / openai-completions / deepseek-reasoner') {
      // Ours (issue 29): DeepSeek's thinking models keep their reasoning; the reference drops it (column dropRs).
      test(`${row.title} (ours: reasoning kept, reference drops it)`, () => checkRow(row, [...row.cells.slice(0, 7), '·', ...row.cells.slice(8)]));
    } else if (seed === undefined) {
      test(row.title, () => checkRow(row, row.cells));
    } else {
      // Only the `ids` column changes; every other column is the reference's.
      test(`${row.title} (seed: ${seed.ids} ids, reference ${seed.reference})`, () =>
        checkRow(row, [row.cells[0] ?? '', seed.ids, ...row.cells.slice(2)]));
    }
  }
});

describe('resolveTranscriptPolicy: owners beyond the matrix (observed on the reference)', () => {
  for (const row of parseRows(BEYOND_MATRIX)) test(row.title, () => checkRow(row, row.cells));
});

describe('resolveTranscriptPolicy: shape, freezing and caching', () => {
  test('every policy has the reference fields and the project fields, nothing else', () => {
    const policy = resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5');
    assert.deepEqual(Object.keys(policy).sort(), [...REFERENCE_FIELDS, ...PROJECT_FIELDS].sort());
  });

  test('the result is frozen, and so is its sanitizeThoughtSignatures', () => {
    const policy = resolve('google', 'google-generative-ai', 'gemini-2.5-pro');
    assert.ok(Object.isFrozen(policy));
    assert.ok(policy.sanitizeThoughtSignatures !== undefined && Object.isFrozen(policy.sanitizeThoughtSignatures));
    assert.equal(Reflect.set(policy, 'dropThinkingBlocks', true), false);
    assert.equal(policy.dropThinkingBlocks, false);
    assert.equal(Reflect.set(policy.sanitizeThoughtSignatures, 'allowBase64Only', false), false);
    assert.ok(Object.isFrozen(resolve('', '', '')));
  });

  test('the same route gives the same shared object; a different reasoning flag does not', () => {
    const first = resolve('my-local', 'openai-completions', 'qwen3-32b');
    assert.equal(resolve('my-local', 'openai-completions', 'qwen3-32b'), first);
    assert.equal(resolve(' My-Local ', 'openai-completions', 'qwen3-32b'), first);
    const reasoning = resolve('my-local', 'openai-completions', 'qwen3-32b', true);
    assert.notEqual(reasoning, first);
    assert.equal(reasoning.dropReasoningFromHistory, false);
    assert.equal(first.dropReasoningFromHistory, true);
  });

  test('many distinct routes keep resolving correctly (the cache is bounded)', () => {
    for (let i = 0; i < 1200; i += 1) {
      assert.equal(resolve('my-local', 'openai-completions', `model-${i}`).dropReasoningFromHistory, true);
    }
    assert.equal(resolve('my-local', 'openai-completions', 'model-3').validateGeminiTurns, true);
  });

  test('a route with no fields is the "" row: image sanitization only', () => {
    assert.deepEqual(resolveTranscriptPolicy({}), resolve('', '', ''));
    assert.equal(resolveTranscriptPolicy({}).sanitizeToolCallIds, false);
  });
});

describe('resolveTranscriptPolicy: route normalization', () => {
  test('the provider is trimmed and lower-cased', () => {
    const anthropic = resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5');
    assert.equal(resolve(' Anthropic ', 'anthropic-messages', 'claude-sonnet-4-5'), anthropic);
    assert.equal(resolve('ANTHROPIC', 'anthropic-messages', 'claude-sonnet-4-5'), anthropic);
    assert.equal(anthropic.preserveNativeAnthropicToolUseIds, true);
    assert.equal(resolve('\tOpenRouter\n', 'openai-completions', 'mistralai/mistral-large').toolCallIdMode, 'strict9');
    assert.equal(resolve('AZURE-OPENAI', 'openai-completions', 'gpt-5').validateGeminiTurns, false);
  });

  test('the api is compared exactly, as the reference does: a padded or upper-case api is unknown', () => {
    const defaults = resolve('something-else', 'unknown-api', 'foo');
    assert.deepEqual(referenceView(resolve('my-local', ' openai-completions ', 'qwen3')), referenceView(defaults));
    assert.deepEqual(referenceView(resolve('my-local', 'OPENAI-COMPLETIONS', 'qwen3')), referenceView(defaults));
  });

  test('an unknown provider gets the transport fallback; an unknown api gets the defaults', () => {
    const fallback = resolve('never-heard-of-it', 'anthropic-messages', 'some-model');
    assert.deepEqual(referenceView(fallback), referenceView(resolve('my-anthropic-compat', 'anthropic-messages', 'some-model')));
    assert.equal(fallback.preserveSignatures, true);
    assert.deepEqual(referenceView(resolve('anthropic-ish', 'some-new-api', 'claude-sonnet-4-5')), referenceView(resolve('', '', '')));
  });

  test('azure-openai is owned by the openai plugin only for OpenAI model ids', () => {
    const owned = (modelId: string): boolean => !resolve('azure-openai', 'openai-completions', modelId).validateGeminiTurns;
    for (const id of ['gpt-5', 'gpt-', 'gpt-oss-120b', 'o1', 'o3-pro', 'o4-mini', 'o10', ' gpt-5', 'openai/foo', 'OPENAI/gpt-5']) {
      assert.ok(owned(id), id);
    }
    for (const id of ['foo', 'GPT-4o', 'Gpt-5', 'gpt5', 'gpt', 'o', 'o2', 'o5', 'O3', 'x/gpt-5', 'o3/x', 'openai/', 'openrouter/openai/gpt-5']) {
      assert.ok(!owned(id), id);
    }
  });
});

describe('Claude helpers (§2.3)', () => {
  test('identity: trimmed, lower-cased, anthropic/ stripped, [._ ] runs to -, cut to the claude- part', () => {
    assert.equal(claudeIdentity('anthropic.claude-sonnet-4-5-20250929-v1:0'), 'claude-sonnet-4-5-20250929-v1:0');
    assert.equal(claudeIdentity('us.anthropic.claude-3-7-sonnet-20250219-v1:0'), 'claude-3-7-sonnet-20250219-v1:0');
    assert.equal(claudeIdentity(' Anthropic/Claude-Opus-4.6 '), 'claude-opus-4-6');
    assert.equal(claudeIdentity('claude_fable  5.1'), 'claude-fable-5-1');
    assert.equal(claudeIdentity('vendor/claude-sonnet-4-5'), 'claude-sonnet-4-5');
    assert.equal(claudeIdentity('amazon.nova-pro-v1:0'), 'amazon-nova-pro-v1:0');
    assert.equal(claudeIdentity('claudette'), 'claudette');
  });

  test('shouldDropClaudeThinkingBlocks: older Claude ids drop, preserving ones and non-Claude ids keep', () => {
    for (const id of ['claude-sonnet-4-5', 'claude-3-7-sonnet-latest', 'claude-opus-4-1', 'claude-haiku-4-5', 'anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4.5']) {
      assert.equal(shouldDropClaudeThinkingBlocks(id), true, id);
    }
    for (const id of ['claude-opus-4-6', 'claude-fable-5-1', 'claude-opus-4-5', 'claude-opus-4-7', 'claude-opus-4-8', 'claude-sonnet-4-6', 'claude-sonnet-5', 'claude-mythos-preview', 'claude-mythos-5', 'claude-opus-5', 'claude-opus-5-5', 'opus', 'opus-5', 'opus-5-5', 'MiniMax-M2', 'gpt-5', '']) {
      assert.equal(shouldDropClaudeThinkingBlocks(id), false, id);
    }
    // The lookahead needs a non-alphanumeric boundary: `claude-opus-4-60` is not Opus 4.6.
    assert.equal(shouldDropClaudeThinkingBlocks('claude-opus-4-60'), true);
  });

  test('bindsClaudeThinkingPrefix: Opus 5.5 and Fable 5.1 only', () => {
    for (const id of ['claude-opus-5-5', 'opus-5-5', 'claude-fable-5-1', 'claude-fable-5-1-20270101', 'anthropic/claude-opus-5.5']) {
      assert.equal(bindsClaudeThinkingPrefix(id), true, id);
    }
    for (const id of ['claude-opus-5', 'claude-opus-5-50', 'claude-fable-5', 'claude-sonnet-4-5', 'opus-5', 'vendor-claude-opus-5-5x']) {
      assert.equal(bindsClaudeThinkingPrefix(id), false, id);
    }
  });

  test('the helpers feed dropThinkingBlocks and appendOnlyRuntimeContext of Anthropic-api routes', () => {
    const fable = resolve('anthropic', 'anthropic-messages', 'Anthropic/Claude_Fable_5.1');
    assert.equal(fable.appendOnlyRuntimeContext, true);
    assert.equal(fable.dropThinkingBlocks, false);
    const bedrock = resolve('amazon-bedrock', 'bedrock-converse-stream', 'us.anthropic.claude-opus-5-5-v1:0');
    assert.equal(bedrock.appendOnlyRuntimeContext, true);
    assert.equal(bedrock.dropThinkingBlocks, false);
  });

  test('Claude-family ids: anthropic/claude-x, my.claude and foo_claude:1 match; claudette does not', () => {
    const validates = (modelId: string): boolean => resolve('my-proxy', 'openai-responses', modelId).validateAnthropicTurns;
    for (const id of ['anthropic/claude-x', 'my.claude', 'foo_claude:1', 'claude', ' CLAUDE ', 'x-claude-y']) {
      assert.equal(validates(id), true, id);
      assert.equal(isClaudeFamilyModelId(id), true, id);
    }
    for (const id of ['claudette', 'myclaude', 'claude3', 'gpt-5']) {
      assert.equal(validates(id), false, id);
      assert.equal(isClaudeFamilyModelId(id), false, id);
    }
  });
});

describe('requiresReasoningContentReplay (§2.3)', () => {
  test('moonshot/kimi-k2.5:cloud and KIMI-K2-THINKING keep their reasoning on the completions fallback', () => {
    for (const id of ['moonshot/kimi-k2.5:cloud', 'KIMI-K2-THINKING', ' kimi-k2.5 ', 'kimi-k2.5:cloud:x', 'x:mimo-v2.5-pro', 'a/b/kimi-k3']) {
      assert.equal(requiresReasoningContentReplay(id), true, id);
      assert.equal(resolve('my-local', 'openai-completions', id).dropReasoningFromHistory, false, id);
    }
  });

  test('only the last path segment and its first and last : pieces count', () => {
    for (const id of ['a:kimi-k2.5:b', 'kimi-k2.5/x', 'a/kimi-k3/b', 'kimi-k2', 'qwen3-32b', '']) {
      assert.equal(requiresReasoningContentReplay(id), false, id);
      assert.equal(resolve('my-local', 'openai-completions', id).dropReasoningFromHistory, true, id);
    }
  });

  test('plugin-owned completions policies ignore both the list and reasoning: true', () => {
    assert.equal(resolve('ollama', 'openai-completions', 'kimi-k2.5', true).dropReasoningFromHistory, true);
    assert.equal(resolve('xai', 'openai-completions', 'kimi-k2-thinking', true).dropReasoningFromHistory, true);
    assert.equal(resolve('openai', 'openai-completions', 'gpt-4o', false).dropReasoningFromHistory, false);
  });

  test('reasoning: true changes nothing outside the fallback completions branch', () => {
    for (const [provider, api, id] of [['anthropic', 'anthropic-messages', 'claude-sonnet-4-5'], ['my-gem', 'google-generative-ai', 'gemini-2.5-pro'], ['my-proxy', 'openai-responses', 'gpt-5']] as const) {
      assert.deepEqual(resolve(provider, api, id, true), resolve(provider, api, id, false));
    }
  });
});

describe('seed: Mistral routes get strict9 tool-call ids', () => {
  test('seed: mistral + openai-completions + mistral-large-latest → strict9 (reference: strict)', () => {
    const policy = resolve('mistral', 'openai-completions', 'mistral-large-latest');
    assert.equal(policy.sanitizeToolCallIds, true);
    assert.equal(policy.toolCallIdMode, 'strict9');
    // Everything else stays the completions fallback's.
    assert.equal(policy.dropReasoningFromHistory, true);
    assert.equal(policy.validateAnthropicTurns, true);
  });

  test('seed: my-local + openai-completions + mistral-small → strict9 by model id (reference: strict)', () => {
    assert.equal(resolve('my-local', 'openai-completions', 'mistral-small').toolCallIdMode, 'strict9');
  });

  test('seed: openrouter + mistralai/mistral-large → strict9 (as the reference)', () => {
    const policy = resolve('openrouter', 'openai-completions', 'mistralai/mistral-large');
    assert.equal(policy.sanitizeToolCallIds, true);
    assert.equal(policy.toolCallIdMode, 'strict9');
  });

  test('seed: mistral + mistral-conversations → strict9 ids, everything else the defaults (reference: no ids)', () => {
    const policy = resolve('mistral', 'mistral-conversations', 'mistral-large-latest');
    assert.deepEqual(referenceView(policy), { ...referenceView(resolve('', '', '')), sanitizeToolCallIds: true, toolCallIdMode: 'strict9' });
  });

  test('seed: provider mistral on any other api → strict9', () => {
    for (const api of ['anthropic-messages', 'google-generative-ai', 'unknown-api', '']) {
      const policy = resolve(' Mistral ', api, 'some-model');
      assert.equal(policy.sanitizeToolCallIds, true, api);
      assert.equal(policy.toolCallIdMode, 'strict9', api);
    }
  });

  test('seed: mistral on Responses apis keeps the reference value (strict, never applied: the id sanitizer skips Responses)', () => {
    for (const api of OPENAI_RESPONSES_APIS) {
      const policy = resolve('mistral', api, 'mistral-large-latest');
      assert.equal(policy.sanitizeToolCallIds, true, api);
      assert.equal(policy.toolCallIdMode, 'strict', api);
      assert.equal(policy.responsesFamily, true, api);
    }
    assert.equal(resolve('openai', 'openai-responses', 'mistral-large').sanitizeToolCallIds, false);
  });

  test('seed: model-id hints at a segment start, after openrouter/ and ~, on any provider', () => {
    for (const id of ['mistral-large', 'Mixtral-8x7b', 'codestral-2501', 'devstral-small', 'ministral-8b', 'pixtral-12b', 'voxtral-mini', 'magistral-medium', 'mistralai/x', 'x/codestral-2501', 'ollama:mistral', 'openrouter/~mistralai/x', '~magistral', 'mistralai']) {
      assert.ok(isMistralRoute('my-local', id), id);
      assert.equal(resolve('my-local', 'openai-completions', id).toolCallIdMode, 'strict9', id);
    }
    // The reference's OpenRouter prefix list misses these; the seed's hints catch them.
    assert.equal(resolve('openrouter', 'openai-completions', 'magistral-medium').toolCallIdMode, 'strict9');
    assert.equal(resolve('openrouter', 'openai-completions', 'x/codestral-2501').toolCallIdMode, 'strict9');
    // Routes that rewrite no ids in the reference start rewriting Mistral ones.
    assert.equal(resolve('github-copilot', 'openai-completions', 'mistral-large').toolCallIdMode, 'strict9');
  });

  test('seed: ids that only contain a hint mid-word are not Mistral', () => {
    for (const id of ['my-mistral', 'emistral', 'qwen3', 'gpt-5']) {
      assert.ok(!isMistralRoute('my-local', id), id);
      assert.equal(resolve('my-local', 'openai-completions', id).toolCallIdMode, 'strict', id);
    }
  });
});

describe('project-only fields', () => {
  test('OPENAI_RESPONSES_APIS lists the three Responses apis and is frozen', () => {
    assert.deepEqual([...OPENAI_RESPONSES_APIS], ['openai-responses', 'openai-chatgpt-responses', 'azure-openai-responses']);
    assert.ok(Object.isFrozen(OPENAI_RESPONSES_APIS));
  });

  test('responsesFamily: exactly the Responses apis, whatever the provider', () => {
    for (const api of OPENAI_RESPONSES_APIS) {
      assert.equal(resolve('openai', api, 'gpt-5').responsesFamily, true, api);
      assert.equal(resolve('my-proxy', api, 'claude-sonnet-4-5').responsesFamily, true, api);
    }
    for (const api of ['openai-completions', 'anthropic-messages', 'google-generative-ai', 'unknown-api', '', ' openai-responses']) {
      assert.equal(resolve('openai', api, 'gpt-5').responsesFamily, false, api);
    }
  });

  test('seed: repairBedrockEmptyErrorTurns on every bedrock-converse-stream route, nowhere else', () => {
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'amazon.nova-pro-v1:0').repairBedrockEmptyErrorTurns, true);
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-sonnet-4-5-20250929-v1:0').repairBedrockEmptyErrorTurns, true);
    assert.equal(resolve('my-gateway', 'bedrock-converse-stream', 'x').repairBedrockEmptyErrorTurns, true);
    assert.equal(resolve('amazon-bedrock', 'anthropic-messages', 'claude-sonnet-4-5').repairBedrockEmptyErrorTurns, false);
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5').repairBedrockEmptyErrorTurns, false);
  });

  test('seed: normalizeAntigravityClaudeThinking for google-antigravity with a Claude-family id only', () => {
    assert.equal(resolve('google-antigravity', 'google-gemini-cli', 'claude-sonnet-4-5').normalizeAntigravityClaudeThinking, true);
    assert.equal(resolve('google-antigravity', 'google-gemini-cli', 'claude-opus-4-5-thinking').normalizeAntigravityClaudeThinking, true);
    assert.equal(resolve(' Google-Antigravity ', 'google-gemini-cli', 'Claude-Sonnet-4.5').normalizeAntigravityClaudeThinking, true);
    assert.equal(resolve('google-antigravity', 'google-gemini-cli', 'gemini-3-pro').normalizeAntigravityClaudeThinking, false);
    assert.equal(resolve('google-antigravity', 'google-gemini-cli', 'claudette').normalizeAntigravityClaudeThinking, false);
    assert.equal(resolve('google', 'google-gemini-cli', 'claude-sonnet-4-5').normalizeAntigravityClaudeThinking, false);
    // The reference's fields are untouched: the seed rule lives only in this flag.
    assert.deepEqual(
      referenceView(resolve('google-antigravity', 'google-gemini-cli', 'claude-sonnet-4-5')),
      referenceView(resolve('google-antigravity', 'google-gemini-cli', 'gemini-3-pro')),
    );
  });

  test('stripAllThinkingBlocks: GitHub Copilot on anthropic-messages and Responses, not on chat completions', () => {
    assert.equal(resolve('github-copilot', 'anthropic-messages', 'claude-sonnet-4.5').stripAllThinkingBlocks, true);
    assert.equal(resolve('github-copilot', 'openai-responses', 'gpt-5').stripAllThinkingBlocks, true);
    assert.equal(resolve('github-copilot', 'openai-completions', 'gpt-4o').stripAllThinkingBlocks, false);
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5').stripAllThinkingBlocks, false);
  });

  test('insertBedrockBootstrapTurn: every bedrock-converse-stream route, ours not the reference\'s', () => {
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'amazon.nova-pro-v1:0').insertBedrockBootstrapTurn, true);
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5').insertBedrockBootstrapTurn, false);
  });

  test('enforceToolUseIdPattern: the id rule of the model the ids reach, ours not the reference\'s', () => {
    // Claude on anthropic-messages: by provider, or by model id on any gateway.
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5').enforceToolUseIdPattern, 'anthropic');
    assert.equal(resolve('anthropic-vertex', 'anthropic-messages', 'claude-sonnet-4-5@20250929').enforceToolUseIdPattern, 'anthropic');
    assert.equal(resolve('cloudflare-ai-gateway', 'anthropic-messages', 'claude-sonnet-4-5').enforceToolUseIdPattern, 'anthropic');
    // Gateways that issue and check their own ids (MiniMax: error 2013) get none.
    for (const provider of ['minimax', 'minimax-cn', 'minimax-portal']) assert.equal(resolve(provider, 'anthropic-messages', 'MiniMax-M2').enforceToolUseIdPattern, false, provider);
    assert.equal(resolve('my-anthropic-compat', 'anthropic-messages', 'kimi-k2').enforceToolUseIdPattern, false);
    // Converse's relaxed pattern on every Bedrock model.
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'amazon.nova-pro-v1:0').enforceToolUseIdPattern, 'bedrock');
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-sonnet-4-5-20250929-v1:0').enforceToolUseIdPattern, 'bedrock');
    assert.equal(resolve('openrouter', 'openai-completions', 'anthropic/claude-sonnet-4.5').enforceToolUseIdPattern, 'anthropic');
    assert.equal(resolve('openrouter', 'openai-completions', 'moonshotai/kimi-k2').enforceToolUseIdPattern, false);
    // Claude behind Antigravity: the function-call ids go to Claude.
    assert.equal(resolve('google-antigravity', 'google-gemini-cli', 'claude-sonnet-4-5').enforceToolUseIdPattern, 'anthropic');
    assert.equal(resolve('google-antigravity', 'google-gemini-cli', 'gemini-3-pro').enforceToolUseIdPattern, false);
    // OpenAI and GitHub Copilot chat completions: 40 characters at most.
    assert.equal(resolve('openai', 'openai-completions', 'gpt-4o').enforceToolUseIdPattern, 'openai-chat');
    assert.equal(resolve('github-copilot', 'openai-completions', 'gpt-4o').enforceToolUseIdPattern, 'openai-chat');
    assert.equal(resolve('vllm', 'openai-completions', 'qwen3').enforceToolUseIdPattern, false);
    assert.equal(resolve('google', 'google-generative-ai', 'gemini-2.5-pro').enforceToolUseIdPattern, false);
    assert.equal(resolve('openai', 'openai-responses', 'gpt-5').enforceToolUseIdPattern, false);
  });

  test('repairPartlessGeminiTurns: every api that sends Gemini contents, ours not the reference\'s', () => {
    assert.equal(resolve('google', 'google-generative-ai', 'gemini-2.5-pro').repairPartlessGeminiTurns, true);
    assert.equal(resolve('google-antigravity', 'google-gemini-cli', 'claude-sonnet-4-5').repairPartlessGeminiTurns, true);
    assert.equal(resolve('google-vertex', 'google-vertex', 'gemini-2.5-pro').repairPartlessGeminiTurns, true);
    assert.equal(resolve('openrouter', 'openai-completions', 'google/gemini-2.5-pro').repairPartlessGeminiTurns, false);
  });

  test('toolNameRule: claude where anthropic-messages reaches Claude, gemini on Gemini contents, strict elsewhere', () => {
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5').toolNameRule, 'claude');
    assert.equal(resolve('anthropic-vertex', 'anthropic-messages', 'claude-opus-4-6').toolNameRule, 'claude');
    assert.equal(resolve('cloudflare-ai-gateway', 'anthropic-messages', 'claude-sonnet-4-5').toolNameRule, 'claude');
    assert.equal(resolve('minimax', 'anthropic-messages', 'MiniMax-M2').toolNameRule, 'strict');
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-sonnet-4-5-20250929-v1:0').toolNameRule, 'strict');
    assert.equal(resolve('openrouter', 'openai-completions', 'anthropic/claude-sonnet-4.5').toolNameRule, 'strict');
    assert.equal(resolve('google', 'google-generative-ai', 'gemini-2.5-pro').toolNameRule, 'gemini');
    assert.equal(resolve('google-antigravity', 'google-gemini-cli', 'claude-sonnet-4-5').toolNameRule, 'gemini');
    assert.equal(resolve('openai', 'openai-responses', 'gpt-5').toolNameRule, 'strict');
    assert.equal(resolve('mistral', 'mistral-conversations', 'mistral-large').toolNameRule, 'strict');
  });

  test('bridgeBedrockUserTurns: every bedrock-converse-stream route, ours not the reference\'s', () => {
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'amazon.nova-pro-v1:0').bridgeBedrockUserTurns, true);
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-sonnet-4-5-20250929-v1:0').bridgeBedrockUserTurns, true);
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5').bridgeBedrockUserTurns, false);
  });

  test('stripTrailingPrefillWhenThinking: every anthropic-messages route', () => {
    for (const provider of ['anthropic', 'cloudflare-ai-gateway', 'claude-cli', 'minimax', 'github-copilot', 'my-anthropic-compat']) {
      assert.equal(resolve(provider, 'anthropic-messages', 'claude-sonnet-4-5').stripTrailingPrefillWhenThinking, true, provider);
    }
    assert.equal(resolve('amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-sonnet-4-5-20250929-v1:0').stripTrailingPrefillWhenThinking, false);
    assert.equal(resolve('anthropic', 'openai-completions', 'claude-sonnet-4-5').stripTrailingPrefillWhenThinking, false);
    assert.equal(resolve('google', 'google-generative-ai', 'gemini-2.5-pro').stripTrailingPrefillWhenThinking, false);
  });

  test('stripTrailingPrefillWhenThinking: verified OpenRouter Anthropic models (openai-completions or no api)', () => {
    for (const id of ['anthropic/claude-sonnet-4.5', 'openrouter/anthropic/claude-opus-4-6', '~anthropic/claude-sonnet-4.5', 'openrouter/~anthropic/claude-x', 'Anthropic/Claude-Sonnet-4.5']) {
      assert.equal(resolve('openrouter', 'openai-completions', id).stripTrailingPrefillWhenThinking, true, id);
    }
    assert.equal(resolveTranscriptPolicy({ provider: 'openrouter', modelId: 'anthropic/claude-sonnet-4.5' }).stripTrailingPrefillWhenThinking, true);
    assert.equal(resolve('OpenRouter', '', 'anthropic/claude-sonnet-4.5').stripTrailingPrefillWhenThinking, true);
    // Not verified: another provider, another api, or not an anthropic/ model.
    assert.equal(resolve('my-proxy', 'openai-completions', 'anthropic/claude-sonnet-4.5').stripTrailingPrefillWhenThinking, false);
    assert.equal(resolve('openrouter', 'openai-responses', 'anthropic/claude-sonnet-4.5').stripTrailingPrefillWhenThinking, false);
    assert.equal(resolve('openrouter', 'openai-completions', 'claude-sonnet-4.5').stripTrailingPrefillWhenThinking, false);
    assert.equal(resolve('openrouter', 'openai-completions', 'openai/gpt-5').stripTrailingPrefillWhenThinking, false);
    // The replay copy keeps validating nothing on OpenRouter: the strip is request-time only.
    assert.equal(resolve('openrouter', 'openai-completions', 'anthropic/claude-sonnet-4.5').validateAnthropicTurns, false);
  });

  test('mergeConsecutiveUserTurns is false only for prefix-binding Claude models on the Messages api', () => {
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-opus-5-5').mergeConsecutiveUserTurns, false);
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-fable-5-1').mergeConsecutiveUserTurns, false);
    assert.equal(resolve('cloudflare-ai-gateway', 'anthropic-messages', 'claude-opus-5-5').mergeConsecutiveUserTurns, false);
    // Same model on Converse: appendOnlyRuntimeContext is set but users are still merged.
    const bedrock = resolve('amazon-bedrock', 'bedrock-converse-stream', 'anthropic.claude-opus-5-5-v1:0');
    assert.equal(bedrock.appendOnlyRuntimeContext, true);
    assert.equal(bedrock.mergeConsecutiveUserTurns, true);
    // OpenAI Responses binds the prefix too, but is not the Messages api.
    assert.equal(resolve('openai', 'openai-responses', 'gpt-5').appendOnlyRuntimeContext, true);
    assert.equal(resolve('openai', 'openai-responses', 'gpt-5').mergeConsecutiveUserTurns, true);
    assert.equal(resolve('anthropic', 'anthropic-messages', 'claude-sonnet-4-5').mergeConsecutiveUserTurns, true);
    assert.equal(resolve('', '', '').mergeConsecutiveUserTurns, true);
  });
});
