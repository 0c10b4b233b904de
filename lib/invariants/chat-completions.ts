/**
 * OpenAI-compatible Chat Completions (`openai-completions`, and every OpenRouter route): what the
 * chat completions endpoint rejects around tool calls. An assistant's `tool_calls` must be followed
 * by one `tool` message per call, and a `tool` message must answer a call of the assistant message
 * its run follows. Each `toolResult` is sent as its own `tool` message with
 * `tool_call_id = toolCallId` (turns.ts), so the run of results after an assistant is exactly the
 * run of `tool` messages.
 */
import type { InvariantFamily, InvariantRule, Violation } from './types.ts';
import { toolNameRule } from './tool-name.ts';
import { callIdsOf, callsOf, resultIdOf, showId } from './turns.ts';

const FAMILY: InvariantFamily = 'chat-completions';

function push(out: Violation[], rule: string, index: number, message: string, extra: { id?: string; block?: number } = {}): void {
  out.push({ rule: `${FAMILY}/${rule}`, family: FAMILY, index, ...extra, message });
}

export const chatMissingToolMessage: InvariantRule = {
  id: 'chat-completions/missing-tool-message',
  family: FAMILY,
  summary: "An assistant message with tool_calls is followed by tool messages responding to each tool_call_id.",
  source:
    "OpenAI 400: \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: <id>\"",
  check: (view, _context, out) => {
    view.turns.forEach((turn, t) => {
      if (turn.kind !== 'assistant') return;
      const entry = turn.entries[0]!;
      const next = view.turns[t + 1];
      const answered = new Set<string>();
      if (next?.kind === 'tool-results') for (const result of next.entries) answered.add(resultIdOf(result.message) ?? '');
      for (const call of callsOf(entry.message)) {
        const id = typeof call.id === 'string' ? call.id : '';
        if (id !== '' && answered.has(id)) continue;
        push(out, 'missing-tool-message', entry.index, `tool_call_id ${showId(call.id)} did not have a response message`, { id, block: call.block });
      }
    });
  },
};

export const chatToolMessagePosition: InvariantRule = {
  id: 'chat-completions/tool-message-position',
  family: FAMILY,
  summary: 'A tool message answers a tool_call of the assistant message its run directly follows.',
  source: "OpenAI 400: \"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.\"",
  check: (view, _context, out) => {
    view.turns.forEach((turn, t) => {
      if (turn.kind !== 'tool-results') return;
      const previous = view.turns[t - 1];
      const calls = previous?.kind === 'assistant' ? callIdsOf(previous.entries[0]!.message) : [];
      for (const entry of turn.entries) {
        const id = resultIdOf(entry.message);
        if (id !== undefined && calls.includes(id)) continue;
        push(out, 'tool-message-position', entry.index, `messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id ${showId(id)})`, { id: id ?? '' });
      }
    });
  },
};

/** OpenAI's (and GitHub Copilot's) chat completions limit for a tool call id. */
export const OPENAI_CHAT_TOOL_CALL_ID_MAX = 40;

export const chatToolCallIdLength: InvariantRule = {
  id: 'chat-completions/tool-call-id-length',
  family: FAMILY,
  summary: `OpenAI and GitHub Copilot: every tool call id (tool_calls[].id and tool_call_id) is at most ${OPENAI_CHAT_TOOL_CALL_ID_MAX} characters.`,
  source: "OpenAI 400: \"Invalid 'messages[N].tool_calls[M].id': string too long. Expected a string with maximum length 40\" (litellm#17343; opencode#12653: a 46-character id rejected).",
  check: (view, _context, out) => {
    for (const turn of view.turns) {
      for (const entry of turn.entries) {
        const ids: Array<{ id: unknown; block?: number }> =
          turn.kind === 'assistant' ? callsOf(entry.message).map((call) => ({ id: call.id, block: call.block })) : turn.kind === 'tool-results' ? [{ id: entry.message.toolCallId }] : [];
        for (const { id, block } of ids) {
          if (typeof id !== 'string' || id.length <= OPENAI_CHAT_TOOL_CALL_ID_MAX) continue;
          push(out, 'tool-call-id-length', entry.index, `tool call id ${showId(id)} is ${id.length} characters; the maximum is ${OPENAI_CHAT_TOOL_CALL_ID_MAX}`, { id, ...(block === undefined ? {} : { block }) });
        }
      }
    }
  },
};

export const chatToolName = toolNameRule('chat-completions');



/**
 * DeepSeek thinking models (policy `fillMissingReasoningContent`): every assistant message with
 * tool_calls carries `reasoning_content`. Read as pi-ai 0.73.1's completions builder sends a
 * message: a thinking block goes out under the field its `thinkingSignature` names, only when it is
 * non-blank and the message is of the request's own model (provider, api, model id); another
 * model's thinking goes out as text. (On provider `deepseek` the builder also adds an empty
 * `reasoning_content` by itself; the check does not count on that, since relays get nothing.)
 */
export const chatReasoningContentMissing: InvariantRule = {
  id: 'chat-completions/reasoning-content-missing',
  family: FAMILY,
  summary: 'DeepSeek thinking models: every assistant message with tool_calls is sent with its reasoning (reasoning_content; reasoning or reasoning_text through relays).',
  source:
    'DeepSeek 400: "The `reasoning_content` in the thinking mode must be passed back to the API" (api-docs.deepseek.com/guides/thinking_mode: "for turns that do perform tool calls, the reasoning_content must be fully passed back to the API in all subsequent requests"; pi#3636).',
  check: (view, context, out) => {
    if (!context.policy.fillMissingReasoningContent) return;
    for (const turn of view.turns) {
      if (turn.kind !== 'assistant') continue;
      const entry = turn.entries[0]!;
      const message = entry.message;
      if (callsOf(message).length === 0) continue;
      const own = String(message.provider ?? '').trim().toLowerCase() === context.provider && message.api === context.modelApi && message.model === context.modelId;
      const content = Array.isArray(message.content) ? (message.content as unknown[]) : [];
      const first = content.find(
        (block): block is { thinking: string; thinkingSignature?: unknown } =>
          typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'thinking' && typeof (block as { thinking?: unknown }).thinking === 'string' && (block as { thinking: string }).thinking.trim() !== '',
      );
      // The fields pi-ai reads reasoning from (and so writes it back under): DeepSeek's, OpenRouter's.
      if (own && first !== undefined && ['reasoning_content', 'reasoning', 'reasoning_text'].includes(first.thinkingSignature as string)) continue;
      const why = !own ? 'it is another model\'s turn (its thinking would go out as text)' : first === undefined ? 'it has no reasoning' : `its reasoning goes out as ${JSON.stringify(first.thinkingSignature ?? '(no field)')}`;
      push(out, 'reasoning-content-missing', entry.index, `an assistant message with tool_calls would be sent without reasoning_content: ${why}`);
    }
  },
};

export const CHAT_COMPLETIONS_RULES: readonly InvariantRule[] = Object.freeze([chatMissingToolMessage, chatToolMessagePosition, chatToolName, chatReasoningContentMissing]);
