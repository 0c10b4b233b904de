/**
 * The OpenAI chat completions request (`POST /v1/chat/completions`) as the API judges its
 * `messages`: read back into the project's message model and checked with the project's provider
 * rules (`lib/invariants/`, family `chat-completions` with OpenAI's 40-character tool call id
 * limit), plus the wire-level ones. Each violation carries the wording of the 400 the API returns.
 *
 * Reading back: `system` and `developer` messages are the prompt, not the transcript; a `user`
 * message is a user message; an `assistant` message its text, then one `toolCall` block per
 * `tool_calls` entry; a `tool` message a `toolResult` answering `tool_call_id`.
 */
import { checkTranscript } from '../../../lib/invariants/index.ts';
import { isRecord } from '../../../lib/types.ts';
import type { WireViolation } from './api.ts';

interface Origin {
  /** The request's message index. */
  readonly message: number;
  /** For an assistant: the `tool_calls` index of each read-back block (undefined for text). */
  readonly calls?: ReadonlyArray<number | undefined>;
}

function text(content: unknown): Array<Record<string, unknown>> {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
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

function readBack(messages: readonly unknown[]): { messages: Record<string, unknown>[]; origins: Origin[] } {
  const out: Record<string, unknown>[] = [];
  const origins: Origin[] = [];
  messages.forEach((message, index) => {
    if (!isRecord(message)) return;
    if (message.role === 'user') {
      out.push({ role: 'user', content: text(message.content) });
      origins.push({ message: index });
    } else if (message.role === 'assistant') {
      const content: unknown[] = text(message.content);
      const calls: Array<number | undefined> = content.map(() => undefined);
      (Array.isArray(message.tool_calls) ? message.tool_calls : []).forEach((call, c) => {
        const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
        content.push({ type: 'toolCall', id: isRecord(call) ? call.id : undefined, name: fn.name, arguments: parseArguments(fn.arguments) });
        calls.push(c);
      });
      out.push({ role: 'assistant', content, stopReason: 'stop' });
      origins.push({ message: index, calls });
    } else if (message.role === 'tool') {
      out.push({ role: 'toolResult', toolCallId: message.tool_call_id, content: text(message.content), isError: false });
      origins.push({ message: index });
    }
  });
  return { messages: out, origins };
}

function wireChecks(messages: readonly unknown[], out: WireViolation[]): void {
  messages.forEach((message, index) => {
    if (!isRecord(message)) {
      out.push({ rule: 'wire/message-object', message: `Invalid 'messages[${index}]': expected an object.` });
      return;
    }
    if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(String(message.role))) {
      out.push({ rule: 'wire/role', message: `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.` });
    }
    if (message.role === 'tool' && typeof message.tool_call_id !== 'string') out.push({ rule: 'wire/tool-call-id', message: `Missing required parameter: 'messages[${index}].tool_call_id'.` });
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      message.tool_calls.forEach((call, c) => {
        if (!isRecord(call) || !isRecord(call.function) || typeof call.function.arguments !== 'string') {
          out.push({ rule: 'wire/tool-call-arguments', message: `Invalid type for 'messages[${index}].tool_calls[${c}].function.arguments': expected a string.` });
        }
      });
    }
  });
}

function tooLong(at: string, id: string): string {
  return `Invalid '${at}': string too long. Expected a string with maximum length 40, but got a string with length ${id.length} instead.`;
}

function wording(rule: string, id: string, origin: Origin | undefined, block: number | undefined): string | undefined {
  switch (rule) {
    case 'chat-completions/missing-tool-message':
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${id}`;
    case 'chat-completions/tool-message-position':
      return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    case 'chat-completions/tool-call-id-length': {
      const call = block === undefined ? undefined : origin?.calls?.[block];
      return tooLong(call === undefined ? `messages[${origin?.message}].tool_call_id` : `messages[${origin?.message}].tool_calls[${call}].id`, id);
    }
    default:
      return undefined;
  }
}

/** Every rule the request breaks, wire-level first; empty when the API would take it. */
export function checkChatCompletionsRequest(body: unknown): WireViolation[] {
  if (!isRecord(body)) return [{ rule: 'wire/body', message: 'The request body is not valid JSON.' }];
  if (typeof body.model !== 'string') return [{ rule: 'wire/model', message: "Missing required parameter: 'model'." }];
  if (!Array.isArray(body.messages)) return [{ rule: 'wire/messages', message: "Missing required parameter: 'messages'." }];
  const out: WireViolation[] = [];
  wireChecks(body.messages, out);
  const { messages, origins } = readBack(body.messages);
  for (const violation of checkTranscript(messages, { provider: 'openai', modelApi: 'openai-completions', modelId: body.model })) {
    const text = wording(violation.rule, violation.id ?? '', origins[violation.index], violation.block);
    out.push({ rule: violation.rule, message: text ?? violation.message });
  }
  return out;
}
