/** The soft hanging cloth of the strain-limit tests, and its largest stretch. No vitest here. */
import { buildCloth, type Model } from '../../src/index.ts';

/** The largest (l − L)/L over the model's springs at positions x. */
export function largestStretch(model: Model, x: ArrayLike<number>): number {
  let largest = -Infinity;
  for (let s = 0; s < model.springCount; s++) {
    const [a, b] = [3 * model.springIndices[2 * s]!, 3 * model.springIndices[2 * s + 1]!];
    const l = Math.hypot(x[b]! - x[a]!, x[b + 1]! - x[a + 1]!, x[b + 2]! - x[a + 2]!);
    largest = Math.max(largest, l / model.springRestLength[s]! - 1);
  }
  return largest;
}

/** A soft 10 × 10 cloth hanging from two corners (k = 200 N/m: its springs stretch ~100 % in 1 s). */
export function softCloth(): Model {
  return buildCloth({
    nx: 10,
    ny: 10,
    structuralStiffness: 200,
    shearStiffness: 50,
    bendStiffness: 10,
    damping: 0.05,
  });
}
