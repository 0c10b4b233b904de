/** What lib/jsonl.ts's JsonlWriter writes for messages, as text: for tests that hold its bytes to JSON.stringify's. */
import { Buffer } from 'node:buffer';
import { Writable } from 'node:stream';
import { JsonlWriter } from '../../lib/jsonl.ts';
import type { Message } from '../../lib/types.ts';

export interface WrittenLines {
  text: string;
  /** How many writes the destination took. */
  writes: number;
}

export async function writtenLines(messages: readonly Message[]): Promise<WrittenLines> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      // A copy: the test reads them after the writer has moved on.
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  const writer = new JsonlWriter(sink);
  for (const message of messages) writer.write(message);
  await writer.flush();
  return { text: Buffer.concat(chunks).toString('utf8'), writes: chunks.length };
}
