/**
 * The spill codec for messages that keeps their lines.
 *
 * lib/frames.ts's messageCodec writes JSON.stringify(message) to the spill file and reads it back
 * with JSON.parse, so a message that went to disk comes back without its original line, and the
 * writer stringifies it (and every later copy of it) instead of copying or patching. On a long
 * holdback (sanitize-tool-call-ids holds a thinking route's whole input to the end; held spans
 * and frames spill past the memory budget) that was most of the output: of 20k mixed-provider
 * messages on the anthropic route, 2,208 went out patched and the rest stringified.
 *
 * This codec writes the line the writer would write (patchedLineOf, else JSON.stringify) and
 * reads it back as the message's original line, so the bytes that come out are the same ones
 * either way (test/differential/patched-lines.test.ts runs with a one-byte budget).
 */
import { messageSize, type SpillCodec } from './frames.ts';
import { parseKeepingLine, patchedLineOf, rawLineOf } from './jsonl.ts';
import type { Message } from './types.ts';

// Frozen: a constant that forked rule state shares (lib/fork-state.ts).
export const lineKeepingCodec: SpillCodec<Message> = Object.freeze({
  // A message read back holds its line as well as its object: both count against the budget.
  sizeOf: (message: Message) => {
    const line = rawLineOf(message);
    return messageSize(message) + (line === undefined ? 0 : 2 * line.length);
  },
  serialize: (message: Message) => patchedLineOf(message) ?? JSON.stringify(message),
  deserialize: parseKeepingLine,
});
