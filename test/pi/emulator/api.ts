/**
 * What one emulated provider API is, for the shared server (server.ts): which paths it answers,
 * how it judges a request body (the API's 400s), and how it writes its error and its canned answer.
 */
import type { ServerResponse } from 'node:http';

export interface WireViolation {
  /** `<family>/<rule>` from lib/invariants, or `wire/<rule>` for the wire-level checks of the API's emulator. */
  readonly rule: string;
  /** The error text the API answers with. */
  readonly message: string;
}

export interface EmulatedApi {
  /** For messages: `Anthropic Messages`, `OpenAI Responses`, `OpenAI chat completions`. */
  readonly name: string;
  /** The POST path this API answers (`/messages`, `/responses`, `/chat/completions`), matched as a suffix. */
  readonly pathSuffix: string;
  /** Every rule the body breaks; empty when the API would take it. */
  check(body: Record<string, unknown>): WireViolation[];
  /** The API's error answer (400 for a violation, 404 for a wrong path). */
  sendError(response: ServerResponse, status: number, message: string): void;
  /** The canned answer, streamed (SSE) or not. */
  sendAnswer(response: ServerResponse, body: Record<string, unknown>, text: string, stream: boolean): void;
}

let sequence = 0;
/** Ids for answers and requests, unique within a process. */
export const nextId = (prefix: string): string => `${prefix}_emu${(++sequence).toString().padStart(6, '0')}`;

export function sendJson(response: ServerResponse, status: number, payload: unknown): void {
  const data = JSON.stringify(payload);
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': nextId('req'), 'content-length': Buffer.byteLength(data) });
  response.end(data);
}

/** Starts a server-sent event stream; `event(type, data)` writes one event. */
export function startEvents(response: ServerResponse): (type: string | undefined, data: unknown) => void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': nextId('req') });
  return (type, data) => {
    response.write(`${type === undefined ? '' : `event: ${type}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };
}
