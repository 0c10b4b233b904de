/**
 * A run stopped by SIGTERM or SIGINT leaves no debris: no temporary output, no spooled copy of
 * stdin, no repair backup or lock; a repair stopped before its rename leaves the original, one
 * stopped after it the repaired file.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];
const HEADER = JSON.stringify({ type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' });

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-cli-stopped-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Resolves when `check` is true, polling; gives up (returning false) when the child has ended. */
async function until(child: ChildProcess, check: () => Promise<boolean>): Promise<boolean> {
  for (;;) {
    if (await check()) return true;
    if (child.exitCode !== null || child.signalCode !== null) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function ended(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
}

const stoppedBy = (signal: NodeJS.Signals, end: { code: number | null; signal: NodeJS.Signals | null }): boolean =>
  end.signal === signal || end.code === 128 + (signal === 'SIGINT' ? 2 : 15);

test('sanitize -o stopped by SIGTERM mid-way leaves no temporary file and no output', async () => {
  const out = path.join(dir, 'o1');
  await mkdir(out);
  const child = spawn(process.execPath, [bin, 'sanitize', ...route, '-o', path.join(out, 'replay.jsonl')], { stdio: ['pipe', 'ignore', 'pipe'] });
  child.stdin!.write('{"role":"user","content":"hello","timestamp":1}\n');
  const started = await until(child, async () => (await readdir(out)).length > 0);
  assert.ok(started, 'the temporary output appeared');
  child.kill('SIGTERM');
  const end = await ended(child);
  assert.ok(stoppedBy('SIGTERM', end), JSON.stringify(end));
  assert.deepEqual(await readdir(out), []);
});

test('a session piped to sanitize and stopped by SIGINT: the spooled copy is removed', async () => {
  const spool = path.join(dir, 'spool');
  await mkdir(spool);
  const child = spawn(process.execPath, [bin, 'sanitize', ...route], { stdio: ['pipe', 'ignore', 'pipe'], env: { ...process.env, TMPDIR: spool } });
  child.stdin!.write(HEADER + '\n' + JSON.stringify({ type: 'message', id: 'a', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message: { role: 'user', content: 'hi', timestamp: 1 } }) + '\n');
  const started = await until(child, async () => (await readdir(spool)).some((name) => name.startsWith('transcript-hygiene-stdin-')));
  assert.ok(started, 'the spool file appeared');
  child.kill('SIGINT');
  const end = await ended(child);
  assert.ok(stoppedBy('SIGINT', end), JSON.stringify(end));
  // (tsx keeps its cache there too)
  assert.deepEqual((await readdir(spool)).filter((name) => name.startsWith('transcript-hygiene-')), []);
});

async function heldRepair(step: string): Promise<{ file: string; original: string; left: string[]; end: { code: number | null; signal: NodeJS.Signals | null } }> {
  const work = path.join(dir, `repair-${step}`);
  await mkdir(work);
  const file = path.join(work, 'session.jsonl');
  await copyFile(path.join(root, 'fixtures/sessions/repair/crash-torn.jsonl'), file);
  const original = await readFile(file, 'utf8');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/helpers/repair-held.ts'), file, step], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let said = '';
  child.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  assert.ok(await until(child, async () => said.includes('held')), `the repair reached ${step}`);
  child.kill('SIGTERM');
  const end = await ended(child);
  return { file, original, left: (await readdir(work)).sort(), end };
}

test('repair stopped before its rename: the original is untouched, no backup, no temporary, no lock', async () => {
  const { file, original, left, end } = await heldRepair('temp-written');
  assert.ok(stoppedBy('SIGTERM', end), JSON.stringify(end));
  assert.deepEqual(left, ['session.jsonl']);
  assert.equal(await readFile(file, 'utf8'), original);
});

test('repair stopped after its rename: the repaired file, no backup, no lock', async () => {
  const { file, left, end } = await heldRepair('renamed');
  assert.ok(stoppedBy('SIGTERM', end), JSON.stringify(end));
  assert.deepEqual(left, ['session.jsonl']);
  assert.equal(await readFile(file, 'utf8'), await readFile(path.join(root, 'fixtures/sessions/repair/crash-torn.repaired.jsonl'), 'utf8'));
});
