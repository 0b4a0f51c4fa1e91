/**
 * Step-size control shared by the adaptive integrators (Hairer, Nørsett & Wanner I, §II.4).
 */
import type { Model } from '../model/model.ts';
import type { RealArray } from '../backends/cpu/passes.ts';
import { errorNorm } from '../backends/cpu/error-norm.ts';
import type { StatePair } from '../backends/common/stepper.ts';
import type { ErrorTolerances, ResolvedAdaptiveOptions } from '../integrators/adaptive-options.ts';
import { derivative } from '../backends/cpu/passes.ts';

export interface ControllerOptions {
  safetyFactor: number;
  growthLimit: number;
  shrinkLimit: number;
}

/**
 * The ratio h_new / h after a step with scaled error `error` (q = estimate order):
 *   clamp(safety · error^(−1/q), shrinkLimit, growthLimit),
 * capped at 1 right after a rejection (Hairer: no growth after a rejected step). A zero error
 * grows by the limit; a non-finite one shrinks by the limit.
 */
export function stepFactor(
  error: number,
  estimateOrder: number,
  options: ControllerOptions,
  afterRejection: boolean,
): number {
  let factor: number;
  if (!Number.isFinite(error)) factor = options.shrinkLimit;
  else if (error === 0) factor = options.growthLimit;
  else factor = options.safetyFactor * Math.pow(error, -1 / estimateOrder);
  factor = Math.min(options.growthLimit, Math.max(options.shrinkLimit, factor));
  return afterRejection ? Math.min(factor, 1) : factor;
}

/**
 * A step in [minStep, maxStep]; a NaN, infinite or non-positive one (Hairer's estimate or a step
 * factor from a state of 1e300s) is minStep, where a failure ends the run instead of being retried
 * forever.
 */
export function clampStep(o: { minStep: number; maxStep: number }, h: number): number {
  return Number.isFinite(h) && h > 0 ? Math.min(o.maxStep, Math.max(o.minStep, h)) : o.minStep;
}

/**
 * Hairer's starting step (Solving ODEs I, §II.4, "Starting step size"), in the tolerance-scaled
 * norm: d₀ = ‖y₀‖, d₁ = ‖F(y₀)‖, h₀ = 0.01 d₀/d₁ (10⁻⁶ if either is < 10⁻⁵), one explicit Euler
 * step to y₁, d₂ = ‖F(y₁) − F(y₀)‖ / h₀, h₁ = (0.01 / max(d₁, d₂))^(1/q) (max(10⁻⁶, 10⁻³ h₀) if
 * max(d₁, d₂) ≤ 10⁻¹⁵), h = min(100 h₀, h₁). Two evaluations of a.
 */
export function startingStep(
  model: Model,
  state: StatePair,
  estimateOrder: number,
  tol: ErrorTolerances,
  evaluate: (positions: RealArray, velocities: RealArray, out: RealArray) => void,
  scratch: { a0: RealArray; a1: RealArray; x1: RealArray; v1: RealArray },
): number {
  const { positions: x0, velocities: v0 } = state;
  const { a0, a1, x1, v1 } = scratch;
  evaluate(x0, v0, a0);
  const d0 = errorNorm(model, state, state, state, tol);
  const d1 = errorNorm(model, { positions: v0, velocities: a0 }, state, state, tol);
  const h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : (0.01 * d0) / d1;
  for (let k = 0; k < x0.length; k++) {
    x1[k] = x0[k]! + h0 * v0[k]!;
    v1[k] = v0[k]! + h0 * a0[k]!;
  }
  evaluate(x1, v1, a1);
  // F(y₁) − F(y₀) = (v₁ − v₀, a₁ − a₀); reuse x1 and a1 to hold it.
  for (let k = 0; k < x0.length; k++) {
    x1[k] = v1[k]! - v0[k]!;
    a1[k] = a1[k]! - a0[k]!;
  }
  const d2 = errorNorm(model, { positions: x1, velocities: a1 }, state, state, tol) / h0;
  const d = Math.max(d1, d2);
  const h1 = d <= 1e-15 ? Math.max(1e-6, h0 * 1e-3) : Math.pow(0.01 / d, 1 / estimateOrder);
  return Math.min(100 * h0, h1);
}

/**
 * {@link startingStep} from `start` (null: the model's initial state, in float32 as the GPU holds
 * it), a(x, v) evaluated on the CPU; returns the step and the evaluations it took.
 */
export function startingStepOf(
  model: Model,
  start: StatePair | null,
  estimateOrder: number,
  o: Pick<ResolvedAdaptiveOptions, 'tolerances' | 'rayleighMass'>,
  real: (length: number) => RealArray,
): { step: number; evaluations: number } {
  const n3 = 3 * model.particleCount;
  const springForce = real(3 * model.springCount);
  const state = start ?? {
    positions: Float32Array.from(model.particlePositions),
    velocities: Float32Array.from(model.particleVelocities),
  };
  let evaluations = 0;
  const step = startingStep(
    model,
    state,
    estimateOrder,
    o.tolerances,
    (x, v, out) => {
      derivative(model, x, v, o.rayleighMass, springForce, out);
      evaluations++;
    },
    { a0: real(n3), a1: real(n3), x1: real(n3), v1: real(n3) },
  );
  return { step, evaluations };
}
