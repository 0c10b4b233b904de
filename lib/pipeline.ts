/**
 * Which rules run, in which order, for a policy; and the running pipeline built from them.
 *
 * The order is the reference's (spec/turns-images-policy.md §1). Each entry names the
 * spec step it implements; `when` reads only the policy and the resolved options, never
 * the messages. Rules that later issues add slot into this list at their step.
 */
import type { RuleName } from './rule-names.ts';
import { resolveTranscriptPolicy, type TranscriptPolicy } from './policy.ts';
import { resolveHygieneOptions, type HygieneOptions, type ResolvedHygieneOptions } from './options.ts';
import { createRuleChain, type RuleChain } from './stage.ts';
import { StatsRecorder, type HygieneStats } from './stats.ts';
import type { Emit, Rule } from './rule.ts';
import type { Message } from './types.ts';
import { dropNonObjectMessagesRule } from '../transforms/drop-non-object-messages.ts';
import { annotateInterSessionProvenanceRule } from '../transforms/annotate-inter-session-provenance.ts';
import { dropBlankUserTextRule } from '../transforms/drop-blank-user-text.ts';
import { normalizeAssistantReplayContentRule } from '../transforms/normalize-assistant-replay-content.ts';
import { dropBlankTextBlocksRule } from '../transforms/drop-blank-text-blocks.ts';
import { sanitizeImagesRule } from '../transforms/sanitize-images.ts';
import {
  repairResponsesToolResultPairingAgainRule,
  repairResponsesToolResultPairingRule,
  repairToolResultPairingRule,
} from '../transforms/repair-tool-result-pairing.ts';
import { normalizeResponsesToolCallIdsRule } from '../transforms/normalize-responses-tool-call-ids.ts';
import { downgradeResponsesReasoningPairsRule } from '../transforms/downgrade-responses-reasoning-pairs.ts';
import { sanitizeToolCallIdsRule } from '../transforms/sanitize-tool-call-ids.ts';
import { stripToolResultDetailsRule } from '../transforms/strip-tool-result-details.ts';
import { assertResponsesReplayInvariantRule } from '../transforms/assert-responses-replay-invariant.ts';
import { stripThoughtSignaturesEnabled, stripThoughtSignaturesRule } from '../transforms/strip-thought-signatures.ts';
import { normalizeAntigravityClaudeThinkingEnabled, normalizeAntigravityClaudeThinkingRule } from '../transforms/normalize-antigravity-claude-thinking.ts';
import { stripStaleThinkingSignaturesEnabled, stripStaleThinkingSignaturesRule } from '../transforms/strip-stale-thinking-signatures.ts';
import { stripInvalidThinkingSignaturesEnabled, stripInvalidThinkingSignaturesRule } from '../transforms/strip-invalid-thinking-signatures.ts';
import { dropReasoningFromHistoryEnabled, dropReasoningFromHistoryRule } from '../transforms/drop-reasoning-from-history.ts';
import { dropThinkingBlocksEnabled, dropThinkingBlocksRule } from '../transforms/drop-thinking-blocks.ts';
import { dropStaleResponsesReasoningEnabled, dropStaleResponsesReasoningRule } from '../transforms/drop-stale-responses-reasoning.ts';
import { stripTrailingPrefillEnabled, stripTrailingPrefillRule } from '../transforms/strip-trailing-prefill.ts';
import { validateToolCallInputsRule } from '../transforms/validate-tool-call-inputs.ts';
import { stripCopilotThinkingEnabled, stripCopilotThinkingRule } from '../transforms/strip-copilot-thinking.ts';
import { insertGoogleBootstrapTurnRule } from '../transforms/insert-google-bootstrap-turn.ts';
import { insertBedrockBootstrapTurnRule } from '../transforms/insert-bedrock-bootstrap-turn.ts';
import { mergeConsecutiveAssistantsRule } from '../transforms/merge-consecutive-assistants.ts';
import { stripDanglingToolCallsRule } from '../transforms/strip-dangling-tool-calls.ts';
import { mergeConsecutiveUsersRule } from '../transforms/merge-consecutive-users.ts';
import { dropOrphanedToolResultsEnabled, dropOrphanedToolResultsRule } from '../transforms/drop-orphaned-tool-results.ts';
import { dropRoleLessMessagesRule } from '../transforms/drop-role-less-messages.ts';
import { replaceUnreadableUserContentRule } from '../transforms/replace-unreadable-user-content.ts';
import { alignToolResultIdsRule } from '../transforms/align-tool-result-ids.ts';
import { dropMergedBlankUserTextEnabled, dropMergedBlankUserTextRule } from '../transforms/drop-merged-blank-user-text.ts';
import { bridgeBedrockUserTurnsEnabled, bridgeBedrockUserTurnsRule } from '../transforms/bridge-bedrock-user-turns.ts';
import { enforceToolUseIdPatternEnabled, enforceToolUseIdPatternRule } from '../transforms/enforce-tool-use-id-pattern.ts';
import { enforceToolNamePatternRule } from '../transforms/enforce-tool-name-pattern.ts';
import { dropUnreplayableRedactedThinkingRule } from '../transforms/drop-unreplayable-redacted-thinking.ts';
import { alignToolCallIdsRule } from '../transforms/align-tool-call-ids.ts';
import { normalizeToolCallArgumentsRule } from '../transforms/normalize-tool-call-arguments.ts';
import { repairPartlessGeminiTurnsEnabled, repairPartlessGeminiTurnsRule } from '../transforms/repair-partless-gemini-turns.ts';
import { projectDisplayRule } from '../transforms/project-display.ts';
import { redactSecretsEnabled, redactSecretsRule } from '../transforms/redact-secrets.ts';
import { capToolResultTextEnabled, capToolResultTextRule } from '../transforms/cap-tool-result-text.ts';
import { fillMissingReasoningContentEnabled, fillMissingReasoningContentRule } from '../transforms/fill-missing-reasoning-content.ts';
import { signGemini3CurrentTurnEnabled, signGemini3CurrentTurnRule } from '../transforms/sign-gemini3-current-turn.ts';
import { limitRequestImagesEnabled, limitRequestImagesRule } from '../transforms/limit-request-images.ts';
import { renderToolsAsTextEnabled, renderToolsAsTextRule } from '../transforms/render-tools-as-text.ts';

export interface StageEntry {
  readonly rule: Rule;
  /** Where the reference runs it: a step of spec/turns-images-policy.md §1. */
  readonly step: string;
  /** Whether the rule runs for this route. */
  readonly when: (policy: TranscriptPolicy, options: ResolvedHygieneOptions) => boolean;
  /** Shapes the outgoing request, not the replay copy: sanitizeSessionHistory leaves it out. */
  readonly requestTime?: boolean;
  /** The option that turns the rule on, when one does (shown in the README table: `ours (with --no-tools)`). */
  readonly option?: string;
}

const always = (): boolean => true;

export const STAGES: readonly StageEntry[] = Object.freeze([
  { rule: dropNonObjectMessagesRule, step: 'input', when: always },
  { rule: dropRoleLessMessagesRule, step: 'ours', when: always },
  // First of the content rules: every later rule, the thinking-signature ones included, sees redacted text.
  { rule: redactSecretsRule, step: 'ours', when: redactSecretsEnabled },
  { rule: alignToolResultIdsRule, step: 'ours', when: always },
  { rule: alignToolCallIdsRule, step: 'ours', when: always },
  { rule: replaceUnreadableUserContentRule, step: 'ours', when: always },
  { rule: annotateInterSessionProvenanceRule, step: '2', when: always },
  { rule: dropBlankUserTextRule, step: '4', when: always },
  { rule: normalizeAssistantReplayContentRule, step: '4', when: always },
  { rule: stripThoughtSignaturesRule, step: '5', when: stripThoughtSignaturesEnabled },
  { rule: limitRequestImagesRule, step: 'ours', when: limitRequestImagesEnabled },
  { rule: sanitizeImagesRule, step: '5', when: always },
  { rule: dropBlankTextBlocksRule, step: '5', when: always },
  // Before the thinking, pairing and validation rules, so they see the turns as they will be sent
  // (a turn without tool calls, a result run as a user turn to merge; a second pass sees the same).
  { rule: renderToolsAsTextRule, step: 'ours', option: '--no-tools', when: renderToolsAsTextEnabled },
  { rule: fillMissingReasoningContentRule, step: 'ours', when: fillMissingReasoningContentEnabled },
  { rule: normalizeAntigravityClaudeThinkingRule, step: '6', when: normalizeAntigravityClaudeThinkingEnabled },
  { rule: stripStaleThinkingSignaturesRule, step: '6', when: stripStaleThinkingSignaturesEnabled },
  { rule: stripInvalidThinkingSignaturesRule, step: '6', when: stripInvalidThinkingSignaturesEnabled },
  { rule: dropReasoningFromHistoryRule, step: '7', when: dropReasoningFromHistoryEnabled },
  { rule: dropThinkingBlocksRule, step: '7', when: dropThinkingBlocksEnabled },
  { rule: dropUnreplayableRedactedThinkingRule, step: 'ours', when: always },
  { rule: validateToolCallInputsRule, step: '8', when: always },
  { rule: repairResponsesToolResultPairingRule, step: '9', when: (policy) => policy.responsesFamily && policy.repairToolUseResultPairing },
  { rule: dropStaleResponsesReasoningRule, step: '9', when: dropStaleResponsesReasoningEnabled },
  { rule: normalizeResponsesToolCallIdsRule, step: '9', when: (policy) => policy.responsesFamily },
  { rule: downgradeResponsesReasoningPairsRule, step: '9', when: (policy) => policy.responsesFamily },
  { rule: repairToolResultPairingRule, step: '10', when: (policy) => !policy.responsesFamily && policy.repairToolUseResultPairing },
  {
    rule: sanitizeToolCallIdsRule,
    step: '10',
    when: (policy) => !policy.responsesFamily && policy.sanitizeToolCallIds && policy.toolCallIdMode !== undefined,
  },
  { rule: stripToolResultDetailsRule, step: '11', when: always },
  { rule: stripCopilotThinkingRule, step: '13', when: stripCopilotThinkingEnabled },
  { rule: repairResponsesToolResultPairingAgainRule, step: '14', when: (policy) => policy.responsesFamily && policy.repairToolUseResultPairing },
  { rule: assertResponsesReplayInvariantRule, step: '14', when: (policy) => policy.responsesFamily },
  { rule: insertGoogleBootstrapTurnRule, step: '16', when: (policy) => policy.applyGoogleTurnOrdering },
  { rule: insertBedrockBootstrapTurnRule, step: '16', when: (policy) => policy.insertBedrockBootstrapTurn },
  // validateReplayTurns: Gemini's assistant merge is the first step of the Anthropic validation too (idempotent).
  { rule: mergeConsecutiveAssistantsRule, step: 'validate', when: (policy) => policy.validateGeminiTurns || policy.validateAnthropicTurns },
  { rule: stripDanglingToolCallsRule, step: 'validate', when: (policy) => policy.validateAnthropicTurns },
  {
    rule: mergeConsecutiveUsersRule,
    step: 'validate',
    when: (policy) => policy.validateAnthropicTurns && policy.mergeConsecutiveUserTurns,
  },
  { rule: dropMergedBlankUserTextRule, step: 'ours', when: dropMergedBlankUserTextEnabled },
  { rule: normalizeToolCallArgumentsRule, step: 'ours', when: always },
  { rule: enforceToolUseIdPatternRule, step: 'ours', when: enforceToolUseIdPatternEnabled },
  { rule: enforceToolNamePatternRule, step: 'ours', when: always },
  { rule: dropOrphanedToolResultsRule, step: 'ours', when: dropOrphanedToolResultsEnabled },
  // Last to touch a result's text (after the tool-name note): the limit holds for what is sent.
  { rule: capToolResultTextRule, step: 'ours', option: '--max-tool-result-bytes', when: capToolResultTextEnabled },
  { rule: signGemini3CurrentTurnRule, step: 'ours', when: signGemini3CurrentTurnEnabled },
  { rule: bridgeBedrockUserTurnsRule, step: 'ours', when: bridgeBedrockUserTurnsEnabled },
  { rule: repairPartlessGeminiTurnsRule, step: 'ours', when: repairPartlessGeminiTurnsEnabled },
  { rule: stripTrailingPrefillRule, step: 'request', requestTime: true, when: stripTrailingPrefillEnabled },
  // Only with the display option: a copy for people (spec turns-images-policy.md §7), never for a model.
  { rule: projectDisplayRule, step: 'display', when: (_policy, options) => options.display },
]);

export interface SelectOptions {
  /** Include request-time steps (default true): the stream and CLI apply them, the replay copy does not. */
  requestTime?: boolean;
}

/** The rules that run for a policy, in order. */
export function selectRules(policy: TranscriptPolicy, options: ResolvedHygieneOptions, select: SelectOptions = {}): Rule[] {
  const requestTime = select.requestTime ?? true;
  return STAGES.filter((entry) => (requestTime || !entry.requestTime) && entry.when(policy, options)).map((entry) => entry.rule);
}

export interface HygienePipeline {
  readonly policy: TranscriptPolicy;
  readonly options: ResolvedHygieneOptions;
  readonly rules: readonly Rule[];
  /**
   * Feed one entry of the message list (non-objects are dropped and counted by the first rule).
   * Returns a promise when an asynchronous rule is at its limit: wait for it before the next write.
   */
  write(message: unknown): Promise<void> | undefined;
  /** Flush every rule; a promise when an asynchronous rule is still working. */
  end(): Promise<void> | undefined;
  dispose(): void;
  stats(): HygieneStats;
  /**
   * An independent copy of the pipeline as it stands, emitting to `sink` (lib/stage.ts's
   * `fork`); undefined when a rule's state cannot be copied.
   */
  fork(sink: Emit, shared: (value: object) => boolean): HygienePipeline | undefined;
}

export interface Prepared {
  policy: TranscriptPolicy;
  options: ResolvedHygieneOptions;
  rules: Rule[];
  stats: StatsRecorder;
}

export function prepare(options: HygieneOptions, select: SelectOptions): Prepared {
  const resolved = resolveHygieneOptions(options);
  const policy = resolveTranscriptPolicy(resolved);
  return { policy, options: resolved, rules: selectRules(policy, resolved, select), stats: new StatsRecorder() };
}

/** A synchronous pipeline that hands its output to `sink`; the engine behind every entry point. */
export function createPipeline(options: HygieneOptions, sink: Emit, select: SelectOptions = {}): HygienePipeline {
  const { policy, options: resolved, rules, stats } = prepare(options, select);
  const chain: RuleChain = createRuleChain(rules, { policy, options: resolved, stats }, sink);
  return pipelineOf(policy, resolved, rules, stats, chain);
}

function pipelineOf(policy: TranscriptPolicy, options: ResolvedHygieneOptions, rules: Rule[], stats: StatsRecorder, chain: RuleChain): HygienePipeline {
  return {
    policy,
    options,
    rules,
    write: (message: unknown) => chain.write(message as Message),
    end: () => chain.end(),
    dispose: () => chain.dispose(),
    stats: () => stats.snapshot(),
    fork(sink: Emit, shared: (value: object) => boolean) {
      const forkStats = stats.clone();
      const forked = chain.fork({ policy, options, stats: forkStats }, sink, shared);
      return forked === undefined ? undefined : pipelineOf(policy, options, rules, forkStats, forked);
    },
  };
}

/** The names of the rules that run for a route, in order (request-time steps too, unless `requestTime: false`). */
export function ruleNamesFor(options: HygieneOptions, select: SelectOptions = {}): RuleName[] {
  // Every rule's name is one of RULE_NAMES (test/lib/rules-table.test.ts holds the list current).
  return prepare(options, select).rules.map((rule) => rule.meta.name as RuleName);
}
