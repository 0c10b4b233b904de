/**
 * A strict Anthropic Messages API emulator for end-to-end tests: a local HTTP server on
 * 127.0.0.1 (random port) that answers `POST /v1/messages`, streaming (SSE) or not.
 *
 * Each request is checked as the API would check it (anthropic-wire.ts: the project's provider
 * rules from lib/invariants/ plus the wire-level ones). A request that breaks a rule gets the
 * API's 400 (`{"type":"error","error":{"type":"invalid_request_error","message":...}}`) with the
 * first violation's text; any other gets a short canned answer. Every request is logged with its
 * body, status and violations, for the tests to read.
 *
 * It stops by itself: `close()` ends it, and so does `idleMs` without a request (default 60 s),
 * so a test that dies half-way leaves no server behind. The idle timer never keeps the process
 * alive.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkAnthropicRequest, type WireViolation } from './anthropic-wire.ts';

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  /** The parsed body (undefined when it was not JSON). */
  readonly body: unknown;
  readonly status: number;
  readonly violations: readonly WireViolation[];
  readonly stream: boolean;
}

export interface EmulatorOptions {
  /** Stop after this long without a request (ms). */
  idleMs?: number;
  /** The text of the canned answer. */
  answer?: string;
}

export interface Emulator {
  /** `http://127.0.0.1:<port>`: the base URL to give the client. */
  readonly url: string;
  readonly requests: readonly LoggedRequest[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

let sequence = 0;
const nextId = (prefix: string): string => `${prefix}_emu${(++sequence).toString().padStart(6, '0')}`;

function sendJson(response: ServerResponse, status: number, payload: unknown): void {
  const data = JSON.stringify(payload);
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': nextId('req'), 'content-length': Buffer.byteLength(data) });
  response.end(data);
}

function sendError(response: ServerResponse, status: number, type: string, message: string): void {
  sendJson(response, status, { type: 'error', error: { type, message }, request_id: nextId('req') });
}

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
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': nextId('req') });
  const event = (type: string, data: Record<string, unknown>): void => {
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
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

export async function startAnthropicEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const idleMs = options.idleMs ?? 60_000;
  const answer = options.answer ?? 'emulator: ok';
  const requests: LoggedRequest[] = [];
  let idle: NodeJS.Timeout | undefined;

  const server = createServer((request, response) => {
    armIdle();
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, 'api_error', `emulator failure: ${error instanceof Error ? error.message : String(error)}`);
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0]!;
    const method = request.method ?? 'GET';
    const raw = await readBody(request);
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const log = (status: number, violations: readonly WireViolation[], stream: boolean): void => {
      requests.push({ method, path, body, status, violations, stream });
    };
    if (method !== 'POST' || !path.endsWith('/messages')) {
      log(404, [], false);
      sendError(response, 404, 'not_found_error', `Not found: ${method} ${path}`);
      return;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      log(400, [{ rule: 'wire/body', message: 'The request body is not valid JSON.' }], false);
      sendError(response, 400, 'invalid_request_error', 'The request body is not valid JSON.');
      return;
    }
    const record = body as Record<string, unknown>;
    const stream = record.stream === true;
    const violations = checkAnthropicRequest(record);
    log(violations.length > 0 ? 400 : 200, violations, stream);
    if (violations.length > 0) {
      sendError(response, 400, 'invalid_request_error', violations[0]!.message);
      return;
    }
    if (stream) sendStream(response, record, answer);
    else sendMessage(response, record, answer);
  }

  function armIdle(): void {
    if (idle !== undefined) clearTimeout(idle);
    idle = setTimeout(() => void close(), idleMs);
    idle.unref();
  }

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= new Promise<void>((resolve) => {
      if (idle !== undefined) clearTimeout(idle);
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  armIdle();
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close };
}
