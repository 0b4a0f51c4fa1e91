/** How the CLI writes numbers and answers misspellings. */

export { shortestFloat32 } from '../model/float-text.ts';

/** Levenshtein distance (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length]!;
}

/** ` (did you mean 'x'?)` for the closest of `known` within a third of the word's length, else ''. */
export function didYouMean(word: string, known: readonly string[], prefix = ''): string {
  let best = '';
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  for (const candidate of known) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best ? ` (did you mean '${prefix}${best}'?)` : '';
}
