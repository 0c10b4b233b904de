/**
 * Where exportSessions runs its outputs. Both runners run the same job function (export-file.ts
 * exportFile: one session in, one output out through a temporary file and a rename, a result
 * record back) and hand every result to the same `settle`, which keeps the manifest and the
 * report: the local runner on this machine's worker threads (pool.ts), the queue runner
 * (queue/coordinator.ts) on BullMQ workers anywhere.
 */
import type { SessionSource } from './discover.ts';
import { removeOnStop } from '../atomic-write.ts';
import type { ExportTask, ExportTaskResult } from './export-file.ts';
import { WorkerLane } from './pool.ts';
import type { QueueReport } from './report.ts';
import type { PlannedRoute } from './routes.ts';

/** One output to make: the job function's task, and what the manifest and the report say of it. */
export interface ExportWork {
  task: ExportTask;
  source: SessionSource;
  route: PlannedRoute;
  key: string;
}

/** Records one result (manifest, totals, progress). A result with failure code `interrupted` records nothing. */
export type Settle = (item: ExportWork, result: ExportTaskResult) => Promise<void>;

export interface ExportRunner {
  /** How many outputs run at once, for the start event and the report's `jobs`. */
  jobs(pending: number): Promise<number> | number;
  /**
   * Runs every item and settles each result as it arrives, until all are settled or `signal`
   * aborts; `interrupted` when it stopped before every item was settled.
   */
  run(work: readonly ExportWork[], jobs: number, settle: Settle, signal: AbortSignal | undefined): Promise<{ interrupted: boolean }>;
  /** Warnings for the report, known once run() has returned. */
  warnings(): string[];
  /** The report's `queue` section (queue runner only). */
  queueReport?(): QueueReport;
  /** Called once the report is written, or when the export failed: lets go of what it holds. */
  close(): Promise<void>;
}

/** Worker threads of this process, one output at a time each, largest first (the order of `work`). */
export function localRunner(options: { jobs: number; memoryMb: number }): ExportRunner {
  return {
    jobs: (pending) => Math.max(1, Math.min(options.jobs, pending)),
    async run(work, jobs, settle, signal) {
      const lanes = work.length === 0 ? [] : Array.from({ length: jobs }, () => new WorkerLane({ memoryMb: options.memoryMb }));
      let next = 0;
      let settled = 0;
      let aborted = false;
      const abort = (): void => {
        aborted = true;
        for (const lane of lanes) void lane.close();
      };
      signal?.addEventListener('abort', abort, { once: true });
      if (signal?.aborted) abort();
      try {
        await Promise.all(
          lanes.map(async (lane) => {
            while (!aborted && next < work.length) {
              const item = work[next++]!;
              // The job's temporaries are named here: a stop that ends the process at once removes them.
              const forget = [removeOnStop(item.task.temp), removeOnStop(item.task.repairCopy)];
              const result = await lane.run(item.task);
              await settle(item, result);
              for (const release of forget) release();
              if (result.ok || result.failure.code !== 'interrupted') settled++;
            }
          }),
        );
      } finally {
        signal?.removeEventListener('abort', abort);
        await Promise.all(lanes.map((lane) => lane.close()));
      }
      return { interrupted: aborted && settled < work.length };
    },
    warnings: () => [],
    close: async () => {},
  };
}
