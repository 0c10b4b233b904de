/**
 * What the property tests run: the representative policies, the pipeline as `sanitize` runs it
 * (request-time steps included, fixed clock), the provider-rule check (no violation is tolerated)
 * and the one list of what is tolerated:
 * - KNOWN_NON_IDEMPOTENCE: why a second run may still change the output, each with the spec
 *   passage it follows from (the reference's order of steps) or the rule that should make it a
 *   fixed point. Every class is matched narrowly (by a predicate on the first run's output), so
 *   anything else fails the property; the run prints how often each one was hit.
 */
import { imageCensusIfImages } from '../../lib/image-census.ts';
import { createPipeline } from '../../lib/pipeline.ts';
import { isHygieneError } from '../../lib/errors.ts';
import { checkTranscript } from '../../lib/invariants/index.ts';
import type { CheckRoute, Violation } from '../../lib/invariants/index.ts';
import type { Message } from '../../lib/types.ts';
import { hasReplayableSignature } from '../../lib/invariants/turns.ts';
import { resolveTranscriptPolicy } from '../../lib/policy.ts';
import { resolveHygieneOptions } from '../../lib/options.ts';
import { isBareDeliveryMirrorDuplicate, isReasoningOnlyLengthAssistantTurn } from '../../transforms/normalize-assistant-replay-content.ts';
import { annotateInterSessionProvenance } from '../../transforms/annotate-inter-session-provenance.ts';
import { stripThoughtSignatures, stripThoughtSignaturesEnabled } from '../../transforms/strip-thought-signatures.ts';
import { dropReasoningFromHistory } from '../../transforms/drop-reasoning-from-history.ts';
import { stripStaleThinkingSignaturesEnabled } from '../../transforms/strip-stale-thinking-signatures.ts';
import { parseTimestampMs } from '../../transforms/thinking-shared.ts';
import { BRIDGE_TEXT } from '../../transforms/bridge-bedrock-user-turns.ts';
import { isPairedCallBlock, isSyntheticToolResult, isValidToolNameSyntax } from '../../transforms/tool-call-shapes.ts';
import { isDeepStrictEqual } from 'node:util';

export interface PropertyPolicy {
  readonly name: string;
  readonly route: CheckRoute;
  /** The Responses replay invariant may reject a transcript (`invalid_replay_transcript`, documented). */
  readonly mayRejectReplay: boolean;
}

export const POLICIES: readonly PropertyPolicy[] = [
  { name: 'anthropic sonnet', route: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' }, mayRejectReplay: false },
  { name: 'anthropic opus-4-6', route: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-opus-4-6' }, mayRejectReplay: false },
  {
    name: 'bedrock claude',
    route: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0' },
    mayRejectReplay: false,
  },
  { name: 'google gemini', route: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' }, mayRejectReplay: false },
  { name: 'openai-responses', route: { provider: 'openai', modelApi: 'openai-responses', modelId: 'gpt-5' }, mayRejectReplay: true },
  { name: 'openai-completions gpt-4o', route: { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o' }, mayRejectReplay: false },
  { name: 'openrouter mistral (strict9)', route: { provider: 'openrouter', modelApi: 'openai-completions', modelId: 'mistralai/mistral-large' }, mayRejectReplay: false },
  { name: 'vllm', route: { provider: 'vllm', modelApi: 'openai-completions', modelId: 'qwen3' }, mayRejectReplay: false },
  // Claude's id pattern behind a Gemini wire.
  { name: 'antigravity claude', route: { provider: 'google-antigravity', modelApi: 'google-gemini-cli', modelId: 'claude-sonnet-4-5' }, mayRejectReplay: false },
  // Issue 29's modes: a request without tools, a tool result limit, DeepSeek thinking, Gemini 3 signatures.
  { name: 'anthropic --no-tools', route: { provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5', tools: false }, mayRejectReplay: false },
  {
    name: 'bedrock --no-tools',
    route: { provider: 'amazon-bedrock', modelApi: 'bedrock-converse-stream', modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0', tools: false },
    mayRejectReplay: false,
  },
  { name: 'openai-completions --max-tool-result-bytes', route: { provider: 'openai', modelApi: 'openai-completions', modelId: 'gpt-4o', maxToolResultBytes: 200 }, mayRejectReplay: false },
  { name: 'deepseek thinking', route: { provider: 'deepseek', modelApi: 'openai-completions', modelId: 'deepseek-v4-pro' }, mayRejectReplay: false },
  { name: 'google gemini 3', route: { provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-3-pro-preview' }, mayRejectReplay: false },
];

/** The fixed clock of synthetic messages, so two runs can be compared. */
export const PROPERTY_NOW = 1798761600000;

/** The pipeline's output as `sanitize` writes it (request-time steps included). */
export async function runPipeline(messages: readonly unknown[], route: CheckRoute): Promise<Message[]> {
  const out: Message[] = [];
  // With the images counted first, as sanitize of a file does: the request-wide image limits run.
  const pipeline = createPipeline({ imageCensus: imageCensusIfImages(messages), ...route, now: () => PROPERTY_NOW }, (message) => out.push(message));
  try {
    for (const message of messages) {
      const wait = pipeline.write(message);
      if (wait !== undefined) await wait;
    }
    await pipeline.end();
  } finally {
    pipeline.dispose();
  }
  // A JSON round trip, as the output would be written and read back.
  return JSON.parse(JSON.stringify(out)) as Message[];
}

/** The documented rejection: the Responses replay invariant (tool-calls.md §8). */
export function isDocumentedRejection(error: unknown, policy: PropertyPolicy): boolean {
  return policy.mayRejectReplay && isHygieneError(error) && error.code === 'invalid_replay_transcript';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The violations of the policy's provider rules in the output. None is tolerated: a provider
 * failure is a bug, never a known class.
 */
export function providerViolations(policy: PropertyPolicy, output: readonly Message[]): Violation[] {
  return checkTranscript(output, policy.route);
}

/**
 * Why running the pipeline on its own output can change it. Each trigger is judged on the first
 * run's output; the second run may differ only when one of them holds.
 */
export interface KnownNonIdempotence {
  readonly name: string;
  readonly policies: readonly string[] | '*';
  readonly triggered: (once: readonly Message[], policy: PropertyPolicy, input: readonly unknown[]) => boolean;
  /** The spec passage it follows from, or the rule that should make it idempotent. */
  readonly cause: string;
}

/** An assistant whose calls strip-dangling-tool-calls replaced with "[tool calls omitted]" (turns-images-policy.md §3.3, E13). */
function isOmittedToolTurn(message: unknown): boolean {
  if (!isObject(message) || message.role !== 'assistant' || !Array.isArray(message.content)) return false;
  const content = message.content as unknown[];
  return content.length === 1 && isObject(content[0]) && content[0].text === '[tool calls omitted]';
}

const assistants = (messages: readonly Message[]): Message[] => messages.filter((message) => isObject(message) && message.role === 'assistant');

export const KNOWN_NON_IDEMPOTENCE: readonly KnownNonIdempotence[] = [
  {
    name: 'An assistant right after a "[tool calls omitted]" turn whose results drop-orphaned-tool-results removed: the second run merges the two',
    policies: '*',
    triggered: (once, policy) => {
      const resolved = resolveTranscriptPolicy(policy.route);
      if (!resolved.validateGeminiTurns && !resolved.validateAnthropicTurns) return false;
      return once.some((message, i) => isOmittedToolTurn(message) && isObject(once[i + 1]) && once[i + 1]!.role === 'assistant');
    },
    cause:
      'spec order: strip-dangling-tool-calls leaves the omitted turn\'s results in place (E13), so the assistant merge (validate) does not reach across them; drop-orphaned-tool-results removes them after it. Only routes that validate Anthropic turns make omitted turns, and the pair is legal there: Anthropic combines consecutive assistant turns itself, chat completions accept them.',
  },
  {
    name: 'Bedrock: a "(no assistant reply)" turn of the first run is the latest assistant on the second, so the thinking rules clean the turns before it',
    policies: ['bedrock claude', 'bedrock --no-tools'],
    triggered: (once) => {
      const list = assistants(once);
      const last = list[list.length - 1];
      const isBridge = last !== undefined && Array.isArray(last.content) && (last.content as unknown[]).some((block) => isObject(block) && block.text === BRIDGE_TEXT);
      // Only when an earlier assistant still has thinking for the second run to clean.
      const thinkingBefore = list.slice(0, -1).some((message) => Array.isArray(message.content) && (message.content as unknown[]).some((block) => isObject(block) && (block.type === 'thinking' || block.type === 'redacted_thinking')));
      return isBridge && thinkingBefore;
    },
    cause:
      'bridge-bedrock-user-turns runs after pairing (it must see where results ended up), which is after the thinking rules (steps 6-7) that pick the latest assistant: a second run sees the placeholder as the latest one. Request copies are built from the replay copy, not from a previous request.',
  },
  {
    name: 'A length turn whose only call validate-tool-call-inputs dropped is reasoning-only only after step 8; the second run drops it',
    policies: '*',
    triggered: (once) => assistants(once).some((message) => isReasoningOnlyLengthAssistantTurn(message)),
    cause: 'spec order: the reasoning-only length drop (thinking.md §4.1 step 8) runs at step 4, call validation at step 8 (turns-images-policy.md §1).',
  },
  {
    name: 'A bare delivery-mirror duplicate that had string content: skipped by the duplicate check on the first run, caught on the second',
    policies: '*',
    triggered: (once) => once.some((message, i) => i > 0 && isObject(message) && message.role === 'assistant' && isBareDeliveryMirrorDuplicate(once[i - 1], message)),
    cause: 'thinking.md §4.1 step 5: string content is converted to a text block and skips steps 7–9, the duplicate check included.',
  },
  {
    name: 'A merged user turn carries the last turn\'s inter_session provenance: the second run marks the earlier turns\' text too',
    policies: '*',
    triggered: (once) => once.some((message) => isObject(message) && message.role === 'user' && annotateInterSessionProvenance(message) !== message),
    cause:
      'merge-consecutive-users keeps the last turn\'s fields (turns-images-policy.md §3.3), so user text that was not routed gets the marker on a second run (§6): a harm of the reference\'s merge (spec README), not written up as a repair yet.',
  },
  {
    name: 'An error turn merged into a non-error turn: the second run strips the thought signatures step 5 skipped',
    policies: '*',
    triggered: (once, policy) => {
      const resolved = resolveTranscriptPolicy(policy.route);
      if (!stripThoughtSignaturesEnabled(resolved)) return false;
      return assistants(once).some((message) => message.stopReason !== 'error' && stripThoughtSignatures(message, resolved.sanitizeThoughtSignatures) !== message);
    },
    cause: 'thinking.md §4.9 skips error turns; merge-consecutive-assistants takes stopReason from the last turn (turns-images-policy.md §3.2).',
  },
  {
    name: 'The latest assistant\'s unsigned thinking is preserved as "current" once; pairing appends its synthetic result after it, and a toolUse/functionCall call does not count as a call for §4.6.1, so the second run strips it',
    policies: '*',
    triggered: (once) => {
      const list = assistants(once);
      const latest = list[list.length - 1];
      if (latest === undefined || !Array.isArray(latest.content)) return false;
      const blocks = latest.content as unknown[];
      const unsigned = blocks.some((block) => isObject(block) && (block.type === 'thinking' || block.type === 'redacted_thinking') && !hasReplayableSignature(block));
      return unsigned && once[once.length - 1] !== latest;
    },
    cause: 'thinking.md §4.6/§4.6.1: the preserve-latest decision is made on the stream before pairing adds results; §3 counts only toolCall|tool_use|function_call blocks there.',
  },
  {
    name: 'A result whose id fields disagree (Responses: the fc downgrade rewrites toolCallId/toolUseId only and leaves call_id stale); the second run\'s normalization reads call_id first',
    policies: '*',
    triggered: (once) =>
      once.some((message) => {
        if (!isObject(message) || message.role !== 'toolResult') return false;
        const values = ['toolCallId', 'toolUseId', 'tool_call_id', 'tool_use_id', 'callId', 'call_id'].map((field) => message[field]).filter((value) => typeof value === 'string' && value !== '');
        return new Set(values).size > 1;
      }),
    cause: 'tool-calls.md §7 ("call_id etc. are left stale") with the rewrite priority of §2.2/§6 (call_id first).',
  },
  {
    name: 'An error turn left with `content: []` (kept for its providerReplay after its blocks were dropped): the second run\'s failed-turn check drops it',
    policies: '*',
    triggered: (once) => assistants(once).some((message) => message.stopReason === 'error' && Array.isArray(message.content) && message.content.length === 0),
    cause: 'spec order: the failed-turn drop (thinking.md §4.1 step 4) runs before blank blocks are dropped and providerReplay turns kept empty (§4.2, step 5).',
  },
  {
    name: 'Bedrock: two repaired error turns merged into one holding the fallback text twice; the second run no longer recognizes it as repaired and drops it',
    policies: ['bedrock claude', 'bedrock --no-tools'],
    triggered: (once) =>
      assistants(once).some(
        (message) =>
          message.stopReason === 'error' &&
          Array.isArray(message.content) &&
          message.content.length > 1 &&
          (message.content as unknown[]).every((block) => isObject(block) && block.text === '[assistant turn failed before producing content]'),
      ),
    cause: 'normalize-assistant-replay-content (the Bedrock repair keeps only a turn holding exactly one fallback text, spec README) with merge-consecutive-assistants (§3.2 concatenates content).',
  },
  {
    name: 'Responses: a synthetic result added by the second pairing repair (step 14) keeps its `details`; the second run strips them',
    policies: ['openai-responses'],
    triggered: (once) => once.some((message) => isObject(message) && message.role === 'toolResult' && 'details' in message),
    cause: 'spec order: strip-tool-result-details is step 11, the second Responses pairing repair step 14 (turns-images-policy.md §1), although tool-calls.md §2.5 says the replay copy has no `details`.',
  },
  {
    name: 'Chat Completions: reasoning kept on the "current tool turn" whose calls step 8 then dropped; the second run drops the reasoning',
    policies: '*',
    triggered: (once, policy) => resolveTranscriptPolicy(policy.route).dropReasoningFromHistory && !isDeepStrictEqual(dropReasoningFromHistory(once), once),
    cause: 'spec order: dropReasoningFromHistory (thinking.md §4.7, step 7) decides the current tool turn before call validation (step 8) drops its calls.',
  },
  {
    name: 'A signed thinking block merged into an assistant older than the compaction summary: the second run finds it stale and strips it',
    policies: '*',
    triggered: (once, policy) => {
      if (!stripStaleThinkingSignaturesEnabled(resolveTranscriptPolicy(policy.route), resolveHygieneOptions(policy.route))) return false;
      const summaries = once.filter((message) => isObject(message) && message.role === 'compactionSummary').map((message) => parseTimestampMs(message.timestamp)).filter((ms): ms is number => ms !== undefined);
      if (summaries.length === 0) return false;
      const compactedAt = Math.max(...summaries);
      return assistants(once).some((message) => {
        const at = parseTimestampMs(message.timestamp);
        if (at === undefined || at >= compactedAt || !Array.isArray(message.content)) return false;
        // Any non-null signature field counts, blank ones too (thinking.md §4.5 deletes them all).
        const signed = (block: Record<string, unknown>): boolean =>
          ['thinkingSignature', 'signature', 'thought_signature'].some((field) => block[field] !== undefined && block[field] !== null) ||
          (block.type === 'redacted_thinking' && block.data !== undefined && block.data !== null);
        return (message.content as unknown[]).some((block) => isObject(block) && (block.type === 'thinking' || block.type === 'redacted_thinking') && signed(block));
      });
    },
    cause: 'merge-consecutive-assistants keeps the first turn\'s timestamp (turns-images-policy.md §3.2), so a later turn\'s signed thinking is dated before the summary; thinking.md §4.5 strips it on the next run.',
  },
  {
    name: 'An assistant merged into (or with) a signed thinking turn: the second run\'s thinking-replay check rejects the merged turn (duplicate ids, snake-case calls) and drops it',
    policies: ['anthropic opus-4-6'],
    triggered: (once) =>
      assistants(once).some((message) => {
        if (!Array.isArray(message.content)) return false;
        const blocks = message.content as unknown[];
        const thinkingLike = (block: unknown): boolean => isObject(block) && (block.type === 'thinking' || block.type === 'redacted_thinking');
        // A thinking block after a non-thinking block: two turns' content was concatenated (a
        // redacted block with blank data, which no signature check keeps, included).
        return blocks.some((block, i) => i > 0 && thinkingLike(block) && !thinkingLike(blocks[i - 1]));
      }),
    cause:
      'merge-consecutive-assistants concatenates content into a signed thinking turn (turns-images-policy.md §3.2), which the thinking-replay path keeps byte for byte or drops whole (tool-calls.md §3.2): a merged turn it would reject is only judged on the next run.',
  },
  {
    name: 'Claude: a call kept for a malformed name\'s real result (ours) that pairing then gave to another call gets a synthetic result; the second run drops it as unanswered',
    policies: ['anthropic sonnet', 'anthropic opus-4-6'],
    triggered: (once) => misnamedCallsAnsweredSynthetically(once),
    cause:
      'validate-tool-call-inputs decides "answered" as the completed exemption does (tool-calls.md §2.4: the pairing classification of its own input), pairing repair (step 10) classifies its output: when step 8 dropped a frame\'s only calls, a displaced result lands in another frame and answers a different occurrence. Only Claude routes keep the malformed name; elsewhere enforce-tool-name-pattern gives the call a valid one, which the second run keeps.',
  },
];

/** A call kept with a name outside the name check (only Claude routes keep such names) is answered by a synthetic result. */
function misnamedCallsAnsweredSynthetically(once: readonly Message[]): boolean {
  const misnamed = new Set<string>();
  for (const message of once) {
    if (!isObject(message)) continue;
    if (message.role === 'assistant' && Array.isArray(message.content)) {
      for (const block of message.content as unknown[]) if (isPairedCallBlock(block) && !isValidToolNameSyntax(block.name)) misnamed.add(block.id);
    } else if (message.role === 'toolResult' && typeof message.toolCallId === 'string' && misnamed.has(message.toolCallId) && isSyntheticToolResult(message)) {
      return true;
    }
  }
  return false;
}


export function knownNonIdempotenceOf(policy: PropertyPolicy, once: readonly Message[], input: readonly unknown[]): KnownNonIdempotence | undefined {
  return KNOWN_NON_IDEMPOTENCE.find((known) => (known.policies === '*' || known.policies.includes(policy.name)) && known.triggered(once, policy, input));
}
