import { WeftDivergenceError, WeftInputError } from './errors.ts';
import type { SimulationState } from './simulation-types.ts';

/** Throws {@link WeftDivergenceError} naming the first particle with a NaN/Inf coordinate. */
export function requireFiniteState(state: SimulationState): SimulationState {
  for (const values of [state.positions, state.velocities]) {
    for (let k = 0; k < values.length; k++) {
      if (!Number.isFinite(values[k]!)) throw new WeftDivergenceError(state.step, Math.floor(k / 3));
    }
  }
  return state;
}

/** `step(n)` takes a whole number of steps, n ≥ 0. */
export function requireStepCount(steps: number): void {
  if (!Number.isInteger(steps) || steps < 0)
    throw new WeftInputError('steps', `must be an integer ≥ 0, got ${steps}`);
}
