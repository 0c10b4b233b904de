/** The OpenAI chat completions API as the emulator answers it: `POST /v1/chat/completions`, its error shape and its answer. */
import type { ServerResponse } from 'node:http';
import { nextId, sendJson, startEvents, type EmulatedApi } from './api.ts';
import { checkChatCompletionsRequest } from './chat-wire.ts';

function usage(body: Record<string, unknown>): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const messages = Array.isArray(body.messages) ? body.messages.length : 0;
  return { prompt_tokens: 10 + messages, completion_tokens: 5, total_tokens: 15 + messages };
}

function sendStream(res: ServerResponse, body: Record<string, unknown>, text: string): void {
  const write = startEvents(res);
  const id = nextId('chatcmpl');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void => write(undefined, { id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra });
  chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
  chunk([{ index: 0, delta: { content: text }, finish_reason: null }]);
  chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  if (body.stream_options !== undefined) chunk([], { usage: usage(body) });
  write(undefined, '[DONE]');
  res.end();
}

export const CHAT_COMPLETIONS_API: EmulatedApi = {
  name: 'OpenAI chat completions',
  pathSuffix: '/chat/completions',
  check: checkChatCompletionsRequest,
  sendError(res, status, message) {
    sendJson(res, status, { error: { message, type: status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found' : 'server_error', param: status === 400 ? 'messages' : null, code: null } });
  },
  sendAnswer(res, body, text, stream) {
    if (stream) sendStream(res, body, text);
    else {
      sendJson(res, 200, {
        id: nextId('chatcmpl'),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: usage(body),
      });
    }
  },
};
