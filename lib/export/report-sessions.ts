/**
 * The per-session part of the export report, aggregated as outputs finish so that its size does
 * not grow with the archive: per route sums, the slowest and largest outputs, and for every
 * rule counter the sessions where it counted most. A 100k-session export keeps a few hundred
 * entries here, not 100k (the manifest is the per-output record).
 */
import type { HygieneStats } from '../stats.ts';
import { REDACT_RULE, REDACT_TALLIES } from '../../transforms/redact-secrets.ts';
import { secretlintPreset } from '../secrets/secretlint.ts';

/** How many sessions each top list keeps. */
export const TOP_SESSIONS = 20;
/** How many sessions each rule counter keeps. */
export const TOP_PER_COUNTER = 5;

/** One output written by this run. */
export interface SessionFigures {
  file: string;
  /** The route's name, when several routes were exported. */
  route?: string;
  output: string;
  bytesIn: number;
  bytesOut: number;
  messagesIn: number;
  messagesOut: number;
  /** Time the job took (its worker's wall clock: reading, hygiene, writing). */
  ms: number;
}

export interface RouteSummary {
  name: string;
  /** Outputs planned for this route (one per session). */
  outputs: number;
  exported: number;
  skipped: number;
  failed: number;
  repaired: number;
  bytesIn: number;
  bytesOut: number;
  messagesIn: number;
  messagesOut: number;
  /** Sum of the jobs' times for this route (jobs run in parallel: more than the wall clock). */
  jobMs: number;
}

export interface CounterSessions {
  /** Outputs where this counter counted anything. */
  sessions: number;
  /** Where it counted most, most first (at most TOP_PER_COUNTER). */
  top: Array<{ file: string; route?: string; output: string; count: number }>;
}

/** Counts of outputs by bytesIn, in buckets whose upper bounds grow by 10 (1 kB, 10 kB, ...). */
export interface SizeBucket {
  /** Exclusive upper bound of the bucket, in bytes. */
  belowBytes: number;
  exported: number;
  /** Sum of the jobs' times of the bucket's outputs. */
  jobMs: number;
}

/** One output of this run in which secrets were redacted: how many, by rule (never the secrets). */
export interface RedactedSession {
  file: string;
  route?: string;
  output: string;
  /** Secrets replaced, in all. */
  secrets: number;
  /** Secrets replaced per rule id (the `<id>` of `[REDACTED:<id>]`). */
  byRule: Record<string, number>;
  /** Messages that held at least one. */
  messages: number;
  /** Signed thinking blocks that lost their signature (the thinking rules then applied). */
  unsignedThinking: number;
}

/** How many redacted sessions the report lists; the totals count them all. */
export const REDACTED_SESSIONS_LISTED = 1000;

/** Present when a route redacts (`redact` option): what was redacted, per rule and per session. */
export interface RedactionsSection {
  /** The secretlint preset whose rules ran, `name@version`. */
  ruleSet: string;
  /** Secrets replaced over the outputs this run wrote. */
  secrets: number;
  byRule: Record<string, number>;
  /** Outputs with at least one. */
  sessions: number;
  /** Those outputs, by file (at most REDACTED_SESSIONS_LISTED). */
  listed: RedactedSession[];
  /** Outputs with redactions beyond the list. */
  unlisted: number;
}

export interface SessionsSection {
  byRoute: RouteSummary[];
  /** Outputs of this run that took longest, slowest first (at most TOP_SESSIONS). */
  slowest: SessionFigures[];
  /** Outputs of this run with the largest sessions, largest first (at most TOP_SESSIONS). */
  largest: SessionFigures[];
  /** For each rule and counter of `rules`: how many outputs it touched and the top ones. */
  ruleSessions: Record<string, Record<string, CounterSessions>>;
  sizeBuckets: SizeBucket[];
  redactions?: RedactionsSection;
}

/** Keeps the `limit` greatest items by `key`, greatest first; ties keep the earlier item. */
export class TopList<T> {
  readonly items: T[] = [];
  constructor(
    private readonly limit: number,
    private readonly key: (item: T) => number,
  ) {}

  offer(item: T): void {
    const value = this.key(item);
    if (this.items.length === this.limit && value <= this.key(this.items[this.items.length - 1]!)) return;
    let at = this.items.length;
    while (at > 0 && this.key(this.items[at - 1]!) < value) at--;
    this.items.splice(at, 0, item);
    if (this.items.length > this.limit) this.items.pop();
  }
}

function emptyRoute(name: string): RouteSummary {
  return { name, outputs: 0, exported: 0, skipped: 0, failed: 0, repaired: 0, bytesIn: 0, bytesOut: 0, messagesIn: 0, messagesOut: 0, jobMs: 0 };
}

/** Bucket upper bound for a session of `bytes`: the next power of 10 above it, at least 1 kB. */
export function bucketBound(bytes: number): number {
  let bound = 1000;
  while (bytes >= bound) bound *= 10;
  return bound;
}

export class SessionsAggregator {
  private readonly routes = new Map<string, RouteSummary>();
  private readonly slowest = new TopList<SessionFigures>(TOP_SESSIONS, (s) => s.ms);
  private readonly largest = new TopList<SessionFigures>(TOP_SESSIONS, (s) => s.bytesIn);
  private readonly counters = new Map<string, Map<string, { sessions: number; top: TopList<CounterSessions['top'][number]> }>>();
  private readonly buckets = new Map<number, SizeBucket>();
  private readonly redactions: RedactionsSection | undefined;

  /**
   * `routeNames` in report order; the key of a single unnamed route is its name too. With
   * `redacting` (a route has the `redact` option) the section has `redactions`.
   */
  constructor(routeNames: readonly string[], redacting = false) {
    for (const name of routeNames) this.routes.set(name, emptyRoute(name));
    this.redactions = redacting ? { ruleSet: secretlintPreset(), secrets: 0, byRule: {}, sessions: 0, listed: [], unlisted: 0 } : undefined;
  }

  private redacted(figures: SessionFigures, counters: Record<string, number> | undefined): void {
    const section = this.redactions;
    if (section === undefined || counters === undefined) return;
    const byRule: Record<string, number> = {};
    let secrets = 0;
    for (const [counter, count] of Object.entries(counters)) {
      if (REDACT_TALLIES.includes(counter) || count === 0) continue;
      byRule[counter] = count;
      secrets += count;
      section.byRule[counter] = (section.byRule[counter] ?? 0) + count;
    }
    if (secrets === 0) return;
    section.secrets += secrets;
    section.sessions++;
    if (section.listed.length >= REDACTED_SESSIONS_LISTED) {
      section.unlisted++;
      return;
    }
    section.listed.push({
      file: figures.file,
      ...(figures.route === undefined ? {} : { route: figures.route }),
      output: figures.output,
      secrets,
      byRule,
      messages: counters.redactedMessages ?? 0,
      unsignedThinking: counters.unsignedThinking ?? 0,
    });
  }

  private route(name: string): RouteSummary {
    let summary = this.routes.get(name);
    if (summary === undefined) this.routes.set(name, (summary = emptyRoute(name)));
    return summary;
  }

  planned(route: string, outputs = 1): void {
    this.route(route).outputs += outputs;
  }

  skipped(route: string): void {
    this.route(route).skipped++;
  }

  failed(route: string): void {
    this.route(route).failed++;
  }

  exported(route: string, figures: SessionFigures, stats: HygieneStats, repaired: boolean): void {
    const summary = this.route(route);
    summary.exported++;
    if (repaired) summary.repaired++;
    summary.bytesIn += figures.bytesIn;
    summary.bytesOut += figures.bytesOut;
    summary.messagesIn += figures.messagesIn;
    summary.messagesOut += figures.messagesOut;
    summary.jobMs += figures.ms;
    this.slowest.offer(figures);
    this.largest.offer(figures);
    const bound = bucketBound(figures.bytesIn);
    const bucket = this.buckets.get(bound) ?? { belowBytes: bound, exported: 0, jobMs: 0 };
    bucket.exported++;
    bucket.jobMs += figures.ms;
    this.buckets.set(bound, bucket);
    this.redacted(figures, stats.rules[REDACT_RULE]);
    for (const [rule, counters] of Object.entries(stats.rules)) {
      let byCounter = this.counters.get(rule);
      if (byCounter === undefined) this.counters.set(rule, (byCounter = new Map()));
      for (const [counter, count] of Object.entries(counters)) {
        if (count === 0) continue;
        let entry = byCounter.get(counter);
        if (entry === undefined) byCounter.set(counter, (entry = { sessions: 0, top: new TopList(TOP_PER_COUNTER, (s) => s.count) }));
        entry.sessions++;
        entry.top.offer({ file: figures.file, ...(figures.route === undefined ? {} : { route: figures.route }), output: figures.output, count });
      }
    }
  }

  section(): SessionsSection {
    const ruleSessions: SessionsSection['ruleSessions'] = {};
    for (const rule of [...this.counters.keys()].sort()) {
      const byCounter = this.counters.get(rule)!;
      ruleSessions[rule] = {};
      for (const counter of [...byCounter.keys()].sort()) {
        const entry = byCounter.get(counter)!;
        ruleSessions[rule][counter] = { sessions: entry.sessions, top: entry.top.items };
      }
    }
    return {
      byRoute: [...this.routes.values()],
      slowest: this.slowest.items,
      largest: this.largest.items,
      ruleSessions,
      sizeBuckets: [...this.buckets.values()].sort((a, b) => a.belowBytes - b.belowBytes),
      ...(this.redactions === undefined
        ? {}
        : { redactions: { ...this.redactions, listed: [...this.redactions.listed].sort((a, b) => (a.output < b.output ? -1 : a.output > b.output ? 1 : 0)) } }),
    };
  }
}
