/** Frames of a run: a state as the CLI writes it, and the stepping loop that hands them out. */
import type { Simulation, SimulationState } from '../backends/common/simulation-types.ts';
import { WeftError } from '../core/errors.ts';
import { energy, hamiltonian } from '../model/energy.ts';
import type { Model } from '../model/model.ts';
import type { ProgressBar } from './progress.ts';
import { shortestFloat32 } from './text.ts';

export interface Frame {
  step: number;
  time: number;
  positions: number[];
  velocities: number[];
  /** Kinetic + spring + gravitational energy, J. */
  energy: number;
  /** variational-symplectic-implicit: ½ pᵀM⁻¹p + potential, with its momentum p, J. */
  hamiltonian?: number;
}

/**
 * A frame of `state`. From float32 storage (WebGPU, or the CPU's f32), coordinates are written
 * with the fewest digits that read back as the same float32 (0.3, not 0.30000001192092896).
 */
export function frameOf(model: Model, state: SimulationState, float32: boolean): Frame {
  const numbers = (values: Float64Array): number[] =>
    Array.from(values, float32 ? shortestFloat32 : (x) => x);
  return {
    step: state.step,
    time: state.time,
    positions: numbers(state.positions),
    velocities: numbers(state.velocities),
    energy: energy(model, state.positions, state.velocities).total,
    ...(state.momenta ? { hamiltonian: hamiltonian(model, state.positions, state.momenta) } : {}),
  };
}

/** Steps to `steps`, handing `onFrame` a frame at 0, every `every` steps, and at the end. */
export async function integrate(
  simulation: Simulation,
  steps: number,
  every: number,
  onFrame: (frame: Frame) => Promise<void>,
  float32: boolean,
  progress?: ProgressBar,
): Promise<{ initial: SimulationState; final: SimulationState; seconds: number }> {
  const initial = await simulation.readState();
  await onFrame(frameOf(simulation.model, initial, float32));
  const started = performance.now();
  let final = initial;
  let done = 0;
  try {
    while (done < steps) {
      const next = Math.min(steps, (Math.floor(done / every) + 1) * every);
      const base = done;
      await simulation.advance(next - done, (d) => {
        progress?.update(base + d);
        if (interruption.requested) throw new WeftError('interrupted', `interrupted (Ctrl-C) at step ${base + d} of ${steps}: the output ends with the state there`); // prettier-ignore
      });
      done = next;
      final = await simulation.readState();
      await onFrame(frameOf(simulation.model, final, float32));
    }
  } catch (error) {
    // Ctrl-C: the state reached is the last frame, then the error ends the document.
    if (error instanceof WeftError && error.code === 'interrupted') await onFrame(frameOf(simulation.model, await simulation.readState(), float32)); // prettier-ignore
    throw error;
  }
  return { initial, final, seconds: (performance.now() - started) / 1000 };
}

/** Set by Ctrl-C during `weft run`: the run stops at its next chunk and writes what it has. */
export const interruption = { requested: false };
