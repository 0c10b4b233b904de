import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deleteKey } from '../../lib/young-maps.ts';

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

