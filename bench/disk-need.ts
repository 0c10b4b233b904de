/**
 * How much disk `npm run bench` holds at once for its transcripts, so that it can refuse to start
 * on a disk too small instead of failing with ENOSPC twenty minutes in, after the smaller sizes
 * have run and before anything was written to the results.
 *
 * At any moment it holds the file being measured and its output (about the same size); with
 * `--pairs` and both text formats, the first format's file waits for the second's; the `database`
 * format holds the session file it was written from beside the database. The image-heavy case
 * (bench/images.ts) generates its own files and is not counted here.
 */

/** Bytes a message takes in each workload's files (bench/generate.ts, rounded up from 1M-message files). */
export const BYTES_PER_MESSAGE: Readonly<Record<string, number>> = {
  agent: 6_600,
  'mixed-provider': 5_500,
  'mixed-details': 5_600,
};

export interface DiskNeedPlan {
  sizes: readonly number[];
  workloads: readonly string[];
  formats: readonly string[];
  pairs: number;
}

/** The most bytes the text part of the bench holds at once. */
export function benchDiskNeed(plan: DiskNeedPlan): number {
  const pairsKeepOne = plan.pairs > 0 && plan.formats.includes('session') && plan.formats.includes('messages');
  // The input and the output, plus one more file where a format keeps a second one beside them.
  const files = pairsKeepOne || plan.formats.includes('database') ? 3 : 2;
  let largest = 0;
  for (const workload of plan.workloads) {
    const perMessage = BYTES_PER_MESSAGE[workload] ?? Math.max(...Object.values(BYTES_PER_MESSAGE));
    for (const size of plan.sizes) largest = Math.max(largest, size * perMessage);
  }
  return largest * files;
}
