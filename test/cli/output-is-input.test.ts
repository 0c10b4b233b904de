/**
 * `sanitize` never writes its output over its input: a session file replaced by bare messages
 * can no longer be resumed. The same file by path, symbolic link, hard link, `< FILE` or
 * `>> FILE` is refused with the usage code, and the file is left as it was.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../lib/exit-codes.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

let dir: string;
let session: string;
let original: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-output-is-input-'));
  await mkdir(path.join(dir, 'sub'));
  session = path.join(dir, 'session.jsonl');
  await copyFile(demo, session);
  original = await readFile(session, 'utf8');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The real command, with stdin and stdout optionally files opened by the "shell". */
function runBin(args: string[], redirect: { stdin?: string; appendStdout?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const stdin = redirect.stdin === undefined ? 'ignore' : openSync(redirect.stdin, 'r');
  const stdout = redirect.appendStdout === undefined ? 'pipe' : openSync(redirect.appendStdout, 'a');
  const child = spawn(process.execPath, [bin, ...args], { stdio: [stdin, stdout, 'pipe'] });
  if (typeof stdin === 'number') closeSync(stdin);
  if (typeof stdout === 'number') closeSync(stdout);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: out, stderr: err })));
}

async function assertRefused(result: { code: number | null; stderr: string }): Promise<void> {
  assert.equal(result.code, EXIT.usage, result.stderr);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0]!, /^transcript-hygiene: the output is the input \(.*\.jsonl\): sanitize writes a replay copy/);
  assert.match(lines[0]!, /transcript-hygiene repair/);
  assert.equal(await readFile(session, 'utf8'), original, 'the session file is unchanged');
}

test('-o naming the input file itself', async () => {
  await assertRefused(await runBin(['sanitize', session, ...route, '-o', session]));
});

test('-o naming the input by another path to it', async () => {
  await assertRefused(await runBin(['sanitize', session, ...route, '-o', path.join(dir, 'sub', '..', 'session.jsonl')]));
});

test('-o naming a symbolic link to the input, or the input given through one', async () => {
  const viaLink = path.join(dir, 'link.jsonl');
  await symlink(session, viaLink);
  await assertRefused(await runBin(['sanitize', session, ...route, '-o', viaLink]));
  await assertRefused(await runBin(['sanitize', viaLink, ...route, '-o', session]));
});

test('-o naming a hard link to the input (same device and inode)', async () => {
  const hard = path.join(dir, 'hard.jsonl');
  await link(session, hard);
  await assertRefused(await runBin(['sanitize', session, ...route, '-o', hard]));
});

test('stdin redirected from the file named by -o', async () => {
  await assertRefused(await runBin(['sanitize', ...route, '-o', session], { stdin: session }));
});

test('stdout appended to the input file', async () => {
  await assertRefused(await runBin(['sanitize', session, ...route], { appendStdout: session }));
});

test('another file as the output is still written', async () => {
  const other = path.join(dir, 'replay.jsonl');
  const result = await runBin(['sanitize', session, ...route, '-o', other]);
  assert.equal(result.code, EXIT.ok, result.stderr);
  assert.equal((await readFile(other, 'utf8')).split('\n').length - 1, 8);
});
