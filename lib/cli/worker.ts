/** `transcript-hygiene worker`: makes the outputs of `export --queue` runs, until SIGTERM/SIGINT. */
import { availableParallelism } from 'node:os';
import { isHygieneError } from '../errors.ts';
import { UsageError, parse, positiveIntegerFlag, type Io } from './args.ts';
import { WORKER_HELP } from './help.ts';

/** worker's exit codes: export's (1 for usage too: the two commands go together). */
export const WORKER_EXIT = Object.freeze({ ok: 0, usage: 1, internal: 70 });

/** After a stop signal, the process exits by then whatever is still open (the contract is 10 s). */
const STOP_DEADLINE_MS = 9000;

/** --grace MS: 0 hands active jobs back at once; at most 8000, so the worker still exits within 10 s. */
function graceFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_GRACE_MS;
  const parsed = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= 0 && parsed <= 8000)) throw new UsageError(`--grace must be a whole number of ms from 0 to 8000, got ${JSON.stringify(value)}`);
  return parsed;
}

export const DEFAULT_GRACE_MS = 4000;

export async function runWorker(args: string[], io: Io): Promise<number> {
  let options;
  try {
    const { values, positionals } = parse(args, {
      queue: { type: 'string' },
      concurrency: { type: 'string', short: 'c' },
      'job-memory': { type: 'string' },
      'lock-duration': { type: 'string' },
      'stalled-interval': { type: 'string' },
      grace: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.stdout.write(WORKER_HELP);
      return WORKER_EXIT.ok;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}' (the sessions are given to 'export --queue', not to the worker)`);
    if (values.queue === undefined) throw new UsageError('missing --queue redis://HOST:PORT[/DB] (the broker the exports enqueue on)');
    const quiet = values.quiet ?? false;
    options = {
      url: values.queue,
      concurrency: positiveIntegerFlag('concurrency', values.concurrency) ?? availableParallelism(),
      jobMemoryMb: positiveIntegerFlag('job-memory', values['job-memory']),
      lockDurationMs: positiveIntegerFlag('lock-duration', values['lock-duration']),
      stalledIntervalMs: positiveIntegerFlag('stalled-interval', values['stalled-interval']),
      graceMs: graceFlag(values.grace),
      log: (line: string) => {
        if (quiet && !/^worker: (FAILED|attempt|handed back|\S+ (ready|stopped)\b)/.test(line) && !line.includes('broker')) return;
        io.stderr.write(line + '\n');
      },
    };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`transcript-hygiene: ${error.message}\nRun 'transcript-hygiene worker --help' for usage.\n`);
    return WORKER_EXIT.usage;
  }

  // The broker first, before BullMQ and the pipeline are loaded: a broker that cannot be reached is one line at once.
  const { parseBrokerUrl, probeBroker, redactUrl } = await import('../export/queue/broker.ts');
  let worker;
  try {
    await probeBroker(parseBrokerUrl(options.url));
    const { QueueWorker, DEFAULT_LOCK_DURATION_MS, DEFAULT_STALLED_INTERVAL_MS } = await import('../export/queue/worker.ts');
    const { DEFAULT_JOB_MEMORY_MB } = await import('../export/export.ts');
    worker = await QueueWorker.start({
      ...options,
      jobMemoryMb: options.jobMemoryMb ?? DEFAULT_JOB_MEMORY_MB,
      lockDurationMs: options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
      stalledIntervalMs: options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
    });
  } catch (error) {
    // A bad URL, a broker that cannot be reached: one line.
    if (!isHygieneError(error)) throw error;
    io.stderr.write(`transcript-hygiene: ${error.message}\n`);
    return WORKER_EXIT.usage;
  }
  options.log(`worker: ${worker.id} ready on ${redactUrl(options.url)}, ${options.concurrency} job${options.concurrency === 1 ? '' : 's'} at once; serving every export on it until SIGTERM or SIGINT`);

  const running = worker;
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (name: string): void => {
      // Ctrl-C reaches this process twice when it runs under the command's re-exec: once is enough.
      if (stopping) return;
      stopping = true;
      for (const signal of ['SIGTERM', 'SIGINT'] as const) process.off(signal, handlers[signal]);
      process.on('SIGTERM', () => {});
      process.on('SIGINT', () => {});
      options.log(`worker: ${name}: stopping (no new job; active jobs have ${options.graceMs / 1000} s to finish, then go back to the queue)`);
      const deadline = setTimeout(() => {
        options.log(`worker: not closed after ${STOP_DEADLINE_MS / 1000} s; exiting (jobs still held come back to the queue when their lock expires)`);
        process.exit(WORKER_EXIT.ok);
      }, STOP_DEADLINE_MS);
      deadline.unref();
      running.stop().then(
        () => resolve(),
        (error: Error) => {
          options.log(`worker: while stopping: ${error.message}`);
          resolve();
        },
      );
    };
    const handlers = { SIGTERM: () => stop('SIGTERM'), SIGINT: () => stop('SIGINT') };
    process.on('SIGTERM', handlers.SIGTERM);
    process.on('SIGINT', handlers.SIGINT);
  });
  options.log(`worker: ${worker.id} stopped`);
  return WORKER_EXIT.ok;
}
