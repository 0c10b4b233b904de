import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roundOrder } from '../../bench/round-order.ts';

test('round 0 keeps the order; each later round starts one place further', () => {
  const cases = ['floor', 'anthropic', 'openai-responses'];
  assert.deepEqual(roundOrder(cases, 0), ['floor', 'anthropic', 'openai-responses']);
  assert.deepEqual(roundOrder(cases, 1), ['anthropic', 'openai-responses', 'floor']);
  assert.deepEqual(roundOrder(cases, 2), ['openai-responses', 'floor', 'anthropic']);
  assert.deepEqual(roundOrder(cases, 3), cases);
});

test('over as many rounds as cases, every case runs in every place once', () => {
  for (const count of [1, 2, 3, 4, 5]) {
    const cases = Array.from({ length: count }, (_, i) => i);
    for (let place = 0; place < count; place++) {
      const seen = Array.from({ length: count }, (_, round) => roundOrder(cases, round)[place]).sort((a, b) => a! - b!);
      assert.deepEqual(seen, cases, `${count} cases, place ${place}`);
    }
  }
  assert.deepEqual(roundOrder([], 3), []);
});
