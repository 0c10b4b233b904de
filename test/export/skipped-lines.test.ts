/**
 * Lines an export passes over are data the outputs lack: every torn line of a session is
 * counted and listed, per session and in total, in the progress, the summary, the JSON and the
 * HTML reports, and still listed when a later run finds that output current.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportSessions, type ExportReport } from '../../lib/index.ts';
import { REPORT_HTML_NAME, REPORT_NAME, formatSummary } from '../../lib/export/report.ts';
import { runCli } from '../helpers/run-cli.ts';
import { ANTHROPIC, GEMINI } from './corpus.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const demo = path.join(root, 'fixtures/sessions/demo.jsonl');
const ROUTE_FLAGS = ['--provider', ANTHROPIC.provider, '--model-api', ANTHROPIC.modelApi, '--model-id', ANTHROPIC.modelId];

let work: string;
let input: string;
let torn: string;
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'th-skipped-lines-'));
  input = path.join(work, 'sessions');
  await mkdir(input);
  const lines = (await readFile(demo, 'utf8')).trimEnd().split('\n');
  await writeFile(path.join(input, 'good.jsonl'), lines.join('\n') + '\n');
  // Two lines that are not JSON, after lines 4 and 6 of the session: lines 5 and 8 of the file.
  const broken = [...lines.slice(0, 4), '{"type":"message","id":"tor', ...lines.slice(4, 6), 'garbage \u0000 line', ...lines.slice(6)];
  torn = path.join(input, 'torn.jsonl');
  await writeFile(torn, broken.join('\n') + '\n');
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

test('the JSON report counts and lists the skipped lines per session and in total', async () => {
  const out = path.join(work, 'out-json');
  const events: Array<{ file?: string; skippedLines?: { count: number } }> = [];
  const report = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC], onProgress: (event) => event.type === 'output' && events.push(event) });
  assert.equal(report.totals.exported, 2);
  assert.equal(report.skippedLines.lines, 2);
  assert.equal(report.skippedLines.sessions, 1);
  assert.deepEqual(report.skippedLines.bySession.map(({ file, count, lines }) => ({ file, count, lines })), [{ file: torn, count: 2, lines: [5, 8] }]);
  assert.match(report.skippedLines.bySession[0]!.reason, /not JSON/);
  assert.deepEqual(events.filter((event) => event.skippedLines !== undefined).map((event) => [event.file, event.skippedLines!.count]), [[torn, 2]]);
  const written = JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
  assert.deepEqual(written.skippedLines, report.skippedLines);
  const html = await readFile(path.join(out, REPORT_HTML_NAME), 'utf8');
  assert.match(html, /<section id="skipped-lines">/);
  assert.match(html, /data-field="skippedLines.lines" data-value="2"/);
  assert.ok(html.includes(torn));
});

test('a session exported for two routes is counted once', async () => {
  const report = await exportSessions({ inputs: [input], outDir: path.join(work, 'out-two'), routes: [ANTHROPIC, GEMINI] });
  assert.equal(report.totals.exported, 4);
  assert.equal(report.skippedLines.lines, 2);
  assert.equal(report.skippedLines.sessions, 1);
});

test('the command says so in its progress and its summary', async () => {
  const result = await runCli(['export', '--out', path.join(work, 'out-cli'), ...ROUTE_FLAGS, input]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /ok .*torn\.jsonl \(.*SKIPPED 2 lines not JSON: 5, 8\)/);
  assert.match(result.stderr, /SKIPPED 2 lines in 1 session \(not JSON: the outputs lack them\):\n {4}.*torn\.jsonl: 2 lines \(lines 5, 8\)\n/);
});

test('a resumed run still lists what the earlier run skipped, and says what its figures cover', async () => {
  const out = path.join(work, 'out-resumed');
  await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC] });
  const resumed = await exportSessions({ inputs: [input], outDir: out, routes: [ANTHROPIC] });
  assert.equal(resumed.totals.exported, 0);
  assert.equal(resumed.totals.skipped, 2);
  assert.deepEqual(resumed.skippedLines.bySession.map(({ file, count, earlierRun }) => ({ file, count, earlierRun })), [{ file: torn, count: 2, earlierRun: true }]);
  assert.equal(resumed.earlierRuns?.outputs, 2);
  assert.match(resumed.earlierRuns!.note, /already current from an earlier run/);
  assert.match(formatSummary(resumed, 'r.json'), /note: 2 outputs were already current from an earlier run/);
  const html = await readFile(path.join(out, REPORT_HTML_NAME), 'utf8');
  assert.match(html, /data-field="earlierRuns.outputs" data-value="2"/);
  assert.match(html, /\(earlier run\)/);
});
