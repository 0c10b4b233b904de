/**
 * Bytes that are not UTF-8 become U+FFFD when a line is decoded: the text survives, those bytes
 * do not. The readers count them, so `--stats` and the warnings can say how much was replaced
 * and where. A U+FFFD the input already held (the bytes EF BF BD) is not a replacement.
 */
import { Buffer } from 'node:buffer';

const REPLACEMENT = '\uFFFD';
const ENCODED = Buffer.from(REPLACEMENT, 'utf8');
/** Line numbers kept (the first ones). */
const MAX_LINES_KEPT = 100;

function countIn(text: string): number {
  let count = 0;
  for (let at = text.indexOf(REPLACEMENT); at >= 0; at = text.indexOf(REPLACEMENT, at + 1)) count++;
  return count;
}

function countEncoded(bytes: Uint8Array, start: number, end: number): number {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
  let count = 0;
  for (let at = view.indexOf(ENCODED); at >= 0; at = view.indexOf(ENCODED, at + ENCODED.length)) count++;
  return count;
}

/** U+FFFD in `text` that decoding bytes[start, end) made (0 at once for text without any). */
export function replacementsIn(text: string, bytes: Uint8Array, start = 0, end = bytes.length): number {
  if (text.indexOf(REPLACEMENT) < 0) return 0;
  return Math.max(0, countIn(text) - countEncoded(bytes, start, end));
}

/** What a reader replaced. */
export interface InvalidUtf8 {
  /** Lines that held bytes that are not UTF-8, and the replacements in them. */
  lines: number;
  sequences: number;
  /** The first such lines' 1-based numbers (at most 100). */
  lineNumbers: number[];
}

export class InvalidUtf8Counter implements InvalidUtf8 {
  lines = 0;
  sequences = 0;
  lineNumbers: number[] = [];

  /** Records `replaced` replacements on a line (nothing when 0). */
  note(line: number, replaced: number): void {
    if (replaced === 0) return;
    this.lines++;
    this.sequences += replaced;
    if (this.lineNumbers.length < MAX_LINES_KEPT) this.lineNumbers.push(line);
  }

  summary(): InvalidUtf8 | undefined {
    return this.sequences === 0 ? undefined : { lines: this.lines, sequences: this.sequences, lineNumbers: [...this.lineNumbers] };
  }
}

/**
 * Counts the U+FFFD a line's bytes hold themselves (EF BF BD) when the line arrives in pieces,
 * a sequence cut between two pieces included: for lines decoded as they arrive.
 */
export class EncodedReplacements {
  count = 0;
  private tail: Buffer = Buffer.alloc(0);

  feed(piece: Uint8Array): void {
    if (this.tail.length > 0 && piece.length > 0) {
      // Only matches that cross the joint: those inside either side are counted on their own.
      const joint = Buffer.concat([this.tail, Buffer.from(piece.buffer, piece.byteOffset, Math.min(2, piece.length))]);
      for (let at = joint.indexOf(ENCODED); at >= 0; at = joint.indexOf(ENCODED, at + 1)) {
        if (at < this.tail.length && at + ENCODED.length > this.tail.length) this.count++;
      }
    }
    this.count += countEncoded(piece, 0, piece.length);
    // The stream's last two bytes (not the piece's: pieces may be shorter than a sequence).
    const last = piece.length >= 2 ? Buffer.from(piece.subarray(piece.length - 2)) : Buffer.concat([this.tail, piece]);
    this.tail = last.subarray(Math.max(0, last.length - 2));
  }
}

/** U+FFFD in `text` beyond the `encoded` ones its bytes held. */
export function replacementsBeyond(text: string, encoded: number): number {
  return text.indexOf(REPLACEMENT) < 0 ? 0 : Math.max(0, countIn(text) - encoded);
}
