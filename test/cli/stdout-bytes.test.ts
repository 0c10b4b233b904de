/**
 * The command's output is the same bytes on stdout (a pipe, a file) as with -o: on both, the
 * writer fills its output chunks again once node has written them (lib/jsonl.ts JsonlWriter),
 * so a chunk handed back too early would show here as a changed line. About 8 MB of
 * mixed-details messages: dozens of 128 KiB chunks, most lines patched.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSession } from '../../bench/generate.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

/**
 * The output with the clock taken out: a synthetic result for a missing one (the workload has a
 * few) carries the time it was made, which differs from run to run by a few digits; every other
 * byte must be the same.
 */
function withoutClock(bytes: Buffer): string {
  return bytes
    .toString('utf8')
    .split('\n')
    .map((line) => (line.includes('inserted synthetic error result') ? line.replace(/"timestamp":\d+/, '"timestamp":0') : line))
    .join('\n');
}

let dir: string;
let input: string;
let expected: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-stdout-bytes-'));
  input = path.join(dir, 'in.jsonl');
  await generateSession(input, { messages: 1500, format: 'messages', workload: 'mixed-details', seed: 7 });
  const target = path.join(dir, 'expected.jsonl');
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [bin, 'sanitize', input, ...route, '-o', target], (error) => (error === null ? resolve() : reject(error))),
  );
  const bytes = await readFile(target);
  assert.ok(bytes.length > 4 << 20, `${bytes.length} bytes of output`);
  expected = withoutClock(bytes);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('stdout to a pipe carries the bytes -o writes', async () => {
  const piped = await new Promise<Buffer>((resolve, reject) =>
    execFile(process.execPath, [bin, 'sanitize', input, ...route], { encoding: 'buffer', maxBuffer: 64 << 20 }, (error, stdout) => (error === null ? resolve(stdout) : reject(error))),
  );
  assert.ok(withoutClock(piped) === expected, `stdout (${piped.length} bytes) differs from -o`);
});

test('stdout redirected to a file holds the bytes -o writes', async () => {
  const file = path.join(dir, 'redirected.jsonl');
  const fd = openSync(file, 'w');
  try {
    const child = spawn(process.execPath, [bin, 'sanitize', input, ...route], { stdio: ['ignore', fd, 'inherit'] });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
  } finally {
    closeSync(fd);
  }
  const written = await readFile(file);
  assert.ok(withoutClock(written) === expected, `redirected stdout (${written.length} bytes) differs from -o`);
});
