import { WeftDivergenceError } from './errors.ts';
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
