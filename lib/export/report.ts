/**
 * The export report (DIR/export-report.json and the summary on stderr): totals, every failure
 * with file, line and reason, the outputs made from repaired copies, and the rules' counters
 * summed over the sessions exported in this run.
 */
import type { HygieneStats } from '../stats.ts';
import type { SessionsSection } from './report-sessions.ts';
import type { SkippedInSession, SkippedLinesSection } from './report-skipped.ts';
import type { ExportFormat } from './routes.ts';

export const REPORT_NAME = 'export-report.json';
/** The same report as a page (report-html.ts), written beside the JSON. */
export const REPORT_HTML_NAME = 'export-report.html';

export interface ExportFailure {
  /** The session, as given (input path joined with the path below it). */
  file: string;
  /** The route's name, when several routes were exported. */
  route?: string;
  /** The output's path relative to DIR, when the session has one. */
  output?: string;
  /** 1-based line of the session where the input went bad, when known. */
  line?: number;
  /** A HygieneError code (malformed_line, input_unreadable, ...) or out_of_memory, worker_crashed, output_failed, internal_error. */
  code: string;
  reason: string;
}

/** The per-session figures (report-sessions.ts: byRoute, slowest, largest, ruleSessions, sizeBuckets) are aggregated, bounded in size. */
export interface ExportReport extends SessionsSection {
  tool: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  outDir: string;
  format: ExportFormat;
  jobs: number;
  force: boolean;
  repair: boolean;
  routes: Array<{ name: string; provider: string; modelApi: string; modelId: string; reasoning: boolean; thinking: boolean; optionsHash: string }>;
  /** The run was stopped (SIGINT, SIGTERM, an aborted signal) before every output was done. */
  interrupted: boolean;
  totals: {
    /** Session files found (including those that could not be read). */
    sessions: number;
    /** Outputs planned: sessions times routes. */
    outputs: number;
    /** Outputs written by this run. */
    exported: number;
    /** Outputs already done and current (manifest), not redone. */
    skipped: number;
    failed: number;
    /** Outputs made from a copy the repair changed (--repair). */
    repaired: number;
    /** Bytes of the sessions exported by this run (once per route). */
    bytesIn: number;
    bytesOut: number;
    messagesIn: number;
    messagesOut: number;
    /** bytesIn per second of the run's wall-clock time, in MB (10^6 bytes). */
    mbPerSecond: number;
  };
  /** The process's peak resident set (parent and worker threads together) and CPU time. */
  resources: { peakRssBytes: number; cpuUserMs: number; cpuSystemMs: number };
  failures: ExportFailure[];
  /** Outputs made from a copy the repair changed (--repair), with what it changed (RepairReport's counts). */
  repaired: Array<{ file: string; route?: string; output: string; droppedLines?: number; [count: string]: unknown }>;
  /** Counters per rule, summed over the outputs written by this run. */
  rules: Record<string, Record<string, number>>;
  warnings: string[];
  /** Lines of sessions the export passed over (not JSON): data the outputs lack, per session and in total. */
  skippedLines: SkippedLinesSection;
  /** When outputs were current from an earlier run: how many, and what this report covers of them. */
  earlierRuns?: { outputs: number; note: string };
  /** Only for `export --queue`: the broker, the queue and the workers that did the outputs. */
  queue?: QueueReport;
}

/** The `queue` section of a report of `export --queue` (lib/export/queue/). */
export interface QueueReport {
  /** The broker's URL, without its password. */
  broker: string;
  /** The BullMQ queue (its keys start with `<prefix>:<name>:`); removed once the report is written. */
  name: string;
  prefix: string;
  /** Jobs enqueued by this run (outputs not current); the others were skipped or failed before. */
  enqueued: number;
  /** Of those, jobs a previous run of this export had already finished on the queue (same job id). */
  alreadyFinished: number;
  /** Each worker (host:pid) that finished outputs of this run, with how many. */
  workers: Array<{ worker: string; exported: number; failed: number }>;
  /** Jobs that needed more than one attempt (a transient error retried, or a worker lost mid-job). */
  retried: number;
}

/** Exit codes of `transcript-hygiene export` (its usage code differs from the other commands'). */
export const EXPORT_EXIT = Object.freeze({
  ok: 0,
  /** Usage error, or the export could not start (output directory not writable, in use). */
  usage: 1,
  /** Some sessions failed; the rest were exported. */
  someFailed: 2,
  internal: 70,
  /** Interrupted by SIGINT (SIGTERM: 143). */
  interrupted: 130,
});

export function exitCodeOf(report: ExportReport): number {
  if (report.interrupted) return EXPORT_EXIT.interrupted;
  return report.failures.length > 0 ? EXPORT_EXIT.someFailed : EXPORT_EXIT.ok;
}

/** Adds one output's rule counters into the running sums. */
export function addRuleCounters(into: Record<string, Record<string, number>>, stats: HygieneStats): void {
  for (const [rule, counters] of Object.entries(stats.rules)) {
    const sum = (into[rule] ??= {});
    for (const [name, value] of Object.entries(counters)) sum[name] = (sum[name] ?? 0) + value;
  }
}

export function compareFailures(a: ExportFailure, b: ExportFailure): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  const ra = a.route ?? '';
  const rb = b.route ?? '';
  return ra < rb ? -1 : ra > rb ? 1 : 0;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${seconds} s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** `file[:line]` as a failure line starts. */
export function failurePlace(failure: ExportFailure): string {
  return `${failure.file}${failure.line === undefined ? '' : `:${failure.line}`}${failure.route === undefined ? '' : ` [${failure.route}]`}`;
}

/** `file: N lines (5, 7, ...)` for a session that lost lines. */
export function skippedPlace(session: Pick<SkippedInSession, 'file' | 'count' | 'lines' | 'earlierRun'>): string {
  const shown = session.lines.slice(0, 10).join(', ');
  const more = session.count > Math.min(10, session.lines.length) ? ', ...' : '';
  return `${session.file}: ${plural(session.count, 'line')} (${session.count === 1 ? 'line' : 'lines'} ${shown}${more})${session.earlierRun ? ' [earlier run]' : ''}`;
}

/** The summary the command prints on stderr at the end; at most `limit` failures are listed. */
export function formatSummary(report: ExportReport, reportPath: string, limit = 20): string {
  const t = report.totals;
  const lines: string[] = [];
  const what = report.routes.length > 1 ? `${plural(t.outputs, 'output')} (${plural(t.sessions, 'session')} x ${report.routes.length} routes)` : plural(t.sessions, 'session');
  lines.push(
    `export: ${what}: ${t.exported} exported, ${t.skipped} already current, ${t.failed} failed` +
      (t.repaired > 0 ? `, ${t.repaired} repaired` : '') +
      `; ${formatBytes(t.bytesIn)} in ${formatDuration(report.durationMs)} (${t.mbPerSecond.toFixed(1)} MB/s)` +
      (report.interrupted ? '; INTERRUPTED (run again to resume)' : ''),
  );
  for (const failure of report.failures.slice(0, limit)) lines.push(`  FAILED ${failurePlace(failure)}: ${failure.reason}`);
  if (report.failures.length > limit) lines.push(`  ... and ${report.failures.length - limit} more`);
  const lost = report.skippedLines;
  if (lost.lines > 0) {
    lines.push(`  SKIPPED ${plural(lost.lines, 'line')} in ${plural(lost.sessions, 'session')} (not JSON: the outputs lack them):`);
    for (const session of lost.bySession.slice(0, limit)) lines.push(`    ${skippedPlace(session)}`);
    if (lost.bySession.length > limit) lines.push(`    ... and ${lost.bySession.length - limit} more sessions`);
  }
  const redactions = report.redactions;
  if (redactions !== undefined) {
    const byRule = Object.entries(redactions.byRule).sort(([a], [b]) => (a < b ? -1 : 1)).map(([rule, count]) => `${rule} ${count}`).join(', ');
    lines.push(`export: ${plural(redactions.secrets, 'secret')} redacted in ${plural(redactions.sessions, 'session')}${byRule === '' ? '' : ` (${byRule})`}`);
  }
  for (const warning of report.warnings) lines.push(`  warning: ${warning}`);
  if (report.earlierRuns !== undefined) lines.push(`  note: ${report.earlierRuns.note}`);
  lines.push(`export: report in ${reportPath}`);
  return lines.join('\n') + '\n';
}

/** What exportSessions tells `onProgress` as it goes. */
export type ExportEvent =
  | {
      type: 'start';
      sessions: number;
      routes: number;
      outputs: number;
      /** Outputs this run will write. */
      toDo: number;
      /** Bytes of the sessions to export (once per route). */
      bytesToDo: number;
      skipped: number;
      /** Outputs that failed before any work (unreadable sessions, collisions); each also gets an 'output' event. */
      failedEarly: number;
      jobs: number;
    }
  | {
      type: 'output';
      status: 'exported' | 'failed';
      file: string;
      route?: string;
      output?: string;
      bytesIn: number;
      bytesOut: number;
      ms: number;
      repaired: boolean;
      failure?: ExportFailure;
      /** Lines of the session passed over (not JSON), when there were any. */
      skippedLines?: Omit<SkippedInSession, 'file'>;
    }
  | { type: 'end'; report: ExportReport };
