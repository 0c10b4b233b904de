import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deleteKey, deleteValue } from '../../lib/young-maps.ts';

test('deleteKey keeps the map while it holds keys, and gives a new empty one when it deletes the last', () => {
  const map = new Map([
    ['a', 1],
    ['b', 2],
  ]);
  const kept = deleteKey(map, 'a');
  assert.equal(kept, map);
  assert.deepEqual([...kept], [['b', 2]]);
  // A key it does not hold changes nothing.
  assert.equal(deleteKey(kept, 'zzz'), map);
  const emptied = deleteKey(kept, 'b');
  assert.notEqual(emptied, map);
  assert.equal(emptied.size, 0);
  assert.equal(map.size, 0);
});

test('deleteValue does the same for a set', () => {
  const set = new Set([1, 2]);
  assert.equal(deleteValue(set, 1), set);
  const emptied = deleteValue(set, 2);
  assert.notEqual(emptied, set);
  assert.equal(emptied.size, 0);
});
