/**
 * Session files on stdin. A session needs two passes over its bytes (index, then read), which a
 * pipe cannot give, so a session piped in is first copied to a temporary file (mode 0600,
 * removed afterwards, whatever happens, a stop by signal included: lib/atomic-write.ts). A plain message stream is not spooled: it is decided
 * from its first line and processed in one pass as it arrives.
 */
import { Buffer } from 'node:buffer';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { sanitizeStream, type InputFormat } from '../run.ts';
import type { HygieneOptions } from '../options.ts';
import type { HygieneStats } from '../stats.ts';
import { HygieneError } from '../errors.ts';
import { removeOnStop } from '../atomic-write.ts';
import { detectProbeKind, detectInputKind, type InputKind } from './detect.ts';
import { sanitizeSessionFile } from './sanitize.ts';

const PROBE_LIMIT = 64 * 1024;

export interface PeekedInput {
  kind: InputKind;
  /** The input again from its first byte. */
  input: AsyncGenerator<Buffer | string>;
}

/** Reads just enough of a stream to tell what it is; returns that and the whole stream to replay. */
export async function peekInputKind(source: AsyncIterable<Buffer | string>): Promise<PeekedInput> {
  const iterator = source[Symbol.asyncIterator]();
  const seen: Array<Buffer | string> = [];
  let text = '';
  let kind: InputKind | undefined;
  let ended = false;
  while (kind === undefined) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      kind = detectProbeKind(text, true);
      break;
    }
    seen.push(next.value);
    text += typeof next.value === 'string' ? next.value : next.value.toString('utf8');
    kind = text.length >= PROBE_LIMIT ? detectProbeKind(text, false) : detectInputKind(text, false);
  }
  async function* replay(): AsyncGenerator<Buffer | string> {
    yield* seen;
    seen.length = 0;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { kind, input: replay() };
}

/** Copies a stream to a new private temporary file; returns its path. */
export async function spoolToTempFile(input: AsyncIterable<Buffer | string>, directory = tmpdir()): Promise<string> {
  const file = path.join(directory, `transcript-hygiene-stdin-${process.pid}-${randomUUID()}.jsonl`);
  const forget = removeOnStop(file);
  try {
    const handle = await open(file, 'wx', 0o600);
    try {
      for await (const chunk of input) await handle.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(file, { force: true });
    forget();
    throw error;
  }
  spooled.set(file, forget);
  return file;
}

/** What removes a spool file if the run is stopped, until removeSpool. */
const spooled = new Map<string, () => void>();

/** Removes a file spoolToTempFile made. */
export async function removeSpool(file: string): Promise<void> {
  await rm(file, { force: true });
  spooled.get(file)?.();
  spooled.delete(file);
}

export interface SanitizeStdinParams {
  input: AsyncIterable<Buffer | string>;
  output: Writable;
  options: HygieneOptions;
  format?: InputFormat;
  /** Name for error messages (default `<stdin>`). */
  source?: string;
  /** Where to spool a session (default: the OS temporary directory). */
  spoolDirectory?: string;
  /** As for sanitizeStream. */
  dropForeignRoles?: boolean;
}

export async function sanitizeStdin(params: SanitizeStdinParams): Promise<HygieneStats> {
  const source = params.source ?? '<stdin>';
  const format = params.format ?? 'auto';
  const dropForeignRoles = params.dropForeignRoles;
  if (format === 'json') return sanitizeStream({ input: params.input, output: params.output, options: params.options, source, format, dropForeignRoles });
  const { kind, input } = await peekInputKind(params.input);
  if (kind === 'session') {
    const file = await spoolToTempFile(input, params.spoolDirectory).catch((error: unknown) => {
      throw new HygieneError('output_failed', `cannot spool ${source} to a temporary file (${(error as Error).message})`, { cause: error });
    });
    try {
      return await sanitizeSessionFile({ path: file, output: params.output, options: params.options, source, dropForeignRoles });
    } finally {
      await removeSpool(file);
    }
  }
  return sanitizeStream({ input, output: params.output, options: params.options, source, format: kind === 'json' && format === 'auto' ? 'json' : format, dropForeignRoles });
}
