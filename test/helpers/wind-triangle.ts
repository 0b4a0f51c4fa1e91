/** The free triangle in a steady wind of the adaptive wind tests, with its closed form. No vitest here. */
import { createModel, type Model } from '../../src/index.ts';

/**
 * One free triangle (3 × 4 g, legs 0.1 m, normal z, no springs, no gravity) in a steady wind W along
 * its normal: each corner gets a third of the drag ½ ρ C_d A (W − v)² and no lift (u ∥ n), so it
 * translates with v̇ = k (W − v)², k = ½ ρ C_d A / (3 m): v(t) = W − W / (1 + k W t),
 * z(t) = W t − ln(1 + k W t) / k.
 */
export function windTriangle(turbulence = 0): {
  model: Model;
  v: (t: number) => number;
  z: (t: number) => number;
} {
  const [W, rho, cd, m, area] = [6, 1.2, 1.1, 0.004, 0.005];
  const model = createModel({ positions: [0, 0, 0, 0.1, 0, 0, 0, 0.1, 0], masses: [m, m, m], springPairs: [], springStiffness: 0, triangles: [0, 1, 2], gravity: [0, 0, 0], wind: { velocity: [0, 0, W], density: rho, drag: cd, lift: 0.6, turbulence } }); // prettier-ignore
  const k = (0.5 * rho * cd * area) / (3 * m);
  return { model, v: (t) => W - W / (1 + k * W * t), z: (t) => W * t - Math.log(1 + k * W * t) / k };
}
