/**
 * What a stop that ends the process at once (a second Ctrl-C, a job that would not stop) can
 * still remove: the export's lock and the temporaries of the jobs under way are held in the
 * stop registry (lib/atomic-write.ts) while they exist, and removeTemporariesNow removes them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pendingRemovals, removeOnStop, removeTemporariesNow } from '../../lib/atomic-write.ts';
import { LOCK_NAME, acquireExportLock } from '../../lib/export/manifest.ts';

test('the export lock is held for removal on a stop from the moment it is taken until released', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-stop-cleanup-'));
  try {
    const lock = path.join(dir, LOCK_NAME);
    const release = await acquireExportLock(dir);
    assert.ok(pendingRemovals().includes(lock));
    await release();
    assert.ok(!pendingRemovals().includes(lock));
    assert.equal(existsSync(lock), false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('removeTemporariesNow removes every held file at once, synchronously', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'th-stop-cleanup-'));
  try {
    await acquireExportLock(dir);
    const temporary = path.join(dir, '.a.jsonl.th-tmp-1-0');
    await writeFile(temporary, 'partial');
    removeOnStop(temporary);
    removeOnStop(path.join(dir, 'never-made'));
    removeTemporariesNow();
    assert.equal(existsSync(path.join(dir, LOCK_NAME)), false);
    assert.equal(existsSync(temporary), false);
    assert.deepEqual(pendingRemovals(), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
