/**
 * Tool-result ids for the session reader's result-id index (lib/result-index.ts explains the
 * shortcut it enables in tool-result pairing).
 *
 * A session's projected messages do not come out in file-line order (the compaction summary
 * comes first, and duplicate ids or leaf records can put a later line before an earlier one),
 * so positions here are the messages' 1-based places in the projected stream, the same numbers
 * the reader records as their input lines (jsonl.ts `inputLineOf`).
 */
import { Buffer } from 'node:buffer';

export { hashResultId, hashResultIdAscii } from '../result-index.ts';

const RESULT_ID_KEYS = ['toolCallId', 'toolUseId', 'tool_call_id', 'tool_use_id', 'callId', 'call_id'] as const;

/** The result ids of a parsed message (spec tool-calls.md §2.2): every one, not only the first. */
export function resultIdsOfMessage(message: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const key of RESULT_ID_KEYS) {
    const value = message[key];
    if (typeof value !== 'string') continue;
    const id = value.trim();
    if (id !== '' && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

const KEYS = RESULT_ID_KEYS.map((key) => Buffer.from(`"${key}"`, 'latin1'));
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

/**
 * Every string value that follows one of the six keys anywhere in bytes [start, end): an
 * over-approximation of the line's result ids (nested keys count too), for lines whose shape
 * the prefix scan did not recognise.
 */
export function scanResultIdBytes(buffer: Buffer, start: number, end: number, onId: (id: string) => void): void {
  const line = buffer.subarray(start, end);
  for (const key of KEYS) {
    let at = line.indexOf(key);
    while (at >= 0) {
      let i = at + key.length;
      while (i < line.length && isJsonSpace(line[i]!)) i++;
      if (line[i] === 0x3a /* : */) {
        i++;
        while (i < line.length && isJsonSpace(line[i]!)) i++;
        if (line[i] === QUOTE) {
          const value = readString(line, i);
          if (value !== undefined) {
            const id = value.trim();
            if (id !== '') onId(id);
          }
        }
      }
      at = line.indexOf(key, at + key.length);
    }
  }
}

/** The JSON string starting at the quote at `at`, or undefined. */
function readString(line: Buffer, at: number): string | undefined {
  let escaped = false;
  for (let i = at + 1; i < line.length; i++) {
    const byte = line[i]!;
    if (byte === BACKSLASH) {
      escaped = true;
      i++;
      continue;
    }
    if (byte === QUOTE) {
      const literal = line.toString('utf8', at, i + 1);
      if (!escaped) return literal.slice(1, -1);
      try {
        return JSON.parse(literal) as string;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
