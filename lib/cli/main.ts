/**
 * The `transcript-hygiene` command. Every failure ends in one line on stderr that names
 * the input (and line, when there is one) and a distinct exit code (lib/exit-codes.ts).
 *
 * Each command's module is loaded only when that command runs, and `--help` prints its text
 * without loading it: a runner that starts the command before every model call pays for the
 * one command it runs.
 */
import { isHygieneError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import { UsageError, escapeControl, exitCodeFor, usageLine, type Io } from './args.ts';
import { didYouMean } from '../closest.ts';
import { guardOutput, isBrokenPipe } from './output-guard.ts';
import * as help from './help.ts';

export type { Io } from './args.ts';

type Runner = (args: string[], io: Io) => Promise<number> | number;

const COMMANDS: Record<string, { help: string; load: () => Promise<Runner> }> = {
  sanitize: { help: help.SANITIZE_HELP, load: async () => (await import('./sanitize.ts')).runSanitize },
  policy: { help: help.POLICY_HELP, load: async () => (await import('./policy.ts')).runPolicy },
  check: { help: help.CHECK_HELP, load: async () => (await import('./check.ts')).runCheck },
  export: { help: help.EXPORT_HELP, load: async () => (await import('./export.ts')).runExport },
  worker: { help: help.WORKER_HELP, load: async () => (await import('./worker.ts')).runWorker },
  sessions: { help: help.SESSIONS_HELP, load: async () => (await import('./sessions.ts')).runSessions },
  repair: { help: help.REPAIR_HELP, load: async () => (await import('../session/repair-command.ts')).runRepairCommand },
};

export async function main(argv: string[], io: Io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const stdout = guardOutput(io.stdout);
  let code: number;
  try {
    code = await dispatch(argv, io);
  } catch (error) {
    // A command that failed because its stdout failed is reported as the output's failure below.
    code = stdout.error === undefined ? reportError(error, argv[0], io) : EXIT.outputFailed;
  }
  await stdout.settle();
  const failed = stdout.error;
  stdout.dispose();
  if (failed === undefined) return code;
  // The reader went away (`| head`): what it read was what it wanted. The command's answer stands.
  if (isBrokenPipe(failed)) return code === EXIT.outputFailed ? EXIT.ok : code;
  io.stderr.write(`transcript-hygiene: <stdout>: output not writable (${failed.message})\n`);
  return EXIT.outputFailed;
}

async function dispatch(argv: string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v' || command === 'version') {
    io.stdout.write(`${(await import('../package-version.ts')).packageVersion()}\n`);
    return EXIT.ok;
  }
  if (command === undefined) {
    // No command is a usage error: the overview goes to stderr, as errors do.
    io.stderr.write(help.MAIN_HELP);
    return EXIT.usage;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    io.stdout.write(rest[0] === undefined ? help.MAIN_HELP : commandEntry(rest[0]).help);
    return EXIT.ok;
  }
  const entry = commandEntry(command);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(entry.help);
    return EXIT.ok;
  }
  return await (await entry.load())(rest, io);
}

/** The command of that name, or the usage error naming the closest one (for `help NAME` too). */
function commandEntry(name: string): (typeof COMMANDS)[string] {
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) throw new UsageError(`unknown command '${name}'${didYouMean(name, [...Object.keys(COMMANDS), 'help'])}`);
  return entry;
}

function reportError(error: unknown, command: string | undefined, io: Io): number {
  if (error instanceof UsageError) {
    io.stderr.write(usageLine(error.message, command !== undefined && Object.hasOwn(COMMANDS, command) ? command : undefined));
    return EXIT.usage;
  }
  if (isHygieneError(error)) {
    io.stderr.write(`transcript-hygiene: ${escapeControl(error.message)}\n`);
    return exitCodeFor(error, command);
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`transcript-hygiene: internal error: ${escapeControl(message)}\n`);
  return EXIT.internal;
}
