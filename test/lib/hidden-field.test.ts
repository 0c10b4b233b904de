import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hiddenField } from '../../lib/hidden-field.ts';

test('a hidden field stays with its object only, and out of JSON, spreads, keys and clones', () => {
  const line = hiddenField<string>();
  const message = { role: 'user', content: 'hi' };
  line.set(message, 'the line');
  assert.equal(line.get(message), 'the line');
  assert.equal(JSON.stringify(message), '{"role":"user","content":"hi"}');
  assert.equal(line.get({ ...message }), undefined);
  assert.equal(line.get(Object.assign({}, message)), undefined);
  assert.equal(line.get(structuredClone(message)), undefined);
  assert.deepEqual(Reflect.ownKeys(message), ['role', 'content']);
});

test('set again replaces the value; fields are independent; non-objects have none', () => {
  const a = hiddenField<number>();
  const b = hiddenField<number>();
  const target = {};
  a.set(target, 1);
  a.set(target, 2);
  assert.equal(a.get(target), 2);
  assert.equal(b.get(target), undefined);
  b.set(target, 3);
  assert.deepEqual([a.get(target), b.get(target)], [2, 3]);
  for (const value of [null, undefined, 5, 'text', true]) assert.equal(a.get(value), undefined);
  const list = [1];
  a.set(list, 7);
  assert.equal(a.get(list), 7);
  assert.equal(JSON.stringify(list), '[1]');
});
