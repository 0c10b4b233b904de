/**
 * What every command shares: flag parsing, the route flags, and turning a HygieneError into
 * the command's exit code. Light on purpose: `main` loads it before any command.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Readable, Writable } from 'node:stream';
import type { HygieneError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import type { HygieneOptions } from '../options.ts';
import { checkInputFile } from '../session/input-check.ts';
import { didYouMean } from '../closest.ts';
import { unknownRouteProblem } from '../route-check.ts';

/** Wrong flags or arguments: printed with a pointer to the command's --help, exit 2. */
export class UsageError extends Error {}

export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

export const ROUTE_OPTIONS = {
  provider: { type: 'string' },
  'model-api': { type: 'string' },
  'model-id': { type: 'string' },
  reasoning: { type: 'boolean' },
  'provider-unknown-ok': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

type Parsed<T extends NonNullable<ParseArgsConfig['options']>> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T): Parsed<T> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseErrorLine(error as Error & { code?: string }, options));
  }
}

/** node:util parseArgs's error as one short line, with the closest known option for a misspelt one. */
export function parseErrorLine(error: Error & { code?: string }, options: NonNullable<ParseArgsConfig['options']>): string {
  // The flag inside the first quotes: '--stat', '--provider <value>', '-o, --output <value>'.
  const named = /'([^']*)'/.exec(error.message)?.[1]?.split(/[ ,=]+/).filter((token) => token.startsWith('-')).pop();
  const flags = Object.entries(options).flatMap(([name, option]) => [`--${name}`, ...(option.short === undefined ? [] : [`-${option.short}`])]);
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && named !== undefined) {
    return `unknown option '${named}'${didYouMean(named, flags)}`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && named !== undefined) {
    return /argument missing/.test(error.message) ? `option '${named}' needs a value` : `option '${named}' takes no value`;
  }
  return error.message.split('\n')[0]!;
}

/** The one line every usage error is printed as (main.ts, export.ts, repair-command.ts). */
export function usageLine(message: string, command: string | undefined): string {
  return `transcript-hygiene: ${message}; see 'transcript-hygiene ${command === undefined ? '' : `${command} `}--help'\n`;
}

export function routeOf(values: { provider?: string; 'model-api'?: string; 'model-id'?: string; reasoning?: boolean; 'provider-unknown-ok'?: boolean }): HygieneOptions {
  const missing = (['provider', 'model-api', 'model-id'] as const).filter((name) => values[name] === undefined);
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((name) => `--${name}`).join(', ')} (the route to sanitize for)`);
  const problem = values['provider-unknown-ok'] ? undefined : unknownRouteProblem({ provider: values.provider, modelApi: values['model-api'] });
  if (problem !== undefined) throw new UsageError(problem);
  return {
    provider: values.provider,
    modelApi: values['model-api'],
    modelId: values['model-id'],
    reasoning: values.reasoning ?? false,
  };
}

/** A flag that takes a whole number of at least 1 (digits only: no sign, unit, exponent or fraction). */
export function positiveIntegerFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return parsed;
}

/** Checks the input before any work: stdin, or a readable regular file (not empty, with rejectEmpty). */
export async function checkInput(file: string | undefined, options: { rejectEmpty?: boolean } = {}): Promise<string | undefined> {
  if (file === undefined || file === '-') return undefined;
  await checkInputFile(file, options);
  return file;
}

/**
 * An error line echoes the input; a binary input must not send raw control bytes to the
 * terminal. Control characters (tab and newline included: the line stays one line) are written
 * as \\xNN or \\uNNNN escapes.
 */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** The exit code of an error; `check` keeps 1 for violations, so its bad input has its own code. */
export function exitCodeFor(error: HygieneError, command?: string): number {
  switch (error.code) {
    case 'malformed_line':
      return command === 'check' ? EXIT.checkBadInput : EXIT.badInput;
    case 'invalid_option':
      return EXIT.usage;
    case 'invalid_session':
      return command === 'check' ? EXIT.checkBadInput : EXIT.badInput;
    case 'input_not_found':
      return EXIT.inputUnavailable;
    case 'input_is_directory':
    case 'output_is_directory':
      return EXIT.inputIsDirectory;
    case 'input_unreadable':
      return EXIT.inputUnreadable;
    case 'input_empty':
      return EXIT.inputEmpty;
    case 'lock_timeout':
      return EXIT.locked;
    case 'invalid_replay_transcript':
      return EXIT.replayInvalid;
    case 'output_failed':
      return EXIT.outputFailed;
    case 'db_not_sqlite':
      return EXIT.dbNotSqlite;
    case 'db_not_openclaw':
      return EXIT.dbNotOpenClaw;
    case 'db_schema_unknown':
      return EXIT.dbSchemaUnknown;
    case 'db_corrupt':
      return EXIT.dbCorrupt;
    case 'db_bad_row':
      return EXIT.dbBadRow;
    case 'db_busy':
      return EXIT.dbBusy;
    case 'session_not_found':
      return EXIT.sessionNotFound;
    case 'sqlite_unavailable':
      return EXIT.sqliteUnavailable;
    default:
      return EXIT.internal;
  }
}
