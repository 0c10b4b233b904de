/**
 * bench/report.html from bench/results.json (and bench/reference.json when the reference was
 * measured): per workload, throughput (MB/s, messages/s) and peak RSS against session size for
 * the floor and each route, the reference beside them; then the image case, images/s and peak
 * RSS against image count and against concurrency. One page, inline CSS and SVG, no script.
 */
import { formatBytes } from '../lib/export/report.ts';
import { BASE_CSS, escapeHtml, formatCount, formatNumber, htmlPage } from '../lib/html.ts';
import { PALETTE, renderLineChart, type Series } from '../lib/svg-chart.ts';
import type { ImageRow } from './image-case.ts';
import { routeOf, sizeOf, workloadOf, type BenchResults, type BenchRow, type ReferenceResults } from './results.ts';

/** The image case's peak RSS limit (bench.ts fails the run above it), drawn on its RSS charts. */
export const IMAGE_PEAK_LIMIT_MB = 400;

const PAGE_CSS = `${BASE_CSS}
body { max-width: 1400px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 8px 20px; }
.caption { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; background: var(--bg-soft); }
`;

function group<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list === undefined) groups.set(k, [item]);
    else list.push(item);
  }
  return groups;
}

function caption(results: BenchResults): string {
  const m = results.machine;
  const machineText = m === undefined ? 'machine not recorded' : `${m.cpu}, ${m.cores} cores, ${formatBytes(m.memoryBytes)} memory, ${m.platform}/${m.arch}`;
  return (
    `<p class="caption" id="machine"><strong>Machine:</strong> <span data-field="machine">${escapeHtml(machineText)}</span> · ` +
    `<strong>node</strong> <span data-field="node">${escapeHtml(results.node)}</span> · <strong>date</strong> <span data-field="date">${escapeHtml(results.date)}</span>` +
    (results.processSettings === undefined ? '' : ` · <strong>process settings</strong> ${escapeHtml(results.processSettings)}`) +
    `</p>`
  );
}

const figure = (chart: string, text: string): string => `<figure>${chart}<figcaption>${escapeHtml(text)}</figcaption></figure>`;

/**
 * One series per route (the floor first, dashed), plus the reference's routes where measured,
 * each in its route's colour. Colours follow the order of `routes`, so a route keeps its colour
 * across a workload's charts.
 */
function seriesOf(
  rows: readonly BenchRow[],
  routes: readonly string[],
  value: (row: BenchRow) => number,
  reference?: ReferenceResults,
  referenceValue?: (row: ReferenceResults['rows'][number]) => { reference: number; ours: number },
): Series[] {
  const byRoute = group(rows, routeOf);
  const colour = (route: string): string => PALETTE[Math.max(routes.indexOf(route), 0) % PALETTE.length]!;
  const series: Series[] = [];
  const floor = byRoute.get('floor');
  if (floor !== undefined) series.push({ name: 'floor', points: floor.map((r) => ({ x: sizeOf(r), y: value(r) })), dashed: true, color: '#555555', marker: 'square' });
  for (const [route, list] of byRoute) {
    if (route !== 'floor') series.push({ name: route, points: list.map((r) => ({ x: sizeOf(r), y: value(r) })), marker: 'circle', color: colour(route) });
  }
  if (reference !== undefined && referenceValue !== undefined) {
    for (const r of reference.rows) {
      series.push({ name: `reference ${r.route}`, points: [{ x: reference.messages, y: referenceValue(r).reference }], dashed: true, marker: 'diamond', color: colour(r.route) });
      // A workload the bench did not run: ours from the reference's own run stands beside it.
      if (rows.length === 0) series.push({ name: `ours ${r.route}`, points: [{ x: reference.messages, y: referenceValue(r).ours }], marker: 'circle', color: colour(r.route) });
    }
  }
  return series;
}

function rowsTable(rows: readonly BenchRow[]): string {
  const body = rows
    .map(
      (r) =>
        `<tr data-case="${escapeHtml(r.case)}"><td>${escapeHtml(routeOf(r))}</td><td class="num">${formatCount(sizeOf(r))}</td><td class="num">${formatCount(r.messages)}</td><td class="num">${formatBytes(r.bytes)}</td>` +
        `<td class="num" data-field="mbPerSecond">${formatNumber(r.mbPerSecond)}</td><td class="num" data-field="messagesPerSecond">${formatCount(r.messagesPerSecond)}</td>` +
        `<td class="num" data-field="peakRssMb">${formatNumber(r.peakRssMb)}</td><td class="num">${r.ratioToFloor === null ? '' : r.ratioToFloor.toFixed(2)}</td></tr>`,
    )
    .join('');
  return `<table class="bench-rows"><thead><tr><th>route</th><th class="num">session size</th><th class="num">messages counted</th><th class="num">bytes</th><th class="num">MB/s</th><th class="num">messages/s</th><th class="num">peak RSS (MB)</th><th class="num">to floor</th></tr></thead><tbody>${body}</tbody></table>`;
}

function referenceTable(ref: ReferenceResults): string {
  const body = ref.rows
    .map(
      (r) =>
        `<tr data-reference="${escapeHtml(r.route)}"><td>${escapeHtml(r.route)}</td><td class="num">${formatNumber(r.referenceMbPerSecond)}</td><td class="num">${formatNumber(r.oursMbPerSecond)}</td>` +
        `<td class="num">${formatCount(r.referenceMessagesPerSecond)}</td><td class="num">${formatCount(r.oursMessagesPerSecond)}</td><td class="num">${(r.referenceMs / r.oursMs).toFixed(2)}x</td></tr>`,
    )
    .join('');
  return `<table class="reference-rows"><thead><tr><th>route</th><th class="num">reference MB/s</th><th class="num">ours MB/s</th><th class="num">reference messages/s</th><th class="num">ours messages/s</th><th class="num">ours / reference</th></tr></thead><tbody>${body}</tbody></table>`;
}

function workloadSection(workload: string, rows: readonly BenchRow[], reference: ReferenceResults | undefined): string {
  const ref = reference?.workload === workload ? reference : undefined;
  const routes = [...new Set([...rows.map(routeOf), ...(ref?.rows.map((r) => r.route) ?? [])])].filter((r) => r !== 'floor');
  const x = { xLabel: 'session size (messages)', xScale: 'log' as const, xTicksAtPoints: true };
  const charts = [
    renderLineChart({ ...x, title: `Throughput (MB/s): ${workload}`, yLabel: 'MB/s', series: seriesOf(rows, routes, (r) => r.mbPerSecond, ref, (r) => ({ reference: r.referenceMbPerSecond, ours: r.oursMbPerSecond })) }),
    renderLineChart({ ...x, title: `Throughput (messages/s): ${workload}`, yLabel: 'messages/s', series: seriesOf(rows, routes, (r) => r.messagesPerSecond, ref, (r) => ({ reference: r.referenceMessagesPerSecond, ours: r.oursMessagesPerSecond })) }),
    // The reference run does not measure memory: no RSS chart for a workload only it ran.
    ...(rows.length === 0 ? [] : [renderLineChart({ ...x, title: `Peak RSS: ${workload}`, yLabel: 'peak RSS (MB)', series: seriesOf(rows, routes, (r) => r.peakRssMb) })]),
  ];
  const refNote =
    ref === undefined
      ? 'The reference was not measured for this workload (npm run bench:reference writes bench/reference.json when the oracle is installed).'
      : `Reference (diamonds, dashed): OpenClaw 2026.9.6 through the oracle on ${formatCount(ref.messages)} messages (${formatBytes(ref.bytes)}), its start-up subtracted, ${ref.date}; ours measured on the same messages in the same run.`;
  return (
    `<section class="workload" data-workload="${escapeHtml(workload)}"><h2>Workload: ${escapeHtml(workload)}</h2>` +
    `<div class="charts">${charts.map((c) => figure(c, 'Each point is one run in its own process. Floor: read, JSON.parse, JSON.stringify and write every line, no rules.')).join('')}</div>` +
    `<p class="muted">${escapeHtml(refNote)}</p>${rows.length === 0 ? '' : rowsTable(rows)}${ref === undefined ? '' : referenceTable(ref)}</section>`
  );
}

function imageSection(rows: readonly ImageRow[]): string {
  if (rows.length === 0) return `<section id="images"><h2>Image case</h2><p class="muted">Not run (--images 0).</p></section>`;
  const limit = (xs: number[]): Series => ({ name: `limit ${IMAGE_PEAK_LIMIT_MB} MB`, points: [Math.min(...xs), Math.max(...xs)].map((x) => ({ x, y: IMAGE_PEAK_LIMIT_MB })), dashed: true, color: '#b42318', marker: 'triangle' });
  const byConcurrency = [...group(rows, (r) => String(r.concurrency))].sort((a, b) => Number(a[0]) - Number(b[0]));
  const byCount = [...group(rows, (r) => String(r.images))].sort((a, b) => Number(a[0]) - Number(b[0]));
  const counts = rows.map((r) => r.images);
  const widths = rows.map((r) => r.concurrency);
  const perCount = { xLabel: 'images in the session', xScale: 'log' as const, xTicksAtPoints: true };
  const perWidth = { xLabel: 'image concurrency', xScale: 'linear' as const, xTicksAtPoints: true };
  const charts = [
    renderLineChart({ ...perCount, title: 'Images/s against image count', yLabel: 'images/s', series: byConcurrency.map(([c, list]) => ({ name: `concurrency ${c}`, points: list.map((r) => ({ x: r.images, y: r.imagesPerSecond })) })) }),
    renderLineChart({
      ...perCount,
      title: 'Peak RSS against image count',
      yLabel: 'peak RSS (MB)',
      series: [...byConcurrency.map(([c, list]) => ({ name: `concurrency ${c}`, points: list.map((r) => ({ x: r.images, y: r.peakRssMb })) })), limit(counts)],
    }),
    renderLineChart({ ...perWidth, title: 'Images/s against concurrency', yLabel: 'images/s', series: byCount.map(([n, list]) => ({ name: `${n} images`, points: list.map((r) => ({ x: r.concurrency, y: r.imagesPerSecond })) })) }),
    renderLineChart({
      ...perWidth,
      title: 'Peak RSS against concurrency',
      yLabel: 'peak RSS (MB)',
      series: [...byCount.map(([n, list]) => ({ name: `${n} images`, points: list.map((r) => ({ x: r.concurrency, y: r.peakRssMb })) })), limit(widths)],
    }),
  ];
  const body = rows
    .map(
      (r) =>
        `<tr><td class="num">${formatCount(r.images)}</td><td class="num">${formatCount(r.messages)}</td><td class="num">${formatCount(r.fileMb)}</td><td class="num">${r.concurrency}</td>` +
        `<td class="num">${formatNumber(r.seconds)}</td><td class="num" data-field="imagesPerSecond">${formatNumber(r.imagesPerSecond)}</td><td class="num" data-field="peakRssMb">${formatCount(r.peakRssMb)}</td>` +
        `<td class="num">${r.resized}</td><td class="num">${r.kept}</td><td class="num">${r.omitted}</td></tr>`,
    )
    .join('');
  return (
    `<section id="images"><h2>Image case</h2><p class="muted">bench/images.ts in pipeline mode (every rule of the anthropic route), 25 messages per image, images of 1-4 MB. Peak RSS must stay under ${IMAGE_PEAK_LIMIT_MB} MB and flat as the session grows.</p>` +
    `<div class="charts">${charts.map((c) => figure(c, 'Each point is one run in its own process.')).join('')}</div>` +
    `<table class="image-rows"><thead><tr><th class="num">images</th><th class="num">messages</th><th class="num">file (MB)</th><th class="num">concurrency</th><th class="num">seconds</th><th class="num">images/s</th><th class="num">peak RSS (MB)</th><th class="num">resized</th><th class="num">kept</th><th class="num">omitted</th></tr></thead><tbody>${body}</tbody></table></section>`
  );
}

export function renderBenchReportHtml(results: BenchResults, reference?: ReferenceResults): string {
  const workloads = group(results.rows, workloadOf);
  // A reference measured on a workload this run did not have still gets its section.
  if (reference !== undefined && !workloads.has(reference.workload)) workloads.set(reference.workload, []);
  const sections = [...workloads].map(([name, rows]) => workloadSection(name, rows, reference));
  const body =
    `<header><h1>Benchmarks</h1>${caption(results)}<p class="muted">Read the ratio to the floor, not the MB/s alone: the floor runs in the same run on the same file, so machine noise moves both.</p></header>` +
    sections.join('\n') +
    imageSection(results.imageRows);
  return htmlPage(`Benchmarks ${results.date}`, PAGE_CSS, `<main>${body}</main>`);
}
