/**
 * A whole transcript in memory, read the way `sanitize` reads it: a session file (or a session
 * piped in, spooled first) through the session reader, so only the active branch is read,
 * compaction is projected and torn lines are skipped and counted; bare JSONL messages and JSON
 * arrays through their readers. `check` uses it, so that it judges what `sanitize` would send.
 */
import { createReadStream } from 'node:fs';
import { readJsonArrayMessages, startsJsonList } from './json-array.ts';
import { inputLineOf, readJsonlMessages, type ByteSource } from './jsonl.ts';
import type { HygieneOptions } from './options.ts';
import { peekFirstText } from './peek-input.ts';
import { readSessionMessages, sessionFileLineOf, type SessionReadStats } from './session/read.ts';
import { probeFileKind } from './session/sanitize.ts';
import { peekInputKind, removeSpool, spoolToTempFile } from './session/spool.ts';
import { HygieneError } from './errors.ts';
import type { Message } from './types.ts';
import { InvalidUtf8Counter, type InvalidUtf8 } from './utf8-replacements.ts';

export interface TranscriptInput {
  /** A readable file path, or undefined for stdin. */
  readonly file: string | undefined;
  readonly stdin: AsyncIterable<Buffer | string>;
  /** Name for error messages (default: the path, or `<stdin>`). */
  readonly source?: string;
  readonly format: 'auto' | 'jsonl' | 'json';
}

export interface Transcript {
  readonly messages: Message[];
  /** The caller's options with the session's facts (compaction time, model switch) added. */
  readonly options: HygieneOptions;
  /** The line of the input a message came from (a session file's own line, a database row's seq), when known. */
  lineOf(message: Message): number | undefined;
  /** What lineOf's number is: a line of the input (default), or a row's seq in a database session. */
  readonly lineKind?: 'line' | 'seq';
  /** The session reader's figures, torn lines among them; undefined for bare messages. */
  readonly session: SessionReadStats | undefined;
  /** Byte sequences that were not UTF-8 (read as U+FFFD), when any (JSONL and session files). */
  readonly invalidUtf8: InvalidUtf8 | undefined;
}

async function readSession(path: string, source: string, options: HygieneOptions): Promise<Transcript> {
  const session = await readSessionMessages(path, { ...options, source, recordFileLines: true });
  const messages = await session.toArray();
  // In memory, frames never need the result-id index (it lets a stream finalize a frame early).
  const { resultIndex: _unused, ...withFacts } = session.hygieneOptions(options);
  return { messages, options: withFacts, lineOf: sessionFileLineOf, session: session.stats, invalidUtf8: session.stats.invalidUtf8 };
}

async function readMessages(input: ByteSource, source: string, format: 'jsonl' | 'json', options: HygieneOptions): Promise<Transcript> {
  const messages: Message[] = [];
  const invalidUtf8 = new InvalidUtf8Counter();
  const batches = format === 'json' ? readJsonArrayMessages(input, { source }) : readJsonlMessages(input, { source, recordLines: true, invalidUtf8 });
  for await (const batch of batches) messages.push(...batch);
  return { messages, options, lineOf: inputLineOf, session: undefined, invalidUtf8: invalidUtf8.summary() };
}

export async function readTranscript(input: TranscriptInput, options: HygieneOptions): Promise<Transcript> {
  const source = input.source ?? input.file ?? '<stdin>';
  if (input.file !== undefined) {
    let format = input.format;
    if (format === 'auto') {
      const peeked = await peekFirstText(createReadStream(input.file, { start: 0, end: 64 * 1024 - 1 }));
      format = peeked.first !== '' && startsJsonList(peeked.first) ? 'json' : 'jsonl';
    }
    if (format === 'jsonl' && (await probeFileKind(input.file)) === 'session') return readSession(input.file, source, options);
    return readMessages(createReadStream(input.file), source, format, options);
  }
  if (input.format === 'json') return readMessages(input.stdin, source, 'json', options);
  const { kind, input: replay } = await peekInputKind(input.stdin);
  if (kind !== 'session') return readMessages(replay, source, kind === 'json' && input.format === 'auto' ? 'json' : 'jsonl', options);
  const spool = await spoolToTempFile(replay).catch((error: unknown) => {
    throw new HygieneError('input_unreadable', `cannot spool ${source} to a temporary file (${(error as Error).message})`, { cause: error });
  });
  try {
    return await readSession(spool, source, options);
  } finally {
    await removeSpool(spool);
  }
}
