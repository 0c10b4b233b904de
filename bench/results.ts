/**
 * What `npm run bench` writes to bench/results.json and `npm run bench:reference` to
 * bench/reference.json, and what bench/report.ts draws from them.
 */
import { availableParallelism, cpus, totalmem } from 'node:os';
import type { ImageRow } from './image-case.ts';

export interface Machine {
  cpu: string;
  cores: number;
  memoryBytes: number;
  platform: string;
  arch: string;
}

export interface BenchRow {
  case: string;
  /** The generated input's kind (bench/generate.ts); the charts group by it. */
  workload?: string;
  /** `floor`, or the route's label. */
  route?: string;
  /** The session size asked of the generator, in messages (`messages` is what the run counted). */
  size?: number;
  messages: number;
  bytes: number;
  ms: number;
  mbPerSecond: number;
  messagesPerSecond: number;
  peakRssMb: number;
  ratioToFloor: number | null;
  /** With --repeat N: the rounds the row's medians come from (the floor's row too). */
  rounds?: number;
  /** With --repeat N: the lowest and highest ratio of one round (its floor over its run). */
  ratioRange?: [number, number];
}

export interface BenchResults {
  date: string;
  node: string;
  machine?: Machine;
  processSettings?: string;
  rows: BenchRow[];
  imageRows: ImageRow[];
}

/** The reference (OpenClaw, through the oracle) and ours on the same messages, per route. */
export interface ReferenceResults {
  date: string;
  node: string;
  machine?: Machine;
  workload: string;
  messages: number;
  bytes: number;
  rows: Array<{ route: string; referenceMs: number; referenceMbPerSecond: number; referenceMessagesPerSecond: number; oursMs: number; oursMbPerSecond: number; oursMessagesPerSecond: number }>;
}

export function machine(): Machine {
  return { cpu: cpus()[0]?.model.trim() ?? 'unknown', cores: availableParallelism(), memoryBytes: totalmem(), platform: process.platform, arch: process.arch };
}

/**
 * Rows written before rows carried workload, route and size: read them from the case name
 * (`floor 10000`, `anthropic 100000 bare messages`, `mixed openai-responses 10000`).
 */
export function workloadOf(row: BenchRow): string {
  if (row.workload !== undefined) return row.workload;
  if (/ bare messages$/.test(row.case)) return 'bare-messages';
  return row.case.startsWith('mixed ') ? 'mixed-provider' : 'agent';
}

/** The x of a row on the charts: the size asked for, so the floor and the routes line up. */
export function sizeOf(row: BenchRow): number {
  return row.size ?? row.messages;
}

export function routeOf(row: BenchRow): string {
  return row.route ?? row.case.replace(/^mixed /, '').split(' ')[0]!;
}
