/**
 * Is this input a session file (header and entries, read through the index and the active
 * path) or a plain message stream (one message a line, read in one pass)?
 *
 * Decided by the first line that parses as JSON among the first bytes: a `{"type":"session"}`
 * header, or an entry (a string `type` and no `role`), makes a session; a line with a `role`, or
 * anything else, a message stream. Lines that do not parse are passed over (a session may start
 * with garbage before its header, §11.4). A first line longer than the probe is judged by its
 * first keys. A `[` first (or `{"messages":`) makes a JSON list of messages.
 */
import { startsJsonList } from '../json-array.ts';

export type InputKind = 'session' | 'messages' | 'json';

const ENTRY_PREFIX = /^\{\s*"type"\s*:\s*"[^"]+"/;
const ROLE_PREFIX = /^\{\s*"role"\s*:/;

function kindOfValue(value: unknown): InputKind {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'messages';
  const record = value as Record<string, unknown>;
  if (record.type === 'session') return 'session';
  if ('role' in record) return 'messages';
  return typeof record.type === 'string' ? 'session' : 'messages';
}

/**
 * The kind of input whose first bytes are `text`, or undefined when these bytes do not decide it
 * yet (no whole line parsed so far and more input may come). `complete` says `text` is all of it.
 */
export function detectInputKind(text: string, complete: boolean): InputKind | undefined {
  const body = text.replace(/^\uFEFF/, '');
  const first = body.trimStart();
  if (startsJsonList(first)) return 'json';
  const lines = body.split('\n');
  const whole = complete ? lines.length : lines.length - 1;
  for (let i = 0; i < whole; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      return kindOfValue(JSON.parse(line));
    } catch {
      // Garbage or a torn line: look further.
    }
  }
  if (complete) return 'messages';
  return undefined;
}

/** The kind judged from a bounded probe: undecided lines are judged by the first keys of the partial last line. */
export function detectProbeKind(text: string, complete: boolean): InputKind {
  const kind = detectInputKind(text, complete);
  if (kind !== undefined) return kind;
  const body = text.replace(/^\uFEFF/, '');
  const partial = body.slice(body.lastIndexOf('\n') + 1).trimStart();
  if (ROLE_PREFIX.test(partial)) return 'messages';
  if (ENTRY_PREFIX.test(partial)) return 'session';
  return 'messages';
}
