/**
 * DIR/export-report.html: the export report as one self-contained page (inline CSS and SVG, no
 * script, nothing fetched), rendered only from the report object that export-report.json holds.
 *
 * It stays quick to open for any archive: every list is capped (the JSON's own lists are
 * already bounded, except failures and repaired outputs) and says how many more the JSON has.
 * Every figure shown carries data-field (its path in the JSON) and data-value (the raw number),
 * so a test can hold the page to the JSON.
 */
import { BASE_CSS, escapeHtml, formatCount, formatNumber, htmlPage } from '../html.ts';
import { renderBarChart } from '../svg-chart.ts';
import type { SessionFigures } from './report-sessions.ts';
import { REPORT_NAME, formatBytes, formatDuration, type ExportReport } from './report.ts';

/** Rows shown of the failures and repaired lists before "N more". */
export const HTML_ROW_LIMIT = 200;

const PAGE_CSS = `${BASE_CSS}
.banner { border: 1px solid var(--bad); color: var(--bad); background: #fdf0ef; border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
.warning { border-color: #b7791f; color: #7b5410; background: #fdf6e8; }
table.failures td.reason { color: var(--bad); }
table.failures td.file { width: 40%; }
td.path { overflow-wrap: anywhere; word-break: normal; }
td.code { font-family: ui-monospace, monospace; font-size: 12.5px; white-space: nowrap; }
ol.top { margin: 0; padding-left: 18px; }
ol.top li { font-size: 12.5px; }
`;

const num = (field: string, value: number, text: string): string => `<span data-field="${escapeHtml(field)}" data-value="${value}">${escapeHtml(text)}</span>`;

function card(label: string, field: string, value: number, text: string, tone = ''): string {
  return `<div class="card${tone === '' ? '' : ` ${tone}`}"><div class="label">${escapeHtml(label)}</div><div class="value">${num(field, value, text)}</div></div>`;
}

function more(shown: number, total: number, what: string): string {
  return total > shown ? `<p class="more" data-more="${total - shown}">and ${formatCount(total - shown)} more ${escapeHtml(what)} in ${REPORT_NAME}</p>` : '';
}

function totalsSection(report: ExportReport): string {
  const t = report.totals;
  const seconds = Math.max(report.durationMs, 1) / 1000;
  const cards = [
    card('sessions', 'totals.sessions', t.sessions, formatCount(t.sessions)),
    ...(report.routes.length > 1 ? [card(`outputs (${report.routes.length} routes)`, 'totals.outputs', t.outputs, formatCount(t.outputs))] : []),
    card('exported', 'totals.exported', t.exported, formatCount(t.exported), t.exported > 0 ? 'ok' : ''),
    card('already current', 'totals.skipped', t.skipped, formatCount(t.skipped)),
    card('failed', 'totals.failed', t.failed, formatCount(t.failed), t.failed > 0 ? 'bad' : ''),
    ...(report.repair ? [card('repaired', 'totals.repaired', t.repaired, formatCount(t.repaired))] : []),
    card('bytes in', 'totals.bytesIn', t.bytesIn, formatBytes(t.bytesIn)),
    card('bytes out', 'totals.bytesOut', t.bytesOut, formatBytes(t.bytesOut)),
    card('messages in', 'totals.messagesIn', t.messagesIn, formatCount(t.messagesIn)),
    card('messages out', 'totals.messagesOut', t.messagesOut, formatCount(t.messagesOut)),
    card('time', 'durationMs', report.durationMs, formatDuration(report.durationMs)),
    card('throughput (MB/s)', 'totals.mbPerSecond', t.mbPerSecond, formatNumber(t.mbPerSecond, 2)),
    card('messages/s', 'messagesPerSecond', Math.round(t.messagesIn / seconds), formatCount(t.messagesIn / seconds)),
    card('peak RSS', 'resources.peakRssBytes', report.resources.peakRssBytes, formatBytes(report.resources.peakRssBytes)),
  ];
  return `<section id="totals"><h2>Totals</h2><div class="cards">${cards.join('')}</div></section>`;
}

function failuresSection(report: ExportReport): string {
  const failures = report.failures;
  if (failures.length === 0) return `<section id="failures"><h2>Failures</h2><p class="muted">None: every session was exported or already current.</p></section>`;
  const several = report.routes.length > 1;
  const rows = failures
    .slice(0, HTML_ROW_LIMIT)
    .map(
      (f) =>
        `<tr class="failure"><td class="path file">${escapeHtml(f.file)}</td><td class="num line">${f.line === undefined ? '' : f.line}</td>` +
        (several ? `<td>${escapeHtml(f.route ?? '')}</td>` : '') +
        `<td class="code">${escapeHtml(f.code)}</td><td class="reason">${escapeHtml(f.reason)}</td></tr>`,
    )
    .join('');
  return (
    `<section id="failures"><h2>Failures (${num('totals.failed', report.totals.failed, formatCount(report.totals.failed))})</h2>` +
    `<table class="failures"><thead><tr><th>file</th><th class="num">line</th>${several ? '<th>route</th>' : ''}<th>code</th><th>reason</th></tr></thead><tbody>${rows}</tbody></table>` +
    more(HTML_ROW_LIMIT, failures.length, 'failures') +
    '</section>'
  );
}

function skippedLinesSection(report: ExportReport): string {
  const lost = report.skippedLines;
  // Reports written before this section existed have none.
  if (lost === undefined || lost.lines === 0) return '';
  const rows = lost.bySession
    .slice(0, HTML_ROW_LIMIT)
    .map(
      (s, i) =>
        `<tr class="skipped"><td class="path file">${escapeHtml(s.file)}${s.earlierRun ? ' <span class="muted">(earlier run)</span>' : ''}</td>` +
        `<td class="num">${num(`skippedLines.bySession.${i}.count`, s.count, formatCount(s.count))}</td>` +
        `<td class="code">${escapeHtml(s.lines.slice(0, 20).join(', '))}${s.count > Math.min(20, s.lines.length) ? ', ...' : ''}</td><td class="reason">${escapeHtml(s.reason)}</td></tr>`,
    )
    .join('');
  return (
    `<section id="skipped-lines"><h2>Skipped lines (${num('skippedLines.lines', lost.lines, formatCount(lost.lines))} in ${num('skippedLines.sessions', lost.sessions, formatCount(lost.sessions))} sessions)</h2>` +
    `<p class="banner warning">These lines of the sessions could not be read and are not in the outputs.</p>` +
    `<table class="failures"><thead><tr><th>session</th><th class="num">lines</th><th>line numbers</th><th>why</th></tr></thead><tbody>${rows}</tbody></table>` +
    more(HTML_ROW_LIMIT, lost.bySession.length, 'sessions with skipped lines') +
    '</section>'
  );
}

function routesSection(report: ExportReport): string {
  const routeOf = new Map(report.routes.map((r) => [r.name, r]));
  const rows = report.byRoute
    .map((r, i) => {
      const route = routeOf.get(r.name);
      const field = (name: string): string => `byRoute.${i}.${name}`;
      return (
        `<tr data-route="${escapeHtml(r.name)}"><td>${escapeHtml(r.name)}</td><td>${escapeHtml(route === undefined ? '' : `${route.provider} / ${route.modelApi} / ${route.modelId}`)}</td>` +
        `<td class="num">${num(field('outputs'), r.outputs, formatCount(r.outputs))}</td><td class="num">${num(field('exported'), r.exported, formatCount(r.exported))}</td>` +
        `<td class="num">${num(field('skipped'), r.skipped, formatCount(r.skipped))}</td><td class="num">${num(field('failed'), r.failed, formatCount(r.failed))}</td>` +
        `<td class="num">${num(field('bytesIn'), r.bytesIn, formatBytes(r.bytesIn))}</td><td class="num">${num(field('bytesOut'), r.bytesOut, formatBytes(r.bytesOut))}</td>` +
        `<td class="num">${num(field('messagesIn'), r.messagesIn, formatCount(r.messagesIn))}</td><td class="num">${num(field('jobMs'), r.jobMs, formatDuration(r.jobMs))}</td></tr>`
      );
    })
    .join('');
  return (
    `<section id="routes"><h2>Routes</h2><table><thead><tr><th>route</th><th>provider / API / model</th><th class="num">outputs</th><th class="num">exported</th>` +
    `<th class="num">current</th><th class="num">failed</th><th class="num">bytes in</th><th class="num">bytes out</th><th class="num">messages in</th><th class="num">job time</th></tr></thead>` +
    `<tbody>${rows}</tbody></table><p class="muted">Job time sums the jobs' own times; jobs run ${report.jobs} at a time.</p></section>`
  );
}

function rulesSection(report: ExportReport): string {
  const rules = Object.keys(report.rules).sort();
  if (rules.length === 0) return `<section id="rules"><h2>What the hygiene changed</h2><p class="muted">No rule counted anything in the outputs of this run.</p></section>`;
  let rows = '';
  for (const rule of rules) {
    const counters = Object.keys(report.rules[rule]!).sort();
    counters.forEach((counter, k) => {
      const total = report.rules[rule]![counter]!;
      const sessions = report.ruleSessions[rule]?.[counter];
      const top = (sessions?.top ?? [])
        // The output's path starts with its route's directory when there are several routes.
        .map((s) => `<li><span class="path">${escapeHtml(s.output)}</span>: ${formatCount(s.count)}</li>`)
        .join('');
      rows +=
        `<tr data-rule="${escapeHtml(rule)}" data-counter="${escapeHtml(counter)}">` +
        (k === 0 ? `<td rowspan="${counters.length}" class="code">${escapeHtml(rule)}</td>` : '') +
        `<td class="code">${escapeHtml(counter)}</td><td class="num">${num(`rules.${rule}.${counter}`, total, formatCount(total))}</td>` +
        `<td class="num">${sessions === undefined ? '' : num(`ruleSessions.${rule}.${counter}.sessions`, sessions.sessions, formatCount(sessions.sessions))}</td>` +
        `<td>${top === '' ? '' : `<ol class="top">${top}</ol>`}</td></tr>`;
    });
  }
  return (
    `<section id="rules"><h2>What the hygiene changed</h2><p class="muted">Each rule's counters, summed over the outputs this run wrote, with the sessions where each counted most.</p>` +
    `<table><thead><tr><th>rule</th><th>counter</th><th class="num">total</th><th class="num">sessions</th><th>most in</th></tr></thead><tbody>${rows}</tbody></table></section>`
  );
}

/** What redaction removed: per rule, then one line per session (counts only: the JSON never holds a secret). */
function redactionsSection(report: ExportReport): string {
  const r = report.redactions;
  if (r === undefined) return '';
  const cards = [card('secrets redacted', 'redactions.secrets', r.secrets, formatCount(r.secrets), r.secrets > 0 ? 'bad' : 'ok'), card('sessions with secrets', 'redactions.sessions', r.sessions, formatCount(r.sessions))];
  if (r.sessions === 0) return `<section id="redactions"><h2>Secrets redacted</h2><div class="cards">${cards.join('')}</div><p class="muted">No secret was found in the outputs of this run.</p></section>`;
  const rules = Object.keys(r.byRule).sort();
  const byRule = rules.map((rule) => `<tr data-redaction-rule="${escapeHtml(rule)}"><td class="code">[REDACTED:${escapeHtml(rule)}]</td><td class="num">${num(`redactions.byRule.${rule}`, r.byRule[rule]!, formatCount(r.byRule[rule]!))}</td></tr>`).join('');
  const several = report.routes.length > 1;
  const sessions = r.listed
    .slice(0, HTML_ROW_LIMIT)
    .map(
      (s, i) =>
        `<tr class="redacted-session"><td class="path">${escapeHtml(s.output)}</td>${several ? `<td>${escapeHtml(s.route ?? '')}</td>` : ''}` +
        `<td class="num">${num(`redactions.listed.${i}.secrets`, s.secrets, formatCount(s.secrets))}</td>` +
        `<td class="code">${Object.entries(s.byRule).map(([rule, count]) => `${escapeHtml(rule)} ${formatCount(count)}`).join(', ')}</td>` +
        `<td class="num">${formatCount(s.messages)}</td><td class="num">${formatCount(s.unsignedThinking)}</td></tr>`,
    )
    .join('');
  return (
    `<section id="redactions"><h2>Secrets redacted</h2><div class="cards">${cards.join('')}</div><p class="muted">Rules: ${escapeHtml(r.ruleSet)}, the generic NAME=value detector and the user's patterns.</p>` +
    `<table><thead><tr><th>placeholder</th><th class="num">secrets</th></tr></thead><tbody>${byRule}</tbody></table>` +
    `<h3>Per session</h3><p class="muted">What each output had removed, to review: counts per rule, never the secrets.</p>` +
    `<table class="sessions"><thead><tr><th>output</th>${several ? '<th>route</th>' : ''}<th class="num">secrets</th><th>by rule</th><th class="num">messages</th><th class="num">thinking unsigned</th></tr></thead><tbody>${sessions}</tbody></table>` +
    more(Math.min(HTML_ROW_LIMIT, r.listed.length), r.sessions, 'sessions with secrets') +
    '</section>'
  );
}

function sessionTable(id: string, title: string, field: string, sessions: readonly SessionFigures[], several: boolean): string {
  if (sessions.length === 0) return `<section id="${id}"><h2>${escapeHtml(title)}</h2><p class="muted">No output was written by this run.</p></section>`;
  const rows = sessions
    .map(
      (s, i) =>
        `<tr><td class="path">${escapeHtml(s.file)}</td>${several ? `<td>${escapeHtml(s.route ?? '')}</td>` : ''}` +
        `<td class="num">${num(`${field}.${i}.bytesIn`, s.bytesIn, formatBytes(s.bytesIn))}</td><td class="num">${formatCount(s.messagesIn)}</td>` +
        `<td class="num">${num(`${field}.${i}.ms`, s.ms, formatDuration(s.ms))}</td><td class="num">${formatNumber(s.bytesIn / 1e6 / Math.max(s.ms / 1000, 0.001), 1)}</td></tr>`,
    )
    .join('');
  return (
    `<section id="${id}"><h2>${escapeHtml(title)}</h2><table class="sessions"><thead><tr><th>session</th>${several ? '<th>route</th>' : ''}<th class="num">size</th><th class="num">messages</th><th class="num">time</th><th class="num">MB/s</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></section>`
  );
}

function sizesSection(report: ExportReport): string {
  if (report.sizeBuckets.length === 0) return '';
  const label = (bound: number): string => `< ${formatBytes(bound).replace('.0 ', ' ')}`;
  const chart = renderBarChart({
    title: 'Sessions exported by size',
    xLabel: 'session size',
    yLabel: 'sessions',
    bars: report.sizeBuckets.map((b) => ({ label: label(b.belowBytes), value: b.exported })),
  });
  return `<section id="sizes"><h2>Session sizes</h2><figure>${chart}<figcaption>Outputs written by this run, by the size of their session (buckets grow by 10).</figcaption></figure></section>`;
}

function repairedSection(report: ExportReport): string {
  if (report.repaired.length === 0) return '';
  const rows = report.repaired
    .slice(0, HTML_ROW_LIMIT)
    .map((r) => {
      const counts = Object.entries(r)
        .filter(([key, value]) => typeof value === 'number' && value !== 0 && key !== 'line')
        .map(([key, value]) => `${escapeHtml(key)} ${formatCount(value as number)}`)
        .join(', ');
      return `<tr><td class="path">${escapeHtml(r.output)}</td><td>${counts}</td></tr>`;
    })
    .join('');
  return `<section id="repaired"><h2>Repaired copies</h2><table><thead><tr><th>output</th><th>what the repair changed</th></tr></thead><tbody>${rows}</tbody></table>${more(HTML_ROW_LIMIT, report.repaired.length, 'repaired outputs')}</section>`;
}

export function renderExportReportHtml(report: ExportReport): string {
  const several = report.routes.length > 1;
  const header =
    `<header><h1>Export report</h1><p class="meta">${escapeHtml(report.outDir)} · ${escapeHtml(report.tool)} · ${escapeHtml(report.startedAt)} to ${escapeHtml(report.finishedAt)} · ` +
    `format ${escapeHtml(report.format)} · ${report.jobs} job${report.jobs === 1 ? '' : 's'}${report.force ? ' · --force' : ''}${report.repair ? ' · --repair' : ''}</p></header>` +
    (report.interrupted ? `<p class="banner">Interrupted before every output was done: run the export again to resume.</p>` : '') +
    report.warnings.map((w) => `<p class="banner warning">warning: ${escapeHtml(w)}</p>`).join('') +
    (report.earlierRuns === undefined ? '' : `<p class="banner warning" data-field="earlierRuns.outputs" data-value="${report.earlierRuns.outputs}">${escapeHtml(report.earlierRuns.note)}</p>`);
  const body = [
    header,
    totalsSection(report),
    failuresSection(report),
    skippedLinesSection(report),
    routesSection(report),
    rulesSection(report),
    redactionsSection(report),
    sizesSection(report),
    sessionTable('slowest', 'Slowest sessions', 'slowest', report.slowest, several),
    sessionTable('largest', 'Largest sessions', 'largest', report.largest, several),
    repairedSection(report),
  ].join('\n');
  return htmlPage(`Export report: ${report.outDir}`, PAGE_CSS, `<main>${body}</main>`);
}
