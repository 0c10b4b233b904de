import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forkState, NEVER_FORK, Unforkable, type ForkMaps } from '../../lib/fork-state.ts';

class Counter {
  readonly seen = new Map<string, number[]>();
  readonly ids = new Set<string>();
  held: object[] = [];
  constructor(readonly count: (name: string) => void) {}
}

const noMaps = (functions: Map<unknown, unknown> = new Map(), shared: (value: object) => boolean = () => false): ForkMaps => ({ functions, objects: new Map(), shared });

test('a fork copies maps, sets, arrays and records, keeps the prototype and the shape of the graph, and shares what it is told to', () => {
  const count = (): void => {};
  const countCopy = (): void => {};
  const message = { role: 'user', content: 'hi' };
  const original = new Counter(count);
  const list = [1];
  original.seen.set('a', list);
  original.ids.add('x');
  original.held.push(message, list);
  const [copy] = forkState([original], noMaps(new Map([[count, countCopy]]), (value) => value === message));
  assert.ok(copy instanceof Counter);
  assert.equal(copy.count, countCopy);
  assert.notEqual(copy.seen, original.seen);
  assert.deepEqual([...copy.seen], [['a', [1]]]);
  // One object reached twice is copied once.
  assert.equal(copy.seen.get('a'), copy.held[1]);
  assert.equal(copy.held[0], message);
  copy.ids.add('y');
  copy.seen.get('a')!.push(2);
  assert.deepEqual([...original.ids], ['x']);
  assert.deepEqual(list, [1]);
});

test('a closure it was not told about, a promise or an object marked never-fork makes the fork fail', () => {
  assert.throws(() => forkState([{ push: () => {} }], noMaps()), Unforkable);
  assert.throws(() => forkState([{ wait: Promise.resolve() }], noMaps()), Unforkable);
  assert.throws(() => forkState([{ file: { [NEVER_FORK]: true } }], noMaps()), Unforkable);
  assert.throws(() => forkState([{ pattern: /a/g }], noMaps()), Unforkable);
});

test('frozen objects and stateless regular expressions are shared, typed arrays copied', () => {
  const frozen = Object.freeze({ sizeOf: () => 1 });
  const pattern = /^a+$/;
  const table = new Uint32Array([1, 2]);
  const [copy] = forkState([{ frozen, pattern, table }], noMaps());
  assert.equal(copy!.frozen, frozen);
  assert.equal(copy!.pattern, pattern);
  assert.notEqual(copy!.table, table);
  assert.deepEqual([...copy!.table], [1, 2]);
});
