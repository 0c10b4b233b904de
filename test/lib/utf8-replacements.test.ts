import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidUtf8Counter, replacementsIn } from '../../lib/utf8-replacements.ts';

const decode = (bytes: Buffer): string => bytes.toString('utf8');

test('counts the replacements decoding made, not a U+FFFD the input held', () => {
  const invalid = Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x28]); // a, a lone FF, b, a cut two-byte sequence
  assert.equal(replacementsIn(decode(invalid), invalid), 2);
  const genuine = Buffer.from('a\uFFFDb', 'utf8');
  assert.equal(replacementsIn(decode(genuine), genuine), 0);
  const both = Buffer.concat([genuine, Buffer.from([0xfe])]);
  assert.equal(replacementsIn(decode(both), both), 1);
  assert.equal(replacementsIn('plain ascii', Buffer.from('plain ascii')), 0);
});

test('a range of a larger buffer is judged on its own bytes', () => {
  const bytes = Buffer.concat([Buffer.from('x\uFFFD\n', 'utf8'), Buffer.from([0x80, 0x0a])]);
  const second = bytes.toString('utf8', 5, 6);
  assert.equal(replacementsIn(second, bytes, 5, 6), 1);
  assert.equal(replacementsIn(bytes.toString('utf8', 0, 4), bytes, 0, 4), 0);
});

test('the counter keeps lines, sequences and the first line numbers', () => {
  const counter = new InvalidUtf8Counter();
  assert.equal(counter.summary(), undefined);
  counter.note(3, 0);
  counter.note(4, 2);
  counter.note(9, 1);
  assert.deepEqual(counter.summary(), { lines: 2, sequences: 3, lineNumbers: [4, 9] });
});

test('a line decoded in pieces: a genuine U+FFFD cut between two pieces is still genuine', async () => {
  const { EncodedReplacements, replacementsBeyond } = await import('../../lib/utf8-replacements.ts');
  const bytes = Buffer.concat([Buffer.from('ab\uFFFDcd', 'utf8'), Buffer.from([0xff]), Buffer.from('\uFFFD', 'utf8')]);
  for (let cut = 0; cut <= bytes.length; cut++) {
    for (const size of [1, 2, 3]) {
      const counter = new EncodedReplacements();
      for (let at = 0; at < bytes.length; at += cut === 0 ? size : at < cut ? cut : size) counter.feed(bytes.subarray(at, Math.min(bytes.length, at + (cut === 0 ? size : at < cut ? cut : size))));
      assert.equal(counter.count, 2, `cut ${cut}, size ${size}`);
      assert.equal(replacementsBeyond(bytes.toString('utf8'), counter.count), 1);
    }
  }
});
