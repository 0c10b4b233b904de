/** Every error this project raises on purpose is a HygieneError with one of these codes. */
export type HygieneErrorCode =
  | 'invalid_option'
  | 'malformed_line'
  | 'rule_failed'
  | 'input_not_found'
  | 'input_unreadable'
  | 'input_is_directory'
  | 'input_empty'
  | 'invalid_session'
  | 'repair_failed'
  | 'lock_timeout'
  | 'output_failed'
  | 'output_is_directory'
  | 'invalid_replay_transcript'
  | 'broker_unreachable'
  | 'sqlite_unavailable'
  | 'db_not_sqlite'
  | 'db_not_openclaw'
  | 'db_schema_unknown'
  | 'db_corrupt'
  | 'db_bad_row'
  | 'db_busy'
  | 'session_not_found';

export interface HygieneErrorDetails {
  /** The input's name (a path, or `<stdin>`), for errors tied to a place in the input. */
  source?: string;
  /** 1-based line number in `source`. */
  line?: number;
  /** The rule that failed. */
  rule?: string;
  /** 0-based index of the message in the failing rule's input. */
  index?: number;
  cause?: unknown;
}

export class HygieneError extends Error {
  readonly code: HygieneErrorCode;
  readonly source?: string;
  readonly line?: number;
  readonly rule?: string;
  readonly index?: number;

  constructor(code: HygieneErrorCode, message: string, details: HygieneErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'HygieneError';
    this.code = code;
    this.source = details.source;
    this.line = details.line;
    this.rule = details.rule;
    this.index = details.index;
  }
}

export function isHygieneError(error: unknown): error is HygieneError {
  return error instanceof HygieneError;
}
