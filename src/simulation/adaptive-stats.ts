/** An adaptive simulation's statistics in the shape the implicit integrators report. */
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
