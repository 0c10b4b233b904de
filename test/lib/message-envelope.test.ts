import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isPlainMessageEnvelope } from '../../lib/message-envelope.ts';

const KEY = '"message":';

/** What the scan stands for: the envelope parsed, string-or-null members, its type "message". */
function byParse(line: string, at: number): boolean {
  let envelope: unknown;
  try {
    envelope = JSON.parse(line.slice(0, at) + KEY + '0}');
  } catch {
    return false;
  }
  if (typeof envelope !== 'object' || envelope === null) return false;
  const members = Object.entries(envelope).filter(([key]) => key !== 'message');
  return (envelope as { type?: unknown }).type === 'message' && members.every(([, value]) => value === null || typeof value === 'string');
}

function check(prefix: string): void {
  const line = prefix + KEY + '{"role":"user"}}';
  const at = line.indexOf(KEY);
  const scanned = isPlainMessageEnvelope(line, at);
  // The scan may give up on a valid envelope (the line is then parsed whole); it must never accept an invalid one.
  if (scanned) assert.equal(byParse(line, at), true, `accepted ${JSON.stringify(prefix)}`);
}

test('a writer\'s envelope is read; the type decides', () => {
  const line = '{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-07-23T10:00:01.000Z","message":{"role":"user"}}';
  assert.equal(isPlainMessageEnvelope(line, line.indexOf(KEY)), true);
  const custom = '{"type":"message","id":"x","type":"custom","message":{}}';
  assert.equal(isPlainMessageEnvelope(custom, custom.indexOf(KEY)), false, 'the last type wins');
  const back = '{"type":"custom","type":"message","message":{}}';
  assert.equal(isPlainMessageEnvelope(back, back.indexOf(KEY)), true);
  const nulled = '{"type":"message","type":null,"message":{}}';
  assert.equal(isPlainMessageEnvelope(nulled, nulled.indexOf(KEY)), false);
});

test('escapes, control characters and torn strings', () => {
  const cases: Array<[string, boolean]> = [
    ['{"type":"message","id":"a\\"b","', true],
    ['{"type":"message","id":"a\\u00e9\\n\\t\\/","', true],
    ['{"type":"message","id":"a\\x","', false],
    ['{"type":"message","id":"a\\u00g0","', false],
    ['{"type":"message","id":"a\u0001","', false],
    ['{"type":"message","id":"a\\', false],
    ['{"type":"mess\\u0061ge","', false],
    ['{"typ\\u0065":"message","', false],
    ['{"type":"message","n":1,"', false],
    ['{"type":"message", "id":"a","', false],
    ['{"type":"message","id":nul,"', false],
  ];
  for (const [prefix, expected] of cases) {
    const line = prefix.slice(0, -1) + KEY + '{}}';
    assert.equal(isPlainMessageEnvelope(line, line.indexOf(KEY)), expected, prefix);
  }
});

test('never accepts what JSON.parse refuses, on random envelopes', () => {
  const piece = fc.oneof(
    fc.constantFrom('"type"', '"message"', '"id"', '"x"', ':', ',', 'null', '"\\', '\\u', '"\\""', '{', '}', '1', ' ', '"a\u0000"', '"typ\\u0065"'),
    fc.string({ maxLength: 4 }),
    fc.string({ maxLength: 6 }).map((text) => JSON.stringify(text)),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
      check('{"type":"message",' + pieces.join(''));
      check('{' + pieces.join(''));
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 3000) },
  );
  fc.assert(
    fc.property(fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null))), fc.boolean(), (members, typed) => {
      const object = typed ? { type: 'message', ...members } : members;
      const prefix = JSON.stringify(object).slice(0, -1);
      const line = (prefix === '{' ? '{' : prefix + ',') + KEY + '{}}';
      const at = line.indexOf(KEY);
      // Keys and values without a "message": key inside are read in full and agree with the parse.
      if (at === (prefix === '{' ? 1 : prefix.length + 1)) assert.equal(isPlainMessageEnvelope(line, at), byParse(line, at) && !JSON.stringify(Object.keys(members)).includes('\\'));
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 3000) },
  );
});
