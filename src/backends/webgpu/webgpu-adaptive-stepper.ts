/**
 * Velocity-implicit Euler on WebGPU (its CPU mirror: src/backends/cpu/velocity-implicit-euler.ts):
 * each trial step is a backward-Euler Newton solve of WebGpuImplicitSimulation; this file adds
 * the accepted state, copies between the two, and the error-norm kernel (shaders/error-norm.wgsl)
 * whose per-workgroup partials are read back once per attempt. (rk45 and step doubling are
 * programs run by the WebGPU executor: src/backends/webgpu/program-stepper.ts.)
 */
import type { AttemptOutcome, GpuAdaptiveStepper } from '../common/stepper.ts';
import type { ErrorTolerances } from '../cpu/error-norm.ts';
import { emptyNewtonStats, type NewtonStats } from '../../integrators/adaptive-options.ts';
import type { LinearSolverName } from '../../integrators/implicit-options.ts';
import type { Model } from '../../model/model.ts';
import { WebGpuImplicitSimulation } from './webgpu-implicit-simulation.ts';
import {
  bindByName,
  bufferFactory,
  dispatchSize,
  finishNorm,
  pipeline,
  readPair,
  VEC4_BYTES,
  vec4Bytes,
} from './gpu-common.ts';
import { kernels } from './kernels.ts';
import { structBytes } from './layout.ts';
import { checkDeviceFits } from './device-fits.ts';

interface Pair {
  positions: GPUBuffer;
  velocities: GPUBuffer;
}

const WORKGROUP = 64;

/** The accepted state, copies and the error norm of the velocity-implicit stepper. */
class GpuStepperCore {
  readonly current: Pair;
  private readonly buffers: GPUBuffer[] = [];
  private readonly create: ReturnType<typeof bufferFactory>;
  private readonly params: GPUBuffer;
  private readonly particleInvMass: GPUBuffer;
  private readonly partials: GPUBuffer;
  private readonly partialReadback: GPUBuffer;
  private readonly normUniform: GPUBuffer;
  private readonly groups: [number, number];
  private readonly bindGroups = new Map<string, GPUBindGroup>();

  constructor(
    readonly device: GPUDevice,
    readonly model: Model,
    private readonly tolerances: ErrorTolerances,
  ) {
    checkDeviceFits(model, device.limits, WORKGROUP);
    const n = model.particleCount;
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    this.create = bufferFactory(device, 'WebGpuVelocityImplicit', this.buffers);
    this.current = {
      positions: this.create('positions', n * VEC4_BYTES, storage | GPUBufferUsage.VERTEX, vec4Bytes(model.particlePositions, 1)),
      velocities: this.create('velocities', n * VEC4_BYTES, storage, vec4Bytes(model.particleVelocities, 0)),
    };
    this.particleInvMass = this.create('particleInvMass', n * 4, storage, Float32Array.from(model.particleInvMass).buffer);
    const params = { particleCount: n, springCount: model.springCount, gravity: model.gravity, rayleighMass: 0 };
    this.params = this.create('params', 32, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, structBytes(kernels().errorNorm.structs.get('SimParams')!, params));
    this.groups = dispatchSize(n, WORKGROUP, device.limits);
    const partialBytes = this.groups[0] * this.groups[1] * VEC4_BYTES;
    this.partials = this.create('partials', partialBytes, storage);
    this.partialReadback = this.create('partialReadback', partialBytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    this.normUniform = this.create('errorNorm', 32, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
  } // prettier-ignore

  pair(label: string): Pair {
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const bytes = this.model.particleCount * VEC4_BYTES;
    return { positions: this.create(`${label}Positions`, bytes, storage), velocities: this.create(`${label}Velocities`, bytes, storage) };
  } // prettier-ignore

  /** Encodes the error norm of a − b against the current state (shaders/error-norm.wgsl, mode 1) and its readback. */
  norm(encoder: GPUCommandEncoder, a: Pair, aKey: string, b: Pair, bKey: string): void {
    const t = this.tolerances;
    const values = { relative: t.relative, absolutePosition: t.absolutePosition, absoluteVelocity: t.absoluteVelocity, positionWeight: t.positionWeight, velocityWeight: t.velocityWeight, mode: 1 };
    this.device.queue.writeBuffer(this.normUniform, 0, structBytes(kernels().errorNorm.structs.get('ErrorNorm')!, values));
    const target = pipeline(this.device, 'errorNorm', WORKGROUP);
    const key = `${aKey}.${bKey}`;
    let group = this.bindGroups.get(key);
    if (!group) {
      group = bindByName(this.device, `WebGpuVelocityImplicit.errorNorm.${key}`, target, kernels().errorNorm, { params: this.params, norm: this.normUniform, particleInvMass: this.particleInvMass, partials: this.partials, startPositions: this.current.positions, startVelocities: this.current.velocities, aPositions: a.positions, aVelocities: a.velocities, bPositions: b.positions, bVelocities: b.velocities });
      this.bindGroups.set(key, group);
    }
    const pass = encoder.beginComputePass();
    pass.setPipeline(target);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(...this.groups);
    pass.end();
    encoder.copyBufferToBuffer(this.partials, 0, this.partialReadback, 0, this.partials.size);
  } // prettier-ignore

  /** Submits, reads the partials back and finishes the norm as the CPU's errorNorm does. */
  async submitAndReadNorm(encoder: GPUCommandEncoder): Promise<number> {
    this.device.queue.submit([encoder.finish()]);
    await this.partialReadback.mapAsync(GPUMapMode.READ);
    const partials = new Float32Array(this.partialReadback.getMappedRange().slice(0));
    this.partialReadback.unmap();
    return finishNorm(partials, this.model, this.tolerances.norm);
  }

  copyPair(encoder: GPUCommandEncoder, from: Pair, to: Pair): void {
    encoder.copyBufferToBuffer(from.positions, 0, to.positions, 0, from.positions.size);
    encoder.copyBufferToBuffer(from.velocities, 0, to.velocities, 0, from.velocities.size);
  }

  readPair(pair: Pair): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    return readPair(this.device, this.model.particleCount, pair.positions, pair.velocities);
  }

  destroy(): void {
    for (const buffer of this.buffers) buffer.destroy();
  }
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
  private readonly full: Pair;
  private newtonIterations = 0;

  private readonly core: GpuStepperCore;

  private constructor(
    private readonly simulation: WebGpuImplicitSimulation,
    device: GPUDevice,
    model: Model,
    options: GpuVelocityImplicitOptions,
  ) {
    this.core = new GpuStepperCore(device, model, options.tolerances);
    this.full = this.core.pair('full');
  }

  /** The accepted state's positions, vec4<f32> (STORAGE | VERTEX). */
  get positions(): GPUBuffer {
    return this.core.current.positions;
  }

  readCurrent(): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    return this.core.readPair(this.core.current);
  }

  /** Copies `candidate` into the accepted state (on the GPU, no readback). */
  private adopt(candidate: Pair): void {
    const encoder = this.core.device.createCommandEncoder();
    this.core.copyPair(encoder, candidate, this.core.current);
    this.core.device.queue.submit([encoder.finish()]);
  }

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

  private simulationState(): Pair {
    return { positions: this.simulation.positions, velocities: this.simulation.velocities };
  }

  /** Runs `steps` backward-Euler steps of `h` from the accepted state; false if Newton failed. */
  private async trial(h: number, steps: number, into?: Pair, estimator = false): Promise<boolean> {
    const before = await this.simulation.readSolverStats();
    const encoder = this.core.device.createCommandEncoder();
    this.core.copyPair(encoder, this.core.current, this.simulationState());
    this.core.device.queue.submit([encoder.finish()]);
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
    if (into) {
      const copy = this.core.device.createCommandEncoder();
      this.core.copyPair(copy, this.simulationState(), into);
      this.core.device.queue.submit([copy.finish()]);
    }
    return after.unconvergedSteps === before.unconvergedSteps;
  }

  async attempt(h: number): Promise<AttemptOutcome> {
    if (!(await this.trial(h, 1, this.full, true))) return { kind: 'newton-failed' };
    if (!(await this.trial(h / 2, 2))) return { kind: 'newton-failed' };
    const encoder = this.core.device.createCommandEncoder({ label: 'WebGpuVelocityImplicit.norm' });
    this.core.norm(encoder, this.full, 'full', this.simulationState(), 'simulation');
    return { kind: 'estimated', error: await this.core.submitAndReadNorm(encoder) };
  }

  accept(): void {
    this.adopt(this.simulationState());
  }

  destroy(): void {
    this.simulation.destroy();
    this.core.destroy();
  }
}
