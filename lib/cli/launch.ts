/**
 * How the command starts: in this process, or in a child node with the process settings of
 * lib/process-settings.ts (MALLOC_ARENA_MAX and --expose-gc, which only take effect when a
 * process starts). The child costs a second node start-up (about 40 ms), and what it buys is a
 * bound on the peak RSS of image-heavy runs; a small input cannot hold enough images for that
 * to matter, so `sanitize` and `check` of a small regular file (or stdin redirected from one)
 * run in place.
 */
import { spawn } from 'node:child_process';
import { fstatSync, statSync } from 'node:fs';
import { Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { HEAP_LIMIT_ENV, LIFELINE_ENV, OUT_OF_MEMORY_EXIT, outOfMemoryMessage, tunedProcessSettings } from '../process-settings.ts';

/** Inputs up to this size run in place: at most a few images, whatever they hold. */
export const IN_PLACE_MAX_INPUT_BYTES = 16 * 1024 * 1024;

/** The value-taking flags of the commands that read one transcript, to find its path among the arguments. */
const VALUE_FLAGS = {
  provider: { type: 'string' },
  'model-api': { type: 'string' },
  'model-id': { type: 'string' },
  output: { type: 'string', short: 'o' },
  format: { type: 'string' },
  'image-max-dimension': { type: 'string' },
  'image-max-bytes': { type: 'string' },
  'max-tool-result-bytes': { type: 'string' },
} as const;

/**
 * Whether the command's input is small enough to run in place: `sanitize` or `check` of a
 * regular file (or of stdin redirected from one) of at most IN_PLACE_MAX_INPUT_BYTES. Anything
 * else (a pipe, a large file, export, repair) gets the tuned child.
 */
export function inputIsSmall(args: readonly string[]): boolean {
  const [command, ...rest] = args;
  if (command !== 'sanitize' && command !== 'check') return false;
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ args: rest, options: VALUE_FLAGS, allowPositionals: true, strict: false }));
  } catch {
    return false;
  }
  try {
    const file = positionals[0];
    const info = file === undefined || file === '-' ? fstatSync(0) : statSync(file);
    return info.isFile() && info.size <= IN_PLACE_MAX_INPUT_BYTES;
  } catch {
    // Missing or unreadable: the command itself reports it, in place.
    return true;
  }
}

/**
 * Whether the command's work runs in other processes: `export --queue` only enqueues and follows
 * the jobs that `worker` processes run (those re-execute like any long command), so it runs in
 * place and a broker that cannot be reached is reported one node start sooner.
 */
export function workIsElsewhere(args: readonly string[]): boolean {
  return args[0] === 'export' && args.some((arg) => arg === '--queue' || arg.startsWith('--queue='));
}

/**
 * Runs the command. `binPath` is the script to start again in the child (the package's bin).
 * `loadMain` loads the command itself, only when it runs here.
 */
export async function launch(args: string[], binPath: string, loadMain: () => Promise<(argv: string[]) => Promise<number>>): Promise<void> {
  let settings;
  try {
    // A heap limit the user asks for is honoured whatever the input.
    const inPlace = !process.env[HEAP_LIMIT_ENV] && (inputIsSmall(args) || workIsElsewhere(args));
    settings = inPlace ? undefined : tunedProcessSettings(args, process.env, process.execArgv);
  } catch (error) {
    process.stderr.write(`transcript-hygiene: ${(error as Error).message}\n`);
    process.exit(2);
  }
  if (settings === undefined) {
    holdLifeline();
    process.exitCode = await (await loadMain())(args);
    return;
  }
  const heapLimitMb = settings.heapLimitMb;
  const child = spawn(process.execPath, [...settings.execArgv, binPath, ...args], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...settings.env, [LIFELINE_ENV]: '3' },
  });
  // A terminal's Ctrl-C reaches the whole process group, the child included; a signal sent to
  // this process alone (kill PID) is passed on. Either way the child decides how to stop.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
  child.on('error', (error) => {
    process.stderr.write(`transcript-hygiene: cannot start node (${error.message})\n`);
    process.exit(70);
  });
  child.on('exit', (code, signal) => {
    if (signal === 'SIGABRT') {
      // V8 aborts a process that runs out of heap, after its own "FATAL ERROR" lines.
      process.stderr.write(outOfMemoryMessage(heapLimitMb) + '\n');
      process.exit(OUT_OF_MEMORY_EXIT);
    }
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 70);
  });
}

/**
 * In the tuned child: the command that started this process holds the other end of a pipe. If
 * it is killed outright (SIGKILL), the pipe closes and this process goes too, instead of
 * working on, unseen, holding locks and writing files.
 */
function holdLifeline(): void {
  const lifeline = process.env[LIFELINE_ENV];
  if (lifeline === undefined) return;
  delete process.env[LIFELINE_ENV];
  const socket = new Socket({ fd: Number(lifeline), readable: true, writable: false });
  socket.on('close', () => process.kill(process.pid, 'SIGKILL'));
  socket.on('error', () => {});
  socket.resume();
  socket.unref();
}
