import { OUT_OF_MEMORY_EXIT } from './process-settings.ts';

/** Exit codes of the `transcript-hygiene` command; each failure class has its own. */
export const EXIT = Object.freeze({
  ok: 0,
  /** The input is not a valid transcript: a line that is not JSON or not an object. */
  badInput: 1,
  /** Wrong flags or arguments. */
  usage: 2,
  /** The input file does not exist (or its path runs through a file). */
  inputUnavailable: 3,
  /** The output cannot be written. */
  outputFailed: 4,
  /** The transcript cannot be made valid for the route (invalid_replay_transcript). */
  replayInvalid: 5,
  /** The input path (or sanitize's -o) is a directory. */
  inputIsDirectory: 6,
  /** The input file cannot be read (permissions, I/O error). */
  inputUnreadable: 7,
  /** The input file is empty (or holds no session entry at all). */
  inputEmpty: 8,
  /** Another process holds the session's lock file (repair) past the wait. */
  locked: 9,
  /** The run needed more heap than its limit (TRANSCRIPT_HYGIENE_HEAP_MB); the bin reports it. */
  outOfMemory: OUT_OF_MEMORY_EXIT,
  /** `check` only: the input is not a transcript (its 1 means "violations found"). */
  checkBadInput: 11,
  /** An OpenClaw database (`--session`): the file is not SQLite at all. */
  dbNotSqlite: 12,
  /** A SQLite file that is not an OpenClaw agent database (no agent `schema_meta`, no transcript tables). */
  dbNotOpenClaw: 13,
  /** An agent database whose `schema_meta` version this reader does not know. */
  dbSchemaUnknown: 14,
  /** A torn or corrupt database file (SQLite reports it malformed). */
  dbCorrupt: 15,
  /** A transcript row that is not valid JSON, or whose zstd does not decode to its declared size. */
  dbBadRow: 16,
  /** The database stayed locked (SQLITE_BUSY) past the wait, or changed under an immutable read. */
  dbBusy: 17,
  /** `--session` names no session of the database. */
  sessionNotFound: 18,
  /** Neither node:sqlite nor better-sqlite3 can be loaded (Node 20 without the optional dependency). */
  sqliteUnavailable: 19,
  /** A bug: a rule failed unexpectedly. */
  internal: 70,
});
