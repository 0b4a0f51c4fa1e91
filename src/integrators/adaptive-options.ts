/**
 * Names, options and statistics of the adaptive integrators (rk45, step doubling,
 * velocity-implicit Euler) and of the fixed-step multistep and predictor–corrector integrators.
 * Every option has a default; units are SI. A bad option is a {@link WeftInputError} naming it.
 */
import type { ExplicitIntegratorName } from './schemes.ts';
import type { AdaptiveIntegratorName } from './adaptive.ts';
import type { MultistepIntegratorName } from './multistep.ts';

export { ADAPTIVE_INTEGRATORS, ADAPTIVE_INTEGRATOR_NAMES, type AdaptiveIntegratorName } from './adaptive.ts';
export {
  MULTISTEP_INTEGRATORS,
  MULTISTEP_INTEGRATOR_NAMES,
  type MultistepIntegratorName,
} from './multistep.ts';
export { STEP_DOUBLING_ORDER } from './schemes.ts';

/** Tolerances of the error norm (src/backends/cpu/error-norm.ts, shaders/error-norm.wgsl). */
export interface ErrorTolerances {
  /** r, relative tolerance. */
  relative: number;
  /** a for positions, m. */
  absolutePosition: number;
  /** a for velocities, m/s. */
  absoluteVelocity: number;
  /** w for position components. */
  positionWeight: number;
  /** w for velocity components. */
  velocityWeight: number;
  norm: 'rms' | 'max';
}

/** Options of {@link AdaptiveSimulation}. */
export interface AdaptiveOptions {
  /** Required: 'rk45', 'step-doubling' or 'velocity-implicit-euler'. */
  integrator: AdaptiveIntegratorName;
  /**
   * What `accuracy` means and how the step follows from it. Default 'drake' for
   * velocity-implicit-euler, 'hairer' for the others.
   *
   * 'drake' (Drake IntegratorBase, systems/analysis/integrator_base.cc): the error estimate e is
   * measured in the weighted max norm, absolutely (CalcStateChangeNorm: max_i w_i |e_i| over
   * positions, m, and velocities, m/s), and a step is accepted when that norm is ≤ `accuracy`
   * (velocity-implicit-euler: at most 0.5, Drake's loosest); the next step is Drake's
   * CalcAdjustedStepSize (safety · h · (accuracy/‖e‖)^(1/q), growth under 1.2× not taken, a
   * shrink at least 0.9×, limits `growthLimit`/`shrinkLimit`, never below `minStep`), the first
   * step is `maxStep` unless `initialStep` is given, and a step shortened to reach a target time
   * leaves the next step as it was. `absoluteTolerance`, `velocityAbsoluteTolerance` and
   * `errorNorm` do not apply.
   *
   * 'hairer' (Hairer, Nørsett & Wanner I, §II.4): a step is accepted when ‖e / sc‖ ≤ 1 with
   * sc_i = a_i + r max(|y_i|, |ŷ_i|), r = `accuracy`, a_i the absolute tolerances; next step
   * h · clamp(safety · ‖e/sc‖^(−1/q)), no growth right after a rejection.
   */
  errorControl?: 'drake' | 'hairer';
  /**
   * The accuracy asked of each step (see `errorControl`): 'hairer', the relative tolerance r;
   * 'drake', the bound on the weighted max norm of the error estimate (m, m/s). Default 1e-4.
   */
  accuracy?: number;
  /** 'hairer': absolute tolerance of positions, m. Default: equal to `accuracy` (as a number of metres). */
  absoluteTolerance?: number;
  /** 'hairer': absolute tolerance of velocities, m/s. Default: `absoluteTolerance`. */
  velocityAbsoluteTolerance?: number;
  /** Weight of position errors in the norm (Drake's generalized state weights). Default 1. */
  positionWeight?: number;
  /** Weight of velocity errors in the norm. Default 1. */
  velocityWeight?: number;
  /** 'hairer': 'rms' (weighted root mean square over free particles' components) or 'max'. Default 'rms' ('drake': always the max). */
  errorNorm?: 'rms' | 'max';
  /** Smallest step the controller may choose, s. Default 1e-10. A step at minStep whose error is above the accuracy is accepted and counted (see `onMinStep`). */
  minStep?: number;
  /** Largest step, s. Default Infinity (the step is still clipped to land on each target time). */
  maxStep?: number;
  /** First step tried, s. Default: 'drake', maxStep when finite (Drake's VelocityImplicitEulerIntegrator::DoInitialize); otherwise Hairer's starting-step estimate (two extra evaluations), clamped to [minStep, maxStep]. */
  initialStep?: number;
  /** Safety factor of the step proposal h · safety · e^(−1/q). Default 0.9. */
  safetyFactor?: number;
  /** Largest ratio of a new step to the last, > 1. Default 5. */
  growthLimit?: number;
  /** Smallest ratio of a new step to the last on error-control shrinkage, in (0, 1). Default 0.1. */
  shrinkLimit?: number;
  /** Ratio applied to the step after a Newton failure, in (0, 1). Default 0.5. */
  newtonFailureShrink?: number;
  /**
   * At minStep with the error above the accuracy: 'accept' the step and count it in
   * `stats.minStepViolations` (and set `stats.accuracyMet` false), or 'throw' a WeftStepSizeError
   * ('drake': as soon as error control wants a step below minStep, Drake's
   * ValidateSmallerStepSize). Default 'accept' (Drake's default is to throw). A non-finite or
   * Newton-failed step at minStep always throws.
   */
  onMinStep?: 'accept' | 'throw';
  /** Rayleigh mass damping r_m (force −r_m M v), 1/s. Default 0. */
  rayleighMass?: number;
  /** Storage precision, as CpuSimulation: 'f64' (default) or 'f32' (arithmetic stays float64). */
  precision?: 'f64' | 'f32';
  /** step-doubling: the explicit scheme doubled. Default 'heun'. */
  scheme?: ExplicitIntegratorName;
  /** step-doubling: propagate the Richardson extrapolation y½ + (y½ − y₁)/(2^p − 1) (order p + 1). Default false. */
  extrapolate?: boolean;
  /** velocity-implicit-euler: most Newton iterations per solve (Drake default 10). */
  maxNewtonIterations?: number;
  /** velocity-implicit-euler: reuse the Jacobian (K, B) across Newton solves and steps until Newton fails with it (Drake's default, true); false evaluates it for every solve. */
  reuseJacobian?: boolean;
  /** velocity-implicit-euler: "full Newton": fresh Jacobian and iteration matrix at every Newton iteration. Default false. */
  fullNewton?: boolean;
  /** velocity-implicit-euler: κ of the convergence test η ‖Δ‖ ≤ κ (Hairer IV.8.10; Drake 0.05), ‖Δ‖ in the tolerance-scaled norm. */
  newtonKappa?: number;
  /** velocity-implicit-euler: relative residual of each PCG solve. Default 1e-10 (1e-5 with f32 storage, where smaller is not reachable). */
  linearTolerance?: number;
  /** velocity-implicit-euler: most PCG iterations per solve. Default 1000. */
  linearMaxIterations?: number;
  /** velocity-implicit-euler: PCG preconditioner, 3×3 blocks or scalars. Default 'block'. */
  preconditioner?: 'block' | 'scalar';
  /** velocity-implicit-euler: stiffness Jacobian 'clamped' (SPD, default) or 'exact'. */
  jacobian?: 'clamped' | 'exact';
}

export interface ResolvedAdaptiveOptions {
  integrator: AdaptiveIntegratorName;
  errorControl: 'drake' | 'hairer';
  /** 'drake': the accuracy in use (Drake get_accuracy_in_use); 'hairer': the relative tolerance. */
  accuracy: number;
  /** 'drake': relative 0, both absolute tolerances = accuracy, norm 'max' (‖e‖∞ / accuracy ≤ 1). */
  tolerances: ErrorTolerances;
  minStep: number;
  maxStep: number;
  initialStep: number | null;
  safetyFactor: number;
  growthLimit: number;
  shrinkLimit: number;
  newtonFailureShrink: number;
  onMinStep: 'accept' | 'throw';
  rayleighMass: number;
  precision: 'f64' | 'f32';
  scheme: ExplicitIntegratorName;
  extrapolate: boolean;
  maxNewtonIterations: number;
  reuseJacobian: boolean;
  fullNewton: boolean;
  newtonKappa: number;
  linearTolerance: number;
  linearMaxIterations: number;
  preconditioner: 'block' | 'scalar';
  jacobian: 'clamped' | 'exact';
}

/** Newton statistics of velocity-implicit-euler (all zero for the explicit adaptive schemes). */
export interface NewtonStats {
  /** Newton iterations, in all solves (large and half steps, successful or not). */
  iterations: number;
  /** Evaluations of the spring Jacobians K and B. */
  jacobianEvaluations: number;
  /**
   * Formations of the iteration matrix M + h B + h² K for a new (Jacobian, h): Drake's
   * "factorizations". Matrix-free here, so forming it means only new coefficients; solveLinear
   * rebuilds its block-diagonal preconditioner in every solve (counted in `linearSolves`).
   */
  factorizations: number;
  /** PCG solves. */
  linearSolves: number;
  /** PCG iterations, in all solves. */
  linearIterations: number;
  /** Most PCG iterations one solve took. */
  maxLinearIterations: number;
  /** Relative residual ‖b − A x‖/‖b‖ of the last solve. */
  lastLinearResidual: number;
  /** Largest relative residual any solve ended with. */
  maxLinearResidual: number;
  /** Solves that stopped at linearMaxIterations (or broke down) above linearTolerance. */
  unconvergedLinearSolves: number;
  /** Newton processes that ended without converging (each is followed by a fresher trial or a smaller step). */
  failedSolves: number;
  /** Of those, the ones stopped because the iteration diverged (θ ≥ 1, or non-finite). */
  divergences: number;
  /** The part of `iterations` spent on the large (error-estimating) step, as Drake reports it. */
  errorEstimatorIterations: number;
  /** The part of `jacobianEvaluations` done during the large step. */
  errorEstimatorJacobianEvaluations: number;
  /** The part of `factorizations` done during the large step. */
  errorEstimatorFactorizations: number;
}

/** Statistics of an {@link AdaptiveSimulation} since it was created. */
export interface AdaptiveStats {
  /** Accepted steps. */
  acceptedSteps: number;
  /** Attempts thrown away: shrinksFromErrorControl + shrinksFromNewtonFailure. */
  rejectedSteps: number;
  /** Attempts rejected because the error estimate was above the accuracy (or not finite). */
  shrinksFromErrorControl: number;
  /** Attempts abandoned because Newton failed in every trial (Drake: substep failures). */
  shrinksFromNewtonFailure: number;
  /** Smallest accepted step chosen by the controller, s (steps shortened to land on a target time are left out); Infinity before any. */
  smallestStep: number;
  /** Largest accepted step, s; 0 before any. */
  largestStep: number;
  /** The step the controller proposes next, s. */
  nextStep: number;
  /** Tolerance-scaled error norm of the last accepted step (≤ 1 when it met the accuracy). */
  lastErrorEstimate: number;
  /** Largest tolerance-scaled error norm of any accepted step. */
  maxErrorEstimate: number;
  /** Steps accepted at minStep with their error above the accuracy. */
  minStepViolations: number;
  /** False once any accepted step did not meet the accuracy (a minStep violation). */
  accuracyMet: boolean;
  /** Evaluations of a(x, v) (spring forces + gather), including the starting-step estimate. */
  derivativeEvaluations: number;
  /** Newton statistics (velocity-implicit-euler; zeros otherwise). */
  newton: NewtonStats;
}

export function emptyNewtonStats(): NewtonStats {
  return {
    iterations: 0,
    jacobianEvaluations: 0,
    factorizations: 0,
    linearSolves: 0,
    linearIterations: 0,
    maxLinearIterations: 0,
    lastLinearResidual: 0,
    maxLinearResidual: 0,
    unconvergedLinearSolves: 0,
    failedSolves: 0,
    divergences: 0,
    errorEstimatorIterations: 0,
    errorEstimatorJacobianEvaluations: 0,
    errorEstimatorFactorizations: 0,
  };
}

/** Options of a multistep simulation on the CPU (`CpuMultistepSimulation`). */
export interface MultistepOptions {
  /** Required: one of {@link MULTISTEP_INTEGRATOR_NAMES}. */
  integrator: MultistepIntegratorName;
  /** Required: the step h, s; finite and > 0. */
  dt: number;
  /** Rayleigh mass damping r_m (force −r_m M v), 1/s. Default 0. */
  rayleighMass?: number;
  /** Storage precision 'f64' (default) or 'f32'. */
  precision?: 'f64' | 'f32';
  /**
   * Corrector convergence: stop when max_i |y⁽ᵏ⁺¹⁾_i − y⁽ᵏ⁾_i| / (tol + tol |y⁽ᵏ⁺¹⁾_i|) ≤ 1 (the
   * same tolerance absolute and relative, m and m/s). Default 1e-10 (use ≥ 1e-6 with f32 storage).
   */
  correctorTolerance?: number;
  /**
   * Most corrector iterations per step. Default 50 for heun-implicit and implicit-euler-pc, 1 for
   * adams-moulton-pc (classic PECE: then the tolerance is not checked and no step counts as unconverged).
   */
  maxCorrectorIterations?: number;
}

/** Statistics of a multistep simulation (`CpuMultistepSimulation`). */
export interface MultistepStats {
  steps: number;
  /** Steps taken by the RK4 starter. */
  startupSteps: number;
  /** Evaluations of a(x, v). */
  derivativeEvaluations: number;
  /** Corrector iterations, in all steps. */
  correctorIterations: number;
  /** Most corrector iterations one step took. */
  maxCorrectorIterationsInStep: number;
  /** Steps whose corrector stopped at the cap above the tolerance. */
  unconvergedSteps: number;
  /** Whether the last step's corrector converged (true for schemes without one). */
  converged: boolean;
  /** Tolerance-scaled size of the last correction (≤ 1 when converged); 0 without a corrector. */
  lastCorrection: number;
}
