/**
 * Lines of a session that the export passed over: a session file's lines that are not JSON
 * (a torn last line, garbage) are skipped as the runtime's loader skips them, so the output
 * lacks what they held. That is data loss, so the report counts and lists it, per session and
 * in total, for the outputs of this run and, from the manifest, for outputs an earlier run made.
 */
import type { HygieneStats } from '../stats.ts';

/** Why lines were skipped (one reason so far). */
export const NOT_JSON = 'not JSON (skipped as the session loader skips it)';

/** What one session lost. */
export interface SkippedInSession {
  /** The session, as given. */
  file: string;
  /** Lines skipped. */
  count: number;
  /** Their 1-based numbers (the first 100). */
  lines: number[];
  reason: string;
  /** The output was made by an earlier run of this export and is current (from the manifest). */
  earlierRun?: boolean;
}

export interface SkippedLinesSection {
  /** Lines skipped in all, and the sessions they were in (each session once, whatever the routes). */
  lines: number;
  sessions: number;
  /** Every session that lost lines, by file. */
  bySession: SkippedInSession[];
}

/** The skipped lines a session's stats record, as the manifest keeps them (undefined: none). */
export function skippedLinesOf(stats: HygieneStats): Omit<SkippedInSession, 'file' | 'earlierRun'> | undefined {
  const session = (stats as HygieneStats & { session?: { malformedLines?: number; malformedLineNumbers?: readonly number[] } }).session;
  const count = session?.malformedLines ?? 0;
  if (count === 0) return undefined;
  return { count, lines: [...(session?.malformedLineNumbers ?? [])], reason: NOT_JSON };
}

export class SkippedLinesAggregator {
  private readonly sessions = new Map<string, SkippedInSession>();

  /** One output's session; a session exported for several routes is counted once. */
  record(file: string, skipped: Omit<SkippedInSession, 'file'> | undefined): void {
    if (skipped === undefined || this.sessions.has(file)) return;
    this.sessions.set(file, { file, ...skipped });
  }

  section(): SkippedLinesSection {
    const bySession = [...this.sessions.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    return { lines: bySession.reduce((sum, session) => sum + session.count, 0), sessions: bySession.length, bySession };
  }
}
