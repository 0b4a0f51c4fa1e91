/**
 * The vectors and stepper contracts every backend shares: what the adaptive driver
 * (src/simulation/adaptive-simulation.ts) asks of a CPU or GPU stepper.
 */
import type { NewtonStats } from '../../integrators/adaptive-options.ts';
import type { SolverStats } from '../../integrators/implicit-options.ts';

/** Particle vectors, xyz interleaved ([3n]): float64, or float32 to store as the GPU does. */
export type RealArray = Float64Array | Float32Array;

/** The unit round-off u of the storage `real` allocates: 2⁻²⁴ float32, 2⁻⁵³ float64 (ε = 2u). */
export function unitRoundoff(real: (length: number) => RealArray): number {
  return real(1) instanceof Float32Array ? 2 ** -24 : 2 ** -53;
}

/** A state: positions (m) and velocities (m/s), [3n] each. */
export interface StatePair {
  positions: RealArray;
  velocities: RealArray;
}

/** One attempted step from the current state. */
export type AttemptOutcome =
  /** The candidate is computed; `error` is its tolerance-scaled error norm (≤ 1: accurate). */
  | { kind: 'estimated'; error: number }
  /** velocity-implicit-euler: Newton failed in every trial; no candidate. */
  | { kind: 'newton-failed' };

/** What {@link AdaptiveSimulation} drives: compute a candidate for a step h, then accept it or not. */
export interface AdaptiveStepper {
  /** q: the error estimate is O(h^q), so the controller uses the exponent 1/q. */
  readonly estimateOrder: number;
  /** The accepted state (read-only to callers; swapped, not copied, on accept). */
  readonly current: StatePair;
  /** e of the last attempt, the vector whose norm it returned (positions m, velocities m/s). */
  readonly errorVector: StatePair;
  /** Evaluations of a(x, v) so far. */
  readonly derivativeEvaluations: number;
  /** Computes the candidate of a step h from `current`, the state at time t (s; time-dependent forces read it). */
  attempt(h: number, t: number): AttemptOutcome;
  /** Makes the last candidate the current state. */
  accept(): void;
}

/** What an adaptive driver needs from a GPU stepper (its steps are asynchronous). */
export interface GpuAdaptiveStepper {
  /** q: the error estimate is O(h^q). */
  readonly estimateOrder: number;
  readonly derivativeEvaluations: number;
  /** vec4<f32> positions of the accepted state; STORAGE | VERTEX. */
  readonly positions: GPUBuffer;
  /** As {@link AdaptiveStepper.attempt}. */
  attempt(h: number, t: number): Promise<AttemptOutcome>;
  accept(): void;
  /** The accepted state, xyz float64. */
  readCurrent(): Promise<{ positions: Float64Array; velocities: Float64Array }>;
  destroy(): void;
}

/** The solver totals an implicit program's executor keeps (its SolverStats and the estimator's share). */
export type ImplicitTotals = Omit<SolverStats, 'steps'> & { estimatorIterations: number };

/**
 * Folds one attempt of an implicit adaptive program (totals `before` → `after`) into Drake-shaped
 * Newton statistics. Matrix-free with a fresh Jacobian each iteration: jacobianEvaluations =
 * factorizations = iterations. Returns whether a Newton loop of the attempt ended unconverged.
 */
export function recordNewtonAttempt(
  stats: NewtonStats,
  before: ImplicitTotals,
  after: ImplicitTotals,
): boolean {
  const iterations = after.newtonIterations - before.newtonIterations;
  const estimator = after.estimatorIterations - before.estimatorIterations;
  stats.iterations += iterations;
  stats.jacobianEvaluations += iterations;
  stats.factorizations += iterations;
  stats.errorEstimatorIterations += estimator;
  stats.errorEstimatorJacobianEvaluations += estimator;
  stats.errorEstimatorFactorizations += estimator;
  stats.linearSolves += after.linearSolves - before.linearSolves;
  stats.linearIterations += after.linearIterations - before.linearIterations;
  stats.maxLinearIterations = Math.max(stats.maxLinearIterations, after.maxLinearIterations);
  stats.lastLinearResidual = after.lastResidual;
  stats.maxLinearResidual = Math.max(stats.maxLinearResidual, after.maxResidual);
  stats.unconvergedLinearSolves += after.unconvergedSolves - before.unconvergedSolves;
  const failed = after.unconvergedSteps - before.unconvergedSteps;
  stats.failedSolves += failed;
  return failed > 0;
}
