/**
 * The multigrid hierarchy's pair numbering (src/model/pair-numbering.ts) against a reference
 * written here: numbers in the order pairs are first met, and `ordered()` the pairs sorted by
 * (I, J) with each number's place — on random pairs with repeats, over a growth of its arrays.
 */
import { expect, test } from 'vitest';
import { PairNumbering } from '../src/internal.ts';

test('numbers pairs as first met and orders them by (I, J), like a Map and a sort', () => {
  let seed = 7;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const nodes = 300;
  const numbering = new PairNumbering(nodes);
  const reference = new Map<string, number>();
  for (let t = 0; t < 5000; t++) {
    const [a, b] = [random(nodes), random(nodes)];
    if (a === b) continue;
    const [I, J] = a < b ? [a, b] : [b, a];
    const key = `${I},${J}`;
    if (!reference.has(key)) reference.set(key, reference.size);
    expect(numbering.of(I, J)).toBe(reference.get(key));
  }
  expect(numbering.count).toBe(reference.size);
  expect(reference.size).toBeGreaterThan(1024); // past the first growth of the arrays
  const sorted = [...reference.keys()].map((key) => key.split(',').map(Number) as [number, number]);
  sorted.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const { edgeA, edgeB, position } = numbering.ordered();
  expect(Array.from(edgeA)).toEqual(sorted.map(([I]) => I));
  expect(Array.from(edgeB)).toEqual(sorted.map(([, J]) => J));
  for (const [key, k] of reference) {
    const [I, J] = key.split(',').map(Number);
    expect([edgeA[position[k]!], edgeB[position[k]!]]).toEqual([I, J]);
    expect(numbering.pair(k)).toEqual([I, J]);
  }
});
