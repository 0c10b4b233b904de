/**
 * bench:runner's growing-context measure (bench/runner-growth.ts): the prompt-cache share is the
 * byte share of the previous output that the next output starts with, and calls happen right
 * before each assistant message. A tiny real run checks the measure end to end.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callPoints, measureGrowth, prefixShare } from '../../bench/runner-growth.ts';
import { generateContext } from '../../bench/runner-context.ts';

test('the cache share is the byte prefix the next output keeps of the previous one', () => {
  assert.equal(prefixShare(['aaaa', 'bbbb'], ['aaaa', 'bbbb', 'cccc']), 1);
  assert.equal(prefixShare(['aaaa', 'bbbb'], ['aaaa', 'bbXX', 'cccc']), 6 / 8);
  assert.equal(prefixShare(['aaaa', 'bbbb'], ['Xaaa', 'bbbb']), 0);
  // Bytes, not UTF-16 units: 'é' is two bytes.
  assert.equal(prefixShare(['éé', 'ab'], ['éé', 'aX']), 5 / 6);
  assert.equal(prefixShare([], ['a']), 1);
});

test('calls happen right before each assistant message', () => {
  const history = [{ role: 'user' }, { role: 'assistant' }, { role: 'toolResult' }, { role: 'assistant' }, { role: 'user' }, { role: 'assistant' }];
  assert.deepEqual(callPoints(history, 0, 10), [1, 3, 5]);
  assert.deepEqual(callPoints(history, 2, 1), [3]);
});

test('a small real run: every call timed, shares within 0..1', async () => {
  const model = { provider: 'anthropic', api: 'anthropic-messages', id: 'claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com', reasoning: true };
  const history = generateContext(600, model, 16);
  const result = await measureGrowth(history, 200, 5, model);
  assert.equal(result.calls, 5);
  assert.ok(result.coldCpuMs > 0 && result.cpuP50Ms > 0);
  assert.ok(result.cacheShareMin > 0.5 && result.cacheShareMin <= result.cacheShareMean && result.cacheShareMean <= 1, JSON.stringify(result));
  // The floor's string compare covers every character of the last call's context.
  const lastEnd = callPoints(history, 200, 6).at(-1)!;
  let chars = 0;
  const count = (value: unknown): void => {
    if (typeof value === 'string') chars += value.length;
    else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) count(item);
  };
  count(history.slice(0, lastEnd));
  assert.equal(result.stringChars, chars);
  assert.ok(result.stringCompareMs >= 0 && result.readFloorMs >= 0);
});
