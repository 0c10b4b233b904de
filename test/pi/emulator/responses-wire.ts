/**
 * The OpenAI Responses request (`POST /v1/responses`) as the API judges its `input` items: read
 * back into the project's message model and checked with the project's provider rules
 * (`lib/invariants/`, family `openai-responses`), plus the wire-level limits of the items
 * themselves. Each violation carries the wording of the 400 the API returns for it.
 *
 * Reading back: `user` role items are user messages (`system` and `developer` ones are the
 * prompt, not the transcript); a run of assistant-side items (`message` with role `assistant`,
 * `reasoning`, `function_call`) is one assistant message, a `function_call` a `toolCall` block
 * with id `call_id|id` (as pi stores it) or `call_id`; each `function_call_output` a `toolResult`
 * answering its `call_id`.
 *
 * The project's id-shape rule (`call_*` / `fc_*`, the shape the hygiene normalizes to) is stricter
 * than the API, which takes any `call_id` of at most 64 characters: the emulator checks what the
 * API checks instead (an item id that does not begin with `fc`, a `call_id` over 64 characters).
 */
import { checkTranscript } from '../../../lib/invariants/index.ts';
import { isRecord } from '../../../lib/types.ts';
import type { WireViolation } from './api.ts';

/** The API's wording per invariant, given the offending call id. */
const WORDING: Record<string, (id: string) => string> = {
  'openai-responses/orphan-output': (id) => `No tool call found for function call output with call_id ${id}.`,
  'openai-responses/missing-output': (id) => `No tool output found for function call ${id}.`,
};

/** Rules of the family the API does not have (see the header). */
const NOT_THE_API: ReadonlySet<string> = new Set(['openai-responses/id-shape']);

const CALL_ID_MAX = 64;

function text(content: unknown): Array<Record<string, unknown>> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isRecord).map((part) => (typeof part.text === 'string' ? { type: 'text', text: part.text } : part));
}

function parseArguments(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function readBack(input: readonly unknown[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let assistant: unknown[] | undefined;
  const endAssistant = (): void => {
    if (assistant !== undefined) out.push({ role: 'assistant', content: assistant, stopReason: 'stop' });
    assistant = undefined;
  };
  for (const item of input) {
    if (!isRecord(item)) continue;
    const type = item.type ?? 'message';
    if (type === 'message' && item.role === 'assistant') (assistant ??= []).push(...text(item.content));
    else if (type === 'reasoning') assistant ??= [];
    else if (type === 'function_call') {
      const id = typeof item.id === 'string' && item.id !== '' ? `${String(item.call_id)}|${item.id}` : item.call_id;
      (assistant ??= []).push({ type: 'toolCall', id, name: item.name, arguments: parseArguments(item.arguments) });
    } else if (type === 'function_call_output') {
      endAssistant();
      out.push({ role: 'toolResult', toolCallId: item.call_id, content: text(item.output), isError: false });
    } else if (type === 'message' && item.role === 'user') {
      endAssistant();
      out.push({ role: 'user', content: text(item.content) });
    }
  }
  endAssistant();
  return out;
}

function wireChecks(input: readonly unknown[], out: WireViolation[]): void {
  input.forEach((item, index) => {
    if (!isRecord(item)) {
      out.push({ rule: 'wire/item-object', message: `Invalid 'input[${index}]': expected an object.` });
      return;
    }
    if (item.type === 'function_call' || item.type === 'function_call_output') {
      if (typeof item.call_id !== 'string' || item.call_id === '') out.push({ rule: 'wire/call-id', message: `Missing required parameter: 'input[${index}].call_id'.` });
      else if (item.call_id.length > CALL_ID_MAX) {
        out.push({
          rule: 'wire/call-id-length',
          message: `Invalid 'input[${index}].call_id': string too long. Expected a string with maximum length ${CALL_ID_MAX}, but got a string with length ${item.call_id.length} instead.`,
        });
      }
    }
    if (item.type === 'function_call' && item.id !== undefined && (typeof item.id !== 'string' || !item.id.startsWith('fc'))) {
      out.push({ rule: 'wire/function-call-item-id', message: `Invalid 'input[${index}].id': '${String(item.id)}'. Expected an ID that begins with 'fc'.` });
    }
    if (item.type === 'function_call' && typeof item.arguments !== 'string') {
      out.push({ rule: 'wire/function-call-arguments', message: `Invalid type for 'input[${index}].arguments': expected a string.` });
    }
  });
}

/** Every rule the request breaks, wire-level first; empty when the API would take it. */
export function checkResponsesRequest(body: unknown): WireViolation[] {
  if (!isRecord(body)) return [{ rule: 'wire/body', message: 'The request body is not valid JSON.' }];
  if (typeof body.model !== 'string') return [{ rule: 'wire/model', message: "Missing required parameter: 'model'." }];
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
  if (!Array.isArray(input)) return [{ rule: 'wire/input', message: "Missing required parameter: 'input'." }];
  const out: WireViolation[] = [];
  wireChecks(input, out);
  for (const violation of checkTranscript(readBack(input), { provider: 'openai', modelApi: 'openai-responses', modelId: body.model })) {
    if (NOT_THE_API.has(violation.rule)) continue;
    const wording = WORDING[violation.rule];
    const id = (violation.id ?? '').split('|')[0]!;
    out.push({ rule: violation.rule, message: wording === undefined ? violation.message : wording(id) });
  }
  return out;
}
