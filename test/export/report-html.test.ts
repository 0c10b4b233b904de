import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateSession } from '../../bench/generate.ts';
import { exportSessions } from '../../lib/export/export.ts';
import { HTML_ROW_LIMIT, renderExportReportHtml } from '../../lib/export/report-html.ts';
import { TOP_PER_COUNTER, TOP_SESSIONS, TopList, bucketBound } from '../../lib/export/report-sessions.ts';
import { REPORT_HTML_NAME, REPORT_NAME, type ExportReport } from '../../lib/export/report.ts';
import { ANTHROPIC, GEMINI } from './corpus.ts';

let dir: string;
let out: string;
let report: ExportReport;
const ROUTES = [
  { name: 'claude', ...ANTHROPIC },
  { name: 'gemini', ...GEMINI },
];

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'th-report-html-'));
  const archive = path.join(dir, 'archive');
  await mkdir(archive);
  // More good sessions than a top list keeps, of several sizes, plus a corrupt and an empty one.
  for (let i = 0; i < 24; i++) {
    await generateSession(path.join(archive, `s${String(i).padStart(2, '0')}.jsonl`), { messages: 4 + i * 3, format: i % 2 === 0 ? 'session' : 'messages', seed: 50 + i, payloadScale: 0.05 + (i % 5) * 0.2 });
  }
  await writeFile(path.join(archive, 'corrupt <i>.jsonl'), `${JSON.stringify({ role: 'user', content: 'a', timestamp: 1 })}\n{"role":\n`);
  await writeFile(path.join(archive, 'empty.jsonl'), '');
  out = path.join(dir, 'out');
  report = await exportSessions({ inputs: [archive], outDir: out, routes: ROUTES, jobs: 2, manifestIntervalMs: 0 });
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('per-route figures add up to the totals', () => {
  const sum = (field: 'outputs' | 'exported' | 'skipped' | 'failed' | 'bytesIn' | 'bytesOut' | 'messagesIn' | 'messagesOut'): number => report.byRoute.reduce((total, route) => total + route[field], 0);
  assert.deepEqual(
    report.byRoute.map((route) => route.name),
    ROUTES.map((route) => route.name),
  );
  for (const field of ['outputs', 'exported', 'skipped', 'failed', 'bytesIn', 'bytesOut', 'messagesIn', 'messagesOut'] as const) assert.equal(sum(field), report.totals[field], field);
  // 24 good sessions on two routes; the corrupt session fails on each (the empty one too, where
  // the export counts an empty session as a failure).
  const failed = report.failures.map((f) => [path.basename(f.file), f.route, f.code]);
  const corrupt = [
    ['corrupt <i>.jsonl', 'claude', 'malformed_line'],
    ['corrupt <i>.jsonl', 'gemini', 'malformed_line'],
  ];
  const empty = [
    ['empty.jsonl', 'claude', 'input_empty'],
    ['empty.jsonl', 'gemini', 'input_empty'],
  ];
  assert.ok([JSON.stringify(corrupt), JSON.stringify([...corrupt, ...empty])].includes(JSON.stringify(failed)), JSON.stringify(failed));
  assert.equal(report.totals.exported, 52 - failed.length);
  assert.equal(report.sizeBuckets.reduce((total, bucket) => total + bucket.exported, 0), report.totals.exported);
  for (const bucket of report.sizeBuckets) assert.equal(bucketBound(bucket.belowBytes - 1), bucket.belowBytes);
});

test('the slowest and largest lists are the top of all outputs, in order', () => {
  assert.equal(report.slowest.length, TOP_SESSIONS);
  assert.equal(report.largest.length, TOP_SESSIONS);
  for (let i = 1; i < TOP_SESSIONS; i++) {
    assert.ok(report.slowest[i - 1]!.ms >= report.slowest[i]!.ms);
    assert.ok(report.largest[i - 1]!.bytesIn >= report.largest[i]!.bytesIn);
  }
  const byRoute = report.byRoute.reduce((total, route) => total + route.bytesIn, 0);
  assert.ok(report.largest.reduce((total, s) => total + s.bytesIn, 0) <= byRoute);
  // The largest session appears once per route, first.
  assert.equal(report.largest[0]!.bytesIn, report.largest[1]!.bytesIn);
  assert.notEqual(report.largest[0]!.route, report.largest[1]!.route);
});

test('every summed rule counter has its sessions, and the top ones add up to at most the sum', () => {
  const counters = Object.entries(report.rules).flatMap(([rule, counts]) => Object.entries(counts).map(([counter, total]) => ({ rule, counter, total })));
  assert.ok(counters.length > 3);
  for (const { rule, counter, total } of counters) {
    const sessions = report.ruleSessions[rule]?.[counter];
    if (total === 0) continue;
    assert.ok(sessions !== undefined, `${rule}.${counter}`);
    assert.ok(sessions.sessions >= 1 && sessions.sessions <= report.totals.exported);
    const topSum = sessions.top.reduce((sum, s) => sum + s.count, 0);
    assert.ok(topSum <= total);
    if (sessions.sessions <= TOP_PER_COUNTER) assert.equal(topSum, total, `${rule}.${counter}: every session is listed`);
    for (let i = 1; i < sessions.top.length; i++) assert.ok(sessions.top[i - 1]!.count >= sessions.top[i]!.count);
  }
});

test('the page on disk is rendered from the JSON on disk, with file names as text', async () => {
  const json = JSON.parse(await readFile(path.join(out, REPORT_NAME), 'utf8')) as ExportReport;
  const html = await readFile(path.join(out, REPORT_HTML_NAME), 'utf8');
  assert.equal(html, renderExportReportHtml(json));
  assert.ok(html.includes('corrupt &lt;i&gt;.jsonl'));
  assert.ok(!html.includes('<i>'));
  assert.ok(!/<script|https?:\/\//i.test(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, '')), 'no script, nothing fetched');
  assert.equal((html.match(/<tr class="failure">/g) ?? []).length, json.failures.length);
});

test('a second run shows every output as already current and no session figures', async () => {
  const again = await exportSessions({ inputs: [path.join(dir, 'archive')], outDir: out, routes: ROUTES, jobs: 2 });
  assert.deepEqual(
    again.byRoute.map((route) => [route.skipped, route.exported]),
    report.byRoute.map((route) => [route.exported, 0]),
  );
  assert.deepEqual([again.slowest, again.largest, again.sizeBuckets, again.ruleSessions], [[], [], [], {}]);
  const html = renderExportReportHtml(again);
  assert.ok(html.includes('No output was written by this run.'));
});

test('long lists are capped on the page and say how many more the JSON has', () => {
  const failures = Array.from({ length: HTML_ROW_LIMIT + 57 }, (_, i) => ({ ...report.failures[0]!, file: `f${i}.jsonl` }));
  const html = renderExportReportHtml({ ...report, failures, totals: { ...report.totals, failed: failures.length } });
  assert.equal((html.match(/<tr class="failure">/g) ?? []).length, HTML_ROW_LIMIT);
  assert.match(html, /data-more="57">and 57 more failures in export-report\.json/);
});

test('TopList keeps the greatest items in order, earlier first among equals', () => {
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const items = Array.from({ length: 500 }, (_, i) => ({ i, v: Math.floor(random() * 60) }));
  const top = new TopList<(typeof items)[number]>(9, (item) => item.v);
  for (const item of items) top.offer(item);
  const expected = [...items].sort((a, b) => b.v - a.v || a.i - b.i).slice(0, 9);
  assert.deepEqual(top.items, expected);
});
