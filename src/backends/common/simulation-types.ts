import type { IntegratorName } from '../../integrators/catalog.ts';
import type { Model } from '../../model/model.ts';
import type { SolverStats } from '../../integrators/implicit-options.ts';
import type { ParticleUpdate } from './attachments.ts';
import type { ColliderPose } from '../../model/collider-pose.ts';

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
  /**
   * Writes the positions and/or velocities of the particles `indices` (teleport, reset) between
   * steps; on WebGPU with `queue.writeBuffer`, no readback. The scheme then goes on as a simulation
   * created at the new state would: its setup runs again (Newmark's a, the variational scheme's
   * momenta) and a multistep scheme restarts its history with RK4 steps; rk45 evaluates its first
   * stage again. The fused adaptive kernel refuses it and the other attachment calls (a
   * {@link WeftInputError} naming `fused`). A pinned particle keeps velocity 0.
   * Bad input is a {@link WeftInputError} naming `indices[k]`, `positions[k]` or `velocities[k]`.
   */
  setParticles(update: ParticleUpdate): void;
  /**
   * Pins the particles `indices` where they are, at rest: inverse mass 0, as a particle fixed in
   * the model. A kinematic particle pinned again stops following its target. The scheme restarts
   * as {@link setParticles} says.
   */
  pin(indices: ArrayLike<number>): void;
  /**
   * Releases pinned (or kinematic) particles: they move under the forces again, from the velocity
   * they have. A particle needs a mass > 0 (a model may give fixed particles mass 0), else a
   * {@link WeftInputError} naming `indices[k]`. With `solver: 'multigrid'` a particle that was
   * fixed when the hierarchy was built belongs to no aggregate: the V-cycle's block-Jacobi sweeps
   * correct it, and the coarse levels count its springs as springs to a fixed particle (the
   * Galerkin product with its row of P empty), so the preconditioner stays symmetric positive
   * definite and CG converges. Pinning a particle the hierarchy holds as free rebuilds the
   * hierarchy before the next solve (else the coarse correction would be prolonged onto it).
   */
  release(indices: ArrayLike<number>): void;
  /**
   * Kinematic attachments: pins the particles `indices` and drives them to `positions` (xyz per
   * index, m). A particle that was not kinematic is placed at its first target at once, at rest;
   * after that, each call of step(), advance() or advanceTo() moves it at constant velocity
   * v = (target − previous target) / (steps · dt) — for rk45 and step doubling, over the next
   * advanceTo(t): / (t − now); their advance(n) refuses a pending target — and puts it exactly on the target at the end, so
   * the implicit solvers see the prescribed motion through v (Baraff & Witkin 1998, §5: a
   * constrained particle's Δv is filtered to 0). Call it once per frame with the new targets.
   * Not yet for variational-symplectic-implicit: it holds a pinned particle by a zero increment
   * (v₊ = 2 res/h with res filtered to 0), so a kinematic particle stays put inside a call and
   * lands on its target at its end; its neighbours see the motion one call late (a solve with
   * prescribed values z on filtered rows, Baraff & Witkin's z, would fix it).
   */
  setTargets(indices: ArrayLike<number>, positions: ArrayLike<number>): void;
  /**
   * Kinematic colliders: moves collider `index` of the model to `pose` (its centre, a capsule's
   * ends, a plane's point and normal). As with {@link setTargets}, the next call of step(),
   * advance() or advanceTo() moves it there at constant velocity u = (pose − previous pose) /
   * (steps · dt) — for rk45 and step doubling, over the next advanceTo(t): (pose − previous pose) /
   * (t − now); their advance(n) refuses a pending pose — and puts it exactly on the pose at the end; contacts use u as the surface's velocity, so a particle resting on the collider moves
   * with it and friction acts on the velocity relative to it. On WebGPU a `queue.writeBuffer`, no
   * readback. Bad input is a {@link WeftInputError} naming `index` or `pose.<field>`.
   */
  setColliderPose?(index: number, pose: ColliderPose): void;
  /** Frees what the simulation created (never a borrowed GPUDevice). */
  destroy(): void;
}

/** A simulation on WebGPU: its buffers can be drawn from, and its steps encoded into a caller's encoder. */
/** GPU time spent in one kernel ({@link GpuSimulation.readProfile}). */
export interface KernelTime {
  /** The kernel's label (e.g. 'cgStep', 'forces', 'gather'). */
  readonly kernel: string;
  /** Dispatches timed. */
  readonly dispatches: number;
  /** Their GPU time, ms (from the passes' timestamps). */
  readonly milliseconds: number;
}

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
  /**
   * Encodes `steps` steps into the caller's encoder (to interleave passes of one's own).
   * Kinematic particles ({@link Simulation.setTargets}) get their velocity for these steps when
   * encode() is called (a `queue.writeBuffer`, which runs before the caller's submission), so
   * while targets move, submit after each encode(); they end on their targets to float32 rounding,
   * and exactly at the start of the next call.
   */
  encode(encoder: GPUCommandEncoder, steps: number): void;
  /**
   * With option `profile`: GPU time per kernel of the work submitted so far, the slowest first
   * (timestamp queries, a compute pass per dispatch); otherwise a WeftInputError naming `profile`.
   */
  readProfile(): Promise<KernelTime[]>;
  /**
   * {@link Simulation.setColliderPose}: every WebGPU simulation has it. As with kinematic particles,
   * while a collider moves call encode() once per submission (its velocity for those steps is a
   * `queue.writeBuffer` made when encode() is called).
   */
  setColliderPose(index: number, pose: ColliderPose): void;
}
