/**
 * exportSessions: the hygiene over whole directories of sessions, for one or several routes,
 * into a mirrored output tree, in parallel worker threads, resumable, with a report.
 *
 *   discover (discover.ts) -> plan: skip what the manifest says is done and current
 *   (manifest.ts) -> run the rest on worker lanes (pool.ts, export-file.ts), largest first ->
 *   record each finished output in the manifest -> write DIR/export-report.json (report.ts)
 *
 * A bad session never stops the export: it becomes a failure in the report. Only bad options,
 * an output directory that cannot be written, or one that another export holds, throw.
 */
import { availableParallelism } from 'node:os';
import { readdir, rm, stat } from 'node:fs/promises';
import { ensureDirectory } from '../atomic-write.ts';
import path from 'node:path';
import { HygieneError } from '../errors.ts';
import type { ByteSource } from '../jsonl.ts';
import { discoverSessions, type SessionSource } from './discover.ts';
import type { ExportTaskResult } from './export-file.ts';
import { LOCK_NAME, MANIFEST_NAME, Manifest, TEMP_MARK, acquireExportLock, writeFileAtomic } from './manifest.ts';
import { SkippedLinesAggregator, skippedLinesOf } from './report-skipped.ts';
import { renderExportReportHtml } from './report-html.ts';
import { SessionsAggregator } from './report-sessions.ts';
import { REPORT_HTML_NAME, REPORT_NAME, addRuleCounters, compareFailures, type ExportEvent, type ExportFailure, type ExportReport } from './report.ts';
import { planRoutes, toolId, type ExportFormat, type ExportRoute, type PlannedRoute } from './routes.ts';
import { localRunner, type ExportRunner, type ExportWork } from './runner.ts';

/**
 * A job's heap limit. A guard against one pathological session (a line of hundreds of MB), not a
 * budget: the pipeline's memory does not grow with a session's length. Below about 2 GiB V8
 * collects garbage more often (measured: 20% more CPU at 1024 MiB, none at 2048).
 */
export const DEFAULT_JOB_MEMORY_MB = 2048;

export interface ExportOptions {
  /** Session files, directories (searched recursively for *.jsonl), or `-` for a list of paths on `stdin`. */
  inputs: readonly string[];
  /** Output directory: the input tree is mirrored under it (under one subdirectory per route when several). */
  outDir: string;
  routes: readonly ExportRoute[];
  /** `jsonl` (default): one message a line; `json`: one array per file. */
  format?: ExportFormat;
  /** Worker threads (default: the number of cores). */
  jobs?: number;
  /** Redo every output, even those the manifest says are current. */
  force?: boolean;
  /** Repair a copy of each session first (repairSessionFileIfNeeded) and export the copy (see export-file.ts). */
  repair?: boolean;
  /** Heap limit of each job, in MiB (default 2048): a session that needs more fails as out_of_memory. */
  jobMemoryMb?: number;
  /** Where `-` reads its paths (default process.stdin). */
  stdin?: ByteSource;
  /** Only these sessions of OpenClaw databases (keys or session ids); JSONL files are not filtered. */
  sessions?: readonly string[];
  /** Aborting stops the export: outputs in flight are dropped, the rest stays resumable. */
  signal?: AbortSignal;
  onProgress?: (event: ExportEvent) => void;
  /** Least time between two manifest writes, in ms (default 500; 0 writes after every output). */
  manifestIntervalMs?: number;
  /**
   * A Redis URL (`redis://HOST:PORT[/DB]`): run the outputs as BullMQ jobs on the workers of that
   * broker (`transcript-hygiene worker`) instead of this process's threads; `jobs` and
   * `jobMemoryMb` are then the workers' own. Inputs and outDir must be paths every worker sees.
   */
  queue?: string;
}

type Work = ExportWork;

function invalid(message: string): HygieneError {
  return new HygieneError('invalid_option', message);
}

function positiveInteger(name: string, value: unknown, fallback: number, least = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) throw invalid(`Invalid option \`${name}\`: expected an integer >= ${least}, got ${String(value)}`);
  return value;
}

/** The output's path relative to its tree: the session's, with .jsonl (or .json for --format json). */
export function outputRelOf(rel: string, format: ExportFormat): string {
  const extension = path.extname(rel);
  const base = extension === '.jsonl' || extension === '.json' ? rel.slice(0, -extension.length) : rel;
  return base + (format === 'json' ? '.json' : '.jsonl');
}

const toKey = (rel: string): string => rel.split(path.sep).join('/');

/** Removes temporary files a killed run left in DIR (only ours: dot-names carrying TEMP_MARK). */
export async function removeTemporaries(directory: string): Promise<void> {
  const stack = [directory];
  while (stack.length > 0) {
    const current = stack.pop()!;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.name.startsWith('.') && entry.name.includes(TEMP_MARK)) await rm(full, { force: true });
    }
  }
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

export async function exportSessions(options: ExportOptions): Promise<ExportReport> {
  const started = Date.now();
  if (!Array.isArray(options.inputs) || options.inputs.length === 0 || options.inputs.some((input) => typeof input !== 'string' || input === '')) {
    throw invalid('no input: give session files, directories, or - to read a list of paths from stdin');
  }
  if (typeof options.outDir !== 'string' || options.outDir === '') throw invalid('no output directory (--out DIR)');
  const format = options.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'json') throw invalid(`Invalid option \`format\`: expected jsonl or json, got ${String(format)}`);
  const repair = options.repair ?? false;
  const routes = planRoutes(options.routes, format, { repair });
  const jobsWanted = positiveInteger('jobs', options.jobs, availableParallelism());
  const memoryMb = positiveInteger('jobMemoryMb', options.jobMemoryMb, DEFAULT_JOB_MEMORY_MB, 32);
  const intervalMs = positiveInteger('manifestIntervalMs', options.manifestIntervalMs, 500, 0);
  const force = options.force ?? false;
  const several = routes.length > 1;

  const outDir = path.resolve(options.outDir);
  try {
    await ensureDirectory(outDir);
  } catch (error) {
    throw new HygieneError('output_failed', `${options.outDir}: cannot create the output directory (${(error as Error).message})`, { cause: error });
  }
  const release = await acquireExportLock(outDir);
  let closeRunner: (() => Promise<void>) | undefined;
  try {
    const runner: ExportRunner =
      options.queue === undefined
        ? localRunner({ jobs: jobsWanted, memoryMb })
        : await (await import('./queue/coordinator.ts')).openQueueRunner({ url: options.queue, outDir, force });
    closeRunner = () => runner.close();
    const warnings: string[] = [];
    const opened = await Manifest.open(outDir, { intervalMs });
    const manifest = opened.manifest;
    if (opened.warning !== undefined) warnings.push(opened.warning);
    await removeTemporaries(outDir);
    const discovery = await discoverSessions(options.inputs, { stdin: options.stdin, exclude: [outDir], sessions: options.sessions });

    // Plan: every session times every route is one output.
    const failures: ExportFailure[] = [];
    const early: Array<{ failure: ExportFailure; source: SessionSource; key: string | undefined }> = [];
    const candidates: Array<Omit<Work, 'task'> & { output: string }> = [];
    const claimed = new Map<string, string>();
    const reserved = new Set([REPORT_NAME, REPORT_HTML_NAME, MANIFEST_NAME, LOCK_NAME]);
    // Routes are keyed by name in the report's per-route figures (the only one's name too).
    const perSession = new SessionsAggregator(
      routes.map((route) => route.name),
      routes.some((route) => route.options.redact !== undefined),
    );
    const skippedLines = new SkippedLinesAggregator();
    for (const source of discovery.sources) {
      for (const route of routes) {
        const rel = source.rel === undefined ? undefined : outputRelOf(source.rel, format);
        const key = rel === undefined ? undefined : toKey(several ? path.join(route.name, rel) : rel);
        const fail = (code: string, reason: string): void => {
          const failure: ExportFailure = { file: source.display, ...(several ? { route: route.name } : {}), ...(key === undefined ? {} : { output: key }), code, reason };
          early.push({ failure, source, key });
        };
        perSession.planned(route.name);
        if (source.problem !== undefined) fail(source.problem.code, source.problem.reason);
        // As sanitize and check say of it (exit 8): an empty session is a failure, not an empty output.
        else if (source.size === 0) fail('input_empty', 'empty file');
        else if (key === undefined) fail('input_unreadable', 'no output path');
        else if (reserved.has(key)) fail('output_failed', `its output ${key} would replace the export's own ${key}`);
        else if (path.join(outDir, key) === source.path) fail('output_failed', 'its output would overwrite the session itself');
        else if (claimed.has(key)) fail('output_failed', `its output ${key} is already the output of ${claimed.get(key)}`);
        else {
          claimed.set(key, source.display);
          candidates.push({ source, route, key, output: path.join(outDir, key) });
        }
      }
    }
    const current = await mapLimit(candidates, 32, async (candidate) => {
      if (force) return false;
      const entry = manifest.matches(candidate.key, { source: candidate.source.path, size: candidate.source.size, mtimeMs: candidate.source.mtimeMs, optionsHash: candidate.route.hash });
      if (entry === undefined) return false;
      // Done and current only if the output is in place (renamed, so complete) with the size recorded.
      const found = await stat(candidate.output).catch(() => undefined);
      return found !== undefined && found.isFile() && found.size === entry.outputBytes;
    });
    const skipped = current.filter(Boolean).length;
    candidates.forEach((candidate, i) => {
      if (!current[i]) return;
      perSession.skipped(candidate.route.name);
      const earlier = manifest.get(candidate.key)?.skippedLines;
      if (earlier !== undefined) skippedLines.record(candidate.source.display, { ...earlier, earlierRun: true });
    });
    const pending = candidates.filter((_, i) => !current[i]);
    // Largest first: the long ones start early, so the last minutes are not one job alone.
    pending.sort((a, b) => b.source.size - a.source.size || (a.key < b.key ? -1 : 1));

    const jobs = await runner.jobs(pending.length);
    // libuv's threadpool is shared by every job's file reads and image work: keep one thread for reads.
    const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    const imageConcurrency = Math.max(1, Math.floor((pool - 1) / jobs));
    const work: Work[] = pending.map((candidate, id) => {
      const dir = path.dirname(candidate.output);
      const base = path.basename(candidate.output);
      return {
        ...candidate,
        task: {
          id,
          source: candidate.source.path,
          output: candidate.output,
          temp: path.join(dir, `.${base}${TEMP_MARK}${process.pid}-${id}`),
          repairCopy: path.join(dir, `.${base}${TEMP_MARK}${process.pid}-${id}.repair.jsonl`),
          format,
          options: { ...candidate.route.options, concurrency: candidate.route.options.concurrency ?? imageConcurrency },
          clockMs: Math.floor(candidate.source.mtimeMs),
          // A database session is read as it is: a repair writes, and OpenClaw's doctor owns the database.
          repair: repair && candidate.source.database === undefined,
          ...(candidate.source.database === undefined ? {} : { session: { id: candidate.source.database.sessionId, lastSeq: candidate.source.database.lastSeq } }),
        },
      };
    });

    const emit = (event: ExportEvent): void => options.onProgress?.(event);
    const totals = { exported: 0, repaired: 0, bytesIn: 0, bytesOut: 0, messagesIn: 0, messagesOut: 0 };
    const rules: Record<string, Record<string, number>> = {};
    const repairedList: ExportReport['repaired'] = [];

    /** An output that was done before but whose session now fails: its old output no longer stands. */
    const dropStale = async (key: string | undefined, source: SessionSource): Promise<void> => {
      if (key === undefined) return;
      const entry = manifest.get(key);
      if (entry === undefined || entry.source !== source.path) return;
      await rm(path.join(outDir, key), { force: true });
      manifest.delete(key);
    };

    emit({
      type: 'start',
      sessions: discovery.sources.length,
      routes: routes.length,
      outputs: discovery.sources.length * routes.length,
      toDo: work.length,
      bytesToDo: work.reduce((sum, item) => sum + item.source.size, 0),
      skipped,
      failedEarly: early.length,
      jobs,
    });
    for (const { failure, source, key } of early) {
      failures.push(failure);
      perSession.failed(failure.route ?? routes[0]!.name);
      await dropStale(key, source);
      emit({ type: 'output', status: 'failed', file: failure.file, route: failure.route, output: failure.output, bytesIn: 0, bytesOut: 0, ms: 0, repaired: false, failure });
    }

    const settle = async (item: Work, result: ExportTaskResult): Promise<void> => {
      const route = several ? { route: item.route.name } : {};
      if (result.ok) {
        const lost = skippedLinesOf(result.stats);
        skippedLines.record(item.source.display, lost);
        manifest.set(item.key, {
          source: item.source.path,
          size: item.source.size,
          mtimeMs: item.source.mtimeMs,
          optionsHash: item.route.hash,
          outputBytes: result.bytesOut,
          finishedAt: new Date().toISOString(),
          ...(result.repaired ? { repaired: true } : {}),
          ...(lost === undefined ? {} : { skippedLines: lost }),
        });
        totals.exported++;
        totals.bytesIn += item.source.size;
        totals.bytesOut += result.bytesOut;
        totals.messagesIn += result.stats.messagesIn;
        totals.messagesOut += result.stats.messagesOut;
        addRuleCounters(rules, result.stats);
        perSession.exported(
          item.route.name,
          { file: item.source.display, ...route, output: item.key, bytesIn: item.source.size, bytesOut: result.bytesOut, messagesIn: result.stats.messagesIn, messagesOut: result.stats.messagesOut, ms: result.ms },
          result.stats,
          result.repaired,
        );
        if (result.repaired) {
          totals.repaired++;
          repairedList.push({ file: item.source.display, ...route, output: item.key, ...result.repair });
        }
        emit({ type: 'output', status: 'exported', file: item.source.display, ...route, output: item.key, bytesIn: item.source.size, bytesOut: result.bytesOut, ms: result.ms, repaired: result.repaired, ...(lost === undefined ? {} : { skippedLines: lost }) });
        return;
      }
      // A worker that was stopped or died leaves its temporary files behind.
      await Promise.all([rm(item.task.temp, { force: true }), rm(item.task.repairCopy, { force: true })]);
      if (result.failure.code === 'interrupted') return;
      const failure: ExportFailure = {
        file: item.source.display,
        ...route,
        output: item.key,
        ...(result.failure.line === undefined ? {} : { line: result.failure.line }),
        code: result.failure.code,
        reason: result.failure.reason,
      };
      failures.push(failure);
      perSession.failed(item.route.name);
      await dropStale(item.key, item.source);
      emit({ type: 'output', status: 'failed', file: failure.file, ...route, output: item.key, bytesIn: item.source.size, bytesOut: 0, ms: result.ms, repaired: false, failure });
    };

    // Run: on this machine's worker threads, or as jobs on a queue (runner.ts).
    const { interrupted } = await runner.run(work, jobs, settle, options.signal);

    try {
      await manifest.flush();
    } catch (error) {
      warnings.push(`cannot write the manifest ${manifest.file} (${(error as Error).message}); a re-run redoes this run's outputs`);
    }

    failures.sort(compareFailures);
    repairedList.sort((a, b) => (a.output < b.output ? -1 : a.output > b.output ? 1 : 0));
    const durationMs = Date.now() - started;
    const usage = process.resourceUsage();
    const report: ExportReport = {
      tool: toolId(),
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date().toISOString(),
      durationMs,
      outDir,
      format,
      jobs,
      force,
      repair,
      routes: routes.map((route) => ({
        name: route.name,
        provider: route.options.provider ?? '',
        modelApi: route.options.modelApi ?? '',
        modelId: route.options.modelId ?? '',
        reasoning: route.options.reasoning ?? false,
        thinking: route.options.thinking ?? false,
        optionsHash: route.hash,
      })),
      interrupted,
      totals: {
        sessions: discovery.sources.length,
        outputs: discovery.sources.length * routes.length,
        exported: totals.exported,
        skipped,
        failed: failures.length,
        repaired: totals.repaired,
        bytesIn: totals.bytesIn,
        bytesOut: totals.bytesOut,
        messagesIn: totals.messagesIn,
        messagesOut: totals.messagesOut,
        mbPerSecond: Math.round((totals.bytesIn / 1e6 / Math.max(durationMs, 1)) * 1000 * 100) / 100,
      },
      resources: { peakRssBytes: usage.maxRSS * 1024, cpuUserMs: Math.round(usage.userCPUTime / 1000), cpuSystemMs: Math.round(usage.systemCPUTime / 1000) },
      failures,
      repaired: repairedList,
      rules,
      warnings: [...warnings, ...runner.warnings()],
      skippedLines: skippedLines.section(),
      ...(skipped === 0
        ? {}
        : {
            earlierRuns: {
              outputs: skipped,
              note: `${skipped} output${skipped === 1 ? ' was' : 's were'} already current from an earlier run of this export: ${skipped === 1 ? 'it is' : 'they are'} counted in totals.skipped only, not in this run's figures, failures or rule counters; lines ${skipped === 1 ? 'its session' : 'their sessions'} lost are listed under skippedLines (earlierRun), from the manifest`,
            },
          }),
      ...perSession.section(),
      ...(runner.queueReport === undefined ? {} : { queue: runner.queueReport() }),
    };
    // The page is rendered from the JSON text just written, so it shows exactly what the JSON says.
    const json = JSON.stringify(report, null, 2) + '\n';
    for (const [name, text] of [
      [REPORT_NAME, json],
      [REPORT_HTML_NAME, renderExportReportHtml(JSON.parse(json) as ExportReport)],
    ] as const) {
      try {
        await writeFileAtomic(path.join(outDir, name), text);
      } catch (error) {
        throw new HygieneError('output_failed', `${path.join(outDir, name)}: cannot write the report (${(error as Error).message})`, { cause: error });
      }
    }
    emit({ type: 'end', report });
    return report;
  } finally {
    await closeRunner?.();
    await release();
  }
}
