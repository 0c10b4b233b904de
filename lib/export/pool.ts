/**
 * Worker threads for the export: one lane per job, each lane one worker running one task at a
 * time. A worker's heap is capped (`memoryMb`), so one session that needs more (a huge line)
 * ends that worker, not the export: its task fails as `out_of_memory`, and the lane starts a
 * fresh worker for the next task.
 */
import { Worker } from 'node:worker_threads';
import type { ExportTask, ExportTaskResult } from './export-file.ts';

// Compiled (dist/), the worker is plain JavaScript; from the TypeScript sources, a small
// bootstrap registers tsx in the worker thread first.
const BOOTSTRAP = import.meta.url.endsWith('.ts') ? new URL('./worker-bootstrap.mjs', import.meta.url) : new URL('./worker.js', import.meta.url);

/** How long close() waits for a worker to end. */
const CLOSE_GRACE_MS = 2000;

export interface LaneOptions {
  /** Heap limit of each worker, in MiB (resourceLimits.maxOldGenerationSizeMb). */
  memoryMb: number;
}

export class WorkerLane {
  private worker: Worker | undefined;
  private pending: { task: ExportTask; started: number; resolve: (result: ExportTaskResult) => void } | undefined;
  private crash: Error | undefined;
  private closing = false;

  constructor(private readonly options: LaneOptions) {}

  /** Runs a task on this lane's worker (starting one if needed); never rejects. */
  run(task: ExportTask): Promise<ExportTaskResult> {
    if (this.closing) return Promise.resolve(interrupted(task, 0));
    const worker = (this.worker ??= this.spawn());
    return new Promise((resolve) => {
      this.pending = { task, started: Date.now(), resolve };
      worker.postMessage(task);
    });
  }

  private spawn(): Worker {
    this.crash = undefined;
    const worker = new Worker(BOOTSTRAP, { resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb } });
    worker.on('message', (result: ExportTaskResult) => {
      const pending = this.pending;
      this.pending = undefined;
      pending?.resolve(result);
    });
    worker.on('error', (error: Error) => {
      this.crash = error;
    });
    worker.on('exit', (code: number) => {
      if (this.worker === worker) this.worker = undefined;
      const pending = this.pending;
      this.pending = undefined;
      if (pending === undefined) return;
      const ms = Date.now() - pending.started;
      if (this.closing) return pending.resolve(interrupted(pending.task, ms));
      const crash = this.crash;
      const failure =
        (crash as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { code: 'out_of_memory', reason: `the job ran out of memory (limit ${this.options.memoryMb} MiB per job; raise it with --job-memory)` }
          : { code: 'worker_crashed', reason: `the worker stopped: ${crash?.message ?? `exit code ${code}`}` };
      pending.resolve({ id: pending.task.id, ok: false, failure, ms });
    });
    return worker;
  }

  /**
   * Ends the worker; a task in flight resolves as interrupted. A worker blocked in the thread pool
   * (a read that never returns) cannot be terminated: after CLOSE_GRACE_MS it is left behind, and
   * the command that stops the export ends the process (lib/export/command.ts).
   */
  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const pending = this.pending;
    await Promise.race([worker.terminate(), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    if (this.pending === pending && pending !== undefined) {
      this.pending = undefined;
      pending.resolve(interrupted(pending.task, Date.now() - pending.started));
    }
  }
}

function interrupted(task: ExportTask, ms: number): ExportTaskResult {
  return { id: task.id, ok: false, failure: { code: 'interrupted', reason: 'the export was interrupted' }, ms };
}
