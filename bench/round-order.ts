/**
 * The order of a round's runs. Run in the same order every round, the case right after the floor
 * always inherits what the floor left behind (gigabytes of its output still being written back,
 * evicted page cache), and its median carries that; rotated, every case takes every place once
 * over as many rounds as there are cases.
 */

/** `cases` rotated left by `round` places: round 0 keeps the order, round 1 starts with the second, and so on. */
export function roundOrder<T>(cases: readonly T[], round: number): T[] {
  if (cases.length === 0) return [];
  const shift = ((round % cases.length) + cases.length) % cases.length;
  return [...cases.slice(shift), ...cases.slice(0, shift)];
}
