/**
 * The passes every adaptive and multistep scheme is built from, each one GPU kernel:
 *
 * - {@link derivative}: F(y) = (v, a(x, v)) — the existing spring-force and gather passes
 *   (src/backends/cpu/passes.ts, shaders/spring-forces.wgsl + accelerations.wgsl); the position part of F
 *   is the velocity itself, so only a is computed and stored.
 * - {@link stageCombination}: y_out = y_base + h Σ_j c_j F_j over up to six stored derivatives,
 *   for the x and v halves at once. Runge–Kutta stage states, embedded solutions, error vectors,
 *   Adams–Bashforth/Moulton steps and fixed-point corrector updates are all this one kernel with
 *   different coefficients (a uniform of six numbers).
 *
 * Vectors are xyz interleaved, [3n]. Fixed particles have v = 0 and a = 0, so every combination
 * leaves them where they are.
 */
import type { Model } from '../../model/model.ts';
import { accelerations, springForces, type RealArray } from './passes.ts';

/** a(x, v) into `out` (spring pass, then gather pass with gravity and −r_m v). */
export function derivative(
  model: Model,
  positions: RealArray,
  velocities: RealArray,
  rayleighMass: number,
  springForce: RealArray,
  out: RealArray,
): void {
  springForces(model, positions, velocities, springForce);
  accelerations(model, springForce, velocities, rayleighMass, out);
}

/**
 * x_out = x_base + h Σ_j c_j kx_j,  v_out = v_base + h Σ_j c_j kv_j, where kx_j is the velocity
 * and kv_j the acceleration of stored derivative j. A `null` base is zero (error vectors). Terms
 * with c_j = 0 are skipped (their arrays may be stale). `out` may alias the base, not a term.
 */
export function stageCombination(
  base: { positions: RealArray; velocities: RealArray } | null,
  h: number,
  coefficients: readonly number[],
  velocityTerms: readonly RealArray[],
  accelerationTerms: readonly RealArray[],
  outPositions: RealArray,
  outVelocities: RealArray,
): void {
  const used: number[] = [];
  for (let j = 0; j < coefficients.length; j++) if (coefficients[j] !== 0) used.push(j);
  const n = outPositions.length;
  for (let k = 0; k < n; k++) {
    let sx = 0;
    let sv = 0;
    for (const j of used) {
      const c = coefficients[j]!;
      sx += c * velocityTerms[j]![k]!;
      sv += c * accelerationTerms[j]![k]!;
    }
    outPositions[k] = (base ? base.positions[k]! : 0) + h * sx;
    outVelocities[k] = (base ? base.velocities[k]! : 0) + h * sv;
  }
}
