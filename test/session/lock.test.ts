import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { acquireSessionLock, isProcessAlive, lockPathFor } from '../../lib/session/lock.ts';
import { tempDir } from './helpers/files.ts';

test('the lock file is <realpath(dir)>/<basename>.lock with OpenClaw content, removed on release', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await mkdir(path.join(dir, 'real'));
    await symlink(path.join(dir, 'real'), path.join(dir, 'link'));
    const file = path.join(dir, 'link', 's.jsonl');
    assert.equal(await lockPathFor(file), path.join(dir, 'real', 's.jsonl.lock'));
    const lock = await acquireSessionLock(file);
    const content = JSON.parse(await readFile(lock.path, 'utf8')) as Record<string, unknown>;
    assert.equal(content.pid, process.pid);
    assert.equal(typeof content.createdAt, 'number');
    assert.equal(content.maxHoldMs, 300_000);
    await lock.release();
    await lock.release();
    await assert.rejects(readFile(lock.path), { code: 'ENOENT' });
  } finally {
    await cleanup();
  }
});

test('a held lock makes the next holder wait, then time out; released, it is taken', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 's.jsonl');
    const first = await acquireSessionLock(file);
    const started = Date.now();
    await assert.rejects(acquireSessionLock(file, { acquireTimeoutMs: 120 }), { code: 'lock_timeout', message: /locked by another process/ });
    assert.ok(Date.now() - started >= 100);
    const waiting = acquireSessionLock(file, { acquireTimeoutMs: 5_000 });
    setTimeout(() => void first.release(), 50);
    const second = await waiting;
    await second.release();
  } finally {
    await cleanup();
  }
});

test('a lock left by a dead process, or too old, is taken over; one being written is waited for', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 's.jsonl');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    assert.equal(isProcessAlive(Number(dead)), false);
    await writeFile(`${file}.lock`, JSON.stringify({ pid: Number(dead), createdAt: Date.now(), maxHoldMs: 1 }));
    await (await acquireSessionLock(file, { acquireTimeoutMs: 100 })).release();
    await writeFile(`${file}.lock`, JSON.stringify({ pid: process.pid, createdAt: Date.now() - 10_000 }));
    await (await acquireSessionLock(file, { acquireTimeoutMs: 100, staleMs: 1_000 })).release();
    await writeFile(`${file}.lock`, JSON.stringify({ pid: process.pid, createdAt: new Date(Date.now() - 10_000).toISOString() }));
    await (await acquireSessionLock(file, { acquireTimeoutMs: 100, staleMs: 1_000 })).release();
    // Empty (being written): not stale while young, stale once old.
    await writeFile(`${file}.lock`, '');
    await assert.rejects(acquireSessionLock(file, { acquireTimeoutMs: 60 }), { code: 'lock_timeout' });
    const old = new Date(Date.now() - 60_000);
    await utimes(`${file}.lock`, old, old);
    await (await acquireSessionLock(file, { acquireTimeoutMs: 100, staleMs: 1_000 })).release();
    assert.equal(isProcessAlive(process.pid), true);
  } finally {
    await cleanup();
  }
});

test('the lock directory must exist', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await assert.rejects(acquireSessionLock(path.join(dir, 'missing', 's.jsonl')), { code: 'ENOENT' });
  } finally {
    await cleanup();
  }
});
