import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { Needle } from '../../lib/needle.ts';

/** What the anchor stands in for: repeated indexOf of the whole needle, each search from the end of the last match. */
function byWholeNeedle(buffer: Buffer, end: number, needle: Buffer): number[] {
  const view = buffer.subarray(0, end);
  const hits: number[] = [];
  for (let at = view.indexOf(needle); at >= 0; at = view.indexOf(needle, at + needle.length)) hits.push(at);
  return hits;
}

const NEEDLES: readonly [string, string][] = [
  ['"appendMode"', 'Mode"'],
  ['"compactionSummary"', 'Summa'],
  ['"excludeFromContext"', 'FromC'],
  // An anchor that occurs twice in its needle, and one at the needle's start.
  ['"aXbXc"', 'X'],
  ['Mode"Mode"', 'Mode"'],
];

test('finds what the whole needle finds, where the anchor also stands alone, overlaps and runs past the end', () => {
  const needle = new Needle('"appendMode"', 'Mode"');
  const text = 'Mode" {"appendMode":"side"} x"appendMode" "appendMode""appendMode" Mode" "append';
  const buffer = Buffer.from(text + 'Mode"', 'latin1');
  const hits: number[] = [];
  needle.findAll(buffer, text.length + 3, hits);
  assert.deepEqual(hits, byWholeNeedle(buffer, text.length + 3, needle.bytes));
  assert.equal(hits.length, 4);
});

test('an anchor that is not inside the needle, or too long to be searched by memchr, is refused', () => {
  assert.throws(() => new Needle('"image"', 'Mode'), RangeError);
  assert.throws(() => new Needle('"compactionSummary"', 'compactionS'), RangeError);
});

test('property: equal to repeated indexOf of the whole needle on random bytes with the needle and its pieces planted', () => {
  const pieces = NEEDLES.flatMap(([text, anchor]) => [text, anchor, text.slice(0, -1), text.slice(1), '"']);
  const chunk = fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 8 }), fc.constantFrom('\n', 'M', 'S', 'X', '{"type":"message"}'));
  fc.assert(
    fc.property(fc.integer({ min: 0, max: NEEDLES.length - 1 }), fc.array(chunk, { maxLength: 40 }), fc.nat(), (which, chunks, cut) => {
      const [text, anchor] = NEEDLES[which]!;
      const needle = new Needle(text, anchor);
      const buffer = Buffer.from(chunks.join(''), 'latin1');
      const end = buffer.length === 0 ? 0 : cut % (buffer.length + 1);
      const hits: number[] = [];
      needle.findAll(buffer, end, hits);
      assert.deepEqual(hits, byWholeNeedle(buffer, end, needle.bytes));
      const from = cut % (buffer.length + 2);
      assert.equal(needle.indexIn(buffer, from), buffer.indexOf(needle.bytes, from), `from ${from}`);
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 3000) },
  );
});

test('without an anchor the whole needle is searched', () => {
  const needle = new Needle('"image"');
  const buffer = Buffer.from('{"type":"image"} "image""image"', 'latin1');
  const hits: number[] = [];
  needle.findAll(buffer, buffer.length, hits);
  assert.deepEqual(hits, [8, 17, 24]);
});
