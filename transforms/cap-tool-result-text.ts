/**
 * cap-tool-result-text: our rule, on with the `maxToolResultBytes` option
 * (`--max-tool-result-bytes N`); off by default.
 *
 * Why: one huge tool output (a whole log, a minified bundle) wedges a session: every later
 * request carries it, and compaction cannot shrink what it must keep verbatim (openclaw#113701).
 *
 * Invariant: the text of every `toolResult` (its text blocks, or its string content) is at most
 * N UTF-8 bytes. A result over N keeps its head and its tail, about half each, and between them
 * one marker, `[... 1234 bytes of tool output removed ...]`, the marker counted in the N, so a
 * second pass changes nothing. Cuts fall between characters, never inside one. Only text: images
 * and any other block stay, and no other role is read, so the signed parts of a turn (thinking
 * signatures, thought signatures, which live on assistant turns) are never touched.
 *
 * Unit: message (stateless). Counters: `resultsCut`, `bytesRemoved`.
 */
import type { MessageRule } from '../lib/rule.ts';
import type { ResolvedHygieneOptions } from '../lib/options.ts';
import type { Message } from '../lib/types.ts';
import { isRecord } from '../lib/types.ts';

export function cutMarker(removed: number): string {
  return `\n[... ${removed} bytes of tool output removed ...]\n`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The first at most `limit` bytes of `bytes`, ending on a character boundary. */
function headOf(bytes: Uint8Array, limit: number): Uint8Array {
  let end = Math.min(limit, bytes.length);
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** The last at most `limit` bytes of `bytes`, starting on a character boundary. */
function tailOf(bytes: Uint8Array, limit: number): Uint8Array {
  let start = Math.max(0, bytes.length - limit);
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return bytes.subarray(start);
}

interface Piece {
  /** Index in the content array, or -1 for string content. */
  readonly at: number;
  readonly text: string;
}

/**
 * The texts cut to `max` bytes in all: the head from the first texts, the tail from the last,
 * the marker at the end of the text where the head stops. Undefined when they fit.
 */
export function cutTexts(texts: readonly string[], max: number): { texts: string[]; removed: number } | undefined {
  const sizes = texts.map(byteLength);
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= max) return undefined;
  // The marker's length with the largest count it can show (the total), so the final one fits.
  const keep = Math.max(0, max - byteLength(cutMarker(total)));
  let headBudget = Math.ceil(keep / 2);
  let tailBudget = keep - headBudget;
  const out: string[] = texts.map(() => '');
  let kept = 0;
  let headEnd = 0;
  for (let i = 0; i < texts.length && headBudget > 0; i++) {
    const bytes = encoder.encode(texts[i]!);
    const head = headOf(bytes, headBudget);
    out[i] = decoder.decode(head);
    kept += head.length;
    headBudget -= head.length;
    headEnd = i;
    if (head.length < bytes.length) break;
  }
  const tails: string[] = texts.map(() => '');
  let tailWhole = true;
  for (let i = texts.length - 1; i > headEnd && tailBudget > 0; i--) {
    const bytes = encoder.encode(texts[i]!);
    const tail = tailOf(bytes, tailBudget);
    tails[i] = decoder.decode(tail);
    kept += tail.length;
    tailBudget -= tail.length;
    if (tail.length < bytes.length) {
      tailWhole = false;
      break;
    }
  }
  // Every later text kept whole and budget left: the tail goes on into the head's own text.
  if (tailWhole && tailBudget > 0) {
    const bytes = encoder.encode(texts[headEnd]!);
    const tail = tailOf(bytes.subarray(byteLength(out[headEnd]!)), tailBudget);
    tails[headEnd] = decoder.decode(tail);
    kept += tail.length;
  }
  const removed = total - kept;
  out[headEnd] = out[headEnd]! + cutMarker(removed) + tails[headEnd]!;
  for (let i = headEnd + 1; i < texts.length; i++) out[i] = tails[i]!;
  return { texts: out, removed };
}

/** The result with its text cut to `max` bytes; the same object when it fits or is no result. */
export function capToolResultText(message: Message, max: number): { message: Message; removed: number } {
  if (message.role !== 'toolResult') return { message, removed: 0 };
  const content = message.content;
  let pieces: Piece[];
  if (typeof content === 'string') pieces = [{ at: -1, text: content }];
  else if (Array.isArray(content)) {
    pieces = [];
    content.forEach((block: unknown, at: number) => {
      if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') pieces.push({ at, text: block.text });
    });
  } else return { message, removed: 0 };
  const cut = cutTexts(pieces.map((p) => p.text), max);
  if (cut === undefined) return { message, removed: 0 };
  if (typeof content === 'string') return { message: { ...message, content: cut.texts[0]! }, removed: cut.removed };
  const blocks = [...(content as unknown[])];
  pieces.forEach((piece, i) => {
    blocks[piece.at] = { ...(blocks[piece.at] as Record<string, unknown>), text: cut.texts[i]! };
  });
  // Texts emptied by the cut (whole blocks in the middle) go; images and other blocks stay.
  const kept = blocks.filter((block, at) => !(pieces.some((p) => p.at === at) && (block as { text: string }).text === ''));
  return { message: { ...message, content: kept } as Message, removed: cut.removed };
}

export function capToolResultTextEnabled(_policy: unknown, options: ResolvedHygieneOptions): boolean {
  return options.maxToolResultBytes !== undefined;
}

export const capToolResultTextRule: MessageRule = {
  unit: 'message',
  meta: {
    name: 'cap-tool-result-text',
    summary: 'With --max-tool-result-bytes N: a tool result whose text is over N bytes keeps its head and tail, with a marker naming the bytes removed between them (text only).',
    counters: ['resultsCut', 'bytesRemoved'],
  },
  apply(message, ctx) {
    const max = ctx.options.maxToolResultBytes;
    if (max === undefined) return message;
    const { message: out, removed } = capToolResultText(message, max);
    if (out !== message) {
      ctx.count('resultsCut');
      ctx.count('bytesRemoved', removed);
    }
    return out;
  },
};
