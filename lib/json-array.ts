/**
 * Reads a JSON array of messages (`[{...}, {...}]`, the shape the library API takes)
 * as a stream with stream-json, so a large array never has to fit in one string.
 * Elements that are not objects are passed on; the pipeline's first rule drops and counts them.
 *
 * A JSON object whose `messages` member is that array (`{"messages": [...]}`, as many exporters
 * write it) is read the same way: its `messages` array is the list.
 */
import { Readable, type Duplex } from 'node:stream';
import { HygieneError } from './errors.ts';
import type { Message } from './types.ts';
import type { ByteSource } from './jsonl.ts';
import { peekFirstText } from './peek-input.ts';

const BATCH_SIZE = 256;

/**
 * Whether text (from the first non-blank character) starts a JSON message list: an array, or an
 * object whose first member is `messages`. Detection looks at the start only: a wrapper with
 * `messages` further in reads as one JSONL line, and fails as an input without messages.
 */
export function startsJsonList(text: string): boolean {
  return text.startsWith('[') || /^\{\s*"messages"\s*:/.test(text);
}

export async function* readJsonArrayMessages(
  input: ByteSource,
  options: { source?: string } = {},
): AsyncGenerator<Message[]> {
  const source = options.source ?? '<input>';
  // Loaded here, not at start-up: only JSON-array input needs the parser (tens of ms to load).
  const { default: streamArray } = await import('stream-json/streamers/stream-array.js');
  const { wrapped, input: replayed } = await startsWithObject(input);
  const feed = Readable.from(replayed, { objectMode: false });
  let parser: Duplex;
  if (wrapped) {
    const { default: pick } = await import('stream-json/filters/pick.js');
    const picker = pick.withParserAsStream({ filter: 'messages' });
    parser = streamArray.asStream();
    picker.on('error', (error: Error) => parser.destroy(error));
    feed.on('error', (error) => picker.destroy(error));
    feed.pipe(picker).pipe(parser);
  } else {
    parser = streamArray.withParserAsStream();
    feed.on('error', (error) => parser.destroy(error));
    feed.pipe(parser);
  }
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

/** Whether the first non-blank character is `{` (a wrapper object); the input again from its start. */
async function startsWithObject(source: ByteSource): Promise<{ wrapped: boolean; input: AsyncGenerator<Buffer | string> }> {
  const { first, input } = await peekFirstText(source);
  return { wrapped: first.startsWith('{'), input };
}
