/**
 * transcript-hygiene: clean an AI-agent transcript to a model provider's replay rules,
 * as a stream, in bounded memory.
 */
import { imageCensusIfImages } from './image-census.ts';
import type { Duplex } from 'node:stream';
import { createPipeline } from './pipeline.ts';
import { createPipelineTransform, createRuleTransform } from './pipeline-streams.ts';
import type { HygieneOptions } from './options.ts';
import type { HygieneStats } from './stats.ts';
import type { Message } from './types.ts';
import type { RuleName } from './rule-names.ts';
import { HygieneError } from './errors.ts';

/**
 * The options of the public entry points: the route is required, since without it a run would
 * get a fallback policy no provider asked for (resolveTranscriptPolicy shows what a route gets).
 */
export interface SanitizeOptions extends HygieneOptions {
  provider: string;
  modelApi: string;
  modelId: string;
  /** Receives the counters of the run when it ends. */
  onStats?: (stats: HygieneStats) => void;
}

/** A plain-JavaScript caller gets no type check: a missing route is refused at run time too. */
function requireRoute(options: SanitizeOptions, entry: string): void {
  const missing = (['provider', 'modelApi', 'modelId'] as const).filter((name) => typeof options?.[name] !== 'string' || options[name] === '');
  if (missing.length > 0) throw new HygieneError('invalid_option', `${entry}: missing ${missing.join(', ')} (the route to sanitize for, e.g. { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' })`);
}

/**
 * The replay copy of a message list for one provider route. Runs exactly the stages
 * `createHygieneStream` runs, over an array.
 */
export async function sanitizeSessionHistory(messages: readonly unknown[], options: SanitizeOptions): Promise<Message[]> {
  requireRoute(options, 'sanitizeSessionHistory');
  const out: Message[] = [];
  // The replay copy: request-time steps (trailing prefill) are for the outgoing request only.
  // The images are counted first, for the request-wide image limits (lib/image-census.ts).
  const pipeline = createPipeline({ imageCensus: imageCensusIfImages(messages), ...options }, (message) => out.push(message), { requestTime: false });
  try {
    for (const message of messages) {
      const wait = pipeline.write(message);
      if (wait !== undefined) await wait;
    }
    await pipeline.end();
  } finally {
    pipeline.dispose();
  }
  options.onStats?.(pipeline.stats());
  return out;
}

/** An object-mode Duplex: messages in, the replay copy out. */
export function createHygieneStream(options: SanitizeOptions): Duplex {
  requireRoute(options, 'createHygieneStream');
  const { stream, stats } = createPipelineTransform(options);
  if (options.onStats) {
    const onStats = options.onStats;
    stream.once('end', () => onStats(stats()));
  }
  return stream;
}

/**
 * One named rule of a route as its own object-mode Transform (messages in, messages out), for
 * composing your own pipeline: pipe rules in `ruleNamesFor(route)` order. The fused
 * `createHygieneStream` runs them all in one Transform and stays the faster default.
 */
export function createRuleStream(name: RuleName, options: SanitizeOptions): Duplex {
  requireRoute(options, 'createRuleStream');
  const { stream, stats } = createRuleTransform(name, options);
  if (options.onStats) {
    const onStats = options.onStats;
    stream.once('end', () => onStats(stats()));
  }
  return stream;
}

export { resolveTranscriptPolicy } from './policy.ts';
export type { TranscriptPolicy, TranscriptRoute, ToolCallIdMode } from './policy.ts';
export { resolveHygieneOptions, DEFAULT_IMAGE_MAX_BYTES, DEFAULT_IMAGE_MAX_DIMENSION_PX } from './options.ts';
export type { HygieneOptions, ResolvedHygieneOptions } from './options.ts';
export type { RedactOptions, RedactPatternOption, ResolvedRedactOptions } from './secrets/redact-options.ts';
export { HygieneError, isHygieneError } from './errors.ts';
export { RULE_NAMES } from './rule-names.ts';
export type { RuleName } from './rule-names.ts';
export type { HygieneErrorCode } from './errors.ts';
export type { HygieneStats } from './stats.ts';
export { STAGES, selectRules, ruleNamesFor } from './pipeline.ts';
export { parseJsonl, stringifyJsonl, readJsonlMessages } from './jsonl.ts';
export { sanitizeStream } from './run.ts';
export { readSessionMessages } from './session/read.ts';
export type { ReadSessionOptions, SessionMessages, SessionReadStats } from './session/read.ts';
export { openOpenClawDatabase, isSqliteFile } from './session/openclaw-db.ts';
export type { OpenClawDatabase, OpenDatabaseOptions } from './session/openclaw-db.ts';
export { readDatabaseSession } from './session/db-read.ts';
export type { DatabaseSession, ReadDatabaseSessionOptions } from './session/db-read.ts';
export { listDatabaseSessions, resolveDatabaseSession } from './session/db-sessions.ts';
export type { DatabaseSessionInfo } from './session/db-sessions.ts';
export { sanitizeDatabaseSession, readDatabaseSessionMessages } from './session/db-sanitize.ts';
export type { DatabaseSessionParams, DatabaseHygieneStats } from './session/db-sanitize.ts';
export { repairSessionFileIfNeeded } from './session/repair.ts';
export type { RepairReport, RepairOptions, RepairStep } from './session/repair.ts';
export { exportSessions, DEFAULT_JOB_MEMORY_MB } from './export/export.ts';
export type { ExportOptions } from './export/export.ts';
export type { ExportRoute, ExportFormat } from './export/routes.ts';
export type { ExportReport, ExportFailure, ExportEvent } from './export/report.ts';
export { checkTranscript, invariantsFor, INVARIANT_RULES } from './invariants/index.ts';
export type { CheckRoute, InvariantFamily, InvariantRule, RouteInvariants, Violation } from './invariants/index.ts';
export type { TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolCallBlock, ImageBlock, UnknownBlock, ContentBlock, UserMessage, AssistantMessage, ToolResultMessage, OtherMessage, Message } from './types.ts';
export type { Rule, MessageRule, BufferedRule, RuleContext, RuleMeta, RuleOutput } from './rule.ts';
export { projectForDisplay } from '../transforms/project-display.ts';
