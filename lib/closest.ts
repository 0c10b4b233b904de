/** The nearest of some known words to a misspelt one, for "did you mean ...?". */

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/**
 * The known word closest to `word` (case-insensitive edit distance), if it is close enough to be
 * a slip: at most a third of the word's length, and at least 2 edits are always allowed. A known
 * word that starts with `word` (a truncation) counts as close.
 */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = candidate.toLowerCase().startsWith(lower) && lower.length >= 3 ? 1 : distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** ` (did you mean 'X'?)`, or nothing. */
export function didYouMean(word: string, known: Iterable<string>): string {
  const match = closest(word, known);
  return match === undefined ? '' : ` (did you mean '${match}'?)`;
}
