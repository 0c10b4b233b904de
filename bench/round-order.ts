/**
 * The order of a round's runs. Run in the same order every round, whatever a place in the round
 * brings with it (the run right after the floor may inherit the floor's gigabytes of output still
 * being written back, or the page cache it evicted: suspected, not shown) falls on the same case
 * every round and its median carries it; rotated, every case takes every place once over as many
 * rounds as there are cases.
 */

/** `cases` rotated left by `round` places: round 0 keeps the order, round 1 starts with the second, and so on. */
export function roundOrder<T>(cases: readonly T[], round: number): T[] {
  if (cases.length === 0) return [];
  const shift = ((round % cases.length) + cases.length) % cases.length;
  return [...cases.slice(shift), ...cases.slice(0, shift)];
}
