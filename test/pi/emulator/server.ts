/**
 * Strict provider API emulators for end-to-end tests: a local HTTP server on 127.0.0.1 (random
 * port) that answers one API's POST path, streaming (SSE) or not. Three APIs: Anthropic Messages
 * (`startAnthropicEmulator`, anthropic-api.ts), OpenAI Responses (`startResponsesEmulator`,
 * responses-api.ts) and OpenAI chat completions (`startChatCompletionsEmulator`, chat-api.ts).
 *
 * Each request is checked as the API would check it (the API's wire module: the project's
 * provider rules from lib/invariants/ plus the wire-level ones). A request that breaks a rule
 * gets the API's 400 with the first violation's text; any other gets a short canned answer. Every
 * request is logged with its body, status and violations, for the tests to read.
 *
 * It stops by itself: `close()` ends it, and so does `idleMs` without a request (default 60 s),
 * so a test that dies half-way leaves no server behind. The idle timer never keeps the process
 * alive.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANTHROPIC_API } from './anthropic-api.ts';
import { CHAT_COMPLETIONS_API } from './chat-api.ts';
import { RESPONSES_API } from './responses-api.ts';
import type { EmulatedApi, WireViolation } from './api.ts';

export type { WireViolation } from './api.ts';

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

export const startAnthropicEmulator = (options: EmulatorOptions = {}): Promise<Emulator> => startEmulator(ANTHROPIC_API, options);
export const startResponsesEmulator = (options: EmulatorOptions = {}): Promise<Emulator> => startEmulator(RESPONSES_API, options);
export const startChatCompletionsEmulator = (options: EmulatorOptions = {}): Promise<Emulator> => startEmulator(CHAT_COMPLETIONS_API, options);

export async function startEmulator(api: EmulatedApi, options: EmulatorOptions = {}): Promise<Emulator> {
  const idleMs = options.idleMs ?? 60_000;
  const answer = options.answer ?? 'emulator: ok';
  const requests: LoggedRequest[] = [];
  let idle: NodeJS.Timeout | undefined;

  const server = createServer((request, response) => {
    armIdle();
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) api.sendError(response, 500, `emulator failure: ${error instanceof Error ? error.message : String(error)}`);
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
    if (method !== 'POST' || !path.endsWith(api.pathSuffix)) {
      log(404, [], false);
      api.sendError(response, 404, `Not found: ${method} ${path}`);
      return;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      log(400, [{ rule: 'wire/body', message: 'The request body is not valid JSON.' }], false);
      api.sendError(response, 400, 'The request body is not valid JSON.');
      return;
    }
    const record = body as Record<string, unknown>;
    const stream = record.stream === true;
    const violations = api.check(record);
    log(violations.length > 0 ? 400 : 200, violations, stream);
    if (violations.length > 0) {
      api.sendError(response, 400, violations[0]!.message);
      return;
    }
    api.sendAnswer(response, record, answer, stream);
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
