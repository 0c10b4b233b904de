import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { freshCopy, NotJsonLike, privateCopy, sameJson } from '../../lib/incremental/same-json.ts';
import { matchesTape, tapeOf } from '../../lib/incremental/value-tape.ts';

const matches = (kept: unknown, value: unknown): boolean => matchesTape(value, tapeOf(privateCopy(kept)));

test('a tape tells apart what sameJson tells apart', () => {
  const message = { role: 'user', content: [{ type: 'text', text: 'a' }], n: 1 };
  assert.ok(matches(message, structuredClone(message)));
  assert.ok(!matches({ a: 1, b: 2 }, { b: 2, a: 1 }), 'key order');
  assert.ok(!matches({ a: 1, b: 1 }, { b: 1, a: 1 }), 'key order, same values');
  assert.ok(!matches({ a: 1 }, { b: 1 }), 'a renamed key');
  assert.ok(!matches({ a: 1 }, { a: 1, b: undefined }), 'an undefined member');
  assert.ok(!matches({ a: 1, b: undefined }, { a: 1 }), 'a missing member');
  assert.ok(!matches({ a: 0 }, { a: -0 }), '-0');
  assert.ok(matches({ a: Number.NaN }, { a: Number.NaN }), 'NaN');
  // eslint-disable-next-line no-sparse-arrays
  assert.ok(!matches([1, , 3], [1, undefined, 3]), 'a hole');
  // eslint-disable-next-line no-sparse-arrays
  assert.ok(!matches([1, undefined, 3], [1, , 3]), 'an undefined element');
  assert.ok(!matches({ a: 'x' }, { a: 'y' }));
  assert.ok(!matches({ a: [1, 2] }, { a: [1, 2, 3] }));
  assert.ok(!matches({ a: {} }, { a: [] }));
  assert.ok(!matches({ a: [] }, { a: {} }));
  assert.ok(!matches({ a: { b: 1 } }, { a: 1 }));
  assert.ok(!matches({ a: 1 }, { a: { b: 1 } }));
  assert.ok(!matches({ a: 1 }, { a: new Date(0) }), 'a class instance is never vouched for');
  assert.ok(!matches({}, Object.create(null)), 'a null prototype');
  assert.ok(matches(Object.create(null), Object.create(null)));
});

/** Values that privateCopy takes, with the oddities sameJson is strict about: -0, NaN, undefined members, holes, null prototypes. */
const keptValue = fc
  .anything({ withNullPrototype: true, withSparseArray: true, maxDepth: 4, maxKeys: 5, values: [fc.constantFrom(0, -0, Number.NaN, undefined, null, '', 'a', 'b', 1, true)] })
  .filter((value) => {
    try {
      privateCopy(value);
      return true;
    } catch (error) {
      if (error instanceof NotJsonLike) return false;
      throw error;
    }
  });

/** A value near `kept`: an exact clone, or a clone with one change somewhere (which may or may not change its JSON). */
function nearby(kept: unknown, change: number, replacement: unknown): unknown {
  const copy: unknown = structuredClone(kept);
  const objects: object[] = [];
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    objects.push(value);
    for (const key of Object.keys(value)) visit((value as Record<string, unknown>)[key]);
  };
  visit(copy);
  if (change < 0 || objects.length === 0) return copy;
  const target = objects[change % objects.length] as Record<string, unknown>;
  const keys = Object.keys(target);
  switch (change % 5) {
    case 0:
      if (keys.length > 0) target[keys[change % keys.length]!] = replacement;
      break;
    case 1: {
      // Move the first key to the end: same members, other order (unless it is an array index).
      const first = keys[0];
      if (first !== undefined) {
        const value = target[first];
        delete target[first];
        target[first] = value;
      }
      break;
    }
    case 2:
      target[`k${change}`] = replacement;
      break;
    case 3: {
      // Rename the last key, keeping its value and place.
      const last = keys[keys.length - 1];
      if (last !== undefined && !Array.isArray(target)) {
        const value = target[last];
        delete target[last];
        target[`${last}_`] = value;
      }
      break;
    }
    default:
      if (keys.length > 0) delete target[keys[keys.length - 1]!];
  }
  return copy;
}

test('property: a tape answers as sameJson does, on clones, changed clones and unrelated values', () => {
  fc.assert(
    fc.property(keptValue, fc.integer({ min: -3, max: 1000 }), fc.anything({ maxDepth: 2 }), fc.boolean(), (kept, change, replacement, unrelated) => {
      const value = unrelated ? replacement : nearby(kept, change, replacement);
      const copy = privateCopy(kept);
      assert.equal(matchesTape(value, tapeOf(copy)), sameJson(copy, value));
      // structuredClone gives a null-prototype record Object's prototype; freshCopy keeps it.
      assert.ok(matchesTape(freshCopy(kept), tapeOf(copy)), 'an exact copy matches');
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 3000) },
  );
});
