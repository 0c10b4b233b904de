/**
 * OpenAI Responses (`openai-responses`, `openai-chatgpt-responses`, `azure-openai-responses`):
 * what the Responses API rejects in the `input` items of a replayed conversation.
 *
 * Runtime assumption (tool-calls.md §6): a stored call id `call_id|item_id` is split at its first
 * `|` (when that is neither the first nor the last character) into `function_call.call_id` and
 * `function_call.id`; a result's `toolCallId` is split the same way and its call part becomes
 * `function_call_output.call_id`. Without a `|` the whole id is the call id and no item id is sent.
 *
 * The Responses API pairs outputs to calls by `call_id` anywhere earlier in `input`, so unlike
 * Anthropic it does not require adjacency; the pipeline's own replay invariant
 * (assert-responses-replay-invariant) is stricter than the API and is not restated here.
 */
import type { InvariantFamily, InvariantRule, Violation } from './types.ts';
import { toolNameRule } from './tool-name.ts';
import { callsOf, resultIdOf, showId, type ReplayView } from './turns.ts';

const FAMILY: InvariantFamily = 'openai-responses';

/** The shapes the project normalizes to (tool-calls.md §6): 64 characters at most each. */
export const RESPONSES_CALL_ID = /^call_[A-Za-z0-9_-]{1,59}$/;
export const RESPONSES_ITEM_ID = /^fc_[A-Za-z0-9_-]{1,61}$/;

/** `call_id|item_id` → its parts, as the runtime splits it. */
export function splitResponsesId(id: string): { callId: string; itemId?: string } {
  const sep = id.indexOf('|');
  if (sep > 0 && sep < id.length - 1) return { callId: id.slice(0, sep), itemId: id.slice(sep + 1) };
  return { callId: id };
}

interface WireCall {
  index: number;
  block: number;
  callId: string | undefined;
  itemId: string | undefined;
  raw: unknown;
}

interface WireOutput {
  index: number;
  callId: string | undefined;
  raw: unknown;
}

function wireItems(view: ReplayView): { calls: WireCall[]; outputs: WireOutput[]; order: Array<WireCall | WireOutput> } {
  const calls: WireCall[] = [];
  const outputs: WireOutput[] = [];
  const order: Array<WireCall | WireOutput> = [];
  for (const turn of view.turns) {
    for (const entry of turn.entries) {
      if (turn.kind === 'assistant') {
        for (const call of callsOf(entry.message)) {
          const parts = typeof call.id === 'string' ? splitResponsesId(call.id) : undefined;
          const item: WireCall = { index: entry.index, block: call.block, callId: parts?.callId, itemId: parts?.itemId, raw: call.id };
          calls.push(item);
          order.push(item);
        }
      } else if (turn.kind === 'tool-results') {
        const id = resultIdOf(entry.message);
        const item: WireOutput = { index: entry.index, callId: id === undefined ? undefined : splitResponsesId(id).callId, raw: entry.message.toolCallId };
        outputs.push(item);
        order.push(item);
      }
    }
  }
  return { calls, outputs, order };
}

function push(out: Violation[], rule: string, index: number, message: string, extra: { id?: string; block?: number } = {}): void {
  out.push({ rule: `${FAMILY}/${rule}`, family: FAMILY, index, ...extra, message });
}

export const responsesOrphanOutput: InvariantRule = {
  id: 'openai-responses/orphan-output',
  family: FAMILY,
  summary: 'Every function_call_output has an earlier function_call with the same call_id.',
  source: 'OpenAI 400: "No tool call found for function call output with call_id <call_id>."',
  check: (view, _context, out) => {
    const seen = new Set<string>();
    for (const item of wireItems(view).order) {
      if ('block' in item) {
        if (item.callId !== undefined) seen.add(item.callId);
      } else if (item.callId === undefined || !seen.has(item.callId)) {
        push(out, 'orphan-output', item.index, `No tool call found for function call output with call_id ${showId(item.callId ?? item.raw)}`, { id: item.callId ?? '' });
      }
    }
  },
};

export const responsesMissingOutput: InvariantRule = {
  id: 'openai-responses/missing-output',
  family: FAMILY,
  summary: 'Every function_call has a later function_call_output with the same call_id.',
  source: 'OpenAI 400: "No tool output found for function call <call_id>."',
  check: (view, _context, out) => {
    const { order } = wireItems(view);
    const answeredLater = new Set<string>();
    const missing: WireCall[] = [];
    for (let i = order.length - 1; i >= 0; i--) {
      const item = order[i]!;
      if (!('block' in item)) {
        if (item.callId !== undefined) answeredLater.add(item.callId);
      } else if (item.callId !== undefined && !answeredLater.has(item.callId)) {
        missing.push(item);
      }
    }
    for (const call of missing.reverse()) push(out, 'missing-output', call.index, `No tool output found for function call ${showId(call.callId)}`, { id: call.callId!, block: call.block });
  },
};

export const responsesIdShape: InvariantRule = {
  id: 'openai-responses/id-shape',
  family: FAMILY,
  summary: 'call_id is call_* and item id fc_*, each of [A-Za-z0-9_-] and at most 64 characters, in calls and outputs.',
  source:
    'OpenAI 400s on replayed items: "Invalid \'input[N].id\': \'<id>\'. Expected an ID that begins with \'fc\'." and "string too long. Expected a string with maximum length 64"; tool-calls.md §6 (normalizeOpenAIResponsesToolCallIds exists because the API rejects other shapes).',
  check: (view, _context, out) => {
    for (const item of wireItems(view).order) {
      const bad: string[] = [];
      if (item.callId === undefined || !RESPONSES_CALL_ID.test(item.callId)) bad.push(`call_id ${showId(item.callId ?? item.raw)}`);
      if ('block' in item && item.itemId !== undefined && !RESPONSES_ITEM_ID.test(item.itemId)) bad.push(`item id ${showId(item.itemId)}`);
      if (bad.length === 0) continue;
      const id = typeof item.raw === 'string' ? item.raw : '';
      push(out, 'id-shape', item.index, `${bad.join(' and ')} do${bad.length === 1 ? 'es' : ''} not fit call_*/fc_* (64 characters at most)`, 'block' in item ? { id, block: item.block } : { id });
    }
  },
};

export const responsesToolName = toolNameRule('openai-responses');

export const OPENAI_RESPONSES_RULES: readonly InvariantRule[] = Object.freeze([responsesOrphanOutput, responsesMissingOutput, responsesIdShape, responsesToolName]);
