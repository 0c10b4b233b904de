/**
 * Reads the reference answers recorded by `record.ts` from
 * `fixtures/oracle/<suite>.jsonl` (one JSON object a line: name, options,
 * messages, and expected or error).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RecordedCase } from './cases.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { isRoleLess } from '../../transforms/drop-role-less-messages.ts';
import { replaceUnreadableUserContent } from '../../transforms/replace-unreadable-user-content.ts';
import { alignToolResultIds } from '../../transforms/align-tool-result-ids.ts';
import { alignToolCallIds } from '../../transforms/align-tool-call-ids.ts';
import { dropMergedBlankUserText, dropMergedBlankUserTextEnabled } from '../../transforms/drop-merged-blank-user-text.ts';
import { dropUnreplayableRedactedThinking } from '../../transforms/drop-unreplayable-redacted-thinking.ts';
import { normalizeToolCallArguments } from '../../transforms/normalize-tool-call-arguments.ts';
import { repairPartlessGeminiTurn } from '../../transforms/repair-partless-gemini-turns.ts';
import { bridgeBedrockUserTurns } from '../../transforms/bridge-bedrock-user-turns.ts';
import { enforceToolUseIdPattern } from '../../transforms/enforce-tool-use-id-pattern.ts';
import { enforceToolNamePattern } from '../../transforms/enforce-tool-name-pattern.ts';
import { dropOrphanedToolResults, dropOrphanedToolResultsEnabled } from '../../transforms/drop-orphaned-tool-results.ts';
import type { Message } from '../../lib/types.ts';
import { withOriginalNames, withPlaceholderNames, type PlaceholderNames } from './answered-names.ts';

export type { RecordedCase } from './cases.ts';

const SUITE_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** Absolute path of a suite's fixture file, relative to the repository root (not the working directory). */
export function oracleFixturePath(suite: string): string {
  if (!SUITE_NAME.test(suite)) throw new Error(`Invalid suite name ${JSON.stringify(suite)}: expected lower-case letters, digits and dashes`);
  return fileURLToPath(new URL(`../../fixtures/oracle/${suite}.jsonl`, import.meta.url));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks one parsed line; throws with the file and line number on a malformed record. */
function toRecordedCase(value: unknown, where: string): RecordedCase {
  const fail = (what: string): never => {
    throw new Error(`${where}: ${what}`);
  };
  if (!isPlainObject(value)) return fail('not a JSON object');
  const { name, options, messages, expected, error } = value;
  if (typeof name !== 'string' || name === '') fail('`name` must be a non-empty string');
  if (!isPlainObject(options)) fail('`options` must be an object');
  const opts = options as Record<string, unknown>;
  for (const key of ['provider', 'modelApi', 'modelId'] as const) {
    if (typeof opts[key] !== 'string') fail(`\`options.${key}\` must be a string`);
  }
  if (opts.reasoning !== undefined && typeof opts.reasoning !== 'boolean') fail('`options.reasoning` must be a boolean');
  if (!Array.isArray(messages)) fail('`messages` must be an array');
  if ((expected === undefined) === (error === undefined)) fail('exactly one of `expected` and `error` must be present');
  if (expected !== undefined && !Array.isArray(expected)) fail('`expected` must be an array');
  if (error !== undefined && typeof error !== 'string') fail('`error` must be a string');
  return value as unknown as RecordedCase;
}

/** All recorded cases of a suite, in file order. Throws if the file is missing or a line is malformed. */
export function loadOracleCases(suite: string): RecordedCase[] {
  const file = oracleFixturePath(suite);
  const text = readFileSync(file, 'utf8');
  const cases: RecordedCase[] = [];
  const names = new Set<string>();
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${file}:${index + 1}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (err) {
      throw new Error(`${where}: invalid JSON (${(err as Error).message})`);
    }
    const recorded = toRecordedCase(parsed, where);
    if (names.has(recorded.name)) throw new Error(`${where}: duplicate case name ${JSON.stringify(recorded.name)}`);
    names.add(recorded.name);
    cases.push(recorded);
  });
  return cases;
}

/**
 * Copies of the messages without `usage` on assistant messages (other messages
 * are returned as they are). The reference adds a normalized usage snapshot to
 * every assistant; the project does not have to (spec README, "Not required"),
 * so comparisons leave it out on both sides.
 */
export function stripUsage(messages: readonly unknown[]): unknown[] {
  return messages.map((message) => {
    if (!isPlainObject(message) || message.role !== 'assistant' || !('usage' in message)) return message;
    const { usage: _usage, ...rest } = message;
    return rest;
  });
}

type CaseOptions = { provider: string; modelApi: string; modelId: string; reasoning?: boolean };

function referenceInputAndNames(messages: readonly unknown[], options: CaseOptions): { messages: unknown[]; names: PlaceholderNames } {
  const sent = messages.filter((message) => !isPlainObject(message) || !isRoleLess(message as Message)).map((message) => {
    if (!isPlainObject(message)) return message;
    const readable = replaceUnreadableUserContent(message as Message);
    return alignToolCallIds(alignToolResultIds(readable));
  });
  return withPlaceholderNames(messages, sent, options);
}

/**
 * The input the reference is asked about: the case's messages after our provider rules that run
 * before every reference step: drop-role-less-messages and replace-unreadable-user-content (every
 * route), align-tool-result-ids and align-tool-call-ids (every route). They look at one message at a time and
 * change no id a later step would read differently, so the reference's answer to this input is what the project must give for
 * the original one; a case they leave alone is sent as it is. Then each call the project keeps at
 * step 8 although its name fails the name check (a tool answered it: ours, issue 20) gets a
 * placeholder name the reference keeps too; `withProjectProviderRules` puts the names back
 * (answered-names.ts).
 */
export function referenceInput(messages: readonly unknown[], options: CaseOptions): unknown[] {
  return referenceInputAndNames(messages, options).messages;
}

/**
 * The reference's answer as the project must give it: with our own provider rules that run
 * after every reference step applied to it (spec/README.md, "Provider rules come before the
 * reference"). Today those are drop-merged-blank-user-text, drop-unreplayable-redacted-thinking,
 * normalize-tool-call-arguments, enforce-tool-use-id-pattern, enforce-tool-name-pattern,
 * drop-orphaned-tool-results, bridge-bedrock-user-turns and repair-partless-gemini-turns, in the pipeline's order; each case they change is a transcript the provider would have rejected.
 */
export function withProjectProviderRules(expected: readonly unknown[], options: CaseOptions, input: readonly unknown[]): unknown[] {
  const policy = resolveTranscriptPolicy(options);
  // Calls the reference was shown under a placeholder name get their own back (referenceInput).
  let out = withOriginalNames(expected as Message[], referenceInputAndNames(input, options).names);
  // drop-unreplayable-redacted-thinking runs right after step 7, but no step after it reads
  // redacted thinking without data except the sanitizer's §5.5 id keeping, which no recorded case
  // reaches; applied to the answer it gives the pipeline's output.
  if (dropMergedBlankUserTextEnabled(policy)) out = out.map(dropMergedBlankUserText);
  out = out.flatMap((message): Message[] => { const kept = dropUnreplayableRedactedThinking(message); return kept === null ? [] : [kept]; });
  out = out.map((message) => normalizeToolCallArguments(message).message);
  if (policy.enforceToolUseIdPattern !== false) out = enforceToolUseIdPattern(out, policy.enforceToolUseIdPattern);
  out = enforceToolNamePattern(out, policy.toolNameRule);
  if (dropOrphanedToolResultsEnabled(policy)) out = dropOrphanedToolResults(out).messages;
  if (policy.bridgeBedrockUserTurns) out = bridgeBedrockUserTurns(out);
  if (policy.repairPartlessGeminiTurns) out = out.flatMap((message): Message[] => { const kept = repairPartlessGeminiTurn(message); return kept === null ? [] : [kept]; });
  return out;
}
