/**
 * Anthropic Messages (`anthropic-messages`): what the Messages API rejects in a replayed
 * conversation. The pairing and content helpers are shared with Bedrock Converse, which enforces
 * the same pairing for Claude (bedrock.ts).
 *
 * Alternation: Anthropic documents that "consecutive user or assistant turns in your request will
 * be combined into a single turn" (Messages API reference, `messages`), so two same-role turns are
 * not rejected as such, and none of the rules below is "roles alternate". What does break is what
 * lies between a `tool_use` and its `tool_result`: the pairing rules are judged on the messages as
 * sent (the index in the provider's error is the index of the message as sent, before combining),
 * so an assistant turn or a user text turn between a call and its results is reported there.
 * The prefix-binding Claude models, whose consecutive user turns the pipeline deliberately keeps
 * apart (`mergeConsecutiveUserTurns`), rely on exactly that combining.
 */
import { isRecord } from '../types.ts';
import type { CheckContext, InvariantFamily, InvariantRule, Violation } from './types.ts';
import { toolNameRule } from './tool-name.ts';
import {
  callIdsOf,
  callsOf,
  callsWithInvalidInput,
  showInputType,
  contentFacts,
  hasPersistedMediaFacts,
  hasReplayableSignature,
  isNonBlankString,
  resultIdOf,
  showId,
  type ProviderTurn,
  type ReplayView,
} from './turns.ts';

// ---------------------------------------------------------------------------------------------
// Shared with Bedrock: pairing

function push(out: Violation[], family: InvariantFamily, rule: string, index: number, message: string, extra: { id?: string; block?: number } = {}): void {
  out.push({ rule: `${family}/${rule}`, family, index, ...extra, message });
}

/** The ids the results of a `tool-results` turn answer, as sent. */
function answeredIds(turn: ProviderTurn | undefined): Set<string> {
  const ids = new Set<string>();
  if (turn?.kind !== 'tool-results') return ids;
  for (const entry of turn.entries) {
    const id = resultIdOf(entry.message);
    if (id !== undefined) ids.add(id);
  }
  return ids;
}

/** Every call of an assistant turn is answered by a result in the very next message. */
export function checkResultsFollowCalls(view: ReplayView, family: InvariantFamily, wording: (ids: string) => string, out: Violation[]): void {
  view.turns.forEach((turn, t) => {
    if (turn.kind !== 'assistant') return;
    const entry = turn.entries[0]!;
    const answered = answeredIds(view.turns[t + 1]);
    for (const call of callsOf(entry.message)) {
      if (typeof call.id !== 'string' || call.id === '' || answered.has(call.id)) continue;
      push(out, family, 'tool-result-missing', entry.index, wording(showId(call.id)), { id: call.id, block: call.block });
    }
  });
}

/**
 * Every result answers a call of the assistant message right before its result run
 * (`unexpected`), and answers it once (`duplicate`: a call id repeated inside one assistant is
 * answered once per occurrence).
 */
export function checkResultsAnswerPreviousCalls(
  view: ReplayView,
  family: InvariantFamily,
  mode: 'unexpected' | 'duplicate',
  wording: (id: string) => string,
  out: Violation[],
): void {
  view.turns.forEach((turn, t) => {
    if (turn.kind !== 'tool-results') return;
    const previous = view.turns[t - 1];
    const calls = previous?.kind === 'assistant' ? callIdsOf(previous.entries[0]!.message) : [];
    const open = new Map<string, number>();
    for (const id of calls) open.set(id, (open.get(id) ?? 0) + 1);
    for (const entry of turn.entries) {
      const id = resultIdOf(entry.message);
      if (id === undefined || !calls.includes(id)) {
        if (mode === 'unexpected') push(out, family, 'unexpected-tool-result', entry.index, wording(showId(id)), { id: id ?? '' });
        continue;
      }
      const left = open.get(id) ?? 0;
      if (left > 0) open.set(id, left - 1);
      else if (mode === 'duplicate') push(out, family, 'duplicate-tool-result', entry.index, wording(showId(id)), { id });
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Shared with Bedrock: content

/**
 * `empty`: no message is sent without content (`finalAssistantMayBeEmpty`: Anthropic's exception
 * for the last message). `blank`: no text block is empty or whitespace only, in tool results too.
 */
export function checkContent(
  view: ReplayView,
  family: InvariantFamily,
  mode: 'empty' | 'blank',
  wording: string,
  finalAssistantMayBeEmpty: boolean,
  out: Violation[],
): void {
  const last = view.turns.length - 1;
  view.turns.forEach((turn, t) => {
    for (const entry of turn.entries) {
      // Assumption: the runtime captions a user turn with persisted media facts and blank text at
      // the model boundary ("[User sent media without caption]", turns-images-policy.md §4.1).
      if (turn.kind === 'user' && hasPersistedMediaFacts(entry.message)) continue;
      if (turn.kind === 'context') continue;
      const facts = contentFacts(entry.message.content);
      if (mode === 'blank') {
        for (const block of facts.blankTexts) push(out, family, 'blank-text', entry.index, wording, { block });
        continue;
      }
      if (turn.kind === 'tool-results') continue; // a tool_result block is content of its own
      if (facts.sendable > 0 || facts.blankTexts.length > 0) continue; // blank text: reported as blank-text
      if (turn.kind === 'assistant' && finalAssistantMayBeEmpty && t === last) continue;
      // Assumption: an assistant kept with `content: []` for its truthy `providerReplay` (a server
      // compaction checkpoint, turns-images-policy.md §4.2) is replayed from that checkpoint.
      if (turn.kind === 'assistant' && entry.message.providerReplay) continue;
      push(out, family, 'empty-content', entry.index, wording);
    }
  });
}

/** The ids sent as `tool_use.id` and `tool_result.tool_use_id`, with where they are. */
export function sentIds(view: ReplayView): Array<{ index: number; block?: number; id: unknown }> {
  const ids: Array<{ index: number; block?: number; id: unknown }> = [];
  for (const turn of view.turns) {
    for (const entry of turn.entries) {
      if (turn.kind === 'assistant') for (const call of callsOf(entry.message)) ids.push({ index: entry.index, block: call.block, id: call.id });
      else if (turn.kind === 'tool-results') ids.push({ index: entry.index, id: entry.message.toolCallId });
    }
  }
  return ids;
}

// ---------------------------------------------------------------------------------------------
// Anthropic rules

const FAMILY: InvariantFamily = 'anthropic';

/** Anthropic's pattern for `tool_use.id` (and the `tool_use_id` of its result). */
export const ANTHROPIC_TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

export const anthropicToolResultMissing: InvariantRule = {
  id: 'anthropic/tool-result-missing',
  family: FAMILY,
  summary: 'Every tool_use is answered by a tool_result in the next message (the tool result run right after the assistant).',
  source:
    'Anthropic 400: "`tool_use` ids were found without `tool_result` blocks immediately after: <id>. Each `tool_use` block must have a corresponding `tool_result` block in the next message."',
  check: (view, _context, out) =>
    checkResultsFollowCalls(view, FAMILY, (id) => `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${id}`, out),
};

export const anthropicUnexpectedToolResult: InvariantRule = {
  id: 'anthropic/unexpected-tool-result',
  family: FAMILY,
  summary: 'Every tool_result answers a tool_use of the assistant message right before it, and nothing else (no orphan, displaced or id-less result).',
  source:
    'Anthropic 400: "unexpected `tool_use_id` found in `tool_result` blocks: <id>. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."',
  check: (view, _context, out) =>
    checkResultsAnswerPreviousCalls(view, FAMILY, 'unexpected', (id) => `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}`, out),
};

export const anthropicDuplicateToolResult: InvariantRule = {
  id: 'anthropic/duplicate-tool-result',
  family: FAMILY,
  summary: 'A tool_use is answered once: no second tool_result with the same id in the result message.',
  source:
    'Anthropic rejects two `tool_result` blocks with the same `tool_use_id` (reported with a 400 by API users, e.g. RooCodeInc/Roo-Code#9248); Anthropic docs: each tool_use gets "a corresponding tool_result".',
  check: (view, _context, out) =>
    checkResultsAnswerPreviousCalls(view, FAMILY, 'duplicate', (id) => `a second \`tool_result\` block for ${id}`, out),
};

export const anthropicToolUseIdPattern: InvariantRule = {
  id: 'anthropic/tool-use-id-pattern',
  family: FAMILY,
  summary: 'tool_use ids and tool_result tool_use_ids match ^[a-zA-Z0-9_-]+$ (so no "", no spaces, no "|", ".", ":").',
  source: `Anthropic 400: "messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'". (@openclaw/ai has a normalizer for this on its own Anthropic transport; the project does not rely on it: spec README lists such ids among the provider-rule repairs, and relays such as OpenRouter rewrite nothing.)`,
  check: (view, _context, out) => {
    for (const { index, block, id } of sentIds(view)) {
      if (typeof id === 'string' && ANTHROPIC_TOOL_USE_ID.test(id)) continue;
      push(out, FAMILY, 'tool-use-id-pattern', index, `tool use id ${showId(id)} does not match ^[a-zA-Z0-9_-]+$`, {
        id: typeof id === 'string' ? id : '',
        ...(block === undefined ? {} : { block }),
      });
    }
  },
};

export const anthropicDuplicateToolUseId: InvariantRule = {
  id: 'anthropic/duplicate-tool-use-id',
  family: FAMILY,
  summary: 'tool_use ids are unique across the request.',
  source: 'Anthropic 400: "messages.N.content.M: `tool_use` ids must be unique".',
  check: (view, _context, out) => {
    const seen = new Set<string>();
    for (const turn of view.turns) {
      if (turn.kind !== 'assistant') continue;
      const entry = turn.entries[0]!;
      for (const call of callsOf(entry.message)) {
        if (typeof call.id !== 'string' || call.id === '') continue;
        if (seen.has(call.id)) push(out, FAMILY, 'duplicate-tool-use-id', entry.index, `\`tool_use\` ids must be unique: ${showId(call.id)}`, { id: call.id, block: call.block });
        seen.add(call.id);
      }
    }
  },
};

export const anthropicEmptyContent: InvariantRule = {
  id: 'anthropic/empty-content',
  family: FAMILY,
  summary: 'No message without content (empty array, blank string, only blank text or blank unsigned thinking), except the final assistant.',
  source: 'Anthropic 400: "messages.N: all messages must have non-empty content except for the optional final assistant message".',
  check: (view, _context, out) =>
    checkContent(view, FAMILY, 'empty', 'all messages must have non-empty content except for the optional final assistant message', true, out),
};

export const anthropicBlankText: InvariantRule = {
  id: 'anthropic/blank-text',
  family: FAMILY,
  summary: 'No text block is empty or whitespace only (tool result content included).',
  source: 'Anthropic 400: "messages: text content blocks must be non-empty" / "text content blocks must contain non-whitespace text".',
  check: (view, _context, out) => checkContent(view, FAMILY, 'blank', 'text content blocks must contain non-whitespace text', false, out),
};

export const anthropicThinkingSignature: InvariantRule = {
  id: 'anthropic/thinking-signature',
  family: FAMILY,
  summary:
    'A thinking block sent as thinking carries a usable signature: redacted thinking has its data, a present signature is a string. (Unsigned thinking is sent as text by the runtime, so it is not a violation.)',
  source:
    'Anthropic 400: "messages.N.content.M.thinking.signature: Field required" / "Invalid `signature` in `thinking` block". Runtime assumption (thinking.md §4.17, convertAnthropicMessages): thinking without `thinkingSignature` goes out as a text block, blank unsigned thinking is skipped, `redacted: true` goes out as `redacted_thinking` with `data: thinkingSignature`.',
  check: (view, _context, out) => {
    for (const turn of view.turns) {
      if (turn.kind !== 'assistant') continue;
      const entry = turn.entries[0]!;
      const content = entry.message.content;
      if (!Array.isArray(content)) continue;
      content.forEach((block, index) => {
        if (!isRecord(block)) return;
        let problem: string | undefined;
        if (block.type === 'redacted_thinking' || block.type === 'redactedThinking') {
          if (!hasReplayableSignature({ ...block, type: 'redacted_thinking' })) problem = 'redacted thinking without data';
        } else if (block.type === 'thinking') {
          const signature = block.thinkingSignature;
          if (block.redacted === true && !isNonBlankString(signature)) problem = 'redacted thinking without a signature';
          else if (signature !== undefined && signature !== null && typeof signature !== 'string') problem = `thinking signature is a ${typeof signature}, not a string`;
        }
        if (problem !== undefined) push(out, FAMILY, 'thinking-signature', entry.index, problem, { block: index });
      });
    }
  },
};

export const anthropicToolUseInput: InvariantRule = {
  id: 'anthropic/tool-use-input',
  family: FAMILY,
  summary: 'tool_use.input is a JSON object (the runtime sends a call\'s `arguments`, `{}` when absent).',
  source: 'Anthropic 400: "messages.N.content.M.tool_use.input: Input should be a valid dictionary"; @openclaw/ai anthropic builder (`input: arguments ?? {}`).',
  check: (view, _context, out) => {
    for (const { index, call } of callsWithInvalidInput(view, true)) {
      push(out, FAMILY, 'tool-use-input', index, `tool_use.input: Input should be a valid dictionary (arguments are ${showInputType(call.arguments)})`, {
        ...(typeof call.id === 'string' ? { id: call.id } : {}),
        block: call.block,
      });
    }
  },
};

/** The last turn as sent, when it is an assistant without tool calls (a prefill): its index. */
function trailingPrefill(view: ReplayView): number | undefined {
  const last = view.turns[view.turns.length - 1];
  if (last?.kind !== 'assistant' || callsOf(last.entries[0]!.message).length > 0) return undefined;
  return last.index;
}

export const anthropicTrailingPrefill: InvariantRule = {
  id: 'anthropic/trailing-prefill',
  family: FAMILY,
  summary: 'With thinking on, the conversation does not end with an assistant turn without tool calls (a prefill).',
  source:
    'Anthropic docs (extended thinking): prefilling the assistant response is not compatible with thinking; OpenClaw logs "Anthropic extended thinking requires conversations to end with a user turn" (thinking.md §4.15b).',
  check: (view, context: CheckContext, out) => {
    if (!context.thinking) return;
    const last = trailingPrefill(view);
    if (last !== undefined) push(out, FAMILY, 'trailing-prefill', last, 'the conversation ends with an assistant prefill while thinking is on');
  },
};

/** Every Anthropic Messages rule, in reporting order. */
export const anthropicToolName = toolNameRule(FAMILY);

export const ANTHROPIC_RULES: readonly InvariantRule[] = Object.freeze([
  anthropicToolResultMissing,
  anthropicUnexpectedToolResult,
  anthropicDuplicateToolResult,
  anthropicToolUseIdPattern,
  anthropicToolUseInput,
  anthropicToolName,
  anthropicDuplicateToolUseId,
  anthropicEmptyContent,
  anthropicBlankText,
  anthropicThinkingSignature,
  anthropicTrailingPrefill,
]);
