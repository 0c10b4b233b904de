import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshCopy, NotJsonLike, privateCopy, sameJson } from '../../lib/incremental/same-json.ts';

test('sameJson tells apart what a rule or the JSON of the output could tell apart', () => {
  const copy = (value: unknown): unknown => privateCopy(value);
  assert.ok(sameJson(copy({ role: 'user', content: [{ type: 'text', text: 'a' }], n: 1 }), { role: 'user', content: [{ type: 'text', text: 'a' }], n: 1 }));
  assert.ok(!sameJson(copy({ a: 1, b: 2 }), { b: 2, a: 1 }), 'key order');
  assert.ok(!sameJson(copy({ a: 1 }), { a: 1, b: undefined }), 'an undefined member');
  assert.ok(!sameJson(copy({ a: 0 }), { a: -0 }), '-0');
  assert.ok(sameJson(copy({ a: Number.NaN }), { a: Number.NaN }), 'NaN');
  // eslint-disable-next-line no-sparse-arrays
  assert.ok(!sameJson(copy([1, , 3]), [1, undefined, 3]), 'a hole');
  assert.ok(!sameJson(copy({ a: 'x' }), { a: 'y' }));
  assert.ok(!sameJson(copy({ a: [1, 2] }), { a: [1, 2, 3] }));
  assert.ok(!sameJson(copy({ a: {} }), { a: [] }));
  assert.ok(!sameJson(copy({ a: 1 }), { a: new Date(0) }), 'a class instance is never vouched for');
});

test('privateCopy shares no object with its source, is frozen all the way down, and refuses what is not JSON-like', () => {
  const source = { content: [{ type: 'text', text: 'a' }] };
  const copy = privateCopy(source) as typeof source;
  assert.deepEqual(copy, source);
  assert.notEqual(copy.content, source.content);
  assert.ok(Object.isFrozen(copy) && Object.isFrozen(copy.content) && Object.isFrozen(copy.content[0]));
  assert.throws(() => privateCopy({ at: new Date(0) }), NotJsonLike);
  assert.throws(() => privateCopy({ f: () => 1 }), NotJsonLike);
  const proto = privateCopy(JSON.parse('{"__proto__": {"x": 1}}')) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.deepEqual(Object.keys(proto), ['__proto__']);
});

test('freshCopy gives new objects all the way down', () => {
  const source = { content: [{ type: 'text', text: 'a' }], usage: { input: 1 } };
  const copy = freshCopy(source);
  assert.deepEqual(copy, source);
  assert.notEqual(copy.content[0], source.content[0]);
  assert.notEqual(copy.usage, source.usage);
});
