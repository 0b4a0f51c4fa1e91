/**
 * GPU-vs-CPU comparisons for scenes whose contact decisions make the trajectory sensitive to
 * rounding (a contact released within its step or held to the next: src/model/colliders.ts
 * RELEASE_NOW_FRACTION). The yardstick is the scene's own sensitivity, measured on the CPU: the
 * spread of CPU float32 runs whose start positions differ by float32 rounding (±3e-8 m), and of
 * the float64 run. The GPU (float32) must stay within twice that spread of the CPU's float32 run
 * (and within `floor` always passes).
 */
import type { Model } from '../../src/index.ts';
import { expectClose, maxAbsError } from './expect-close.ts';

/** `model` with its start positions moved by a deterministic ±`size` m per coordinate (seed ≥ 1). */
export function perturbedStart(model: Model, seed: number, size = 3e-8): Model {
  let state = seed * 7919;
  const next = (): number => (state = (state * 16807) % 2147483647) / 2147483647 - 0.5;
  return {
    ...model,
    particlePositions: Float64Array.from(model.particlePositions, (x) => x + 2 * size * next()),
  };
}

/**
 * |gpu − cpu32| ≤ max(`floor`, `factor` · spread) everywhere, spread = the largest |other − cpu32|
 * over the `others` (CPU runs of the perturbed starts and of float64).
 */
export function expectWithinRoundingSpread(
  gpu: ArrayLike<number>,
  cpu32: ArrayLike<number>,
  others: readonly ArrayLike<number>[],
  floor: number,
  label: string,
  factor = 2,
): void {
  const spread = Math.max(...others.map((other) => maxAbsError(other, cpu32).error));
  expectClose(gpu, cpu32, Math.max(floor, factor * spread), `${label} (the CPU's rounding spread ${spread.toExponential(2)} m)`); // prettier-ignore
}
