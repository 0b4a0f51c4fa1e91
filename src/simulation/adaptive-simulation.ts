/**
 * Error-controlled integration: rk45 (Cash–Karp), step doubling of any explicit scheme, and
 * velocity-implicit Euler, on the CPU or on WebGPU (fused: the controller on the GPU). The step is chosen per step from the error estimate; advanceTo()
 * lands exactly on the time asked for (the last step is clipped).
 */
import { Lifecycle } from '../backends/common/lifecycle.ts';
import type { ParticleUpdate } from '../backends/common/attachments.ts';
import { AdaptiveEdits } from './adaptive-edits.ts';
import type { SolverStats } from '../integrators/implicit-options.ts';
import { recordAccepted, solverStatsOf } from './adaptive-stats.ts';
import { adaptiveProgram } from '../integrators/adaptive-programs.ts';
import type { RealArray } from '../backends/cpu/passes.ts';
import type { Model } from '../model/model.ts';
import type { Simulation, SimulationState } from '../backends/common/simulation-types.ts';
import type { ColliderPose } from '../model/collider-pose.ts';
import { requireStepCount, StateWatch } from '../backends/common/state-check.ts';
import { WeftInputError, WeftStepSizeError } from '../core/errors.ts';
import { clampStep, startingStepOf, stepFactor } from './controller.ts';
import { drakeStep } from './drake-controller.ts';
import type { AdaptiveStepper, GpuAdaptiveStepper } from '../backends/common/stepper.ts';
import {
  emptyNewtonStats,
  type AdaptiveIntegratorName,
  type AdaptiveOptions,
  type AdaptiveStats,
  type NewtonStats,
  type ResolvedAdaptiveOptions,
} from '../integrators/adaptive-options.ts';
import { resolveAdaptiveOptions } from '../integrators/options.ts';
import { CpuProgramStepper } from '../backends/cpu/program-stepper.ts';
import { requireFeatureSupport } from '../integrators/feature-support.ts';
import { VelocityImplicitEulerStepper } from '../backends/cpu/velocity-implicit-euler.ts';
import { FusedAdaptiveStepper } from '../backends/webgpu/fused-stepper.ts';

/** Progress of {@link AdaptiveSimulation.advanceTo}: the time reached and the target, s. */
export type TimeProgressCallback = (time: number, target: number) => void;

/**
 * An adaptive-step simulation. Orders: rk45 propagates order 5 (explicit: on stiff systems its
 * step is held at the stability limit whatever the accuracy asked for); step doubling has the
 * doubled scheme's order (p + 1 with `extrapolate`); velocity-implicit-euler is order 1 and
 * L-stable, so on stiff systems its step follows the accuracy only.
 *
 * Error control is per step (the local error of each step is held below the tolerances); the
 * global error is not controlled and grows with the number of steps on non-contracting systems.
 * Two meanings of the accuracy and two step-size rules (option `errorControl`): Drake's
 * IntegratorBase (max_i w_i |e_i| ≤ accuracy; src/simulation/drake-controller.ts), the default of
 * velocity-implicit-euler, or Hairer's (‖e/sc‖ ≤ 1; src/simulation/controller.ts), the others'.
 */
export class AdaptiveSimulation implements Simulation {
  readonly integrator: AdaptiveIntegratorName;
  readonly model: Model;
  readonly description: string;
  readonly options: ResolvedAdaptiveOptions;
  readonly backend: 'cpu' | 'webgpu';
  private readonly stepper: AdaptiveStepper | GpuAdaptiveStepper | FusedAdaptiveStepper;
  /** WebGPU with the controller on the GPU (fused-stepper.ts): whole batches of steps per submission. */
  private readonly fused: FusedAdaptiveStepper | null;
  private readonly freeBackend: () => void;
  private readonly real: (length: number) => RealArray;
  private t = 0;
  /** The controller's proposal for the next step; null until the first step. */
  private proposal: number | null = null;
  private lastRejected = false;
  private readonly stats: Omit<AdaptiveStats, 'derivativeEvaluations' | 'newton' | 'nextStep'> = {
    acceptedSteps: 0,
    rejectedSteps: 0,
    shrinksFromErrorControl: 0,
    shrinksFromNewtonFailure: 0,
    smallestStep: Infinity,
    largestStep: 0,
    lastErrorEstimate: 0,
    maxErrorEstimate: 0,
    minStepViolations: 0,
    accuracyMet: true,
  };
  private startingEvaluations = 0;
  private readonly lifecycle = new Lifecycle();
  private readonly watch: StateWatch;
  /** Particle and collider edits (adaptive-edits.ts): moved over each advanceTo(). */
  private readonly edits: AdaptiveEdits;

  /** CPU: `new AdaptiveSimulation(model, options)`; WebGPU: {@link createAdaptiveSimulation}. */
  constructor(
    model: Model,
    options: AdaptiveOptions,
    gpu?: {
      stepper: GpuAdaptiveStepper | FusedAdaptiveStepper;
      description: string;
      device: GPUDevice;
      release: () => void;
    },
  ) {
    if (typeof options !== 'object' || options === null)
      throw new WeftInputError('options', 'must be an object with at least `integrator`');
    const o = resolveAdaptiveOptions(options);
    requireFeatureSupport(model, o.integrator);
    this.options = o;
    this.edits = new AdaptiveEdits(model);
    this.model = this.edits.model; // with the fixed flags and inverse masses pin() and release() change
    this.watch = new StateWatch(model);
    this.integrator = o.integrator;
    this.real = (length) => (o.precision === 'f64' ? new Float64Array(length) : new Float32Array(length));
    const initial = { positions: model.particlePositions, velocities: model.particleVelocities };
    this.backend = gpu ? 'webgpu' : 'cpu';
    this.freeBackend = gpu?.release ?? (() => {});
    if (gpu) this.lifecycle.watch(gpu.device);
    const what = o.integrator === 'step-doubling' ? `step-doubling(${o.scheme})` : o.integrator;
    if (gpu) {
      this.stepper = gpu.stepper;
      this.fused = gpu.stepper instanceof FusedAdaptiveStepper ? gpu.stepper : null;
      this.description = `${gpu.description}, ${what}, accuracy ${o.accuracy} (${o.errorControl})`;
      this.edits.connect(this.stepper, model, o.integrator, Boolean(this.fused));
      return;
    }
    const live = this.edits.model;
    this.stepper =
      o.integrator === 'velocity-implicit-euler'
        ? new VelocityImplicitEulerStepper(live, initial, o, this.real)
        : new CpuProgramStepper(live, initial, adaptiveProgram(o, model), o.precision);
    this.fused = null;
    this.edits.connect(this.stepper, live, o.integrator, false);
    this.description = `CPU (TypeScript, ${o.precision === 'f64' ? 'float64' : 'float32 storage'}), ${what}, accuracy ${o.accuracy} (${o.errorControl})`;
  }

  /** Simulated time, s. */
  get time(): number {
    return this.t;
  }

  /** Accepted steps so far. */
  get stepCount(): number {
    return this.stats.acceptedSteps;
  }

  /** The step the controller proposes next, s (the first step's estimate before any). */
  get dt(): number {
    return this.proposal ?? this.options.initialStep ?? NaN;
  }

  /**
   * Adaptive steps are decided by the controller, and on WebGPU each attempt reads its error
   * back: they cannot be taken synchronously. Use {@link advance} or {@link advanceTo}.
   */
  step(steps = 1): void {
    this.lifecycle.check('step()');
    throw new WeftInputError(
      'steps',
      `'${this.integrator}' chooses its own steps asynchronously: use advance(${steps}) or advanceTo(t)`,
    );
  }

  /** Takes `steps` accepted steps (the controller chooses their sizes). */
  advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    return this.lifecycle.guard('advance()', () => this.advanceNow(steps, onProgress));
  }

  private async advanceNow(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    requireStepCount(steps);
    await this.edits.during(null, async () => {
      if (this.fused) {
        const before = this.stats.acceptedSteps;
        if (steps > 0) await this.advanceFused(null, steps, () => onProgress?.(this.stats.acceptedSteps - before, steps)); // prettier-ignore
        return;
      }
      for (let done = 0; done < steps; done++) {
        await this.stepTowards(Infinity);
        onProgress?.(done + 1, steps);
      }
    });
  }

  /**
   * Integrates to `target` (s, ≥ the current time), landing on it exactly. Throws
   * {@link WeftStepSizeError} when a step fails at minStep (non-finite, Newton failure, or the
   * accuracy with `onMinStep: 'throw'`); the state then stays at the last accepted step.
   */
  advanceTo(target: number, onProgress?: TimeProgressCallback): Promise<void> {
    return this.lifecycle.guard('advanceTo()', () => this.advanceToNow(target, onProgress));
  }

  private async advanceToNow(target: number, onProgress?: TimeProgressCallback): Promise<void> {
    if (typeof target !== 'number' || !Number.isFinite(target) || target < this.t)
      throw new WeftInputError('tEnd', `must be a finite time ≥ the current time ${this.t} s, got ${target}`);
    if (this.fused) {
      if (target > this.t) await this.advanceFused(target, 0, () => onProgress?.(this.t, target));
      return;
    }
    const start = this.t;
    const reportEvery = (target - start) / 100;
    let nextReport = start + reportEvery;
    // Targets and poses are reached over the call (adaptive-edits.ts).
    await this.edits.during(target - start, async () => {
      while (this.t < target) {
        await this.stepTowards(target);
        if (onProgress && (this.t >= nextReport || this.t === target)) {
          onProgress(this.t, target);
          nextReport = this.t + reportEvery;
          await Promise.resolve();
        }
      }
    });
  }

  /** A stepper that takes one attempt at a time (not the fused one). */
  private stepwise(): AdaptiveStepper | GpuAdaptiveStepper {
    if (!(this.stepper instanceof FusedAdaptiveStepper)) return this.stepper;
    throw new Error('the fused stepper takes no single attempts');
  }

  /**
   * The fused stepper's batches to `target` (null: none) or `steps` more accepted steps, then its
   * statistics, time and proposal mirrored here (also after a step-size error).
   */
  private async advanceFused(target: number | null, steps: number, onBatch: () => void): Promise<void> {
    const fused = this.fused!;
    const first = this.proposal === null ? this.firstStep() : undefined;
    const mirror = (): void => {
      const { time, nextStep, acceptedSteps, rejectedSteps, shrinksFromErrorControl, shrinksFromNewtonFailure, smallestStep, largestStep, lastErrorEstimate, maxErrorEstimate, minStepViolations, accuracyMet } = fused.stats; // prettier-ignore
      const stats = { acceptedSteps, rejectedSteps, shrinksFromErrorControl, shrinksFromNewtonFailure, smallestStep, largestStep, lastErrorEstimate, maxErrorEstimate, minStepViolations, accuracyMet }; // prettier-ignore
      Object.assign(this.stats, stats);
      this.t = time;
      this.proposal = nextStep;
    };
    try {
      await fused.advance(target, steps, first, () => {
        mirror();
        onBatch();
      });
    } finally {
      mirror();
    }
    if (target !== null) this.t = target; // the GPU landed on its two-float form
  }

  /** One accepted step towards `target` (after as many rejected attempts as it takes). */
  private async stepTowards(target: number): Promise<void> {
    if (this.options.errorControl === 'drake') return this.stepDrake(target);
    const stepper = this.stepwise();
    const o = this.options;
    if (this.proposal === null) this.proposal = this.firstStep();
    for (;;) {
      const planned = Math.min(this.proposal, o.maxStep);
      const remaining = target - this.t;
      const clipped = planned >= remaining;
      const h = clipped ? remaining : planned;
      // A step too small to change t in float64 is as small as a step can be.
      const atMinimum = h <= o.minStep || (!clipped && this.t + h === this.t);
      const outcome = await stepper.attempt(h, this.t);
      if (outcome.kind === 'newton-failed') {
        if (atMinimum) throw new WeftStepSizeError(this.t, h, 'newton-failed');
        this.stats.shrinksFromNewtonFailure++;
        this.stats.rejectedSteps++;
        this.proposal = clampStep(this.options, h * o.newtonFailureShrink);
        this.lastRejected = true;
        continue;
      }
      const error = outcome.error;
      if (!(error <= 1)) {
        if (atMinimum) {
          if (!Number.isFinite(error)) throw new WeftStepSizeError(this.t, h, 'non-finite');
          if (o.onMinStep === 'throw') throw new WeftStepSizeError(this.t, h, 'accuracy');
          this.stats.minStepViolations++;
          this.stats.accuracyMet = false;
        } else {
          this.stats.shrinksFromErrorControl++;
          this.stats.rejectedSteps++;
          this.proposal = clampStep(this.options, h * stepFactor(error, stepper.estimateOrder, o, true));
          this.lastRejected = true;
          continue;
        }
      }
      stepper.accept();
      this.t = clipped ? target : this.t + h;
      recordAccepted(this.stats, h, error, clipped);
      const next = h * stepFactor(error, stepper.estimateOrder, o, this.lastRejected);
      // A step shortened to land on the target says nothing against the step planned before it.
      this.proposal = clampStep(this.options, clipped ? Math.max(next, planned) : next);
      this.lastRejected = false;
      return;
    }
  }

  /** One accepted step towards `target` under errorControl 'drake' ({@link drakeStep}). */
  private async stepDrake(target: number): Promise<void> {
    this.proposal ??= this.firstStep();
    const stepper = this.stepwise();
    const step = await drakeStep(stepper, this.options, this.t, this.proposal, target, this.stats);
    if (!(step.error <= 1)) {
      this.stats.minStepViolations++;
      this.stats.accuracyMet = false;
    }
    stepper.accept();
    this.t = step.h === target - this.t ? target : this.t + step.h;
    if (!step.limited) this.proposal = step.next;
    recordAccepted(this.stats, step.h, step.error, step.limited);
  }

  private firstStep(): number {
    const o = this.options;
    if (o.initialStep !== null) return o.initialStep;
    // Drake VelocityImplicitEulerIntegrator::DoInitialize: the initial step target is the maximum step.
    if (o.errorControl === 'drake' && Number.isFinite(o.maxStep)) return o.maxStep;
    // On the GPU the first step starts from the model's initial state, evaluated on the CPU.
    const start = 'current' in this.stepper ? this.stepper.current : null;
    const guess = startingStepOf(this.model, start, this.stepper.estimateOrder, o, this.real);
    this.startingEvaluations += guess.evaluations;
    return clampStep(this.options, guess.step);
  }

  /**
   * The current state; step = accepted steps, time = simulated time. Throws WeftDivergenceError
   * on NaN/Inf (which an accepted step never has: such a step is rejected).
   */
  readState(): Promise<SimulationState> {
    return this.lifecycle.guard('readState()', () => this.readStateNow());
  }

  private async readStateNow(): Promise<SimulationState> {
    const { positions, velocities } =
      'current' in this.stepper ? this.stepper.current : await this.stepper.readCurrent();
    return this.watch.check({
      step: this.stats.acceptedSteps,
      time: this.t,
      positions: Float64Array.from(positions),
      velocities: Float64Array.from(velocities),
    });
  }

  /** WebGPU: the accepted state's positions, vec4<f32> (STORAGE | VERTEX); null on the CPU. */
  get positions(): GPUBuffer | null {
    return 'current' in this.stepper ? null : this.stepper.positions;
  }

  /** A copy of the statistics. */
  readStats(): AdaptiveStats {
    this.lifecycle.check('readStats()');
    return {
      ...this.stats,
      nextStep: this.proposal ?? NaN,
      derivativeEvaluations: (this.fused ? this.fused.stats.evaluations : this.stepwise().derivativeEvaluations) + this.startingEvaluations, // prettier-ignore
      newton: this.fused
        ? { ...this.fused.stats.newton }
        : 'newton' in this.stepper
          ? { ...(this.stepper as { newton: NewtonStats }).newton }
          : emptyNewtonStats(),
    };
  }

  /** The statistics in the shape the implicit integrators report (src/simulation/adaptive-stats.ts). */
  async readSolverStats(): Promise<SolverStats> {
    this.lifecycle.check('readSolverStats()');
    return solverStatsOf(this.readStats());
  }

  async finished(): Promise<void> {
    this.lifecycle.check('finished()');
  }

  /**
   * Teleports particles (rk45, step doubling, velocity-implicit Euler; adaptive-edits.ts). The
   * fused kernel refuses it, and pin(), release(), setTargets(), naming `fused`.
   */
  setParticles(update: ParticleUpdate): void {
    this.lifecycle.check('setParticles()');
    this.edits.setParticles(update);
  }

  /** Pins particles (inverse mass 0, at rest), as a fixed-step simulation does. */
  pin(indices: ArrayLike<number>): void {
    this.lifecycle.check('pin()');
    this.edits.pin(indices);
  }

  /** Releases pinned particles. */
  release(indices: ArrayLike<number>): void {
    this.lifecycle.check('release()');
    this.edits.release(indices);
  }

  /** Kinematic particles: each reaches its target over the next {@link advanceTo}, at constant velocity. */
  setTargets(indices: ArrayLike<number>, positions: ArrayLike<number>): void {
    this.lifecycle.check('setTargets()');
    this.edits.setTargets(indices, positions);
  }

  /** Moves collider `index` to `pose` over the next {@link advanceTo} (as {@link setTargets} moves particles). */
  setColliderPose(index: number, pose: ColliderPose): void {
    this.lifecycle.check('setColliderPose()');
    this.edits.setColliderPose(index, pose);
  }

  destroy(): void {
    if (this.lifecycle.destroy()) this.freeBackend();
  }
}
