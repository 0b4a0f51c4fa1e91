import {
  describeValue,
  ENERGY_GROWTH_LIMIT,
  WeftDivergenceError,
  WeftInputError,
} from '../../core/errors.ts';
import { energy } from '../../model/energy.ts';
import type { Model } from '../../model/model.ts';
import type { SimulationState } from './simulation-types.ts';

/**
 * The divergence check of every state a simulation returns: NaN or Inf, and a finite blow-up —
 * mechanical energy above E₀ + ENERGY_GROWTH_LIMIT × E_scale, with the scene's energy scale
 * E_scale = |E₀| + Σ m (|g| D + ½ (1 m/s)²) + Σ ½ k (L/10)² (D the initial bounding box's
 * diagonal + 1 m; L a spring's rest length): what gravity, a unit speed and a 10 % stretch of
 * every spring would store.
 */
export class StateWatch {
  private readonly bound: number;

  constructor(private readonly model: Model) {
    const x = model.particlePositions;
    const initial = energy(model, x, model.particleVelocities).total;
    const [low, high] = [
      [Infinity, Infinity, Infinity],
      [-Infinity, -Infinity, -Infinity],
    ];
    for (let k = 0; k < x.length; k++) [low[k % 3], high[k % 3]] = [Math.min(low[k % 3]!, x[k]!), Math.max(high[k % 3]!, x[k]!)]; // prettier-ignore
    const diagonal = Math.hypot(high[0]! - low[0]!, high[1]! - low[1]!, high[2]! - low[2]!) + 1;
    const g = Math.hypot(...model.gravity);
    let scale = Math.abs(initial);
    for (let i = 0; i < model.particleCount; i++) scale += model.particleMass[i]! * (g * diagonal + 0.5);
    for (let s = 0; s < model.springCount; s++) scale += 0.5 * model.springStiffness[s]! * (model.springRestLength[s]! / 10) ** 2; // prettier-ignore
    this.bound = initial + ENERGY_GROWTH_LIMIT * scale;
  }

  /** `state`, or {@link WeftDivergenceError} when it is not finite or its energy blew up. */
  check(state: SimulationState): SimulationState {
    requireFiniteState(state);
    const value = energy(this.model, state.positions, state.velocities).total;
    if (!(value <= this.bound)) throw new WeftDivergenceError(state.step, -1, { value, bound: this.bound });
    return state;
  }
}

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
  // A safe integer: beyond 2^53 a count cannot be stepped one by one (n + 1 = n).
  if (!Number.isSafeInteger(steps) || steps < 0)
    throw new WeftInputError('steps', `must be an integer from 0 to 2^53 − 1, got ${describeValue(steps)}`);
}

/**
 * advance() of a simulation: `step` in chunks sized to take about 0.1 s each (doubling from
 * `first` while they are quicker, halving when slower), yielding to the event loop between chunks
 * so that progress can be shown and a Ctrl-C handled however long the run (`--steps 1e12`).
 * `settle` waits for a chunk's work (the GPU's); `first` is the smallest chunk.
 */
export async function advanceInChunks(
  step: (steps: number) => void,
  steps: number,
  onProgress?: (done: number, total: number) => void,
  settle: () => Promise<void> = nextTask,
  first = 1,
): Promise<void> {
  requireStepCount(steps);
  let chunk = first;
  for (let done = 0; done < steps;) {
    const next = Math.min(chunk, steps - done);
    const started = performance.now();
    step(next);
    await settle();
    done += next;
    onProgress?.(done, steps);
    const ms = performance.now() - started;
    if (ms < CHUNK_MS / 2) chunk *= 2;
    else if (ms > 2 * CHUNK_MS) chunk = Math.max(first, Math.floor(chunk / 2));
  }
}

/** Wall time one chunk of advance() aims at, ms. */
const CHUNK_MS = 100;

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
    !Number.isSafeInteger(count) ||
    Math.abs(exact - count) > 1e-9 * Math.max(1, count)
  )
    throw new WeftInputError(
      'tEnd',
      `must be a time ≥ ${steps * dt} s on the grid of dt = ${dt} s (a whole number of steps away), got ${t}`,
    );
  return count;
}

/**
 * Yields to the event loop (a task, not a microtask), so that timers, I/O and signal handlers —
 * a CLI's Ctrl-C — run between chunks of a long CPU run.
 */
export function nextTask(): Promise<void> {
  return new Promise((resolve) =>
    typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0),
  );
}
