/**
 * The 1-based input line each message was read from, when the reader was asked to record it.
 * The readers set it; rules that follow a session file's result index read it. Kept apart from
 * the readers so rules need not import any IO.
 */
import type { Message } from './types.ts';

const inputLines = new WeakMap<object, number>();

export function recordInputLine(message: Message, line: number): void {
  inputLines.set(message, line);
}

/** The 1-based input line a message was read from, when the reader was asked to record it. */
export function inputLineOf(message: Message): number | undefined {
  return inputLines.get(message);
}
