/**
 * Sanitizes a byte stream (JSONL or a JSON array of messages) into JSONL on a writable,
 * with backpressure, in bounded memory. The CLI and the batch exporter both use it.
 */
import type { Writable } from 'node:stream';
import { createReadStream } from 'node:fs';
import { scanInputFile } from './result-index.ts';
import { compactionTimestampOf } from './timestamps.ts';
import { createPipeline } from './pipeline.ts';
import { JsonlWriter, readJsonlMessages, type ByteSource } from './jsonl.ts';
import { readJsonArrayMessages, startsJsonList } from './json-array.ts';
import { peekFirstText } from './peek-input.ts';
import { readFileChunks } from './file-chunks.ts';
import type { HygieneOptions } from './options.ts';
import type { HygieneStats } from './stats.ts';
import type { Message } from './types.ts';
import { dropForeignRoles } from './foreign-roles.ts';
import { InvalidUtf8Counter } from './utf8-replacements.ts';
import { probeFileKind, routeWantsCompactionTime, routeWantsImageCensus, sanitizeSessionFile } from './session/sanitize.ts';

export type InputFormat = 'auto' | 'jsonl' | 'json';

export interface SanitizeStreamParams {
  input: ByteSource;
  output: Writable;
  options: HygieneOptions;
  /** Name for error messages: a path or `<stdin>`. */
  source?: string;
  /** `auto` (default) reads a JSON array when the first non-blank character is `[`, JSONL otherwise. */
  format?: InputFormat;
  /** Drop messages of roles the runtime never writes (lib/foreign-roles.ts), counted in stats.droppedForeignRoles. */
  dropForeignRoles?: boolean;
}

/** JSONL or a JSON array, from the first non-blank character, without consuming the input. */
async function detectFormat(source: ByteSource): Promise<{ format: 'jsonl' | 'json'; input: ByteSource }> {
  const { first, input } = await peekFirstText(source);
  return { format: first !== '' && startsJsonList(first) ? 'json' : 'jsonl', input };
}

export async function sanitizeStream(params: SanitizeStreamParams): Promise<HygieneStats> {
  const source = params.source ?? '<input>';
  let input = params.input;
  let format = params.format ?? 'auto';
  if (format === 'auto') ({ format, input } = await detectFormat(input));
  const writer = new JsonlWriter(params.output);
  const pipeline = createPipeline(params.options, (message: Message) => writer.write(message));
  let skipped = 0;
  const invalidUtf8 = new InvalidUtf8Counter();
  const batches =
    format === 'json'
      ? readJsonArrayMessages(input, { source })
      : readJsonlMessages(input, { source, onSkippedEntry: () => skipped++, recordLines: params.options.resultIndex !== undefined, invalidUtf8 });
  const foreign: Record<string, number> = {};
  try {
    for await (const read of batches) {
      const batch = params.dropForeignRoles ? dropForeignRoles(read, foreign) : read;
      for (const message of batch) {
        const wait = pipeline.write(message);
        if (wait !== undefined) await wait;
      }
      await writer.drain();
    }
    await pipeline.end();
    await writer.flush();
  } finally {
    pipeline.dispose();
  }
  const stats = pipeline.stats();
  stats.entriesSkipped = skipped;
  if (params.dropForeignRoles) stats.droppedForeignRoles = foreign;
  const replaced = invalidUtf8.summary();
  if (replaced !== undefined) stats.invalidUtf8 = replaced;
  return stats;
}

export interface SanitizeFileParams extends Omit<SanitizeStreamParams, 'input' | 'source'> {
  path: string;
}

/**
 * Sanitizes a file. A JSONL file is first scanned for where its tool results are and for its
 * compaction summaries, so pairing never holds a frame longer than its answers can still arrive
 * and the compaction-stale signature rule never holds at all (see result-index.ts).
 */
export async function sanitizeFile(params: SanitizeFileParams): Promise<HygieneStats> {
  let format = params.format ?? 'auto';
  if (format === 'auto') {
    const probe = createReadStream(params.path, { start: 0, end: 64 * 1024 - 1 });
    format = (await detectFormat(probe)).format;
    probe.destroy();
  }
  // The JSON-array tokenizer may hold on to chunks: it reads a stream, not the reused buffer.
  if (format !== 'jsonl') return sanitizeStream({ ...params, input: createReadStream(params.path), source: params.path, format });
  // A session file (header and entries): its active branch, through the index and read passes (lib/session/).
  if ((await probeFileKind(params.path)) === 'session') {
    return sanitizeSessionFile({ path: params.path, output: params.output, options: params.options, dropForeignRoles: params.dropForeignRoles });
  }
  // Request-wide image limits need the count first (issue 29): the same scan takes it, on routes that have them.
  const scan = await scanInputFile(params.path, { imageCensus: routeWantsImageCensus(params.options), compactionSummaries: routeWantsCompactionTime(params.options) });
  let compactionTimestamp: number | null = null;
  for (const summary of scan.compactionSummaries) {
    const at = compactionTimestampOf(summary);
    if (at !== undefined && (compactionTimestamp === null || at > compactionTimestamp)) compactionTimestamp = at;
  }
  try {
    return await sanitizeStream({
      ...params,
      input: readFileChunks(params.path),
      source: params.path,
      format,
      options: { compactionTimestamp, imageCensus: scan.imageCensus, ...params.options, resultIndex: scan.resultIndex },
    });
  } finally {
    scan.resultIndex.dispose();
  }
}
