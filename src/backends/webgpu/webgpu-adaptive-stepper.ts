/**
 * Velocity-implicit Euler on WebGPU (its CPU mirror: src/backends/cpu/velocity-implicit-euler.ts):
 * each trial step is a backward-Euler Newton solve of WebGpuImplicitSimulation; the accepted
 * state, the error of the large step against the two half steps, its norm (read back once per
 * attempt) and the accept are a small program run by the WebGPU executor.
 */
import type { AttemptOutcome, GpuAdaptiveStepper } from '../common/stepper.ts';
import type { ErrorTolerances } from '../cpu/error-norm.ts';
import { emptyNewtonStats, type NewtonStats } from '../../integrators/adaptive-options.ts';
import type { LinearSolverName } from '../../integrators/implicit-options.ts';
import type { Op, Program } from '../../integrators/program.ts';
import { adaptiveOnly } from '../../integrators/adaptive-programs.ts';
import type { Model } from '../../model/model.ts';
import { WebGpuImplicitSimulation } from './webgpu-implicit-simulation.ts';
import { checkDeviceFits } from './device-fits.ts';
import { WebGpuExecutor } from './executor.ts';
import { VEC4_BYTES } from './gpu-common.ts';

/** The norm's tree reduction needs a power of two. */
const WORKGROUP = 64;

/** e = y₁ − y½ (the large step minus the two half steps), its norm, and accepting y½. */
function errorProgram(tolerances: ErrorTolerances): Program {
  const error: Op = {
    op: 'combine',
    outputs: [
      {
        to: 'err.x',
        terms: [
          [1, 'full.x'],
          [-1, 'half.x'],
        ],
      },
      {
        to: 'err.v',
        terms: [
          [1, 'full.v'],
          [-1, 'half.v'],
        ],
      },
    ],
  };
  const norm: Op = {
    op: 'norm',
    error: ['err.x', 'err.v'],
    start: ['x', 'v'],
    end: ['half.x', 'half.v'],
    tolerances,
  };
  return adaptiveOnly(2, [], [error, norm], ['half.x', 'half.v']);
}

/** Options of {@link WebGpuVelocityImplicitStepper}: the implicit path's own, by name. */
export interface GpuVelocityImplicitOptions {
  rayleighMass: number;
  tolerances: ErrorTolerances;
  solver: LinearSolverName;
  preconditioner: 'block' | 'scalar';
  linearTolerance: number;
  linearMaxIterations: number;
  maxNewtonIterations: number;
  jacobian: 'clamped' | 'exact';
}

/**
 * Velocity-implicit Euler with error control on the GPU: each trial step is a backward-Euler
 * Newton solve of WebGpuImplicitSimulation (Newton on the velocity increment h a, q₊ = q + h v₊ —
 * the same equations as the CPU's velocity-implicit Euler), run once with h and twice with h/2 from
 * the accepted state; the error is the scaled norm of their difference (order 2), the half steps
 * are propagated, and a Newton loop that ends unconverged is a Newton failure (the driver shrinks
 * the step). Unlike the CPU path (Drake), the Jacobian is evaluated afresh at every Newton
 * iteration (matrix-free, so there is no factorization to reuse) and Newton stops by the
 * backward-euler criteria (Caribou) rather than Drake's convergence-rate test.
 */
export class WebGpuVelocityImplicitStepper implements GpuAdaptiveStepper {
  readonly estimateOrder = 2;
  /**
   * Newton and linear-solver statistics in the CPU stepper's shape. Matrix-free with a fresh
   * Jacobian each iteration: jacobianEvaluations = factorizations = iterations.
   */
  readonly newton: NewtonStats = emptyNewtonStats();
  private newtonIterations = 0;

  private readonly executor: WebGpuExecutor;

  private constructor(
    private readonly simulation: WebGpuImplicitSimulation,
    private readonly device: GPUDevice,
    model: Model,
    private readonly options: GpuVelocityImplicitOptions,
  ) {
    checkDeviceFits(model, device.limits, WORKGROUP);
    this.executor = new WebGpuExecutor(device, model, errorProgram(options.tolerances), 0, WORKGROUP);
  }

  /** The accepted state's positions, vec4<f32> (STORAGE | VERTEX). */
  get positions(): GPUBuffer {
    return this.executor.positions;
  }

  readCurrent(): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    return this.executor.readState();
  }

  /** Copies the executor's (x, v)-named pair `from` into the simulation's state, or back into `to`. */
  private copy(encoder: GPUCommandEncoder, direction: 'toSimulation' | 'fromSimulation', pair: 'x' | 'full' | 'half'): void {
    const bytes = this.simulation.model.particleCount * VEC4_BYTES;
    const names = pair === 'x' ? ['x', 'v'] : [`${pair}.x`, `${pair}.v`];
    const ours = names.map((name) => this.executor.location(name));
    const theirs = [this.simulation.positions, this.simulation.velocities];
    ours.forEach((at, k) => {
      if (direction === 'toSimulation') encoder.copyBufferToBuffer(at.buffer, at.offset, theirs[k]!, 0, bytes);
      else encoder.copyBufferToBuffer(theirs[k]!, 0, at.buffer, at.offset, bytes);
    });
  } // prettier-ignore

  static async create(
    device: GPUDevice,
    model: Model,
    options: GpuVelocityImplicitOptions,
  ): Promise<WebGpuVelocityImplicitStepper> {
    const simulation = await WebGpuImplicitSimulation.create(model, {
      integrator: 'backward-euler',
      dt: 1,
      device,
      rayleighMass: options.rayleighMass,
      solver: options.solver,
      preconditioner: options.preconditioner,
      tolerance: Math.min(0.5, options.linearTolerance),
      maxIterations: options.linearMaxIterations,
      newtonIterations: options.maxNewtonIterations,
      jacobian: options.jacobian,
    });
    try {
      return new WebGpuVelocityImplicitStepper(simulation, device, model, options);
    } catch (error) {
      simulation.destroy();
      throw error;
    }
  }

  /** Force evaluations: one per Newton iteration and one per residual check. */
  get derivativeEvaluations(): number {
    return this.newtonIterations;
  }

  /** Runs `steps` backward-Euler steps of `h` from the accepted state; false if Newton failed. */
  private async trial(h: number, steps: number, into: 'full' | 'half', estimator = false): Promise<boolean> {
    const before = await this.simulation.readSolverStats();
    const encoder = this.device.createCommandEncoder();
    this.copy(encoder, 'toSimulation', 'x');
    this.device.queue.submit([encoder.finish()]);
    this.simulation.setTimeStep(h);
    await this.simulation.advance(steps);
    const after = await this.simulation.readSolverStats();
    this.newtonIterations += after.newtonIterations - before.newtonIterations + steps;
    const s = this.newton;
    const iterations = after.newtonIterations - before.newtonIterations;
    s.iterations += iterations;
    s.jacobianEvaluations += iterations;
    s.factorizations += iterations;
    s.linearSolves += after.linearSolves - before.linearSolves;
    s.linearIterations += after.linearIterations - before.linearIterations;
    s.maxLinearIterations = Math.max(s.maxLinearIterations, after.maxLinearIterations);
    s.lastLinearResidual = after.lastResidual;
    s.maxLinearResidual = Math.max(s.maxLinearResidual, after.maxResidual);
    s.unconvergedLinearSolves += after.unconvergedSolves - before.unconvergedSolves;
    s.failedSolves += after.unconvergedSteps - before.unconvergedSteps;
    if (estimator) {
      s.errorEstimatorIterations += iterations;
      s.errorEstimatorJacobianEvaluations += iterations;
      s.errorEstimatorFactorizations += iterations;
    }
    const copy = this.device.createCommandEncoder();
    this.copy(copy, 'fromSimulation', into);
    this.device.queue.submit([copy.finish()]);
    return after.unconvergedSteps === before.unconvergedSteps;
  }

  async attempt(h: number): Promise<AttemptOutcome> {
    if (!(await this.trial(h, 1, 'full', true))) return { kind: 'newton-failed' };
    if (!(await this.trial(h / 2, 2, 'half'))) return { kind: 'newton-failed' };
    const encoder = this.device.createCommandEncoder({ label: 'WebGpuVelocityImplicit.norm' });
    const pass = encoder.beginComputePass();
    this.executor.encode(pass, 'attempt');
    pass.end();
    this.executor.encodeNormReadback(encoder);
    this.device.queue.submit([encoder.finish()]);
    return { kind: 'estimated', error: await this.executor.readNorm(this.options.tolerances.norm) };
  }

  accept(): void {
    const encoder = this.device.createCommandEncoder({ label: 'WebGpuVelocityImplicit.accept' });
    const pass = encoder.beginComputePass();
    this.executor.encode(pass, 'accept');
    pass.end();
    this.device.queue.submit([encoder.finish()]);
  }

  destroy(): void {
    this.simulation.destroy();
    this.executor.destroy();
  }
}
