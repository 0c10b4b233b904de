/**
 * The index pass's shortcut for `message` lines (DESIGN.md, "parse each line as few times as
 * possible"; spec/session-file.md §12.1): writers put `type`, `id` and `parentId` first, so
 * those three can be read from the line's first bytes without parsing the message. The scan
 * accepts only the exact shape `{"type":"message","id":"<id>","parentId":<"<id>"|null>,` with
 * plain strings (no escapes, no control characters); anything else is parsed whole by the
 * caller, as is any line holding `"appendMode"` (checked by the caller per chunk).
 *
 * Going on from there it also reads, when the line has the writers' shape, the message's
 * `role` (`"timestamp":"…","message":{"role":"…"`) and, for a tool result, its `toolCallId`
 * when that is the next key: the index needs the role to know assistants (the session's model)
 * and tool results (the result-id index), and never has to parse a line for them.
 */
import { Buffer } from 'node:buffer';

export const ROLE_UNKNOWN = 0;
export const ROLE_USER = 1;
export const ROLE_ASSISTANT = 2;
export const ROLE_TOOL_RESULT = 3;
export const ROLE_COMPACTION_SUMMARY = 4;
export const ROLE_HOOK_MESSAGE = 5;
export const ROLE_OTHER = 6;

export function roleCode(role: unknown): number {
  switch (role) {
    case 'user':
      return ROLE_USER;
    case 'assistant':
      return ROLE_ASSISTANT;
    case 'toolResult':
      return ROLE_TOOL_RESULT;
    case 'compactionSummary':
      return ROLE_COMPACTION_SUMMARY;
    case 'hookMessage':
      return ROLE_HOOK_MESSAGE;
    default:
      return ROLE_OTHER;
  }
}

export interface MessagePrefix {
  idStart: number;
  idEnd: number;
  /** -1 when parentId is null. */
  parentStart: number;
  parentEnd: number;
  role: number;
  /** The toolCallId of a tool result read from the prefix (-1 when not read). */
  resultStart: number;
  resultEnd: number;
  /** The envelope was read up to the message's `{`, and it is ASCII (entry-types.ts, F_PLAIN_ENVELOPE). */
  plainEnvelope: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const HEAD = Buffer.from('{"type":"message","id":"', 'latin1');
const PARENT = Buffer.from(',"parentId":', 'latin1');
const NULL = Buffer.from('null', 'latin1');
const TIMESTAMP = Buffer.from('"timestamp":"', 'latin1');
const MESSAGE_ROLE = Buffer.from('"message":{"role":"', 'latin1');
const TOOL_CALL_ID = Buffer.from(',"toolCallId":"', 'latin1');

function startsWith(buffer: Buffer, at: number, end: number, literal: Buffer): boolean {
  if (end - at < literal.length) return false;
  for (let i = 0; i < literal.length; i++) if (buffer[at + i] !== literal[i]) return false;
  return true;
}

/** The end (index of the closing quote) of a plain string whose content starts at `at`, or -1. */
function plainStringEnd(buffer: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const byte = buffer[i]!;
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH || byte < 0x20) return -1;
  }
  return -1;
}

const ROLES: ReadonlyArray<[Buffer, number]> = [
  [Buffer.from('user"', 'latin1'), ROLE_USER],
  [Buffer.from('assistant"', 'latin1'), ROLE_ASSISTANT],
  [Buffer.from('toolResult"', 'latin1'), ROLE_TOOL_RESULT],
  [Buffer.from('compactionSummary"', 'latin1'), ROLE_COMPACTION_SUMMARY],
  [Buffer.from('hookMessage"', 'latin1'), ROLE_HOOK_MESSAGE],
];

function isAscii(buffer: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buffer[i]! >= 0x80) return false;
  return true;
}

/** A byte that JavaScript's trim() can never remove from an end: printable ASCII other than space. */
function isSolid(byte: number): boolean {
  return byte > 0x20 && byte < 0x7f;
}

/**
 * Scans bytes [start, end) of a line; fills `out` and returns true when the line has the
 * message-entry prefix shape.
 */
export function scanMessagePrefix(buffer: Buffer, start: number, end: number, out: MessagePrefix): boolean {
  if (!startsWith(buffer, start, end, HEAD)) return false;
  const idStart = start + HEAD.length;
  const idEnd = plainStringEnd(buffer, idStart, end);
  if (idEnd <= idStart) return false;
  let at = idEnd + 1;
  if (!startsWith(buffer, at, end, PARENT)) return false;
  at += PARENT.length;
  if (buffer[at] === QUOTE) {
    const parentEnd = plainStringEnd(buffer, at + 1, end);
    if (parentEnd < 0) return false;
    out.parentStart = at + 1;
    out.parentEnd = parentEnd;
    at = parentEnd + 1;
  } else if (startsWith(buffer, at, end, NULL)) {
    out.parentStart = -1;
    out.parentEnd = -1;
    at += NULL.length;
  } else {
    return false;
  }
  // More keys must follow (a line that ends here is short: parse it whole).
  if (buffer[at] !== 0x2c /* , */) return false;
  at++;
  out.idStart = idStart;
  out.idEnd = idEnd;
  out.role = ROLE_UNKNOWN;
  out.resultStart = -1;
  out.resultEnd = -1;
  out.plainEnvelope = false;
  let timestampStart = at;
  let timestampEnd = at;
  if (startsWith(buffer, at, end, TIMESTAMP)) {
    timestampStart = at + TIMESTAMP.length;
    timestampEnd = plainStringEnd(buffer, timestampStart, end);
    if (timestampEnd < 0 || buffer[timestampEnd + 1] !== 0x2c) return true;
    at = timestampEnd + 2;
  }
  if (!startsWith(buffer, at, end, MESSAGE_ROLE)) return true;
  // Everything before the message's `{` is ASCII when the id, the parent and the timestamp are:
  // the rest of it is the literals matched above.
  out.plainEnvelope =
    isAscii(buffer, idStart, idEnd) && (out.parentStart < 0 || isAscii(buffer, out.parentStart, out.parentEnd)) && isAscii(buffer, timestampStart, timestampEnd);
  at += MESSAGE_ROLE.length;
  const roleEnd = plainStringEnd(buffer, at, end);
  if (roleEnd < 0) return true;
  out.role = ROLE_OTHER;
  for (const [literal, code] of ROLES) {
    if (roleEnd + 1 - at === literal.length && startsWith(buffer, at, end, literal)) {
      out.role = code;
      break;
    }
  }
  if (out.role !== ROLE_TOOL_RESULT) return true;
  at = roleEnd + 1;
  if (!startsWith(buffer, at, end, TOOL_CALL_ID)) return true;
  const resultStart = at + TOOL_CALL_ID.length;
  const resultEnd = plainStringEnd(buffer, resultStart, end);
  // Only an id that trim() leaves alone is taken as is (result ids are trimmed; see tool-calls.md §2.2).
  if (resultEnd <= resultStart || !isSolid(buffer[resultStart]!) || !isSolid(buffer[resultEnd - 1]!)) return true;
  out.resultStart = resultStart;
  out.resultEnd = resultEnd;
  return true;
}
