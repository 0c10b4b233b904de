/** The Anthropic Messages API as the emulator answers it: `POST /v1/messages`, its error shape and its answer. */
import type { ServerResponse } from 'node:http';
import { checkAnthropicRequest } from './anthropic-wire.ts';
import { nextId, sendJson, startEvents, type EmulatedApi } from './api.ts';

function usage(body: Record<string, unknown>): { input_tokens: number; output_tokens: number } {
  const messages = Array.isArray(body.messages) ? body.messages.length : 0;
  return { input_tokens: 10 + messages, output_tokens: 5 };
}

function sendMessage(response: ServerResponse, body: Record<string, unknown>, text: string): void {
  sendJson(response, 200, {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: usage(body),
  });
}

function sendStream(response: ServerResponse, body: Record<string, unknown>, text: string): void {
  const write = startEvents(response);
  const event = (type: string, data: Record<string, unknown>): void => write(type, { type, ...data });
  const { input_tokens } = usage(body);
  event('message_start', {
    message: { id: nextId('msg'), type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens, output_tokens: 1 } },
  });
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  event('content_block_stop', { index: 0 });
  event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
  event('message_stop', {});
  response.end();
}

export const ANTHROPIC_API: EmulatedApi = {
  name: 'Anthropic Messages',
  pathSuffix: '/messages',
  check: checkAnthropicRequest,
  sendError(response, status, message) {
    const type = status === 404 ? 'not_found_error' : status === 400 ? 'invalid_request_error' : 'api_error';
    sendJson(response, status, { type: 'error', error: { type, message }, request_id: nextId('req') });
  },
  sendAnswer(response, body, text, stream) {
    if (stream) sendStream(response, body, text);
    else sendMessage(response, body, text);
  },
};
