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
import { ResultIdIndex } from '../result-index.ts';

/** FNV-1a, 32 bits. A collision only makes pairing wait longer, never changes its output. */
export function hashResultId(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The result-id index of a projected session: id hash -> the last position at which a tool
 * result may carry it. An open-addressing table of typed arrays (no object per id), so a
 * session with a million results costs a few megabytes and no garbage.
 */
export class SessionResultIndex extends ResultIdIndex {
  private keys = new Uint32Array(1 << 10);
  private values = new Int32Array(1 << 10);
  private used = 0;

  override record(id: string, position: number): void {
    this.recordHash(hashResultId(id.trim()), position);
  }

  recordHash(hash: number, position: number): void {
    const slot = this.slotOf(hash);
    if (this.values[slot] === 0) {
      this.keys[slot] = hash;
      this.values[slot] = position;
      if (++this.used * 4 > this.values.length * 3) this.grow();
    } else if (this.values[slot]! < position) {
      this.values[slot] = position;
    }
  }

  override lastLineOf(id: string): number {
    return this.values[this.slotOf(hashResultId(id.trim()))]!;
  }

  override get size(): number {
    return this.used;
  }

  /** The slot holding `hash`, or the empty slot where it would go (positions are >= 1, so 0 marks empty). */
  private slotOf(hash: number): number {
    const mask = this.values.length - 1;
    let slot = (Math.imul(hash, 0x9e3779b1) >>> 0) & mask;
    while (this.values[slot] !== 0 && this.keys[slot] !== hash) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    this.keys = new Uint32Array(keys.length * 2);
    this.values = new Int32Array(values.length * 2);
    for (let i = 0; i < values.length; i++) {
      if (values[i] === 0) continue;
      const slot = this.slotOf(keys[i]!);
      this.keys[slot] = keys[i]!;
      this.values[slot] = values[i]!;
    }
  }
}

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
