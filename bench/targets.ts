/**
 * Issue 27's targets, checked against what one `npm run bench` measured, so that a run says
 * itself whether they held instead of leaving the reader to compare a table with the issue:
 * - throughput at least 1.6x the floor from 200k messages on;
 * - peak RSS below 200 MB at every size;
 * - peak RSS growing at most 1.15x from the smallest size to the largest (the issue: 20k to 1M);
 * - a session file within 10% of the bare messages' time (`--pairs`).
 */
import type { BenchRow } from './results.ts';

export const THROUGHPUT_TARGET = 1.6;
export const THROUGHPUT_FROM_MESSAGES = 200_000;
export const PEAK_RSS_LIMIT_MB = 200;
export const RSS_GROWTH_LIMIT = 1.15;
export const FORMAT_TIME_LIMIT = 1.1;

/** One route's `--pairs` comparison: session file over bare messages, medians. */
export interface FormatComparison {
  workload: string;
  size: number;
  route: string;
  time: number;
  cpu: number;
  rss: number;
}

function sizeLabel(size: number): string {
  return size >= 1_000_000 && size % 1_000_000 === 0 ? `${size / 1_000_000}M` : size >= 1000 && size % 1000 === 0 ? `${size / 1000}k` : String(size);
}

function verdict(misses: readonly string[], total: number): string {
  return misses.length === 0 ? `met (${total} of ${total})` : `MISSED in ${misses.length} of ${total}: ${misses.join(', ')}`;
}

/** The lines that say which targets held; none when the run measured nothing they speak of. */
export function targetLines(rows: readonly BenchRow[], comparisons: readonly FormatComparison[]): string[] {
  const routeRows = rows.filter((row) => row.route !== undefined && row.route !== 'floor' && row.ratioToFloor !== null && row.size !== undefined && !(row.workload ?? '').includes('(database)'));
  const lines: string[] = [];
  const large = routeRows.filter((row) => row.size! >= THROUGHPUT_FROM_MESSAGES);
  if (large.length > 0) {
    const misses = large.filter((row) => row.ratioToFloor! < THROUGHPUT_TARGET).map((row) => `${row.case} ${row.ratioToFloor!.toFixed(2)}`);
    lines.push(`throughput at least ${THROUGHPUT_TARGET}x the floor from ${sizeLabel(THROUGHPUT_FROM_MESSAGES)} messages: ${verdict(misses, large.length)}`);
  }
  if (routeRows.length > 0) {
    const misses = routeRows.filter((row) => row.peakRssMb >= PEAK_RSS_LIMIT_MB).map((row) => `${row.case} ${row.peakRssMb.toFixed(0)} MB`);
    lines.push(`peak RSS below ${PEAK_RSS_LIMIT_MB} MB: ${verdict(misses, routeRows.length)}`);
  }
  // Growth per workload (and format) and route, from its smallest size to its largest.
  const groups = new Map<string, BenchRow[]>();
  for (const row of routeRows) {
    const key = `${row.workload} ${row.route}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [row]);
    else group.push(row);
  }
  const growths: string[] = [];
  const growthMisses: string[] = [];
  for (const [key, group] of groups) {
    if (group.length < 2) continue;
    const sorted = [...group].sort((a, b) => a.size! - b.size!);
    const smallest = sorted[0]!;
    const largest = sorted[sorted.length - 1]!;
    const growth = largest.peakRssMb / smallest.peakRssMb;
    const text = `${key} ${sizeLabel(smallest.size!)}-${sizeLabel(largest.size!)} ${growth.toFixed(2)}x`;
    growths.push(text);
    if (growth > RSS_GROWTH_LIMIT) growthMisses.push(text);
  }
  if (growths.length > 0) lines.push(`peak RSS growing at most ${RSS_GROWTH_LIMIT}x from the smallest size to the largest: ${verdict(growthMisses, growths.length)}`);
  if (comparisons.length > 0) {
    const misses = comparisons.filter((c) => c.time > FORMAT_TIME_LIMIT).map((c) => `${c.workload} ${sizeLabel(c.size)} ${c.route} ${c.time.toFixed(2)}x`);
    lines.push(`session file within ${Math.round((FORMAT_TIME_LIMIT - 1) * 100)}% of the bare messages' time: ${verdict(misses, comparisons.length)}`);
  }
  return lines;
}
