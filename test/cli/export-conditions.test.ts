/** `export` under bad conditions: an output directory that cannot be made, a job that hangs, an empty session. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXPORT_EXIT, REPORT_NAME, type ExportReport } from '../../lib/export/report.ts';
import { runCli } from '../helpers/run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const route = ['--provider', 'anthropic', '--model-api', 'anthropic-messages', '--model-id', 'claude-sonnet-4-5'];

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-cli-export-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('--out that cannot be created (/proc/x): exit 1 with one line, at once', async () => {
  // Node's recursive mkdir never settles on such a path; this must return.
  const result = await runCli(['export', '--out', '/proc/th-no-such/x', ...route, demo]);
  assert.equal(result.code, EXPORT_EXIT.usage, result.stderr);
  assert.match(result.stderr, /^transcript-hygiene: \/proc\/th-no-such\/x: cannot create the output directory \(.+\)\n$/);
});

test('an empty session is listed among the failures with its reason, and not written', async () => {
  const input = path.join(dir, 'in-empty');
  await mkdir(input);
  await writeFile(path.join(input, 'good.jsonl'), await readFile(demo));
  await writeFile(path.join(input, 'empty.jsonl'), '');
  const out = path.join(dir, 'out-empty');
  const result = await runCli(['export', '--out', out, '-q', '--jobs', '1', ...route, input]);
  assert.equal(result.code, EXPORT_EXIT.someFailed, result.stderr);
  const report = JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
  assert.deepEqual(
    report.failures.map((failure) => [path.basename(failure.file), failure.code, failure.reason]),
    [['empty.jsonl', 'input_empty', 'empty file']],
  );
  assert.deepEqual((await readdir(out)).filter((name) => name.endsWith('.jsonl')).sort(), ['good.jsonl']);
});

test('SIGTERM while a job hangs on its input: the export still exits promptly, by the signal', async () => {
  const input = path.join(dir, 'in-hang');
  await mkdir(input);
  // Largest first: big.jsonl runs first; small.jsonl becomes a FIFO nobody writes before its job opens it.
  await writeFile(path.join(input, 'big.jsonl'), (await readFile(demo, 'utf8')).repeat(1));
  await writeFile(path.join(input, 'small.jsonl'), '{"role":"user","content":"hi"}\n');
  const out = path.join(dir, 'out-hang');
  const child = spawn(process.execPath, [bin, 'export', '--out', out, '--jobs', '1', ...route, input], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let swapped = false;
  const firstDone = new Promise<void>((resolve) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!swapped && /2 to export/.test(stderr)) {
        swapped = true;
        execFileSync('sh', ['-c', `rm "${path.join(input, 'small.jsonl')}" && mkfifo "${path.join(input, 'small.jsonl')}"`]);
      }
      if (/\[1\/2\] ok/.test(stderr)) resolve();
    });
  });
  await firstDone;
  // Let the lane open the FIFO, where it blocks.
  await new Promise((resolve) => setTimeout(resolve, 500));
  child.kill('SIGTERM');
  const end = await new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: null, signal: 'still running after 30 s' });
    }, 30_000);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal });
    });
  });
  assert.ok(end.signal === 'SIGTERM' || end.code === 143, `${JSON.stringify(end)}\n${stderr}`);
  assert.deepEqual((await readdir(out)).filter((name) => name.includes('.th-tmp-') || name === '.export.lock'), [], 'no temporary output or lock left');
});
