/** The OpenAI Responses API as the emulator answers it: `POST /v1/responses`, its error shape and its answer. */
import type { ServerResponse } from 'node:http';
import { nextId, sendJson, startEvents, type EmulatedApi } from './api.ts';
import { checkResponsesRequest } from './responses-wire.ts';

function usage(body: Record<string, unknown>): { input_tokens: number; output_tokens: number; total_tokens: number } {
  const items = Array.isArray(body.input) ? body.input.length : 1;
  return { input_tokens: 10 + items, output_tokens: 5, total_tokens: 15 + items };
}

function response(body: Record<string, unknown>, id: string, output: unknown[], status: string): Record<string, unknown> {
  return { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model, status, output, usage: status === 'completed' ? usage(body) : null };
}

function sendStream(res: ServerResponse, body: Record<string, unknown>, text: string): void {
  const write = startEvents(res);
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>): void => write(type, { type, sequence_number: sequence++, ...data });
  const id = nextId('resp');
  const itemId = nextId('msg');
  const done = { type: 'message', id: itemId, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  event('response.created', { response: response(body, id, [], 'in_progress') });
  event('response.output_item.added', { output_index: 0, item: { type: 'message', id: itemId, role: 'assistant', status: 'in_progress', content: [] } });
  event('response.content_part.added', { item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
  event('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: text });
  event('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text });
  event('response.content_part.done', { item_id: itemId, output_index: 0, content_index: 0, part: done.content[0] });
  event('response.output_item.done', { output_index: 0, item: done });
  event('response.completed', { response: response(body, id, [done], 'completed') });
  res.end();
}

export const RESPONSES_API: EmulatedApi = {
  name: 'OpenAI Responses',
  pathSuffix: '/responses',
  check: checkResponsesRequest,
  sendError(res, status, message) {
    sendJson(res, status, { error: { message, type: status === 400 ? 'invalid_request_error' : status === 404 ? 'not_found' : 'server_error', param: status === 400 ? 'input' : null, code: null } });
  },
  sendAnswer(res, body, text, stream) {
    if (stream) sendStream(res, body, text);
    else sendJson(res, 200, response(body, nextId('resp'), [{ type: 'message', id: nextId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }], 'completed'));
  },
};
