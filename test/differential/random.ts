/**
 * A small seeded PRNG for the differential generators.
 *
 * mulberry32 (32-bit state, plain integer arithmetic), so a seed gives the same
 * sequence on every machine and every Node version: recorded fixtures can be
 * regenerated bit for bit. Not for anything security-related.
 */

/** mulberry32: returns a function giving floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Mixes numbers and strings into one 32-bit seed (FNV-1a over the parts, then a
 * murmur3 finalizer). Used to give every generated case its own stream, so case
 * N stays the same whatever `count` is.
 */
export function hashSeed(...parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = `${typeof part}:${String(part)}|`;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Whitespace that JavaScript's `String.prototype.trim` removes: ASCII
 * whitespace, line terminators, the Unicode space separators and the BOM.
 * A string made only of these is "blank" in the spec's sense.
 */
export const BLANK_CHARS: readonly string[] = [
  ' ', '\t', '\n', '\r', '\v', '\f',
  '\u00a0', // no-break space
  '\u1680', // ogham space mark
  '\u2000', '\u2002', '\u2003', '\u2009', '\u200a',
  '\u2028', '\u2029', // line / paragraph separator
  '\u202f', '\u205f', '\u3000',
  '\ufeff', // BOM (trimmed by JS, not a Unicode space)
];

/** Blank strings people actually meet, used more often than random mixes. */
export const COMMON_BLANKS: readonly string[] = ['', ' ', '  ', '\n', '\n\n', '\t', '\n\t', '\r\n', ' \n ', '\u00a0', '\u2003', '\u3000'];

/** Characters that look blank but `trim` keeps: a text made of them is NOT blank. */
export const NON_BLANK_INVISIBLES: readonly string[] = ['\u200b', '\u200c', '\u200d', '\u2060', '\u180e'];

const WORDS: readonly string[] = [
  'the', 'report', 'is', 'ready', 'please', 'check', 'file', 'numbers', 'look', 'fine', 'today', 'we',
  'can', 'ship', 'it', 'after', 'lunch', 'thanks', 'for', 'update', 'build', 'passed', 'again', 'later',
  'meeting', 'notes', 'draft', 'version', 'two', 'seems', 'good', 'to', 'me', 'sure', 'done', 'next',
  'week', 'deploy', 'staging', 'logs', 'show', 'nothing', 'odd', 'here', 'summary', 'below', 'okay',
];

const UNICODE_WORDS: readonly string[] = [
  'café', 'naïve', 'Straße', 'über', '日本語', '中文', 'Ελληνικά', 'русский', 'עברית', 'العربية',
  'emoji 🎉', '👍🏽', 'a\u0301', 'ﬁle', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
];

export type WeightedEntry<T> = readonly [value: T, weight: number];

export class Random {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.#next();
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`int(${min}, ${max}): empty range`);
    return min + Math.floor(this.#next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.#next() * items.length)] as T;
  }

  /** Picks a value with probability proportional to its weight (weights >= 0, at least one > 0). */
  weighted<T>(entries: readonly WeightedEntry<T>[]): T {
    let total = 0;
    for (const [, weight] of entries) total += weight;
    if (!(total > 0)) throw new RangeError('weighted pick needs a positive total weight');
    let roll = this.#next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return entries[entries.length - 1]![0];
  }

  /** A Fisher-Yates shuffled copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = items.slice();
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  }

  /** An independent stream derived from this one and a label (does not depend on later draws). */
  fork(label: string | number): Random {
    return new Random(hashSeed(this.int(0, 0xffffffff), label));
  }

  /** `length` characters from `alphabet`. */
  fromAlphabet(alphabet: string, length: number): string {
    const chars = Array.from(alphabet);
    let out = '';
    for (let i = 0; i < length; i++) out += this.pick(chars);
    return out;
  }

  /** Lower-case letters and digits. */
  alphanumeric(length: number): string {
    return this.fromAlphabet('abcdefghijklmnopqrstuvwxyz0123456789', length);
  }

  /**
   * A blank string (empty after `trim`). Mostly the common ones; sometimes a
   * random mix of 1..`maxLength` trimmable characters, Unicode ones included.
   */
  blank(maxLength = 4): string {
    if (this.chance(0.6)) return this.pick(COMMON_BLANKS);
    let out = '';
    const length = this.int(1, maxLength);
    for (let i = 0; i < length; i++) out += this.pick(BLANK_CHARS);
    return out;
  }

  /** A short ordinary sentence (ASCII words, capitalized, ending in a period). */
  sentence(minWords = 2, maxWords = 8): string {
    const count = this.int(minWords, maxWords);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(this.pick(WORDS));
    const text = words.join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  }

  /** A sentence with some non-ASCII words mixed in (accents, CJK, RTL, emoji, combining marks). */
  unicodeSentence(minWords = 2, maxWords = 6): string {
    const count = this.int(minWords, maxWords);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(this.chance(0.5) ? this.pick(UNICODE_WORDS) : this.pick(WORDS));
    return words.join(' ');
  }

  /** `text` with blank padding on one or both sides (the padding may be Unicode whitespace). */
  padded(text: string): string {
    const side = this.int(0, 2);
    const pad = (): string => {
      const blank = this.blank(3);
      return blank === '' ? ' ' : blank;
    };
    return `${side !== 1 ? pad() : ''}${text}${side !== 0 ? pad() : ''}`;
  }

  /** A string that only looks blank: invisible characters `trim` keeps, maybe around blanks. */
  invisibleNonBlank(): string {
    const core = this.pick(NON_BLANK_INVISIBLES);
    return this.chance(0.5) ? core : `${this.pick(COMMON_BLANKS)}${core}${this.pick(COMMON_BLANKS)}`;
  }
}

export function createRandom(seed: number): Random {
  return new Random(seed);
}
