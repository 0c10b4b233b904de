/**
 * Reads a JSON array of messages (`[{...}, {...}]`, the shape the library API takes)
 * as a stream with stream-json, so a large array never has to fit in one string.
 * Elements that are not objects are passed on; the pipeline's first rule drops and counts them.
 */
import { Readable } from 'node:stream';
import { HygieneError } from './errors.ts';
import type { Message } from './types.ts';
import type { ByteSource } from './jsonl.ts';

const BATCH_SIZE = 256;

export async function* readJsonArrayMessages(
  input: ByteSource,
  options: { source?: string } = {},
): AsyncGenerator<Message[]> {
  const source = options.source ?? '<input>';
  // Loaded here, not at start-up: only JSON-array input needs the parser (tens of ms to load).
  const { default: streamArray } = await import('stream-json/streamers/stream-array.js');
  const parser = streamArray.withParserAsStream();
  const feed = Readable.from(input, { objectMode: false });
  feed.on('error', (error) => parser.destroy(error));
  feed.pipe(parser);
  let batch: Message[] = [];
  let elements = 0;
  try {
    for await (const item of parser as AsyncIterable<{ key: number; value: unknown }>) {
      elements++;
      batch.push(item.value as Message);
      if (batch.length >= BATCH_SIZE) {
        yield batch;
        batch = [];
      }
    }
  } catch (error) {
    if (error instanceof HygieneError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new HygieneError('malformed_line', `${source}: not a valid JSON array of messages after element ${elements} (${reason})`, {
      source,
      cause: error,
    });
  } finally {
    feed.destroy();
  }
  if (batch.length > 0) yield batch;
}
