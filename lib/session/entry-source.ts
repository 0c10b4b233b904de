/**
 * Where the session reader's passes after the index get the text of an entry: a session file's
 * line (offset = byte offset) or a database session's row (offset = seq). read.ts holds the
 * file's; lib/session/db-read.ts the database's.
 */
import type { HygieneError } from '../errors.ts';

/** The phase that reads every emitted entry (the other, `prepare`, reads a handful before the first message). */
export const EMITTED_ENTRY = 'read';

export interface EntryTexts {
  /** The text of the entry at `offset` (`length` bytes). */
  text(offset: number, length: number): string;
  /** Before `text`: a promise to await when bytes read ahead are to be taken in first; undefined when `text` can be called now. */
  prepare?(offset: number, length: number): Promise<void> | undefined;
  /**
   * Where the message of a plain message entry (entry-types.ts, F_PLAIN_ENVELOPE) at `offset`
   * starts, for `text` of just that: -1 when the entry does not have that shape after all. A
   * source without it has the read pass parse such entries whole.
   */
  messageStart?(offset: number, length: number): number;
  /** How many U+FFFD decoding the entry at `offset` put into its `text` (bytes that were not UTF-8). */
  replacements(text: string, offset: number, length: number): number;
  /** The number an error names for the entry at `offset` (a file's line, a row's seq). */
  lineAt(offset: number): number;
  /** lineAt for ascending offsets, at once. */
  linesAt(offsets: readonly number[]): number[];
  readonly bytesRead: number;
  close(): Promise<void> | void;
}

export interface EntrySource {
  open(phase: 'prepare' | typeof EMITTED_ENTRY): Promise<EntryTexts>;
  /** The place an error names: `file:line`, or a database, session and seq. */
  where(line: number): string;
  /** The error for an emitted entry that is not JSON. */
  notJson(line: number, error: unknown): HygieneError;
}
