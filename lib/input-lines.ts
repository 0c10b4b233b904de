/**
 * The 1-based input line each message was read from, when the reader was asked to record it.
 * The readers set it; rules that follow a session file's result index read it. Kept apart from
 * the readers so rules need not import any IO.
 *
 * A hidden field of the message (lib/hidden-field.ts), as its raw line is (lib/jsonl.ts): it stays
 * with that object only (a spread copy or JSON.stringify does not carry it). Not a WeakMap: one
 * entry per message made the map's table the size of the transcript's window, and its entries
 * cost the collector on every cycle (0.2 s of 8 on 200k messages for the sets alone).
 */
import type { Message } from './types.ts';
import { hiddenField } from './hidden-field.ts';

const INPUT_LINE = hiddenField<number>();

export function recordInputLine(message: Message, line: number): void {
  INPUT_LINE.set(message, line);
}

/** The 1-based input line a message was read from, when the reader was asked to record it. */
export function inputLineOf(message: Message): number | undefined {
  return INPUT_LINE.get(message);
}
