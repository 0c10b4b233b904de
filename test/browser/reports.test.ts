/**
 * Both report pages in a real browser: headless Chromium (Debian's /usr/bin/chromium, or
 * CHROMIUM_PATH) driven by playwright-core opens them from file:// and holds them to their JSON.
 *
 * The reports come from real runs on small inputs: the export command over a temporary archive
 * with good, corrupt and empty sessions (one named with HTML in it), and `npm run bench`'s own
 * script on tiny sizes (two session sizes; two image counts at two concurrencies).
 * Screenshots go to a temporary folder; their paths are printed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { generateSession } from '../../bench/generate.ts';
import { writeBenchReport } from '../../bench/report.ts';
import { routeOf, sizeOf, workloadOf, type BenchResults } from '../../bench/results.ts';
import { REPORT_HTML_NAME, REPORT_NAME, formatBytes, type ExportReport } from '../../lib/export/report.ts';
import { formatCount } from '../../lib/html.ts';
import { runCli } from '../helpers/run-cli.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function chromiumPath(): string {
  const wanted = process.env.CHROMIUM_PATH;
  if (wanted !== undefined && wanted !== '') {
    if (!existsSync(wanted)) throw new Error(`CHROMIUM_PATH=${wanted}: no such file`);
    return wanted;
  }
  const found = CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate));
  if (found === undefined) throw new Error(`no Chromium for the browser test: looked for ${CHROMIUM_CANDIDATES.join(', ')}; run npm run provision (it installs Debian's chromium) or set CHROMIUM_PATH`);
  return found;
}

const NASTY = `odd <b>name & "quotes".jsonl`;
const ROUTES = [
  { name: 'claude', provider: 'anthropic', modelApi: 'anthropic-messages', modelId: 'claude-sonnet-4-5' },
  { name: 'gemini', provider: 'google', modelApi: 'google-generative-ai', modelId: 'gemini-2.5-pro' },
];

let work: string;
let shots: string;
let browser: Browser;
let exportDir: string;
let benchResults: string;

/** A page with listeners for what must not happen: console errors, page errors, failed or outside requests. */
async function open(file: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed request: ${request.url()}`));
  page.on('request', (request) => {
    if (!request.url().startsWith('file:') && !request.url().startsWith('data:')) problems.push(`request off the disk: ${request.url()}`);
  });
  const response = await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  assert.ok(response === null || response.ok(), `${file} did not load`);
  return { page, problems };
}

async function screenshot(page: Page, name: string): Promise<void> {
  const file = path.join(shots, name);
  await page.screenshot({ path: file, fullPage: true });
  process.stdout.write(`screenshot: ${file}\n`);
}

/** `a.b.0.c` in a JSON value. */
function at(value: unknown, field: string): unknown {
  return field.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
}

before(async () => {
  const executablePath = chromiumPath();
  work = await mkdtemp(path.join(tmpdir(), 'th-browser-'));
  shots = path.join(work, 'screenshots');
  await mkdir(shots);

  // The archive: three good sessions (one named with HTML in it), a corrupt one, an empty one.
  const archive = path.join(work, 'archive');
  await mkdir(path.join(archive, 'agent'), { recursive: true });
  await generateSession(path.join(archive, 'agent', 'long.jsonl'), { messages: 400, format: 'session', seed: 1, payloadScale: 0.2 });
  await generateSession(path.join(archive, 'agent', 'short.jsonl'), { messages: 40, format: 'messages', seed: 2, payloadScale: 0.2 });
  await generateSession(path.join(archive, NASTY), { messages: 80, format: 'session', seed: 3, payloadScale: 0.2 });
  const lines = [JSON.stringify({ role: 'user', content: 'hello', timestamp: 1 }), JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'hi' }], stopReason: 'stop', timestamp: 2 }), '{"role": "user", "content": <oops>'];
  await writeFile(path.join(archive, 'agent', 'corrupt.jsonl'), lines.join('\n') + '\n');
  await writeFile(path.join(archive, 'empty.jsonl'), '');
  const routeFile = path.join(work, 'routes.json');
  await writeFile(routeFile, JSON.stringify(ROUTES));
  exportDir = path.join(work, 'out');

  // `npm run bench` on tiny sizes, as two runs side by side to keep the test short: the text
  // sessions (two sizes, the floor and every route) and the image case (two image counts, two
  // concurrencies). The page is drawn from their results put together, by the bench's own writer.
  const started = performance.now();
  const stop = new AbortController();
  const runBench = async (name: string, args: string[]): Promise<BenchResults> => {
    const results = path.join(work, name, 'results.json');
    await mkdir(path.dirname(results));
    await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(root, 'bench/bench.ts'), ...args, '--results', results], { cwd: root, maxBuffer: 1 << 24, signal: stop.signal });
    process.stdout.write(`bench ${name}: ${Math.round(performance.now() - started)} ms\n`);
    return JSON.parse(await readFile(results, 'utf8')) as BenchResults;
  };
  const benches = Promise.all([runBench('bench-sessions', ['--sizes', '200,400', '--images', '0']), runBench('bench-images', ['--sizes', '', '--images', '4,8', '--image-concurrency', '1,2'])]);
  try {
    const exported = await runCli(['export', '--quiet', '--jobs', '2', '--out', exportDir, '--route-file', routeFile, archive]);
    assert.equal(exported.code, 2, `the export fails on the corrupt session and goes on: ${exported.stderr}`);
    process.stdout.write(`export: ${Math.round(performance.now() - started)} ms\n`);
  } catch (error) {
    stop.abort();
    await benches.catch(() => undefined);
    throw error;
  }
  const [sessions, images] = await benches;
  assert.ok(existsSync(path.join(work, 'bench-sessions', 'report.html')), 'npm run bench writes report.html beside its results');
  assert.deepEqual([sessions.imageRows.length, images.rows.length], [0, 0]);
  benchResults = path.join(work, 'bench', 'results.json');
  await mkdir(path.dirname(benchResults));
  await writeFile(benchResults, JSON.stringify({ ...sessions, imageRows: images.imageRows }, null, 2));
  await writeBenchReport(benchResults);
  browser = await chromium.launch({ executablePath, headless: true });
});

after(async () => {
  await browser?.close();
  process.stdout.write(`screenshots in ${shots}\n`);
});

describe('export-report.html', () => {
  test('shows the JSON report: totals, failures first with file, line and reason, routes, rules, sessions', async () => {
    const report = JSON.parse(await readFile(path.join(exportDir, REPORT_NAME), 'utf8')) as ExportReport;
    // The corrupt session fails on each route (the empty one too, where the export counts an empty session as a failure).
    const failed = report.failures.map((f) => [path.basename(f.file), f.route, f.line ?? null]);
    const corrupt = [
      ['corrupt.jsonl', 'claude', 3],
      ['corrupt.jsonl', 'gemini', 3],
    ];
    const empty = [
      ['empty.jsonl', 'claude', null],
      ['empty.jsonl', 'gemini', null],
    ];
    assert.ok([JSON.stringify(corrupt), JSON.stringify([...corrupt, ...empty])].includes(JSON.stringify(failed)), JSON.stringify(failed));
    const { page, problems } = await open(path.join(exportDir, REPORT_HTML_NAME));

    // Every figure on the page is the JSON's (messages/s is derived from two of them).
    const figures = await page.$$eval('[data-field]', (nodes) => nodes.map((node) => ({ field: node.getAttribute('data-field')!, value: Number(node.getAttribute('data-value')), text: node.textContent! })));
    assert.ok(figures.length > 40, `figures shown: ${figures.length}`);
    for (const figure of figures) {
      const expected = figure.field === 'messagesPerSecond' ? Math.round(report.totals.messagesIn / (report.durationMs / 1000)) : at(report, figure.field);
      assert.equal(figure.value, expected, `${figure.field} on the page`);
    }
    const shown = (field: string): string => figures.find((figure) => figure.field === field)!.text;
    for (const field of ['sessions', 'outputs', 'exported', 'skipped', 'failed', 'messagesIn', 'messagesOut'] as const) assert.equal(shown(`totals.${field}`), formatCount(report.totals[field]), field);
    assert.equal(shown('totals.bytesIn'), formatBytes(report.totals.bytesIn));
    assert.equal(shown('totals.bytesOut'), formatBytes(report.totals.bytesOut));
    assert.equal(report.totals.sessions, 5);
    assert.equal(report.totals.exported, 10 - report.failures.length);

    // Failures come first, one row each, with the JSON's file, line and reason.
    const sections = await page.$$eval('main > section', (nodes) => nodes.map((node) => node.id));
    assert.deepEqual(sections.slice(0, 2), ['totals', 'failures']);
    const rows = await page.$$eval('table.failures tbody tr', (nodes) => nodes.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
    assert.deepEqual(
      rows,
      report.failures.map((f) => [f.file, String(f.line ?? ''), f.route ?? '', f.code, f.reason]),
    );
    assert.match(rows[0]![0]!, /corrupt\.jsonl$/);

    // The HTML in a session's name is text, not markup.
    assert.equal(await page.locator('main b').count(), 0, 'no element made from a file name');
    assert.ok((await page.locator('td.path', { hasText: NASTY }).count()) > 0, 'the odd name is shown as it is');

    // One row per rule counter; one bar per size bucket; the top lists.
    const counters = Object.values(report.rules).reduce((sum, counters) => sum + Object.keys(counters).length, 0);
    assert.ok(counters > 0);
    assert.equal(await page.locator('#rules tbody tr').count(), counters);
    assert.equal(await page.locator('#sizes svg rect.bar').count(), report.sizeBuckets.length);
    assert.equal(await page.locator('#slowest tbody tr').count(), report.slowest.length);
    assert.equal(await page.locator('#largest tbody tr').count(), report.largest.length);
    assert.equal(await page.locator('#routes tbody tr').count(), ROUTES.length);

    await screenshot(page, 'export-report.png');
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('bench/report.html', () => {
  test('has a chart per figure with one series per route, the floor and the image case, and the machine', async () => {
    const results = JSON.parse(await readFile(benchResults, 'utf8')) as BenchResults;
    const { page, problems } = await open(path.join(path.dirname(benchResults), 'report.html'));

    const caption = await page.locator('#machine').innerText();
    for (const part of [results.machine!.cpu, `${results.machine!.cores} cores`, results.node, results.date]) assert.ok(caption.includes(part), `caption has ${part}: ${caption}`);

    const workloads = [...new Set(results.rows.map(workloadOf))];
    assert.ok(workloads.includes('agent'));
    for (const workload of workloads) {
      const rows = results.rows.filter((row) => workloadOf(row) === workload);
      const routes = [...new Set(rows.map(routeOf))];
      const section = page.locator(`section[data-workload="${workload}"]`);
      const charts = section.locator('svg.chart');
      assert.equal(await charts.count(), 3, `${workload}: MB/s, messages/s, peak RSS`);
      const figures: Array<keyof (typeof rows)[number]> = ['mbPerSecond', 'messagesPerSecond', 'peakRssMb'];
      for (let i = 0; i < 3; i++) {
        const series = await charts.nth(i).locator('g.series').evaluateAll((groups) =>
          groups.map((g) => ({ name: g.getAttribute('data-series')!, paths: g.querySelectorAll('path.line').length, points: [...g.querySelectorAll('.point')].map((p) => [Number(p.getAttribute('data-x')), Number(p.getAttribute('data-y'))]) })),
        );
        assert.deepEqual(series.map((s) => s.name).sort(), [...routes].sort(), `${workload} chart ${i}: a series per route and the floor`);
        for (const s of series) {
          const expected = rows.filter((row) => routeOf(row) === s.name).map((row) => [sizeOf(row), row[figures[i]!] as number]).sort((a, b) => a[0]! - b[0]!);
          assert.deepEqual(s.points, expected, `${workload} ${s.name} ${figures[i]}`);
          assert.equal(s.paths, expected.length > 1 ? 1 : 0);
        }
        assert.equal(await charts.nth(i).locator('.legend-item').count(), routes.length, 'a legend entry per series');
      }
    }
    assert.ok(results.rows.filter((row) => workloadOf(row) === 'agent').length >= 8, 'two sizes, the floor and three routes');
    // Every case of one file counts the messages that file holds: the floor's own line count (a
    // session's header and entries) is not its messages.
    for (const workload of workloads) {
      for (const size of new Set(results.rows.filter((row) => workloadOf(row) === workload).map(sizeOf))) {
        const counted = new Set(results.rows.filter((row) => workloadOf(row) === workload && sizeOf(row) === size).map((row) => row.messages));
        assert.equal(counted.size, 1, `${workload} ${size}: one message count for the floor and every route, got ${[...counted].join(', ')}`);
      }
    }

    // The image case: images/s and peak RSS against image count (a series per concurrency)
    // and against concurrency (a series per image count); the RSS charts also draw the limit.
    const counts = [...new Set(results.imageRows.map((row) => row.images))];
    const widths = [...new Set(results.imageRows.map((row) => row.concurrency))];
    assert.deepEqual([counts.length, widths.length], [2, 2]);
    const imageCharts = page.locator('#images svg.chart');
    assert.equal(await imageCharts.count(), 4);
    const expectedSeries = [widths.length, widths.length + 1, counts.length, counts.length + 1];
    for (let i = 0; i < 4; i++) {
      const series = await imageCharts.nth(i).locator('g.series').evaluateAll((groups) => groups.map((g) => ({ paths: g.querySelectorAll('path.line').length, points: [...g.querySelectorAll('.point')].map((p) => Number(p.getAttribute('data-y'))) })));
      assert.equal(series.length, expectedSeries[i], `image chart ${i}`);
      for (const s of series) assert.deepEqual([s.paths, s.points.length], [1, 2]);
    }
    const imagesPerSecond = await imageCharts.nth(0).locator('.point').evaluateAll((points) => points.map((p) => Number(p.getAttribute('data-y'))).sort((a, b) => a - b));
    assert.deepEqual(imagesPerSecond, results.imageRows.map((row) => row.imagesPerSecond).sort((a, b) => a - b));

    await screenshot(page, 'bench-report.png');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
