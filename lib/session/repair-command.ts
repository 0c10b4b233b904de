/**
 * `transcript-hygiene repair FILE...`: repairSessionFileIfNeeded on each file, one line of
 * result per file, and an exit code for the worst outcome.
 */
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { EXIT } from '../exit-codes.ts';
import { HygieneError, isHygieneError } from '../errors.ts';
import { isSqliteFile } from './openclaw-db.ts';
import { checkInputFile } from './input-check.ts';
import { REPAIR_HELP } from '../cli/help.ts';
import { exitCodeFor, parseErrorLine, usageLine } from '../cli/args.ts';
import { repairSessionFileIfNeeded, type RepairReport } from './repair.ts';
import { repairSummary } from './repair-rules.ts';


function describe(report: RepairReport): string {
  if (report.repaired) {
    const summary = repairSummary({
      droppedLines: report.droppedLines,
      rewrittenAssistantMessages: report.rewrittenAssistantMessages ?? 0,
      droppedBlankUserMessages: report.droppedBlankUserMessages ?? 0,
      rewrittenUserMessages: report.rewrittenUserMessages ?? 0,
      removedCorruptedImageBlocks: report.removedCorruptedImageBlocks ?? 0,
      insertedToolResults: report.insertedToolResults ?? 0,
    });
    return `repaired: ${summary}${report.backupPath === undefined ? '' : `; the backup could not be removed: ${report.backupPath}`}`;
  }
  return report.reason === undefined ? 'nothing to repair' : `not repaired: ${report.reason}`;
}

/** The exit code of one file's report. */
export function repairExitCode(report: RepairReport): number {
  if (report.repaired || report.reason === undefined) return EXIT.ok;
  if (report.reason === 'missing session file') return EXIT.inputUnavailable;
  if (report.reason === 'empty session file') return EXIT.inputEmpty;
  if (report.reason === 'invalid session header') return EXIT.badInput;
  if (report.reason.startsWith('repair failed')) return EXIT.outputFailed;
  if (report.reason.startsWith('failed to read session file')) return /EISDIR/.test(report.reason) ? EXIT.inputIsDirectory : EXIT.inputUnreadable;
  return EXIT.internal;
}

export interface RepairIo {
  stdout: Writable;
  stderr: Writable;
}

export async function runRepairCommand(args: string[], io: RepairIo): Promise<number> {
  const options = {
    json: { type: 'boolean' },
    'lock-timeout': { type: 'string' },
    'no-lock': { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options });
  } catch (error) {
    io.stderr.write(usageLine(parseErrorLine(error as Error, options), 'repair'));
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(REPAIR_HELP);
    return EXIT.ok;
  }
  const timeout = values['lock-timeout'];
  if (positionals.length === 0 || (timeout !== undefined && !/^[0-9]+$/.test(timeout))) {
    const reason = positionals.length === 0 ? 'repair needs at least one FILE' : `--lock-timeout must be a number of milliseconds, got ${JSON.stringify(timeout)}`;
    io.stderr.write(usageLine(reason, 'repair'));
    return EXIT.usage;
  }
  let exit: number = EXIT.ok;
  for (const file of positionals) {
    let code: number;
    let line: string;
    let report: RepairReport | undefined;
    try {
      await checkInputFile(file, { rejectEmpty: true });
      if (await isSqliteFile(file)) {
        throw new HygieneError('invalid_session', `${file}: an OpenClaw SQLite database, not a JSONL session file: repair does not write databases (OpenClaw's doctor owns them; 'transcript-hygiene sanitize ${file} --session KEY' reads one)`, { source: file });
      }
      report = await repairSessionFileIfNeeded(file, {
        lock: values['no-lock'] ? false : { acquireTimeoutMs: timeout === undefined ? undefined : Number(timeout) },
      });
      code = repairExitCode(report);
      line = `${file}: ${describe(report)}`;
    } catch (error) {
      if (!isHygieneError(error)) throw error;
      code = exitCodeFor(error, 'repair');
      line = error.message;
      report = { repaired: false, droppedLines: 0, reason: error.message };
    }
    if (exit === EXIT.ok) exit = code;
    if (values.json) io.stdout.write(JSON.stringify({ file, ...report }) + '\n');
    else if (code !== EXIT.ok) io.stderr.write(`transcript-hygiene: ${line}\n`);
    else if (!values.quiet) io.stdout.write(`${line}\n`);
  }
  return exit;
}
