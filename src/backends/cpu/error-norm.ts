/**
 * The error norm of the adaptive integrators: one reduction pass over the state (on the GPU, one
 * kernel writing per-workgroup partial sums or maxima, then one small reduction).
 *
 * Hairer, Nørsett & Wanner, Solving ODEs I, §II.4 (eq. 4.10–4.11): with y the state at the start
 * of the step, ŷ the proposed state and e the error estimate,
 *   sc_i = a_i + r · max(|y_i|, |ŷ_i|),
 *   ‖e‖_rms = √( (1/N) Σ_i (w_i e_i / sc_i)² ),   ‖e‖_max = max_i |w_i e_i / sc_i|,
 * a step is accepted when the norm is ≤ 1. Positions and velocities have their own absolute
 * tolerance a_i (m, m/s) and weight w_i (Drake's generalized state weights). Fixed particles never
 * move and are left out of the sum and of N = 6 × (free particles).
 */
import type { Model } from '../../model/model.ts';
import type { StatePair } from '../common/stepper.ts';
import type { ErrorTolerances } from '../../integrators/adaptive-options.ts';

export type { ErrorTolerances, StatePair };

/**
 * The tolerance-scaled norm of the difference `error` (positions and velocities) relative to the
 * states `start` (y) and `end` (ŷ). NaN or Inf anywhere gives a non-finite result, which every
 * caller treats as a rejection.
 */
export function errorNorm(
  model: Model,
  error: StatePair,
  start: StatePair,
  end: StatePair,
  tol: ErrorTolerances,
): number {
  let sum = 0;
  let max = 0;
  let count = 0;
  const rms = tol.norm === 'rms';
  for (let i = 0; i < model.particleCount; i++) {
    if (model.particleInvMass[i] === 0) continue;
    count += 6;
    for (let c = 3 * i; c < 3 * i + 3; c++) {
      const sx =
        tol.absolutePosition +
        tol.relative * Math.max(Math.abs(start.positions[c]!), Math.abs(end.positions[c]!));
      const sv =
        tol.absoluteVelocity +
        tol.relative * Math.max(Math.abs(start.velocities[c]!), Math.abs(end.velocities[c]!));
      const ex = (tol.positionWeight * error.positions[c]!) / sx;
      const ev = (tol.velocityWeight * error.velocities[c]!) / sv;
      if (rms) sum += ex * ex + ev * ev;
      else {
        const m = Math.max(Math.abs(ex), Math.abs(ev));
        // Math.max would drop nothing, but NaN must win over any number.
        max = Number.isNaN(m) || m > max ? m : max;
      }
    }
  }
  if (count === 0) return 0;
  return rms ? Math.sqrt(sum / count) : max;
}

/** The norm of the difference a − b (written to `scratch`), scaled against `start` and `b`. */
export function differenceNorm(
  model: Model,
  a: StatePair,
  b: StatePair,
  start: StatePair,
  tol: ErrorTolerances,
  scratch: StatePair,
): number {
  for (let k = 0; k < a.positions.length; k++) {
    scratch.positions[k] = a.positions[k]! - b.positions[k]!;
    scratch.velocities[k] = a.velocities[k]! - b.velocities[k]!;
  }
  return errorNorm(model, scratch, start, b, tol);
}
