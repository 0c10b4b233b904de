import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGarbageAccountant, type GcFunction } from '../../lib/large-garbage.ts';

test('a major incremental collection starts each time the released characters pass the threshold', () => {
  const calls: unknown[] = [];
  const gc: GcFunction = (options) => calls.push(options);
  const accountant = createGarbageAccountant(gc, 100);
  accountant.released(60);
  assert.equal(calls.length, 0);
  accountant.released(40);
  assert.deepEqual(calls, [{ type: 'major', execution: 'async' }]);
  accountant.released(99);
  assert.equal(calls.length, 1, 'the count starts again after a collection');
  accountant.released(250);
  assert.equal(accountant.collections, 2);
});

test('without gc (node run without --expose-gc) it does nothing', () => {
  const accountant = createGarbageAccountant(undefined, 1);
  accountant.released(1_000_000);
  assert.equal(accountant.collections, 0);
});
