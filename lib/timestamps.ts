/**
 * Message timestamps as the thinking rules and the session reader read them (spec thinking.md §3):
 * shared by rules and IO code, so neither imports the other.
 */
import type { Message } from './types.ts';

/**
 * `parseDateFirstTimestampMs` (thinking.md §3): a finite number is itself; a string is
 * `Date.parse(s)` when that is finite and within ±8.64e15; anything else is undefined.
 */
export function parseTimestampMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    return Number.isFinite(parsed) && Math.abs(parsed) <= 8.64e15 ? parsed : undefined;
  }
  return undefined;
}

/** The compaction time of a message: the parsed timestamp of a `compactionSummary`, else undefined. */
export function compactionTimestampOf(message: Message): number | undefined {
  return message.role === 'compactionSummary' ? parseTimestampMs(message.timestamp) : undefined;
}
