/**
 * Ctrl-C in a terminal sends SIGINT to the whole process group: the command, the tuned child
 * it starts, and anything else in the group, at once. Stopped that way mid-export, the command
 * still stops cleanly every time: exit 130, an interrupted report, no temporary file, no lock.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCK_NAME } from '../../lib/export/manifest.ts';
import { REPORT_NAME, type ExportReport } from '../../lib/export/report.ts';
import { ANTHROPIC, buildCorpus, type Corpus } from './corpus.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/transcript-hygiene.js');
const ROUTE_FLAGS = ['--provider', ANTHROPIC.provider, '--model-api', ANTHROPIC.modelApi, '--model-id', ANTHROPIC.modelId];
const RUNS = 3;

let work: string;
let corpus: Corpus;
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'th-ctrl-c-'));
  corpus = await buildCorpus(path.join(work, 'sessions'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

async function debris(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).filter((name) => path.basename(name).includes('.th-tmp-') || path.basename(name) === LOCK_NAME);
}

/** Runs an export in a process group of its own and sends SIGINT to the whole group once it is under way. */
function exportStoppedByCtrlC(out: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'export', '--out', out, '--jobs', '2', ...ROUTE_FLAGS, corpus.dir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    let sent = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      stderr += text;
      if (!sent && stderr.split('\n').filter((line) => line.startsWith('export: [')).length >= 10) {
        sent = true;
        process.kill(-child.pid!, 'SIGINT');
      }
    });
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

for (let run = 1; run <= RUNS; run++) {
  test(`Ctrl-C to the process group mid-export stops it cleanly (run ${run} of ${RUNS})`, async () => {
    const out = path.join(work, `out-${run}`);
    const stopped = await exportStoppedByCtrlC(out);
    assert.equal(stopped.code, 130, `${stopped.signal ?? ''} ${stopped.stderr}`);
    assert.match(stopped.stderr, /SIGINT: stopping/);
    assert.deepEqual(await debris(out), []);
    await assert.rejects(stat(path.join(out, LOCK_NAME)), { code: 'ENOENT' });
    const report = JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
    assert.equal(report.interrupted, true);
  });
}
