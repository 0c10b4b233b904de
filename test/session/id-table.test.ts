import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdTable } from '../../lib/session/id-table.ts';

test('interning gives one dense name per distinct id, hex and other ids alike', () => {
  const ids = new IdTable();
  const a = ids.intern('d6dd2b31');
  const b = ids.intern('msg-1');
  const c = ids.intern('01982a6e-5c00-7a3b-9d2e-4f1c8b7a6e01');
  assert.deepEqual([a, b, c], [0, 1, 2]);
  assert.equal(ids.intern('d6dd2b31'), a);
  assert.equal(ids.intern('msg-1'), b);
  assert.equal(ids.size, 3);
  assert.equal(ids.lookup('d6dd2b31'), a);
  assert.equal(ids.lookup('00000000'), -1);
  assert.equal(ids.lookup('nope'), -1);
  assert.equal(ids.idOf(a), 'd6dd2b31');
  assert.equal(ids.idOf(b), 'msg-1');
});

test('only 8 lowercase hex digits are packed: other spellings stay distinct ids', () => {
  const ids = new IdTable();
  const lower = ids.intern('abcdef12');
  const upper = ids.intern('ABCDEF12');
  const longer = ids.intern('abcdef123');
  const shorter = ids.intern('abcdef1');
  assert.equal(new Set([lower, upper, longer, shorter]).size, 4);
  assert.equal(ids.idOf(upper), 'ABCDEF12');
  assert.equal(ids.idOf(ids.intern('0000000a')), '0000000a');
});

test('internBytes agrees with intern', () => {
  const ids = new IdTable();
  const buffer = Buffer.from('xx"0badcafe"yy"mé-1"');
  assert.equal(ids.internBytes(buffer, 3, 11), ids.intern('0badcafe'));
  assert.equal(ids.internBytes(buffer, 15, 20), ids.intern('mé-1'));
});

test('a million hex ids: exact after every rehash, and small', () => {
  const ids = new IdTable();
  const idOf = (n: number): string => (Math.imul(n + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0');
  for (let n = 0; n < 1_000_000; n++) assert.equal(ids.intern(idOf(n)), n);
  for (let n = 0; n < 1_000_000; n += 9973) assert.equal(ids.lookup(idOf(n)), n);
  assert.equal(ids.idOf(123_456), idOf(123_456));
  // The newest ~100,000 in a 1 MiB table, the rest on disk behind 2 bytes of filter each (a table of them all took 12-16).
  assert.ok(ids.spilled > 850_000, `${ids.spilled} ids on disk`);
  const hexBytes = ids.byteLength - ids.entryOf.byteLength;
  assert.ok(hexBytes / 1_000_000 < 4, `${hexBytes / 1_000_000} bytes a name`);
});

test('entryOf starts at -1 for every name', () => {
  const ids = new IdTable();
  const name = ids.intern('x');
  assert.equal(ids.entryOf.get(name), -1);
  ids.entryOf.set(name, 4);
  assert.equal(ids.entryOf.get(name), 4);
});

test('a sealed table keeps entryOf and the ids it was asked to keep, and lets go of the rest', () => {
  const ids = new IdTable();
  const names = ['d6dd2b31', 'msg-1', '0000abcd'].map((id) => ids.intern(id));
  ids.entryOf.set(names[0]!, 4);
  const before = ids.byteLength;
  ids.seal([names[0]!, -1]);
  assert.ok(ids.byteLength < before, 'the hex table is gone');
  assert.equal(ids.idOf(names[0]!), 'd6dd2b31');
  assert.equal(ids.idOf(names[1]!), 'msg-1', 'other ids stay in their map');
  assert.throws(() => ids.idOf(names[2]!), /not kept/);
  assert.equal(ids.entryOf.get(names[0]!), 4);
  assert.equal(ids.size, 3);
  assert.throws(() => ids.lookup('d6dd2b31'), /sealed/);
  assert.throws(() => ids.intern('ffffffff'), /sealed/);
});

test('ids moved to disk keep their names: found again, looked up, named back, never made twice', () => {
  const ids = new IdTable(64);
  const hexOf = (n: number): string => (Math.imul(n + 7, 0x2545f491) >>> 0).toString(16).padStart(8, '0');
  const names: number[] = [];
  for (let n = 0; n < 1_000; n++) {
    names.push(ids.intern(hexOf(n)));
    // Now and then an id of another form, and an old hex id asked for again (a branch, a parent far back).
    if (n % 97 === 0) ids.intern(`msg-${n}`);
    if (n % 50 === 49) assert.equal(ids.intern(hexOf(n - 40)), names[n - 40], `id ${n - 40} again`);
  }
  const size = ids.size;
  assert.ok(ids.spilled >= 900, `${ids.spilled} hex ids on disk`);
  for (let n = 0; n < 1_000; n++) assert.equal(ids.intern(hexOf(n)), names[n], `id ${n} interned again`);
  assert.equal(ids.size, size, 'no id made a second name');
  assert.equal(ids.lookup(hexOf(5)), names[5]);
  assert.equal(ids.lookup(hexOf(999)), names[999]);
  assert.equal(ids.lookup(hexOf(1_000)), -1, 'an id never interned, though its filter may say maybe');
  assert.equal(ids.idOf(names[3]!), hexOf(3), 'named back from a run on disk');
  assert.equal(ids.idOf(names[999]!), hexOf(999), 'named back from the table');
  assert.equal(ids.idOf(ids.intern('msg-97')), 'msg-97');
  assert.throws(() => ids.idOf(size + 5), RangeError);
  ids.seal([names[3]!]);
  assert.equal(ids.idOf(names[3]!), hexOf(3));
  assert.throws(() => ids.idOf(names[4]!), /not kept/);
});
