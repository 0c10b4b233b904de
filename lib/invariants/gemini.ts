/**
 * Gemini (`google-generative-ai`, `google-gemini-cli`, `google-vertex`): what generateContent
 * rejects in a replayed conversation. Roles are `user` and `model`; a run of tool results is one
 * `user` content of `functionResponse` parts (observed on `@openclaw/ai`'s
 * `projectGoogleMessages`, which also sends a user message after it as a content of its own, and
 * replaces empty user text by a space, so Gemini gets no empty part from a blank user turn).
 *
 * Alternation on Gemini means no `model` turn right after a `model` turn (turns-images-policy.md
 * §3: "Gemini: no assistant→assistant"; the reference merges consecutive assistants and leaves
 * consecutive user turns apart, which Gemini accepts). Function responses are matched to calls by
 * position and count, not by id, so ids are not checked here.
 */
import type { InvariantFamily, InvariantRule, Violation } from './types.ts';
import { toolNameRule } from './tool-name.ts';
import { isRecord } from '../types.ts';
import { callsOf, callsWithInvalidInput, isNonBlankString, showInputType, type ProviderTurn, type ReplayView } from './turns.ts';

const FAMILY: InvariantFamily = 'gemini';

function isFunctionCallTurn(turn: ProviderTurn | undefined): boolean {
  return turn?.kind === 'assistant' && callsOf(turn.entries[0]!.message).length > 0;
}

function push(out: Violation[], rule: string, index: number, message: string): void {
  out.push({ rule: `${FAMILY}/${rule}`, family: FAMILY, index, message });
}

export const geminiFirstTurnUser: InvariantRule = {
  id: 'gemini/first-turn-user',
  family: FAMILY,
  summary: 'The first content is a user turn, not a model turn.',
  source:
    'Gemini 400 on a history that starts with a model turn ("Please ensure that function call turn comes immediately after a user turn or after a function response turn." when it is a call; google-gemini/gemini-cli#11814); the reference inserts "(session bootstrap)" for it (turns-images-policy.md §3.5).',
  check: (view: ReplayView, _context, out) => {
    const first = view.turns[0];
    if (first?.role === 'assistant') push(out, 'first-turn-user', first.index, 'the first content is a model turn; it must be a user turn');
  },
};

export const geminiAlternation: InvariantRule = {
  id: 'gemini/alternation',
  family: FAMILY,
  summary: 'No model turn directly follows another model turn.',
  source: 'Gemini 400: "Please ensure that multiturn requests alternate between user and model."',
  check: (view, _context, out) => {
    view.turns.forEach((turn, t) => {
      if (turn.role === 'assistant' && view.turns[t - 1]?.role === 'assistant') {
        push(out, 'alternation', turn.index, `multiturn requests must alternate between user and model (model turns at messages ${view.turns[t - 1]!.index} and ${turn.index})`);
      }
    });
  },
};

export const geminiFunctionCallPosition: InvariantRule = {
  id: 'gemini/function-call-position',
  family: FAMILY,
  summary: 'A model turn with function calls comes right after a user turn or a function response turn.',
  source: 'Gemini 400: "Please ensure that function call turn comes immediately after a user turn or after a function response turn."',
  check: (view, _context, out) => {
    view.turns.forEach((turn, t) => {
      if (!isFunctionCallTurn(turn)) return;
      if (view.turns[t - 1]?.role === 'user') return;
      push(out, 'function-call-position', turn.index, 'function call turn must come immediately after a user turn or after a function response turn');
    });
  },
};

export const geminiFunctionResponsePosition: InvariantRule = {
  id: 'gemini/function-response-position',
  family: FAMILY,
  summary: 'A function response turn comes right after a model turn with function calls.',
  source: 'Gemini 400: "Please ensure that function response turn comes immediately after a function call turn."',
  check: (view, _context, out) => {
    view.turns.forEach((turn, t) => {
      if (turn.kind !== 'tool-results' || isFunctionCallTurn(view.turns[t - 1])) return;
      push(out, 'function-response-position', turn.index, 'function response turn must come immediately after a function call turn');
    });
  },
};

export const geminiFunctionResponseCount: InvariantRule = {
  id: 'gemini/function-response-count',
  family: FAMILY,
  summary: 'A function response turn has as many parts as the function call turn before it has calls.',
  source: 'Gemini 400: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."',
  check: (view, _context, out) => {
    view.turns.forEach((turn, t) => {
      const previous = view.turns[t - 1];
      if (turn.kind !== 'tool-results' || !isFunctionCallTurn(previous)) return;
      const calls = callsOf(previous!.entries[0]!.message).length;
      if (turn.entries.length === calls) return;
      push(out, 'function-response-count', turn.index, `${turn.entries.length} function response parts for ${calls} function call parts`);
    });
  },
};

export const geminiFunctionCallArgs: InvariantRule = {
  id: 'gemini/function-call-args',
  family: FAMILY,
  summary: 'functionCall.args is a JSON object (a Struct; the runtime sends a call\'s `arguments`, `{}` when absent).',
  source: 'Gemini API reference, FunctionCall `args`: "object (Struct format)"; a non-object is rejected as an invalid value for `args`; @openclaw/ai google builder (`args: arguments ?? {}`).',
  check: (view, _context, out) => {
    for (const { index, call } of callsWithInvalidInput(view, true)) {
      out.push({ rule: `${FAMILY}/function-call-args`, family: FAMILY, index, block: call.block, message: `functionCall.args must be an object (arguments are ${showInputType(call.arguments)})` });
    }
  },
};

const GEMINI_SIGNATURE_FIELDS = ['thinkingSignature', 'signature', 'thought_signature', 'thoughtSignature'] as const;
const CALL_BLOCK_TYPES: ReadonlySet<unknown> = new Set(['toolCall', 'toolUse', 'functionCall']);

/**
 * How many parts a user or assistant message becomes. Runtime assumption (the Google projection):
 * string content is one part (blank user text goes out as a space); in an array, non-blank text,
 * calls, thinking with text or a signature, and (user turns) images become parts; blank unsigned
 * thinking, `redacted_thinking` and other block types do not.
 */
function partCount(message: Record<string, unknown>): number {
  const content = message.content;
  if (typeof content === 'string') return message.role === 'user' || content.trim() !== '' ? 1 : 0;
  if (!Array.isArray(content)) return 0;
  return content.filter((block) => {
    if (!isRecord(block)) return false;
    if (block.type === 'text') return isNonBlankString(block.text);
    if (message.role === 'user') return block.type === 'image';
    if (block.type === 'thinking') return isNonBlankString(block.thinking) || GEMINI_SIGNATURE_FIELDS.some((field) => isNonBlankString(block[field]));
    return CALL_BLOCK_TYPES.has(block.type);
  }).length;
}

export const geminiEmptyParts: InvariantRule = {
  id: 'gemini/empty-parts',
  family: FAMILY,
  summary: 'Every user and model content has at least one part.',
  source: 'Gemini 400: "contents.parts must not be empty." (cherry-studio#16196); spec README, provider facts: "every content needs at least one part".',
  check: (view, _context, out) => {
    for (const turn of view.turns) {
      if (turn.kind !== 'user' && turn.kind !== 'assistant') continue;
      const entry = turn.entries[0]!;
      // Assumption: an assistant kept with `content: []` for its providerReplay is replayed from that checkpoint.
      if (turn.kind === 'assistant' && entry.message.providerReplay && Array.isArray(entry.message.content) && entry.message.content.length === 0) continue;
      if (partCount(entry.message) === 0) push(out, 'empty-parts', entry.index, `contents.parts must not be empty (a ${turn.role === 'user' ? 'user' : 'model'} turn with nothing Gemini takes as a part)`);
    }
  },
};

export const geminiToolName = toolNameRule('gemini');

export const GEMINI_RULES: readonly InvariantRule[] = Object.freeze([
  geminiFirstTurnUser,
  geminiAlternation,
  geminiFunctionCallPosition,
  geminiFunctionResponsePosition,
  geminiFunctionResponseCount,
  geminiFunctionCallArgs,
  geminiToolName,
  geminiEmptyParts,
]);
