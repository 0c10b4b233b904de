import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { checkInputFile, isRegularFile } from '../../lib/session/input-check.ts';
import { tempDir } from './helpers/files.ts';

test('each bad input has its own code and a message naming the path', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await assert.rejects(checkInputFile(path.join(dir, 'nope')), { code: 'input_not_found', message: `${path.join(dir, 'nope')}: no such file` });
    await writeFile(path.join(dir, 'file'), 'x');
    await assert.rejects(checkInputFile(path.join(dir, 'file', 'below')), { code: 'input_not_found', message: /ENOTDIR/ });
    await mkdir(path.join(dir, 'dir'));
    await assert.rejects(checkInputFile(path.join(dir, 'dir')), { code: 'input_is_directory', message: /is a directory/ });
    await writeFile(path.join(dir, 'empty'), '');
    await checkInputFile(path.join(dir, 'empty'));
    await assert.rejects(checkInputFile(path.join(dir, 'empty'), { rejectEmpty: true }), { code: 'input_empty', message: /empty file/ });
    await checkInputFile(path.join(dir, 'file'), { rejectEmpty: true });
    const long = path.join(dir, 'x'.repeat(300));
    await assert.rejects(checkInputFile(long), { code: 'input_unreadable', message: /ENAMETOOLONG/ });
  } finally {
    await cleanup();
  }
});

test('a socket cannot be opened: unreadable; a FIFO is not blocked on', async () => {
  const { dir, cleanup } = await tempDir();
  const socket = path.join(dir, 's.sock');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  try {
    await assert.rejects(checkInputFile(socket, { rejectEmpty: true }), { code: 'input_unreadable', message: /ENXIO/ });
    assert.equal(await isRegularFile(socket), false);
    assert.equal(await isRegularFile(path.join(dir, 'nope')), false);
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await checkInputFile(fifo, { rejectEmpty: true });
    assert.equal(await isRegularFile(fifo), false);
  } finally {
    server.close();
    await cleanup();
  }
});
