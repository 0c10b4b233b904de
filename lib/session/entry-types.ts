/**
 * Entry type codes and per-entry flag bits of the session index (spec/session-file.md §4, §12.1).
 * Only the nine canonical types are entries of the index; `leaf` records and other opaque
 * records are kept as links in small maps, and everything else is inert.
 */

export const T_MESSAGE = 0;
export const T_THINKING_LEVEL_CHANGE = 1;
export const T_MODEL_CHANGE = 2;
export const T_COMPACTION = 3;
export const T_BRANCH_SUMMARY = 4;
export const T_CUSTOM = 5;
export const T_CUSTOM_MESSAGE = 6;
export const T_LABEL = 7;
export const T_SESSION_INFO = 8;

export const CANONICAL_TYPES: ReadonlyMap<string, number> = new Map([
  ['message', T_MESSAGE],
  ['thinking_level_change', T_THINKING_LEVEL_CHANGE],
  ['model_change', T_MODEL_CHANGE],
  ['compaction', T_COMPACTION],
  ['branch_summary', T_BRANCH_SUMMARY],
  ['custom', T_CUSTOM],
  ['custom_message', T_CUSTOM_MESSAGE],
  ['label', T_LABEL],
  ['session_info', T_SESSION_INFO],
]);

export const TYPE_NAMES: readonly string[] = [...CANONICAL_TYPES.keys()];

/**
 * OpenClaw 2026.9 writes `reset` entries (a session reset: a boundary like a compaction) and its
 * reader counts them canonical. Only the database reader knows the type; in a session file (2026.7
 * rules) a `reset` record stays an opaque link.
 */
export const T_RESET = 9;
export const DB_CANONICAL_TYPES: ReadonlyMap<string, number> = new Map([...CANONICAL_TYPES, ['reset', T_RESET]]);

/** `appendMode: "side"`: appended beside the active branch, does not move the leaf. */
export const F_SIDE = 1;
/** Produces a message when on the emitted part of the path (message, custom_message, branch_summary with a summary). */
export const F_EMITS = 2;
/** Read by the prefix scan only: the rest of the line has not been checked to be JSON yet. */
export const F_SPECULATIVE = 4;
/** The line names the `"compactionSummary"` role somewhere (a message entry may hold such a message). */
export const F_MENTIONS_SUMMARY = 8;
/** Removed again: a speculative line that turned out not to be JSON. */
export const F_DEAD = 16;
/** The line holds `"image"` somewhere (it may carry an image block): the image census reads it. */
export const F_MENTIONS_IMAGE = 32;

/** Database rules: a `message` entry whose message has `excludeFromContext: true` (OpenClaw 2026.9 leaves it out of the context). */
export const F_EXCLUDED = 64;

/**
 * A `message` line whose envelope the prefix scan read whole, in ASCII: `{"type":"message",
 * "id":…,"parentId":…[,"timestamp":…],"message":{`. Its message's text starts just past the
 * line's first `"message":`, so the read pass decodes and parses that text alone.
 */
export const F_PLAIN_ENVELOPE = 128;

/** In the read plan only (4 bits, as the entry types): a `message` entry flagged F_PLAIN_ENVELOPE. */
export const T_PLAIN_MESSAGE = 15;

/** Parent slot values besides a name: null, and a parentId that is not a non-empty string. */
export const PARENT_NULL = -1;
export const PARENT_INVALID = -2;

export const MODEL_SNAPSHOT_CUSTOM_TYPE = 'model-snapshot';
