/** Coulomb friction of a velocity change, as the CPU contacts (contacts.ts) apply it. */
import type { RealArray } from './passes.ts';

type Vec3 = [number, number, number];

/**
 * v −= (1 − max(0, 1 − μ Δv_n / |w_t|)) w_t at particle i, w = v − u the velocity relative to the
 * surface: Coulomb friction of a normal change Δv_n.
 */
export function friction(v: RealArray, k: number, n: ArrayLike<number>, mu: number, normalChange: number, u: Vec3): void {
  const w: Vec3 = [v[k]! - u[0], v[k + 1]! - u[1], v[k + 2]! - u[2]];
  const wn = w[0] * n[0]! + w[1] * n[1]! + w[2] * n[2]!;
  const t: Vec3 = [w[0] - wn * n[0]!, w[1] - wn * n[1]!, w[2] - wn * n[2]!];
  const speed = Math.hypot(...t);
  if (speed === 0) return;
  const removed = 1 - Math.max(0, 1 - (mu * normalChange) / speed);
  for (let d = 0; d < 3; d++) v[k + d] = v[k + d]! - removed * t[d]!;
} // prettier-ignore
