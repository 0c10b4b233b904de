/**
 * Runs `transcript-hygiene export` once lib/cli.ts has parsed its flags: progress and summary on
 * stderr, SIGINT/SIGTERM stop the export cleanly (a second one exits at once), and the exit
 * code (report.ts EXPORT_EXIT).
 */
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { removeTemporariesNow } from '../atomic-write.ts';
import { HygieneError, isHygieneError } from '../errors.ts';
import { unknownRouteProblem } from '../route-check.ts';
import { exportSessions } from './export.ts';
import { ExportProgress } from './progress.ts';
import { EXPORT_EXIT, REPORT_NAME, exitCodeOf, formatSummary } from './report.ts';
import { readRouteFile, type ExportFormat, type ExportRoute } from './routes.ts';

export interface ExportCommandParams {
  inputs: string[];
  outDir: string;
  /** The route of the --provider/--model-api/--model-id flags, if given. */
  routes: ExportRoute[];
  routeFile?: string;
  /** Routes outside the policy table are deliberate (--provider-unknown-ok); else the route file's are refused. */
  unknownRouteOk?: boolean;
  /** Applied to every route that does not set them (--thinking, --reasoning, --image-max-*). */
  defaults: Partial<ExportRoute>;
  format: ExportFormat;
  jobs?: number;
  jobMemoryMb?: number;
  force: boolean;
  repair: boolean;
  quiet: boolean;
  /** redis://HOST:PORT[/DB]: the outputs run as jobs on that broker's workers (queue/). */
  queue?: string;
  /** Only these sessions of OpenClaw databases (--session, keys or ids). */
  sessions?: string[];
}

export interface ExportCommandIo {
  stdin: Readable;
  stderr: Writable & { isTTY?: boolean; columns?: number };
}

const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/** How long a stopped export may take to end before the signal ends the process. */
const STOP_GRACE_MS = 4000;

/**
 * One stop can arrive twice: a terminal's Ctrl-C reaches the whole process group, so the tuned
 * child gets it from the terminal and again from the launcher, which passes on what it receives
 * (lib/cli/launch.ts). A signal this soon after the first is that copy, not a second request.
 */
const SAME_STOP_MS = 1000;

/**
 * Ends the process as the signal does when nobody handles it (exit status 128 + its number),
 * after removing the lock and the temporary files of the jobs under way: no exit handler runs.
 */
function endBySignal(name: string): void {
  removeTemporariesNow();
  process.removeAllListeners(name);
  process.kill(process.pid, name);
}

export async function runExportCommand(params: ExportCommandParams, io: ExportCommandIo): Promise<number> {
  const progress = new ExportProgress({ stream: io.stderr, quiet: params.quiet });
  const controller = new AbortController();
  let stoppedBy: string | undefined;
  let stoppedAt = 0;
  const handlers = Object.keys(SIGNAL_EXIT).map((name) => {
    const handler = (): void => {
      if (stoppedBy !== undefined) {
        if (performance.now() - stoppedAt < SAME_STOP_MS) return;
        endBySignal(name);
      }
      stoppedBy = name;
      stoppedAt = performance.now();
      progress.stop();
      io.stderr.write(`transcript-hygiene: ${name}: stopping (finished outputs are kept; run again to resume)\n`);
      controller.abort();
      // A job blocked in a read that never returns keeps its worker, and so the process, alive
      // (even process.exit waits for it): past STOP_GRACE_MS the signal ends the process outright.
      setTimeout(() => {
        io.stderr.write(`transcript-hygiene: ${name}: a job did not stop; exiting\n`);
        endBySignal(name);
      }, STOP_GRACE_MS).unref();
    };
    process.on(name, handler);
    return { name, handler };
  });
  try {
    const fromFile = params.routeFile === undefined ? [] : await readRouteFile(params.routeFile);
    for (const route of params.unknownRouteOk ? [] : fromFile) {
      const problem = unknownRouteProblem(route);
      if (problem !== undefined) throw new HygieneError('invalid_option', `${params.routeFile}: ${problem}`);
    }
    const defaults = Object.fromEntries(Object.entries(params.defaults).filter(([, value]) => value !== undefined));
    const routes = [...params.routes, ...fromFile].map((route) => ({ ...defaults, ...route }) as ExportRoute);
    const report = await exportSessions({
      inputs: params.inputs,
      outDir: params.outDir,
      routes,
      format: params.format,
      jobs: params.jobs,
      jobMemoryMb: params.jobMemoryMb,
      force: params.force,
      repair: params.repair,
      ...(params.sessions === undefined ? {} : { sessions: params.sessions }),
      ...(params.queue === undefined ? {} : { queue: params.queue }),
      stdin: io.stdin,
      signal: controller.signal,
      onProgress: progress.handle,
    });
    progress.stop();
    if (!params.quiet || report.failures.length > 0 || report.interrupted) io.stderr.write(formatSummary(report, path.join(params.outDir, REPORT_NAME)));
    return report.interrupted ? (SIGNAL_EXIT[stoppedBy ?? 'SIGINT'] ?? EXPORT_EXIT.interrupted) : exitCodeOf(report);
  } catch (error) {
    progress.stop();
    // Bad options, an output directory that cannot be used: the export cannot start.
    if (isHygieneError(error)) {
      io.stderr.write(`transcript-hygiene: ${error.message}\n`);
      return EXPORT_EXIT.usage;
    }
    throw error;
  } finally {
    for (const { name, handler } of handlers) process.off(name, handler);
  }
}
