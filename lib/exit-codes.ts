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
  /** A bug: a rule failed unexpectedly. */
  internal: 70,
});
