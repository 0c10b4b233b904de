/** Whether a command's input is an OpenClaw database (read with `--session`) or a transcript file. */
import { isSqliteFile } from '../session/openclaw-db.ts';
import { UsageError } from './args.ts';

/**
 * Whether the input is an OpenClaw database: `--session` says it is (checked when it is read);
 * a SQLite file without `--session` is a usage error, as is `--session` on stdin.
 */
export async function databaseInput(file: string | undefined, session: string | undefined, command: string): Promise<boolean> {
  if (session !== undefined) {
    if (file === undefined) throw new UsageError(`--session reads an OpenClaw database: give its path (${command} DB --session KEY|ID)`);
    return true;
  }
  if (file !== undefined && (await isSqliteFile(file))) {
    throw new UsageError(`${file} is a SQLite database: give --session KEY|ID to ${command} one of its sessions ('transcript-hygiene sessions ${file}' lists them)`);
  }
  return false;
}
