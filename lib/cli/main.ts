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
import { UsageError, exitCodeFor, type Io } from './args.ts';
import * as help from './help.ts';

export type { Io } from './args.ts';

type Runner = (args: string[], io: Io) => Promise<number> | number;

const COMMANDS: Record<string, { help: string; load: () => Promise<Runner> }> = {
  sanitize: { help: help.SANITIZE_HELP, load: async () => (await import('./sanitize.ts')).runSanitize },
  policy: { help: help.POLICY_HELP, load: async () => (await import('./policy.ts')).runPolicy },
  check: { help: help.CHECK_HELP, load: async () => (await import('./check.ts')).runCheck },
  export: { help: help.EXPORT_HELP, load: async () => (await import('./export.ts')).runExport },
  worker: { help: help.WORKER_HELP, load: async () => (await import('./worker.ts')).runWorker },
  repair: { help: help.REPAIR_HELP, load: async () => (await import('../session/repair-command.ts')).runRepairCommand },
};

export async function main(argv: string[], io: Io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === '--version' || command === '-v' || command === 'version') {
      io.stdout.write(`${(await import('../package-version.ts')).packageVersion()}\n`);
      return EXIT.ok;
    }
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      const topic = rest[0] === undefined ? undefined : COMMANDS[rest[0]];
      io.stdout.write(topic?.help ?? help.MAIN_HELP);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    const entry = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (entry === undefined) throw new UsageError(`unknown command '${command}'`);
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(entry.help);
      return EXIT.ok;
    }
    return await (await entry.load())(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`transcript-hygiene: ${error.message}\nRun 'transcript-hygiene ${command && command !== 'help' && Object.hasOwn(COMMANDS, command) ? `${command} ` : ''}--help' for usage.\n`);
      return EXIT.usage;
    }
    if (isHygieneError(error)) {
      io.stderr.write(`transcript-hygiene: ${error.message}\n`);
      return exitCodeFor(error);
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`transcript-hygiene: internal error: ${message}\n`);
    return EXIT.internal;
  }
}
