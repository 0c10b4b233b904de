/**
 * A fixed byte string searched for in every chunk of an input (`"appendMode"`,
 * `"compactionSummary"`, ...), found by a short anchor inside it.
 *
 * Why an anchor: Node's Buffer#indexOf searches a pattern of 7 bytes or more with
 * Boyer-Moore-Horspool, which on JSON runs at about 2.5 GB/s, and a shorter one by memchr on its
 * first byte, which runs near memory speed when that byte is rare. Every needle here starts with
 * a quote, the commonest byte of JSON, so the anchor is a run of up to 6 bytes from inside the
 * needle that starts with an uppercase letter; each anchor hit is checked against the whole
 * needle. On the bench's 1.1 GB session the three needles of the index pass took 0.9 s searched
 * whole, a third of that by anchor.
 */
import { Buffer } from 'node:buffer';

/** Node switches from memchr to Boyer-Moore-Horspool at this pattern length. */
const LINEAR_SEARCH_LIMIT = 6;

export class Needle {
  readonly bytes: Buffer;
  private readonly anchor: Buffer;
  /** Where the anchor starts inside the needle. */
  private readonly anchorAt: number;

  /** `anchor` must occur in `text` (its first occurrence is used); without one, the whole needle is searched. */
  constructor(text: string, anchor?: string) {
    this.bytes = Buffer.from(text, 'latin1');
    const at = anchor === undefined ? -1 : text.indexOf(anchor);
    if (anchor !== undefined && (at < 0 || anchor.length === 0 || anchor.length > LINEAR_SEARCH_LIMIT)) {
      throw new RangeError(`anchor ${JSON.stringify(anchor)} must be 1-${LINEAR_SEARCH_LIMIT} bytes of ${JSON.stringify(text)}`);
    }
    this.anchor = at < 0 ? this.bytes : Buffer.from(anchor!, 'latin1');
    this.anchorAt = Math.max(0, at);
  }

  /** Where the needle first starts in `buffer` at or after `from`, or -1 (as `buffer.indexOf(needle, from)`). */
  indexIn(buffer: Buffer, from: number): number {
    const { anchor, anchorAt, bytes } = this;
    const length = bytes.length;
    for (let at = from + anchorAt; ; ) {
      const hit = buffer.indexOf(anchor, at);
      if (hit < 0) return -1;
      const start = hit - anchorAt;
      if (anchor === bytes || (start + length <= buffer.length && buffer.compare(bytes, 0, length, start, start + length) === 0)) return start;
      at = hit + 1;
    }
  }

  /**
   * Sets `into` to where the needle starts in `buffer[0..end)`, in order and not overlapping
   * (after a match the search goes on past its end), as repeated `indexOf(needle)` finds them.
   */
  findAll(buffer: Buffer, end: number, into: number[]): void {
    into.length = 0;
    const view = buffer.subarray(0, end);
    for (let at = this.indexIn(view, 0); at >= 0; at = this.indexIn(view, at + this.bytes.length)) into.push(at);
  }
}
