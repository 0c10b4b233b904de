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
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

type Parsed<T extends NonNullable<ParseArgsConfig['options']>> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T): Parsed<T> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function routeOf(values: { provider?: string; 'model-api'?: string; 'model-id'?: string; reasoning?: boolean }): HygieneOptions {
  const missing = (['provider', 'model-api', 'model-id'] as const).filter((name) => values[name] === undefined);
  if (missing.length > 0) throw new UsageError(`missing ${missing.map((name) => `--${name}`).join(', ')} (the route to sanitize for)`);
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

export function exitCodeFor(error: HygieneError): number {
  switch (error.code) {
    case 'malformed_line':
      return EXIT.badInput;
    case 'invalid_option':
      return EXIT.usage;
    case 'invalid_session':
      return EXIT.badInput;
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
    default:
      return EXIT.internal;
  }
}
