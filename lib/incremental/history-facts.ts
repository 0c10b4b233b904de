/**
 * The whole-history facts the in-memory path reads before the messages flow (the latest compaction
 * time, lib/in-memory.ts; the image census, lib/image-census.ts), kept as running totals so a call
 * that adds messages to a context already seen reads only the new ones. Both are sums over the
 * messages (a maximum, a list and a byte total), so the totals equal a fresh count of the whole
 * array; test/incremental/history-facts.test.ts holds them equal.
 */
import { collect, hasImages, type ImageCensus } from '../image-census.ts';
import { compactionTimestampIn } from '../in-memory.ts';

export class HistoryFacts {
  compactionTimestamp: number | null = null;
  private readonly imageChars: number[] = [];
  /**
   * The census's byte total; undefined while no message has an image (no census then, and its
   * total, the JSON of every message, is not paid for).
   */
  private otherBytes: number | undefined;

  /** Adds `messages[from..]`; `kept` holds values equal to messages 0..from-1, read once if the first image comes now. */
  add(messages: readonly unknown[], from: number, kept: readonly unknown[]): void {
    const fresh = from === 0 ? messages : messages.slice(from);
    const at = compactionTimestampIn(fresh);
    if (at !== null && (this.compactionTimestamp === null || at > this.compactionTimestamp)) this.compactionTimestamp = at;
    if (this.otherBytes === undefined) {
      if (!hasImages(fresh)) return;
      // No image before `from`, so the earlier messages add bytes only.
      this.otherBytes = bytesOf(kept, 0, from, this.imageChars);
    }
    this.otherBytes += bytesOf(messages, from, messages.length, this.imageChars);
  }

  /** The census `imageCensusIfImages` gives for the messages added so far. */
  census(): ImageCensus | undefined {
    return this.otherBytes === undefined ? undefined : { imageChars: this.imageChars.slice(), otherBytes: this.otherBytes };
  }
}

/** The census's byte total of `messages[from..to]`, their image sizes appended to `chars` (as imageCensusOf counts). */
function bytesOf(messages: readonly unknown[], from: number, to: number, chars: number[]): number {
  let total = 0;
  for (let i = from; i < to; i++) {
    const images = collect(messages[i], chars);
    total += Math.max(0, Buffer.byteLength(JSON.stringify(messages[i]) ?? '', 'utf8') - images);
  }
  return total;
}
