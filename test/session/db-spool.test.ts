/**
 * The spool of a database session's decoded rows: what goes in comes back by offset, rows are
 * gathered into large writes yet readable at once, a row's seq is found from its offset, and
 * the file is gone from its directory the moment it exists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fstatSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { RowSpool } from '../../lib/session/db-spool.ts';
import { tempDir } from './helpers/files.ts';

function isOpen(fd: number): boolean {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
}

const row = (seq: number, size: number): Buffer => Buffer.from(JSON.stringify({ seq, text: 'é'.repeat(size) }));

test('rows come back by offset, small and larger than one write, before and after they are written out', async () => {
  const { dir, cleanup } = await tempDir('th-spool-');
  try {
    const spool = new RowSpool(dir);
    assert.deepEqual(await readdir(dir), [], 'unlinked as soon as it is opened');
    const sizes = [10, 3, 700_000, 1 << 20, 5, 2_000_000, 1];
    const placed = sizes.map((size, i) => {
      const bytes = row(100 + i * 2, size);
      return { bytes, offset: spool.append(bytes, 100 + i * 2) };
    });
    // Read back in another order: a read writes out what is still gathered.
    for (const { bytes, offset } of [...placed].reverse()) assert.equal(spool.text(offset, bytes.length), bytes.toString('utf8'));
    assert.equal(spool.size, placed.reduce((sum, { bytes }) => sum + bytes.length, 0));
    placed.forEach(({ offset }, i) => assert.equal(spool.seqAt(offset), 100 + i * 2));
    spool.reset();
    assert.equal(spool.size, 0);
    const again = row(7, 4);
    assert.equal(spool.append(again, 7), 0);
    assert.equal(spool.text(0, again.length), again.toString('utf8'));
    assert.equal(spool.seqAt(0), 7);
    const fd = spool.fd;
    spool.close();
    spool.close();
    // Closed off the main thread: the descriptor is gone once the pool has run the close.
    const deadline = Date.now() + 5000;
    while (isOpen(fd) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(isOpen(fd), false);
  } finally {
    await cleanup();
  }
});
