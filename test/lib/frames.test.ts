import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { SpillQueue, SpillStore, approximateSize, messageCodec } from '../../lib/frames.ts';
import type { Message } from '../../lib/types.ts';

// Some lines carry multi-byte characters: the spill file counts lines in bytes, not characters.
const message = (i: number): Message => ({ role: 'user', content: `message ${i} ${(i % 3 === 0 ? 'é€😀' : 'x').repeat(i % 50)}` });

describe('SpillQueue', () => {
  for (const budget of [64, 1024, 1 << 30]) {
    test(`keeps FIFO order and length across spills (budget ${budget} bytes)`, () => {
      const queue = new SpillQueue<Message>(messageCodec, { budgetBytes: budget });
      const out: Message[] = [];
      let next = 0;
      for (let i = 0; i < 500; i++) {
        queue.push(message(i));
        if (i % 7 === 3) {
          // peek before shift: the peeked entry still counts in length
          const before = queue.length;
          assert.deepEqual(queue.peek(), message(next));
          assert.equal(queue.length, before);
          out.push(queue.shift()!);
          next++;
          assert.equal(queue.length, before - 1);
        }
      }
      while (queue.length > 0) out.push(queue.shift()!);
      assert.equal(queue.peek(), undefined);
      assert.equal(queue.shift(), undefined);
      assert.deepEqual(out, Array.from({ length: 500 }, (_, i) => message(i)));
      if (budget < 2000) assert.ok(queue.spilledEntries > 100, `spilled ${queue.spilledEntries}`);
      else assert.equal(queue.spilledEntries, 0);
      queue.dispose();
    });
  }

  test('the file is reused once drained, so a long run does not grow it', () => {
    const queue = new SpillQueue<Message>(messageCodec, { budgetBytes: 256 });
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 50; i++) queue.push(message(i));
      for (let i = 0; i < 50; i++) assert.deepEqual(queue.shift(), message(i));
    }
    assert.ok(queue.spilledEntries > 500);
    queue.dispose();
  });

  test('lines shorter and longer than one read come back whole and in order', () => {
    // Around the spill file's 1 MiB read: many short lines, lines that straddle it, and lines past it.
    const sizes = [10, 700_000, 400_000, 1 << 20, (1 << 20) + 1, 3, 2_500_000, 5, 5, 900_000];
    const messages = sizes.map((size, i): Message => ({ role: 'user', content: `${i}:${(i % 2 === 0 ? 'ü' : 'a').repeat(size)}` }));
    const queue = new SpillQueue<Message>(messageCodec, { budgetBytes: 1024 });
    for (const entry of messages) queue.push(entry);
    assert.ok(queue.spilledEntries >= messages.length - 1, `spilled ${queue.spilledEntries}`);
    for (const entry of messages) assert.deepEqual(queue.shift(), entry);
    assert.equal(queue.length, 0);
    queue.dispose();
  });

  test('adjust accounts late-attached bytes and can trigger a spill', () => {
    const queue = new SpillQueue<Message>(messageCodec, { budgetBytes: 10_000 });
    for (let i = 0; i < 5; i++) queue.push(message(i));
    assert.equal(queue.spilledEntries, 0);
    queue.adjust(20_000);
    assert.ok(queue.spilledEntries > 0);
    queue.dispose();
  });
});

describe('SpillStore', () => {
  test('returns what was put, by handle, in any order', () => {
    const store = new SpillStore();
    const handles = Array.from({ length: 100 }, (_, i) => store.put(message(i)));
    for (let i = 99; i >= 0; i -= 3) assert.deepEqual(store.get(handles[i]!), message(i));
    store.dispose();
  });
});

test('approximateSize grows with content and stops at its cap', () => {
  assert.ok(approximateSize({ a: 'x'.repeat(1000) }) > approximateSize({ a: 'x' }));
  assert.ok(approximateSize(Array.from({ length: 10_000 }, () => 'abc'), 1000) < 2000);
});
