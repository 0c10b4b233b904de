/** `sanitize -o`: what the output path is decides how it is written; a directory fails before any work. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../lib/exit-codes.ts';
import { runCli } from '../helpers/run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-cli-output-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('-o over a 0600 file keeps its mode', async () => {
  const target = path.join(dir, 'private.jsonl');
  await writeFile(target, 'old\n');
  await chmod(target, 0o600);
  const result = await runCli(['sanitize', demo, ...route, '-o', target]);
  assert.equal(result.code, EXIT.ok, result.stderr);
  assert.equal((await stat(target)).mode & 0o777, 0o600);
  assert.equal((await readFile(target, 'utf8')).split('\n').length - 1, 8);
});

test('-o naming a FIFO writes through it: the FIFO stays a FIFO', async () => {
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  // The reader is a child (a FIFO open blocks until both ends are there), killed if nothing comes.
  const reader = new Promise<string>((resolve) => execFile('cat', [fifo], { timeout: 20_000 }, (_error, stdout) => resolve(stdout)));
  const result = await runCli(['sanitize', demo, ...route, '-o', fifo]);
  const received = await reader;
  assert.equal(result.code, EXIT.ok, result.stderr);
  assert.ok((await lstat(fifo)).isFIFO(), 'still a FIFO');
  assert.equal(received.split('\n').length - 1, 8);
  assert.deepEqual((await readdir(dir)).filter((name) => name.includes('tmp')), []);
});

test('-o naming a symbolic link replaces the file it points to, and the link stays a link', async () => {
  const real = path.join(dir, 'real.jsonl');
  const link = path.join(dir, 'link.jsonl');
  await writeFile(real, 'old\n');
  await symlink(real, link);
  const result = await runCli(['sanitize', demo, ...route, '-o', link]);
  assert.equal(result.code, EXIT.ok, result.stderr);
  assert.ok((await lstat(link)).isSymbolicLink());
  assert.equal(await readlink(link), real);
  assert.equal((await readFile(real, 'utf8')).split('\n').length - 1, 8);
});

test('-o naming a directory fails before any work, with exit 6 and one line', async () => {
  const target = path.join(dir, 'a-directory');
  await mkdir(target);
  // A missing input would be exit 3 if the input were read first: the output is checked before.
  const result = await runCli(['sanitize', path.join(dir, 'no-such-input.jsonl'), ...route, '-o', target]);
  assert.equal(result.code, EXIT.inputIsDirectory, result.stderr);
  assert.match(result.stderr, /a-directory: is a directory/);
  assert.equal(result.stderr.trim().split('\n').length, 1);
  assert.deepEqual(await readdir(target), []);
});

// /dev/fd/1 rather than /dev/stdout: code with the bug this guards against, run as root, replaces
// /dev/stdout itself (for every process on the machine); in /dev/fd it can only fail.
test('-o /dev/fd/1 (as /dev/stdout) redirected (>>) to a file writes through it: the file is not replaced and keeps what it had', async () => {
  const file = path.join(dir, 'appended.jsonl');
  await writeFile(file, 'pre\n');
  const before = (await stat(file)).ino;
  const fd = openSync(file, 'a');
  const child = spawn(process.execPath, [path.join(root, 'bin/transcript-hygiene.js'), 'sanitize', demo, ...route, '-o', '/dev/fd/1'], { stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, EXIT.ok);
  assert.equal((await stat(file)).ino, before);
  const text = await readFile(file, 'utf8');
  assert.ok(text.startsWith('pre\n{'), text.slice(0, 40));
  assert.equal(text.split('\n').length - 1, 9);
});
