/**
 * Options of the public API, validated once into a frozen ResolvedHygieneOptions.
 */
import { availableParallelism } from 'node:os';
import { HygieneError } from './errors.ts';
import type { ResultIdIndex } from './result-index.ts';
import type { ImageCensus } from './image-census.ts';
import { unknownRouteProblem } from './route-check.ts';
import { resolveRedactOptions, type RedactOptions, type ResolvedRedactOptions } from './secrets/redact-options.ts';

export const DEFAULT_IMAGE_MAX_DIMENSION_PX = 1200;
export const DEFAULT_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MEMORY_BUDGET_BYTES = 64 * 1024 * 1024;

export interface HygieneOptions {
  provider?: string;
  modelApi?: string;
  modelId?: string;
  /** The model declares reasoning support (pi-ai `model.reasoning`). */
  reasoning?: boolean;
  /** Thinking is on for this request: enables the request-time trailing-prefill step where the route needs it. */
  thinking?: boolean;
  /** Export for people rather than a model: the display projection runs last (runtime wrappers off user turns). */
  display?: boolean;
  imageMaxDimensionPx?: number;
  imageMaxBytes?: number;
  /** Tool names the runtime still offers; calls to other tools are dropped. */
  allowedToolNames?: readonly string[];
  /** Images recompressed at once. */
  concurrency?: number;
  /** Memory for pending tool-call frames before they spill to a temporary file. */
  memoryBudgetBytes?: number;
  /** Epoch ms when the session switched model (bare message streams have no model-snapshot entries). */
  modelSwitchedAt?: number;
  /** Clock for synthetic messages (default Date.now). */
  now?: () => number;
  /**
   * Where tool results appear in the input (from scanResultIds over the same file read with
   * recorded lines): lets pairing finalize frames early instead of holding them to the end.
   */
  resultIndex?: ResultIdIndex;
  /**
   * The largest compactionSummary timestamp of the input, or null when it has none, when known
   * before the messages flow (a file's pre-scan, a session file's index pass). Without it, the
   * compaction-stale signature rule must hold signed turns until a summary or the end.
   */
  compactionTimestamp?: number | null;
  /**
   * A provider or model API outside the policy table (a typo, or a gateway of one's own) gets a
   * fallback policy. `'allow'` (the default) accepts it; `'error'` throws invalid_option naming
   * the closest known value, as the command does, unless it is written `custom:NAME`.
   */
  unknownRoute?: 'allow' | 'error';
  /**
   * Redaction (off by default): `{ secrets: true }` replaces every secret secretlint's
   * recommended rules (or the generic high-entropy `NAME=value` detector) find in the text a
   * model or a reader sees with `[REDACTED:<rule id>]`; `patterns` adds the user's own, `allow`
   * lists values never redacted.
   */
  redact?: RedactOptions;
  /**
   * `false` when the request defines no tools (compaction and summarization calls): every tool
   * call and result is turned into text (`[called read {...}]`, `[result of read: ...]`), since
   * Anthropic and Bedrock reject tool blocks in a request without tools. Default true.
   */
  tools?: boolean;
  /**
   * Off by default. A tool result whose text is longer than this many UTF-8 bytes keeps its head
   * and tail, with a marker between them naming the bytes removed.
   */
  maxToolResultBytes?: number;
  /**
   * Gemini 3 routes: what an unsigned function call of the current turn becomes. `'text'` (the
   * default) turns the step's calls and results into text, which reaches the wire through pi-ai's
   * builder; `'sentinel'` puts Google's `skip_thought_signature_validator` on the step's first call,
   * for runners that build the request themselves (pi-ai drops it).
   */
  unsignedGeminiCalls?: 'text' | 'sentinel';
  /**
   * The input's images counted before the messages flow (`imageCensusOf`, or `scanInputFile` with `imageCensus: true`):
   * with it, the request-wide image limits replace the oldest images the request cannot carry.
   * The file command, `check` and the in-memory API take it themselves.
   */
  imageCensus?: ImageCensus;
}

export interface ResolvedHygieneOptions {
  readonly provider: string;
  readonly modelApi: string;
  readonly modelId: string;
  readonly reasoning: boolean;
  readonly thinking: boolean;
  readonly display: boolean;
  readonly imageMaxDimensionPx: number;
  readonly imageMaxBytes: number;
  readonly allowedToolNames: readonly string[] | undefined;
  readonly concurrency: number;
  readonly memoryBudgetBytes: number;
  readonly modelSwitchedAt: number | undefined;
  readonly now: () => number;
  readonly resultIndex: ResultIdIndex | undefined;
  readonly compactionTimestamp: number | null | undefined;
  /** Undefined when nothing is redacted. */
  readonly redact: ResolvedRedactOptions | undefined;
  readonly tools: boolean;
  /** Undefined when results are not cut. */
  readonly maxToolResultBytes: number | undefined;
  readonly unsignedGeminiCalls: 'text' | 'sentinel';
  readonly imageCensus: ImageCensus | undefined;
}

function invalid(name: string, expected: string, value: unknown): HygieneError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new HygieneError('invalid_option', `Invalid option \`${name}\`: expected ${expected}, got ${shown} (${typeof value})`);
}

function optionalString(name: string, value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw invalid(name, 'a string', value);
  return value;
}

function optionalBoolean(name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalid(name, 'a boolean', value);
  return value;
}

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) throw invalid(name, 'a number >= 1', value);
  return Math.floor(value);
}

export function resolveHygieneOptions(options: HygieneOptions = {}): ResolvedHygieneOptions {
  const allowed = options.allowedToolNames;
  if (allowed !== undefined && (!Array.isArray(allowed) || allowed.some((name) => typeof name !== 'string'))) {
    throw invalid('allowedToolNames', 'an array of strings', allowed);
  }
  const switchedAt = options.modelSwitchedAt;
  if (switchedAt !== undefined && (typeof switchedAt !== 'number' || !Number.isFinite(switchedAt))) {
    throw invalid('modelSwitchedAt', 'epoch milliseconds', switchedAt);
  }
  if (options.now !== undefined && typeof options.now !== 'function') throw invalid('now', 'a function', options.now);
  if (options.unknownRoute !== undefined && options.unknownRoute !== 'allow' && options.unknownRoute !== 'error') throw invalid('unknownRoute', "'allow' or 'error'", options.unknownRoute);
  if (options.unknownRoute === 'error') {
    const problem = unknownRouteProblem(options);
    if (problem !== undefined) throw new HygieneError('invalid_option', problem);
  }
  return Object.freeze({
    provider: optionalString('provider', options.provider),
    modelApi: optionalString('modelApi', options.modelApi),
    modelId: optionalString('modelId', options.modelId),
    reasoning: optionalBoolean('reasoning', options.reasoning),
    thinking: optionalBoolean('thinking', options.thinking),
    display: optionalBoolean('display', options.display),
    imageMaxDimensionPx: positiveInteger('imageMaxDimensionPx', options.imageMaxDimensionPx, DEFAULT_IMAGE_MAX_DIMENSION_PX),
    imageMaxBytes: positiveInteger('imageMaxBytes', options.imageMaxBytes, DEFAULT_IMAGE_MAX_BYTES),
    allowedToolNames: allowed === undefined ? undefined : Object.freeze([...allowed]),
    concurrency: positiveInteger('concurrency', options.concurrency, defaultConcurrency()),
    memoryBudgetBytes: positiveInteger('memoryBudgetBytes', options.memoryBudgetBytes, DEFAULT_MEMORY_BUDGET_BYTES),
    modelSwitchedAt: switchedAt,
    now: options.now ?? Date.now,
    resultIndex: options.resultIndex,
    compactionTimestamp: options.compactionTimestamp,
    redact: resolveRedactOptions(options.redact),
    tools: options.tools === undefined ? true : optionalBoolean('tools', options.tools),
    maxToolResultBytes: toolResultLimit(options.maxToolResultBytes),
    unsignedGeminiCalls: unsignedGeminiCallsOf(options.unsignedGeminiCalls),
    imageCensus: options.imageCensus,
  });
}

/** The smallest `maxToolResultBytes`: room for the cut marker and some text on each side. */
export const MIN_TOOL_RESULT_BYTES = 128;

function toolResultLimit(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < MIN_TOOL_RESULT_BYTES) throw invalid('maxToolResultBytes', `a number >= ${MIN_TOOL_RESULT_BYTES}`, value);
  return Math.floor(value);
}

function unsignedGeminiCallsOf(value: unknown): 'text' | 'sentinel' {
  if (value === undefined) return 'text';
  if (value !== 'text' && value !== 'sentinel') throw invalid('unsignedGeminiCalls', "'text' or 'sentinel'", value);
  return value;
}

/** Cores, but at most libuv's threadpool minus one so file reads never starve behind image work. */
function defaultConcurrency(): number {
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(navigatorCores(), pool - 1));
}

function navigatorCores(): number {
  return Math.max(1, availableParallelism());
}
