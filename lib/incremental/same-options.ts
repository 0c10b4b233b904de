/**
 * Whether two calls' hygiene options are the same, for the incremental runner path: plain values,
 * arrays and records by content; anything else (a clock function, a scanner) by identity, which is
 * what the pipeline would see.
 */
export function sameOptions(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameOptions(a[i], b[i])) return false;
    return true;
  }
  const protoA: unknown = Object.getPrototypeOf(a);
  if (Array.isArray(b) || protoA !== Object.getPrototypeOf(b) || (protoA !== Object.prototype && protoA !== null)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i]!;
    // Key order too: `{ ...route, ...limit }` spreads in a fixed order, and a different one is a different call site.
    if (key !== keysB[i] || !sameOptions((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
