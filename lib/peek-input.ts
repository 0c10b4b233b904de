/**
 * Looks at the start of an input without consuming it: the first non-blank text (a BOM and
 * leading whitespace removed; '' for an input with none), and the whole input again from its
 * first byte. Format detection (JSONL or a JSON array, an array or a `{"messages": ...}`
 * wrapper) reads only this.
 */
import type { ByteSource } from './jsonl.ts';

export interface PeekedInput {
  readonly first: string;
  readonly input: AsyncGenerator<Buffer | string>;
}

export async function peekFirstText(source: ByteSource): Promise<PeekedInput> {
  const iterator = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  const seen: Array<Buffer | string> = [];
  let first = '';
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    seen.push(next.value);
    const text = typeof next.value === 'string' ? next.value : next.value.toString('utf8', 0, Math.min(next.value.length, 4096));
    first = text.replace(/^\uFEFF/, '').trimStart();
    if (first !== '') break;
  }
  async function* replay(): AsyncGenerator<Buffer | string> {
    yield* seen;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { first, input: replay() };
}
