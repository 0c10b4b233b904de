import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadPlanWriter } from '../../lib/session/read-plan.ts';

test('the packed plan gives back every offset, length and type in order, past 4 GiB and backwards', () => {
  const entries: Array<[number, number, number]> = [
    [0, 120, 0],
    [121, 5500, 6],
    [200, 0, 15], // before the previous line's end: a negative gap
    [2 ** 32 + 17, 70_000, 4],
    [2 ** 40, 2 ** 31, 0],
    [2 ** 40 + 2 ** 31 + 1, 3, 1],
    [5, 5, 2],
  ];
  const writer = new ReadPlanWriter();
  for (const [offset, length, type] of entries) writer.push(offset, length, type);
  const plan = writer.finish();
  assert.equal(plan.length, entries.length);
  for (let pass = 0; pass < 2; pass++) {
    const cursor = plan.cursor();
    const read: Array<[number, number, number]> = [];
    while (cursor.next()) read.push([cursor.offset, cursor.length, cursor.type]);
    assert.deepEqual(read, entries, 'each cursor walks the whole plan');
  }
  assert.throws(() => writer.push(0, 1, 16), RangeError);
});

test('consecutive lines of a few KB take about 4 bytes an entry', () => {
  const writer = new ReadPlanWriter();
  let offset = 5 * 2 ** 30; // a file over 4 GiB, where plain arrays took 13 bytes an entry
  for (let i = 0; i < 200_000; i++) {
    const length = 2000 + ((i * 7919) % 9000);
    writer.push(offset, length, 0);
    offset += length + 1 + (i % 10 === 0 ? 300 : 0); // now and then a line off the path
  }
  const plan = writer.finish();
  assert.ok(plan.byteLength <= 200_000 * 4.5, `${plan.byteLength} bytes for 200,000 entries`);
});

test('the consuming walk reads the same entries and gives back each block it has left', () => {
  const writer = new ReadPlanWriter();
  const entries: Array<[number, number, number]> = [];
  let offset = 0;
  for (let i = 0; i < 100_000; i++) {
    const length = 3000 + (i % 500);
    entries.push([offset, length, i % 16]);
    writer.push(offset, length, i % 16);
    offset += length + 1;
  }
  const plan = writer.finish();
  const full = plan.byteLength;
  assert.ok(full > 5 * 65_536, `${full} bytes: several blocks`);
  const cursor = plan.consume();
  const read: Array<[number, number, number]> = [];
  let halfway = 0;
  while (cursor.next()) {
    read.push([cursor.offset, cursor.length, cursor.type]);
    if (read.length === 50_000) halfway = plan.byteLength;
  }
  assert.deepEqual(read, entries);
  assert.ok(halfway < full * 0.6, `halfway the plan still held ${halfway} of ${full} bytes`);
  assert.equal(plan.byteLength, 0, 'every block is given back at the end');
});

test('a plan made with lines gives back each line number, after gaps and backwards', () => {
  const entries: Array<[number, number, number, number]> = [
    [0, 10, 0, 2],
    [11, 20, 1, 3],
    [40, 5, 0, 5], // a blank line skipped
    [2 ** 33, 7, 2, 900_000],
    [12, 3, 0, 4], // a branch read back: an earlier line
    [16, 3, 0, 5],
  ];
  const writer = new ReadPlanWriter(true);
  for (const [offset, length, type, line] of entries) writer.push(offset, length, type, line);
  const plan = writer.finish();
  assert.equal(plan.withLines, true);
  const cursor = plan.consume();
  const read: Array<[number, number, number, number]> = [];
  while (cursor.next()) read.push([cursor.offset, cursor.length, cursor.type, cursor.line]);
  assert.deepEqual(read, entries);
  // Consecutive lines cost one byte more an entry (counted in 64 KiB blocks), not an Int32Array's four.
  const bare = new ReadPlanWriter();
  const lined = new ReadPlanWriter(true);
  for (let i = 0; i < 200_000; i++) {
    bare.push(i * 3001, 3000, 0);
    lined.push(i * 3001, 3000, 0, i + 2);
  }
  const more = lined.finish().byteLength - bare.finish().byteLength;
  assert.ok(more >= 200_000 - 65_536 && more <= 200_000 + 65_536, `${more} bytes more for 200,000 line numbers`);
});
