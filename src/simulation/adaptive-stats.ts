/** An adaptive simulation's statistics: an accepted step recorded, and the shape the implicit integrators report. */
import type { AdaptiveStats } from '../integrators/adaptive-options.ts';
import type { SolverStats } from '../integrators/implicit-options.ts';

/**
 * `stats` as {@link SolverStats}: steps = accepted steps, the Newton iterations and linear solves
 * of velocity-implicit-euler (zeros for the explicit schemes), unconverged steps = steps taken
 * below the minimum step, converged = accuracy met so far.
 */
export function solverStatsOf(stats: AdaptiveStats): SolverStats {
  const newton = stats.newton;
  return {
    steps: stats.acceptedSteps,
    linearSolves: newton.linearSolves,
    linearIterations: newton.linearIterations,
    maxLinearIterations: newton.maxLinearIterations,
    lastResidual: newton.lastLinearResidual,
    maxResidual: newton.maxLinearResidual,
    unconvergedSolves: newton.unconvergedLinearSolves,
    newtonIterations: newton.iterations,
    unconvergedSteps: stats.minStepViolations,
    converged: stats.accuracyMet,
  };
}

/** The statistics of an accepted step h with scaled error `error` (`shortened` to land on a target: not a smallest step). */
export function recordAccepted(stats: Pick<AdaptiveStats, 'acceptedSteps' | 'smallestStep' | 'largestStep' | 'lastErrorEstimate' | 'maxErrorEstimate'>, h: number, error: number, shortened: boolean): void {
  stats.acceptedSteps++;
  if (!shortened) stats.smallestStep = Math.min(stats.smallestStep, h);
  stats.largestStep = Math.max(stats.largestStep, h);
  stats.lastErrorEstimate = error;
  stats.maxErrorEstimate = Math.max(stats.maxErrorEstimate, error);
} // prettier-ignore
