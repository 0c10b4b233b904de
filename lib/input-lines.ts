/**
 * The 1-based input line each message was read from, when the reader was asked to record it.
 * The readers set it; rules that follow a session file's result index read it. Kept apart from
 * the readers so rules need not import any IO.
 *
 * A non-enumerable symbol property of the message, as its raw line is (lib/jsonl.ts): it stays
 * with that object only (a spread copy or JSON.stringify does not carry it). Not a WeakMap: one
 * entry per message made the map's table the size of the transcript's window, and its entries
 * cost the collector on every cycle (0.2 s of 8 on 200k messages for the sets alone).
 */
import type { Message } from './types.ts';

const INPUT_LINE = Symbol('transcript-hygiene.inputLine');

export function recordInputLine(message: Message, line: number): void {
  Object.defineProperty(message, INPUT_LINE, { value: line, configurable: true });
}

/** The 1-based input line a message was read from, when the reader was asked to record it. */
export function inputLineOf(message: Message): number | undefined {
  return (message as { [INPUT_LINE]?: number })[INPUT_LINE];
}
