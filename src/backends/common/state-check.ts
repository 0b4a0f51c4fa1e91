import { WeftDivergenceError, WeftInputError } from '../../core/errors.ts';
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

/**
 * advance() of a CPU simulation: `step` in chunks of about a hundredth of the run, yielding to
 * the event loop between chunks so that progress can be shown.
 */
export async function advanceInChunks(
  step: (steps: number) => void,
  steps: number,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  requireStepCount(steps);
  const chunk = Math.max(1, Math.ceil(steps / 100));
  for (let done = 0; done < steps;) {
    const next = Math.min(chunk, steps - done);
    step(next);
    done += next;
    onProgress?.(done, steps);
    await Promise.resolve();
  }
}

/**
 * advanceTo(t) of a fixed-step simulation: the steps from step `steps` (time steps·dt) to `t`, an
 * error naming `tEnd` when t is in the past or not a whole number of steps away.
 */
export function stepsTo(t: number, steps: number, dt: number): number {
  const exact = (t - steps * dt) / dt;
  const count = Math.round(exact);
  if (
    typeof t !== 'number' ||
    !Number.isFinite(t) ||
    count < 0 ||
    Math.abs(exact - count) > 1e-9 * Math.max(1, count)
  )
    throw new WeftInputError(
      'tEnd',
      `must be a time ≥ ${steps * dt} s on the grid of dt = ${dt} s (a whole number of steps away), got ${t}`,
    );
  return count;
}
