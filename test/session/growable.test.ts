import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Blocks, OffsetBlocks, SteppedNumbers, float64s, int32s, uint32s, uint8s } from '../../lib/session/growable.ts';

test('push, get and set across block boundaries', () => {
  const values = int32s();
  for (let i = 0; i < 200_000; i++) assert.equal(values.push(i * 3), i);
  assert.equal(values.length, 200_000);
  assert.equal(values.get(65_535), 65_535 * 3);
  assert.equal(values.get(65_536), 65_536 * 3);
  values.set(131_072, -7);
  assert.equal(values.get(131_072), -7);
  assert.equal(values.byteLength, 4 * 65_536 * 4);
});

test('reserve makes slots addressable with the fill value', () => {
  const names = int32s(-1);
  names.reserve(70_000);
  assert.equal(names.length, 70_001);
  assert.equal(names.get(0), -1);
  assert.equal(names.get(70_000), -1);
  names.reserve(5);
  assert.equal(names.length, 70_001, 'reserving below the length changes nothing');
});

test('the typed-array flavours hold their ranges', () => {
  const offsets = float64s();
  offsets.push(2 ** 40 + 3);
  assert.equal(offsets.get(0), 2 ** 40 + 3);
  const hashes = uint32s();
  hashes.push(0xffffffff);
  assert.equal(hashes.get(0), 0xffffffff);
  const flags = uint8s();
  flags.push(300);
  assert.equal(flags.get(0), 300 & 0xff);
  assert.ok(new Blocks((n) => new Int32Array(n)) instanceof Blocks);
});

test('offsets past 4 GiB keep 4 bytes an entry and read back exactly, wherever the high part changes', () => {
  const offsets = new OffsetBlocks();
  const values: number[] = [];
  let at = 2 ** 32 - 3 * 5000;
  for (let i = 0; i < 70_000; i++) {
    values.push(at);
    at += 5000 + (i % 7);
    if (i === 40_000) at += 2 ** 33; // one line longer than 8 GiB
  }
  values.push(17, 2 ** 40, 2 ** 40 + 1); // a step back, then far ahead
  for (const value of values) offsets.push(value);
  assert.equal(offsets.length, values.length);
  for (let i = 0; i < values.length; i++) assert.equal(offsets.get(i), values[i], `entry ${i}`);
  assert.ok(offsets.byteLength <= 2 * 65_536 * 4 + 200, `${offsets.byteLength} bytes`);
});

test('stepped numbers read back exactly, however the step breaks, and keep only the breaks', () => {
  const lines = new SteppedNumbers();
  const values: number[] = [];
  let line = 2; // a header on line 1
  for (let i = 0; i < 100_000; i++) {
    values.push(line);
    line += i % 10_000 === 9_999 ? 3 : 1; // now and then two lines that make no entry
  }
  for (const value of values) lines.push(value);
  assert.equal(lines.length, values.length);
  for (let i = 0; i < values.length; i++) assert.equal(lines.get(i), values[i], `entry ${i}`);
  assert.ok(lines.byteLength <= 11 * 16, `${lines.byteLength} bytes for 11 breaks`);

  const everyOther = new SteppedNumbers();
  for (let i = 0; i < 1000; i++) everyOther.push(2 * i + 1); // a blank line after every entry
  for (let i = 0; i < 1000; i++) assert.equal(everyOther.get(i), 2 * i + 1);
  assert.equal(new SteppedNumbers().length, 0);
});

test('releaseBefore gives back only the blocks wholly below the index', () => {
  const values = uint8s();
  for (let i = 0; i < 3 * 65_536 + 10; i++) values.push(i & 255);
  values.releaseBefore(65_536 + 5);
  assert.equal(values.byteLength, 3 * 65_536, 'the first block is gone, the one holding the index stays');
  assert.equal(values.get(65_536), 0);
  assert.equal(values.get(65_536 + 5), 5);
  assert.throws(() => values.get(10), TypeError);
  values.releaseBefore(10);
  assert.equal(values.byteLength, 3 * 65_536, 'releasing less than before changes nothing');
  values.releaseBefore(10 ** 9);
  assert.equal(values.byteLength, 0);
});
