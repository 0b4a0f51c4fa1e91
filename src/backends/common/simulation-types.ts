import type { IntegratorName } from '../../integrators/catalog.ts';
import type { Model } from '../../model/model.ts';
import type { SolverStats } from '../../integrators/implicit-options.ts';

/** A state read back from a simulation; float64 copies, xyz interleaved. */
export interface SimulationState {
  /** Steps taken since creation. */
  readonly step: number;
  /** Simulated time, s (step × dt). */
  readonly time: number;
  /** [3n], m. */
  readonly positions: Float64Array;
  /** [3n], m/s. */
  readonly velocities: Float64Array;
  /** [3n], kg·m/s: the momentum of variational-symplectic-implicit, which differs from M v. */
  readonly momenta?: Float64Array;
}

/** Progress of a long {@link Simulation.advance}: steps done of the total. */
export type ProgressCallback = (stepsDone: number, stepsTotal: number) => void;

/** What every backend offers. */
export interface Simulation {
  /** Where it runs: 'cpu' (the reference, float64 or float32 storage) or 'webgpu'. */
  readonly backend: 'cpu' | 'webgpu';
  /** The integrator it was created with. */
  readonly integrator: IntegratorName;
  /** h, s. */
  readonly dt: number;
  /** The model it was created from. */
  readonly model: Model;
  /** Steps taken (or, on the GPU, submitted) so far. */
  readonly stepCount: number;
  /** Human-readable description of where the work runs (CPU precision, or the GPU adapter). */
  readonly description: string;
  /**
   * Takes `steps` steps. On the GPU this encodes every pass of every step and submits without
   * waiting; call {@link readState} (or await {@link finished}) to wait for the result.
   */
  step(steps?: number): void;
  /**
   * Takes `steps` steps and resolves when they are done, calling `onProgress` as it goes. The
   * implicit WebGPU path with `checkEvery` > 0 reads convergence back here (step() never does).
   */
  advance(steps: number, onProgress?: ProgressCallback): Promise<void>;
  /**
   * Integrates to the time `t` (s, ≥ the current time) and resolves there. Adaptive integrators
   * choose their steps and land on t exactly; fixed-step ones take (t − now)/dt steps and refuse a
   * t off their grid, naming `tEnd`.
   */
  advanceTo(t: number, onProgress?: (time: number, target: number) => void): Promise<void>;
  /** Resolves when all submitted work is done. */
  finished(): Promise<void>;
  /**
   * Reads the current state. Throws {@link WeftDivergenceError} when any value is NaN or Inf, so
   * a diverged state is never used as if it were a result.
   */
  readState(): Promise<SimulationState>;
  /** Linear-solver and Newton statistics of the implicit integrators; null for explicit ones. */
  readSolverStats(): Promise<SolverStats | null>;
  /** Frees what the simulation created (never a borrowed GPUDevice). */
  destroy(): void;
}

/** A simulation on WebGPU: its buffers can be drawn from, and its steps encoded into a caller's encoder. */
export interface GpuSimulation extends Simulation {
  /** Always 'webgpu'. */
  readonly backend: 'webgpu';
  /** The device its buffers live on: the caller's (borrowed) or the one Weft requested. */
  readonly device: GPUDevice;
  /** vec4<f32> per particle (xyz m, w = 1); STORAGE | VERTEX | COPY_SRC | COPY_DST. */
  readonly positions: GPUBuffer;
  /** vec4<f32> per particle (xyz m/s). */
  readonly velocities: GPUBuffer;
  /**
   * variational-symplectic-implicit: its momenta p, n vec4<f32> (xyz kg·m/s) from `offset`
   * (256-byte aligned) in `buffer` — bind it as `{ buffer, offset, size }`.
   */
  readonly momenta?:
    | {
        /** The arena buffer that holds the momenta. */
        readonly buffer: GPUBuffer;
        /** Byte offset of particle 0 in `buffer`. */
        readonly offset: number;
        /** Bytes: 16 × particles. */
        readonly size: number;
      }
    | undefined;
  /** Encodes `steps` steps into the caller's encoder (to interleave passes of one's own). */
  encode(encoder: GPUCommandEncoder, steps: number): void;
}
