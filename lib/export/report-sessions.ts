/**
 * The per-session part of the export report, aggregated as outputs finish so that its size does
 * not grow with the archive: per route sums, the slowest and largest outputs, and for every
 * rule counter the sessions where it counted most. A 100k-session export keeps a few hundred
 * entries here, not 100k (the manifest is the per-output record).
 */
import type { HygieneStats } from '../stats.ts';

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

export interface SessionsSection {
  byRoute: RouteSummary[];
  /** Outputs of this run that took longest, slowest first (at most TOP_SESSIONS). */
  slowest: SessionFigures[];
  /** Outputs of this run with the largest sessions, largest first (at most TOP_SESSIONS). */
  largest: SessionFigures[];
  /** For each rule and counter of `rules`: how many outputs it touched and the top ones. */
  ruleSessions: Record<string, Record<string, CounterSessions>>;
  sizeBuckets: SizeBucket[];
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

  /** `routeNames` in report order; the key of a single unnamed route is its name too. */
  constructor(routeNames: readonly string[]) {
    for (const name of routeNames) this.routes.set(name, emptyRoute(name));
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
    };
  }
}
