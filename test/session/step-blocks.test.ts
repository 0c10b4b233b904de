import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_OFF_RUNS, MAX_RUNS, StepBlocks } from '../../lib/session/step-blocks.ts';
import { int32s } from '../../lib/session/growable.ts';

const BLOCK = 65_536;

/** Pushes every value into a StepBlocks and reads each one back. */
function roundTrip(values: readonly number[], fill = 0): StepBlocks {
  const column = new StepBlocks(fill);
  for (let i = 0; i < values.length; i++) assert.equal(column.push(values[i]!), i);
  assert.equal(column.length, values.length);
  for (let i = 0; i < values.length; i++) if (column.get(i) !== values[i]) assert.fail(`index ${i}: ${column.get(i)} instead of ${values[i]}`);
  return column;
}

/** Runs of one value - index in each full block, counted here the plain way. */
function runsOf(values: readonly number[]): number[] {
  const runs: number[] = [];
  for (let first = 0; first + BLOCK <= values.length; first += BLOCK) {
    let count = 0;
    for (let i = first; i < first + BLOCK; i++) if (i === first || values[i]! - i !== values[i - 1]! - (i - 1)) count++;
    runs.push(count);
  }
  return runs;
}

test('a column that steps with its index keeps its full blocks as one run each: 16 bytes, not 256 KiB', () => {
  // Parents of a session appended front to back: entry i's parent is name i - 1 (the first has none).
  const parents = Array.from({ length: 3 * BLOCK + 100 }, (_, i) => i - 1);
  const column = roundTrip(parents);
  assert.equal(column.blocksAsRuns, 3);
  assert.equal(column.byteLength, BLOCK * 4 + 3 * 16, 'only the block being filled is an array');
});

test('a shift of the step, branches and names with no entry start runs, and read back', () => {
  const values: number[] = [];
  // One name that is no entry's at 70,000 moves every later value by one; now and then a branch, and a -1.
  for (let i = 0; i < 2 * BLOCK + 5; i++) values.push(i % 997 === 0 ? -1 : i % 5_000 === 17 ? 12 : i < 70_000 ? i + 4 : i + 5);
  const column = roundTrip(values);
  assert.equal(column.blocksAsRuns, 2);
  const runs = runsOf(values);
  assert.equal(column.byteLength, BLOCK * 4 + (runs[0]! + runs[1]!) * 16);
});

test('a block with more runs than the limit stays an array', () => {
  let seed = 7;
  const random = Array.from({ length: BLOCK + 3 }, () => (seed = (Math.imul(seed, 1103515245) + 12345) | 0));
  assert.equal(roundTrip(random).blocksAsRuns, 0);
  // Steps 0, 1, 0, 1, ... for the first k values, then a step of 7: k + 1 runs.
  const withRuns = (k: number): number[] => Array.from({ length: BLOCK + 1 }, (_, i) => i + (i < k ? i % 2 : 7));
  assert.deepEqual(runsOf(withRuns(MAX_RUNS - 1)), [MAX_RUNS]);
  assert.equal(roundTrip(withRuns(MAX_RUNS - 1)).blocksAsRuns, 1);
  assert.equal(roundTrip(withRuns(MAX_RUNS)).blocksAsRuns, 0);
});

test('set on a block kept as runs: on them, off them, back on them, and too many turn it back into an array', () => {
  const column = new StepBlocks(-1);
  const model = int32s(-1);
  for (let i = 0; i < 2 * BLOCK; i++) {
    const value = i < 40_000 ? i + 10 : i + 11;
    column.push(value);
    model.push(value);
  }
  assert.equal(column.blocksAsRuns, 1);
  const check = (): void => {
    for (let i = 0; i < 2 * BLOCK; i++) if (column.get(i) !== model.get(i)) assert.fail(`index ${i}: ${column.get(i)} instead of ${model.get(i)}`);
  };
  const set = (index: number, value: number): void => {
    column.set(index, value);
    model.set(index, value);
  };
  set(5, 15); // on its run already
  set(6, -1);
  set(50_000, 99);
  check();
  assert.equal(column.byteLength, BLOCK * 4 + (2 + 2) * 16);
  set(6, 16); // back on its run
  check();
  assert.equal(column.byteLength, BLOCK * 4 + (2 + 1) * 16);
  for (let i = 100; i < 100 + MAX_OFF_RUNS + 1; i++) set(i, 0);
  assert.equal(column.blocksAsRuns, 0, 'too many off the runs: an array again');
  check();
  set(3, 4); // and set works on the array
  check();
});

test('the fill value stands for slots pushed as it', () => {
  const column = roundTrip(Array.from({ length: BLOCK + 10 }, (_, i) => (i === 9 ? -1 : i)), -1);
  assert.equal(column.get(9), -1);
  assert.equal(column.get(BLOCK + 9), BLOCK + 9);
});

test('released blocks can no longer be read, whether arrays or runs', () => {
  const column = roundTrip(Array.from({ length: 3 * BLOCK }, (_, i) => i));
  column.releaseBefore(BLOCK + 1);
  assert.throws(() => column.get(5), /index 5 was released/);
  assert.throws(() => column.set(5, 1), /released/);
  assert.equal(column.get(BLOCK + 1), BLOCK + 1, 'the block holding the index stays');
  column.releaseBefore(Infinity);
  assert.equal(column.byteLength, 0);
  assert.throws(() => column.get(3 * BLOCK - 1), /released/);
});
