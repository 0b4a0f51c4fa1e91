/**
 * Adams–Bashforth 2/3 and the Adams–Moulton PECE predictor–corrector on WebGPU, the passes of
 * src/backends/cpu/cpu-simulation.ts (CPU mirror): the spring and gather kernels for F = (v, a(x, v)), and
 * the stage-combination kernel y₊ = y + h Σ β_j F_{n−j} over a ring of stored derivatives. The RK4
 * starter is the same combination kernel with the RK4 tableau. No readback: a step is a fixed list
 * of passes. The fixed-point predictor–correctors (heun-implicit, implicit-euler-pc) and iterated
 * Adams–Moulton (maxCorrectorIterations > 1) need a convergence check per iteration and run on the
 * CPU only.
 */
import { WeftInputError } from '../../core/errors.ts';
import { ADAMS_WEIGHTS, STARTUP_STEPS } from '../../integrators/multistep.ts';
import { RUNGE_KUTTA_TABLEAUX } from '../../integrators/tableaux.ts';
import type { MultistepIntegratorName, MultistepOptions } from '../../integrators/adaptive-options.ts';
import type { Model } from '../../model/model.ts';
import type { GpuSimulation, SimulationState } from '../common/simulation-types.ts';
import { advanceInChunks, requireFiniteState, requireStepCount } from '../common/state-check.ts';
import type { SolverStats } from '../../integrators/implicit-options.ts';
import { withDevice } from './device.ts';
import { resolveMultistepOptions } from '../../integrators/options.ts';
import { GpuStepperCore, placeWeights } from './webgpu-adaptive-stepper.ts';

const { bashforth2: AB2, bashforth3: AB3, moulton3: AM3 } = ADAMS_WEIGHTS;

/** The multistep integrators the GPU runs. */
export const GPU_MULTISTEP = ['adams-bashforth-2', 'adams-bashforth-3', 'adams-moulton-pc'] as const;

/** History ring: F_{n−j} lives in slot HISTORY_SLOTS[(head + j) % 3]; slots 0–3 serve the RK4 starter. */
const HISTORY_SLOTS = [5, 6, 7] as const;
/** Scratch slot for F of the Adams–Moulton predictor. */
const PREDICTOR_SLOT = 4;

export class WebGpuMultistepSimulation implements GpuSimulation {
  readonly backend = 'webgpu';
  readonly integrator: MultistepIntegratorName;
  readonly dt: number;
  readonly model: Model;
  readonly description: string;
  readonly device: GPUDevice;
  private readonly core: GpuStepperCore;
  private readonly candidate;
  private readonly predictor;
  private readonly ownsDevice: boolean;
  private head = 0;
  private steps = 0;

  static async create(
    model: Model,
    options: MultistepOptions & { device?: GPUDevice },
  ): Promise<WebGpuMultistepSimulation> {
    if (!(GPU_MULTISTEP as readonly string[]).includes(options.integrator)) {
      throw new WeftInputError(
        'backend',
        `'${options.integrator}' runs on the CPU only so far (its corrector needs a convergence check per iteration)`,
      );
    }
    if ((options.maxCorrectorIterations ?? 1) !== 1) {
      throw new WeftInputError(
        'maxCorrectorIterations',
        'iterated Adams–Moulton runs on the CPU only; the GPU runs PECE (1)',
      );
    }
    const { dt, rayleighMass } = resolveMultistepOptions(options);
    return withDevice(
      options.device,
      (device, owned, name) =>
        new WebGpuMultistepSimulation(model, options.integrator, dt, rayleighMass, device, owned, name),
    );
  }

  private constructor(
    model: Model,
    integrator: MultistepIntegratorName,
    dt: number,
    rayleighMass: number,
    device: GPUDevice,
    owned: boolean,
    adapterName: string,
  ) {
    this.model = model;
    this.integrator = integrator;
    this.dt = dt;
    this.device = device;
    this.ownsDevice = owned;
    this.description = `WebGPU: ${adapterName}, ${integrator}`;
    const unusedTolerances = {
      relative: 1,
      absolutePosition: 1,
      absoluteVelocity: 1,
      positionWeight: 1,
      velocityWeight: 1,
      norm: 'max' as const,
    };
    this.core = new GpuStepperCore(device, model, rayleighMass, unusedTolerances);
    this.candidate = this.core.pair('candidate');
    this.predictor = this.core.pair('predictor');
    // F(y₀) opens the history.
    const encoder = this.core.begin();
    this.core.evaluate(encoder, this.core.current, 'current', HISTORY_SLOTS[0]);
    this.device.queue.submit([encoder.finish()]);
  }

  get positions(): GPUBuffer {
    return this.core.current.positions;
  }

  get velocities(): GPUBuffer {
    return this.core.current.velocities;
  }

  get stepCount(): number {
    return this.steps;
  }

  /** Slot of F_{n−j}. */
  private history(j: number): number {
    return HISTORY_SLOTS[(this.head + j) % 3]!;
  }

  /** Weights of F_n, F_{n−1}, … placed in their slots. */
  private historyWeights(weights: readonly number[]): number[] {
    return placeWeights(
      weights,
      weights.map((_, j) => this.history(j)),
    );
  }

  /** Stores F(y_{n+1}) of the (new) current state as the newest history entry. */
  private push(encoder: GPUCommandEncoder): void {
    this.head = (this.head + 2) % 3; // the oldest slot becomes the newest
    this.core.evaluate(encoder, this.core.current, 'current', this.history(0));
  }

  private accept(encoder: GPUCommandEncoder): void {
    this.core.copyPair(encoder, this.candidate, this.core.current);
  }

  /**
   * Encodes `steps` steps. Each combination pass writes its own small uniform before the
   * submission, so call this once per submission (step() does).
   */
  encode(encoder: GPUCommandEncoder, steps: number): void {
    const core = this.core;
    core.resetSlots();
    const h = this.dt;
    for (let n = 0; n < steps; n++) {
      if (this.steps < STARTUP_STEPS[this.integrator]) {
        core.tableauStep(
          encoder,
          RUNGE_KUTTA_TABLEAUX.rk4,
          h,
          core.current,
          'current',
          this.candidate,
          'candidate',
          [this.history(0), 0, 1, 2],
        );
      } else if (this.integrator === 'adams-moulton-pc') {
        // P: AB3; E: F(y⁽⁰⁾); C: y + h (5/12 F(y⁽⁰⁾) + 8/12 F_n − 1/12 F_{n−1}); E (push).
        core.combine(
          encoder,
          h,
          this.historyWeights(AB3),
          core.current,
          'current',
          this.predictor,
          'predictor',
        );
        core.evaluate(encoder, this.predictor, 'predictor', PREDICTOR_SLOT);
        const weights = placeWeights(AM3, [PREDICTOR_SLOT, this.history(0), this.history(1)]);
        core.combine(encoder, h, weights, core.current, 'current', this.candidate, 'candidate');
      } else {
        const weights = this.integrator === 'adams-bashforth-2' ? AB2 : AB3;
        core.combine(
          encoder,
          h,
          this.historyWeights(weights),
          core.current,
          'current',
          this.candidate,
          'candidate',
        );
      }
      this.accept(encoder);
      this.push(encoder);
      this.steps++;
    }
  }

  step(steps = 1): void {
    requireStepCount(steps);
    // Combination uniforms are rewritten per submission: one submission per step.
    for (let n = 0; n < steps; n++) {
      const encoder = this.device.createCommandEncoder({ label: 'WebGpuMultistepSimulation.step' });
      this.encode(encoder, 1);
      this.device.queue.submit([encoder.finish()]);
    }
  }

  advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    return advanceInChunks((n) => this.step(n), steps, onProgress).then(() => this.finished());
  }

  finished(): Promise<void> {
    return this.device.queue.onSubmittedWorkDone();
  }

  async readState(): Promise<SimulationState> {
    const state = await this.core.readPair(this.core.current);
    return requireFiniteState({ step: this.steps, time: this.steps * this.dt, ...state });
  }

  readSolverStats(): Promise<SolverStats | null> {
    return Promise.resolve(null);
  }

  destroy(): void {
    this.core.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
