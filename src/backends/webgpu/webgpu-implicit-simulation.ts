import { WeftInputError } from '../../core/errors.ts';
import { accelerations as cpuAccelerations, springForces as cpuSpringForces } from '../cpu/passes.ts';
import { NO_RHS_TERMS, rhsCoefficients, systemCoefficients } from '../../integrators/implicit-schemes.ts';
import type {
  ImplicitIntegratorName,
  ImplicitOptions,
  ResolvedImplicitOptions,
  SolverStats,
} from '../../integrators/implicit-options.ts';
import { resolveImplicitOptions, resolveStepOptions } from '../../integrators/options.ts';
import type { Model } from '../../model/model.ts';
import type { GpuSimulation, SimulationState } from '../common/simulation-types.ts';
import { requireFiniteState, requireStepCount, stepsTo } from '../common/state-check.ts';
import { withDevice } from './device.ts';
import {
  bindByName,
  bufferFactory,
  dispatchSize,
  pipeline,
  springBytes,
  VEC4_BYTES,
  vec4Bytes,
  readBuffer,
} from './gpu-common.ts';
import { kernels, type KernelName } from './kernels.ts';
import { structBytes } from './layout.ts';
import {
  kernelAccess,
  type ImplicitKernelAccess,
  type SingleKernel,
  type VectorName,
} from './implicit-kernel-access.ts';

export type { ImplicitKernelAccess, SingleKernel, VectorName };
import { checkDeviceFits } from './device-fits.ts';

/** Options of the implicit WebGPU path. */
export interface WebGpuImplicitOptions extends ImplicitOptions {
  integrator: ImplicitIntegratorName;
  dt: number;
  rayleighMass?: number;
  rayleighStiffness?: number;
  device?: GPUDevice;
  /** Threads per workgroup, a power of two (the reductions need it). Default 64. */
  workgroupSize?: number;
  /** Steps encoded into one command buffer. Default 4. */
  stepsPerSubmit?: number;
  /**
   * Convergence checks by readback, for {@link WebGpuImplicitSimulation.advance}: k > 0 (default
   * 8) submits and reads the solver's state back every k linear-solver iterations and after each
   * Newton check, and skips what is no longer needed — fewer dispatches at the price of round
   * trips; 0 encodes every iteration up to maxIterations (finished ones launch no workgroups) and
   * never waits on the GPU — the real-time mode, which `step()` always uses. Both give
   * bit-identical results.
   */
  checkEvery?: number;
}

/** f32 cannot resolve relative residuals much below this (GPU-NOTES.md). */
export const FLOAT32_TOLERANCE_FLOOR = 1e-6;

/**
 * What the scalar kernel (shaders/solver-scalars.wgsl) can be asked to do. The numbers are the
 * WGSL's own `const CG_START: u32 = 0u;` … declarations, read from its source, never copied here.
 */
const SCALAR_MODE_NAMES = [
  'cgStart',
  'cgAlpha',
  'cgBeta',
  'jacobi',
  'solveEnd',
  'backwardEulerCheck',
  'backwardEulerNorms',
  'stepBegin',
  'variationalNorms',
  'variationalCheck',
  'stepEnd',
] as const;
type ScalarMode = (typeof SCALAR_MODE_NAMES)[number];

/** The WGSL value of a scalar mode (cgStart → CG_START). */
export function scalarModeValue(name: ScalarMode): number {
  const wgslName = name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
  const value = kernels().solverScalars.constants.get(wgslName);
  if (value === undefined) throw new Error(`shaders/solver-scalars.wgsl declares no const ${wgslName}`);
  return value;
}

type Dispatch =
  | { kind: 'direct'; pipeline: GPUComputePipeline; bindGroup: GPUBindGroup; threads: number }
  | { kind: 'indirect'; pipeline: GPUComputePipeline; bindGroup: GPUBindGroup; offset: number }
  /** In {@link WebGpuImplicitSimulation.advance} with checkEvery > 0: submit, read the indirect
   * argument at `offset`, and when it is 0 (that loop is done) skip to the next label `until`. */
  | { kind: 'checkpoint'; offset: number; until: string }
  | { kind: 'label'; id: string };

/**
 * The implicit integrators on WebGPU. A step is a fixed list of compute passes — spring Jacobians,
 * right-hand side, diagonal, then `maxIterations` CG iterations of five passes each, then the
 * update — encoded once per step with no readback: CG's α, β and residuals and the Newton criteria
 * live in a GPU buffer (SolverControl), and when a solve or the Newton loop is done the scalar
 * kernel zeroes the indirect dispatch arguments of the passes still encoded after it, so they
 * launch no workgroups. Statistics are read back only by {@link readSolverStats}.
 */
export class WebGpuImplicitSimulation implements GpuSimulation {
  readonly backend = 'webgpu';
  readonly integrator: ImplicitIntegratorName;
  readonly dt: number;
  readonly model: Model;
  readonly description: string;
  readonly device: GPUDevice;
  readonly options: ResolvedImplicitOptions;
  /** Particle positions, vec4<f32> (xyz m, w = 1); STORAGE | VERTEX | COPY_SRC | COPY_DST. */
  readonly positions: GPUBuffer;
  /** Particle velocities, vec4<f32>. */
  readonly velocities: GPUBuffer;
  /** variational-symplectic-implicit momentum, vec4<f32>. */
  readonly momenta: GPUBuffer;
  /** The SolverControl struct (indirect dispatch arguments, CG and Newton scalars, totals). */
  readonly control: GPUBuffer;
  private readonly ownsDevice: boolean;
  private readonly workgroupSize: number;
  private readonly stepsPerSubmit: number;
  private readonly buffers: GPUBuffer[] = [];
  private readonly stateReadback: GPUBuffer;
  private readonly controlReadback: GPUBuffer;
  private readonly stepPasses: Dispatch[];
  private readonly checkEvery: number;
  private readonly stepUniforms: {
    buffer: GPUBuffer;
    struct: string;
    kernel: KernelName;
    values: (h: number) => Record<string, number | readonly number[]>;
  }[] = [];
  private readonly checkReadback: GPUBuffer;
  /** Single kernels bound to this simulation's buffers, run one at a time by {@link ImplicitKernelAccess}. */
  private readonly single: Record<SingleKernel, Dispatch[]>;
  private readonly vectorBuffers: Record<VectorName, GPUBuffer>;
  private readonly springStatesBuffer: GPUBuffer;
  private readonly inverseDiagonalBuffer: GPUBuffer;
  private steps = 0;
  private pendingRead: Promise<unknown> = Promise.resolve();

  static async create(model: Model, options: WebGpuImplicitOptions): Promise<WebGpuImplicitSimulation> {
    resolveStepOptions(options);
    resolveImplicitOptions(options.integrator, options);
    return withDevice(
      options.device,
      (device, owned, name) => new WebGpuImplicitSimulation(model, options, device, owned, name),
    );
  }

  private constructor(
    model: Model,
    options: WebGpuImplicitOptions,
    device: GPUDevice,
    owned: boolean,
    adapterName: string,
  ) {
    const { dt: h, rayleighMass: rm, rayleighStiffness: rk } = resolveStepOptions(options);
    const o = resolveImplicitOptions(options.integrator, options);
    const workgroupSize = options.workgroupSize ?? 64;
    if (
      !Number.isInteger(workgroupSize) ||
      workgroupSize < 2 ||
      (workgroupSize & (workgroupSize - 1)) !== 0
    ) {
      throw new WeftInputError(
        'workgroupSize',
        `must be a power of two ≥ 2 (the reductions need it), got ${workgroupSize}`,
      );
    }
    const checkEvery = options.checkEvery ?? 8;
    if (!Number.isInteger(checkEvery) || checkEvery < 0) {
      throw new WeftInputError('checkEvery', `must be an integer ≥ 0, got ${checkEvery}`);
    }
    this.checkEvery = checkEvery;
    const stepsPerSubmit = options.stepsPerSubmit ?? 4;
    if (!Number.isInteger(stepsPerSubmit) || stepsPerSubmit < 1) {
      throw new WeftInputError('stepsPerSubmit', `must be a positive integer, got ${stepsPerSubmit}`);
    }
    checkDeviceFits(model, device.limits, workgroupSize, true);
    this.model = model;
    this.integrator = options.integrator;
    this.dt = h;
    this.options = o;
    this.device = device;
    this.ownsDevice = owned;
    this.workgroupSize = workgroupSize;
    this.stepsPerSubmit = stepsPerSubmit;
    this.description = `WebGPU: ${adapterName}, ${o.solver}`;

    const n = model.particleCount;
    const layouts = kernels();
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const create = bufferFactory(device, 'WebGpuImplicitSimulation', this.buffers);
    const uniform = (
      label: string,
      struct: string,
      kernel: KernelName,
      values: Record<string, number | readonly number[]>,
    ): GPUBuffer => {
      const data = structBytes(layouts[kernel].structs.get(struct)!, values);
      return create(label, data.byteLength, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, data);
    };
    const vectors = (label: string): GPUBuffer => create(label, n * VEC4_BYTES, storage);

    // State and work vectors (vec4<f32> per particle).
    this.positions = create(
      'positions',
      n * VEC4_BYTES,
      storage | GPUBufferUsage.VERTEX,
      vec4Bytes(model.particlePositions, 1),
    );
    this.velocities = create('velocities', n * VEC4_BYTES, storage, vec4Bytes(model.particleVelocities, 0));
    const initialAccelerations = new Float64Array(3 * n);
    const initialMomenta = new Float64Array(3 * n);
    if (this.integrator === 'newmark') {
      // a₀ = M⁻¹ f(x₀, v₀) (spec/README.md), computed once by the CPU reference.
      const force = new Float64Array(3 * model.springCount);
      cpuSpringForces(model, model.particlePositions, model.particleVelocities, force);
      cpuAccelerations(model, force, model.particleVelocities, 0, initialAccelerations);
    }
    for (let k = 0; k < 3 * n; k++)
      initialMomenta[k] = model.particleMass[Math.floor(k / 3)]! * model.particleVelocities[k]!;
    const accelerations = create(
      'accelerations',
      n * VEC4_BYTES,
      storage,
      vec4Bytes(initialAccelerations, 0),
    );
    this.momenta = create('momenta', n * VEC4_BYTES, storage, vec4Bytes(initialMomenta, 0));
    const startPositions = vectors('startPositions');
    const startVelocities = vectors('startVelocities');
    const rhs = vectors('rhs');
    const solution = vectors('solution');
    const residual = vectors('residual');
    const direction = vectors('direction');
    const product = vectors('product');
    const inverseDiagonal = create('inverseDiagonal', 2 * n * VEC4_BYTES, storage);

    // Model data.
    const springData = springBytes(model);
    const springs = create('springs', springData.byteLength, storage, springData);
    const springStates = create(
      'springStates',
      model.springCount * layouts.springJacobians.bindings.get('springStates')!.stride,
      storage,
    );
    const { offsets, entries } = model.incidence;
    const incidenceData = new Uint32Array(n + 1 + 2 * entries.length);
    incidenceData.set(offsets);
    entries.forEach((entry, e) => {
      incidenceData[n + 1 + 2 * e] = entry;
      incidenceData[n + 2 + 2 * e] = model.springIndices[2 * (entry >> 1) + 1 - (entry & 1)]!;
    });
    const incidence = create('incidence', incidenceData.byteLength, storage, incidenceData.buffer);
    const freeMass = Float32Array.from(model.particleMass, (m, i) => (model.particleFixed[i] ? 0 : m));
    const particleMass = create('particleMass', freeMass.byteLength, storage, freeMass.buffer);

    // Solver scalars and indirect dispatch arguments.
    const [gx, gy] = dispatchSize(n, workgroupSize, device.limits);
    const [sx, sy] = dispatchSize(Math.max(1, model.springCount), workgroupSize, device.limits);
    const particleGroups = [gx, gy, 1, 0];
    const springGroups = [model.springCount > 0 ? sx : 0, sy, 1, 0];
    const partials = create('partials', gx * gy * VEC4_BYTES, storage);
    const controlLayout = layouts.solverScalars.structs.get('SolverControl')!;
    const controlInitial = new ArrayBuffer(controlLayout.size);
    new Uint32Array(controlInitial, controlLayout.members.get('newtonParticleGroups')!.offset, 4).set(
      particleGroups,
    );
    new Uint32Array(controlInitial, controlLayout.members.get('newtonSpringGroups')!.offset, 4).set(
      springGroups,
    );
    this.control = create('control', controlLayout.size, storage | GPUBufferUsage.INDIRECT, controlInitial);
    const groupsOffset = (member: string): number => controlLayout.members.get(member)!.offset;

    // Uniforms whose values depend on the step h, rewritten by setTimeStep().
    const stepDependent = (
      label: string,
      struct: string,
      kernel: KernelName,
      values: (step: number) => Record<string, number | readonly number[]>,
    ): GPUBuffer => {
      const buffer = uniform(label, struct, kernel, values(h));
      this.stepUniforms.push({ buffer, struct, kernel, values });
      return buffer;
    };
    const tolerance = Math.max(o.tolerance, FLOAT32_TOLERANCE_FLOOR);
    const solver = stepDependent('solver', 'SolverParams', 'solverScalars', (h) => {
      const system = systemCoefficients(this.integrator, h, rm, rk, o);
      return {
        massCoefficient: system.mass,
        dampingCoefficient: system.damping,
        stiffnessCoefficient: system.stiffness,
        tolerance2: tolerance * tolerance,
        maxIterations: o.maxIterations,
        preconditioner: o.solver === 'cg' ? 0 : o.preconditioner === 'block' ? 2 : 1,
        exactJacobian: o.jacobian === 'exact' ? 1 : 0,
        newtonIterations: o.newtonIterations,
        correctionTolerance: o.correctionTolerance,
        residualTolerance: o.residualTolerance,
        absoluteTolerance: o.absoluteResidualTolerance,
        newtonError: o.newtonError,
        partialCount: gx * gy,
        h,
        particleGroups,
        springGroups,
      };
    });
    const params = uniform('params', 'SimParams', 'implicitRhs', {
      particleCount: n,
      springCount: model.springCount,
      gravity: model.gravity,
      rayleighMass: 0,
    });
    const coefficients = stepDependent('rhsCoefficients', 'RhsCoefficients', 'implicitRhs', (h) => ({
      ...rhsCoefficients(this.integrator, h, rm, rk, o),
    }));
    const forceOnly = uniform('forceCoefficients', 'RhsCoefficients', 'implicitRhs', {
      ...NO_RHS_TERMS,
      forceScale: 1,
    });
    const scalarStep = Object.fromEntries(
      SCALAR_MODE_NAMES.map((name) => [
        name,
        uniform(`scalar.${name}`, 'ScalarStep', 'solverScalars', { mode: scalarModeValue(name) }),
      ]),
    ) as Record<ScalarMode, GPUBuffer>;

    const all: Record<string, GPUBuffer> = {
      params,
      solver,
      springs,
      springStates,
      incidence,
      particleMass,
      positions: this.positions,
      velocities: this.velocities,
      accelerations,
      startPositions,
      startVelocities,
      momenta: this.momenta,
      rhs,
      solution,
      residual,
      direction,
      product,
      inverseDiagonal,
      partials,
      control: this.control,
      evalPositions: this.positions,
      evalVelocities: this.velocities,
      rhsVelocities: this.velocities,
      rhsAccelerations: accelerations,
      rhsExtra: this.momenta,
      coefficients,
    };
    const bind = (name: KernelName, label: string, extra: Record<string, GPUBuffer> = {}) => {
      const target = pipeline(device, name, workgroupSize);
      return {
        pipeline: target,
        bindGroup: bindByName(device, `WebGpuImplicitSimulation.${label}`, target, layouts[name], {
          ...all,
          ...extra,
        }),
      };
    };
    const direct = (
      name: KernelName,
      label: string,
      threads: number,
      extra?: Record<string, GPUBuffer>,
    ): Dispatch => ({
      kind: 'direct',
      ...bind(name, label, extra),
      threads,
    });
    const indirect = (
      name: KernelName,
      label: string,
      member: string,
      extra?: Record<string, GPUBuffer>,
    ): Dispatch => ({
      kind: 'indirect',
      ...bind(name, label, extra),
      offset: groupsOffset(member),
    });
    const scalars = (mode: ScalarMode): Dispatch =>
      direct('solverScalars', `scalars.${mode}`, 1, { step: scalarStep[mode] });

    const checkpoint = (member: string, until: string): Dispatch => ({
      kind: 'checkpoint',
      offset: groupsOffset(member),
      until,
    });
    // One linear solve of A x = b (b in `rhs`, x in `solution`).
    const solve = (): Dispatch[] => {
      const passes: Dispatch[] = [];
      if (o.solver !== 'cg')
        passes.push(indirect('systemDiagonal', 'systemDiagonal', 'newtonParticleGroups'));
      passes.push(indirect('cgInit', 'cgInit', 'newtonParticleGroups'), scalars('cgStart'));
      const productOfDirection = indirect('systemProduct', 'systemProduct.direction', 'cgGroups', {
        productInput: direction,
      });
      const productOfSolution = indirect('systemProduct', 'systemProduct.solution', 'cgGroups', {
        productInput: solution,
      });
      const cgUpdate = indirect('cgUpdate', 'cgUpdate', 'cgGroups');
      const cgDirection = indirect('cgDirection', 'cgDirection', 'cgGroups');
      const jacobiUpdate = indirect('jacobiUpdate', 'jacobiUpdate', 'cgGroups');
      const [alpha, beta, jacobi] = [scalars('cgAlpha'), scalars('cgBeta'), scalars('jacobi')];
      for (let k = 1; k <= o.maxIterations; k++) {
        if (o.solver === 'jacobi') passes.push(productOfSolution, jacobiUpdate, jacobi);
        else passes.push(productOfDirection, alpha, cgUpdate, beta, cgDirection);
        if (checkEvery > 0 && k % checkEvery === 0 && k < o.maxIterations)
          passes.push(checkpoint('cgGroups', 'solveEnd'));
      }
      passes.push({ kind: 'label', id: 'solveEnd' }, scalars('solveEnd'));
      return passes;
    };
    const jacobians = indirect('springJacobians', 'springJacobians', 'newtonSpringGroups');
    const assemble = indirect('implicitRhs', 'implicitRhs', 'newtonParticleGroups');
    const linearSolve = solve();

    const passes: Dispatch[] = [];
    switch (this.integrator) {
      case 'implicit-euler':
      case 'newmark': {
        const update = stepDependent('implicitUpdate', 'ImplicitUpdate', 'implicitUpdate', (h) => ({
          scheme: this.integrator === 'implicit-euler' ? 0 : 1,
          h,
          gamma: o.newmarkGamma,
          beta: o.newmarkBeta,
        }));
        passes.push(
          jacobians,
          assemble,
          ...linearSolve,
          direct('implicitUpdate', 'implicitUpdate', n, { update }),
          scalars('stepEnd'),
        );
        break;
      }
      case 'backward-euler': {
        const newton = (mode: number) =>
          stepDependent(`newtonUpdate${mode}`, 'NewtonUpdate', 'newtonUpdate', (h) => ({ mode, h }));
        passes.push(
          direct('newtonUpdate', 'newtonUpdate.begin', n, { update: newton(0) }),
          scalars('stepBegin'),
        );
        const iterate = indirect('newtonUpdate', 'newtonUpdate.iterate', 'newtonParticleGroups', {
          update: newton(1),
        });
        for (let i = 0; i <= o.newtonIterations; i++) {
          passes.push(jacobians, assemble);
          // The residual's norm ‖G‖² comes from the solve's start (b·b), before the criteria.
          const [first, ...rest] =
            o.solver === 'cg'
              ? [linearSolve.slice(0, 2), linearSolve.slice(2)]
              : [linearSolve.slice(0, 3), linearSolve.slice(3)];
          passes.push(
            ...first,
            scalars('backwardEulerCheck'),
            checkpoint('newtonParticleGroups', 'newtonEnd'),
          );
          if (i < o.newtonIterations) passes.push(...rest.flat(), iterate, scalars('backwardEulerNorms'));
        }
        passes.push({ kind: 'label', id: 'newtonEnd' }, scalars('stepEnd'));
        break;
      }
      case 'variational-symplectic-implicit': {
        const newton = (mode: number) =>
          stepDependent(`newtonUpdate${mode}`, 'NewtonUpdate', 'newtonUpdate', (h) => ({ mode, h }));
        const finish = (mode: number) =>
          stepDependent(`variationalFinish${mode}`, 'VariationalFinish', 'variationalFinish', (h) => ({
            mode,
            h,
          }));
        passes.push(
          direct('newtonUpdate', 'newtonUpdate.variationalBegin', n, { update: newton(2) }),
          scalars('stepBegin'),
        );
        const iterate = indirect('newtonUpdate', 'newtonUpdate.variationalIterate', 'newtonParticleGroups', {
          update: newton(3),
        });
        for (let i = 0; i < o.newtonIterations; i++) {
          passes.push(
            scalars('variationalCheck'),
            checkpoint('newtonParticleGroups', 'newtonEnd'),
            jacobians,
            assemble,
            ...linearSolve,
            iterate,
            scalars('variationalNorms'),
          );
        }
        passes.push(
          { kind: 'label', id: 'newtonEnd' },
          scalars('variationalCheck'),
          scalars('stepEnd'),
          direct('variationalFinish', 'variationalFinish.midpoint', n, { finish: finish(0) }),
          direct('springJacobians', 'springJacobians.midpoint', model.springCount),
          direct('implicitRhs', 'implicitRhs.force', n, { coefficients: forceOnly }),
          direct('variationalFinish', 'variationalFinish.end', n, { finish: finish(1) }),
        );
        break;
      }
    }
    this.stepPasses = passes;
    this.single = {
      springJacobians: [direct('springJacobians', 'single.springJacobians', model.springCount)],
      implicitRhs: [direct('implicitRhs', 'single.implicitRhs', n)],
      systemDiagonal: [direct('systemDiagonal', 'single.systemDiagonal', n)],
      systemProduct: [direct('systemProduct', 'single.systemProduct', n, { productInput: direction })],
      cgStart: [direct('cgInit', 'single.cgInit', n), scalars('cgStart')],
      solve: linearSolve,
    };
    this.vectorBuffers = {
      positions: this.positions,
      velocities: this.velocities,
      accelerations,
      momenta: this.momenta,
      rhs,
      solution,
      direction,
      product,
      residual,
    };
    this.springStatesBuffer = springStates;
    this.inverseDiagonalBuffer = inverseDiagonal;
    this.stateReadback = create(
      'stateReadback',
      3 * n * VEC4_BYTES,
      GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    );
    this.checkReadback = create('checkReadback', 16, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    this.controlReadback = create(
      'controlReadback',
      controlLayout.size,
      GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    );
    this.kernels = kernelAccess({
      device,
      model,
      vectors: this.vectorBuffers,
      springStates: this.springStatesBuffer,
      inverseDiagonal: this.inverseDiagonalBuffer,
      control: this.control,
      readBuffer: (buffer) => this.readBuffer(buffer),
      run: (kernel, repeats) => {
        const encoder = device.createCommandEncoder({ label: `WebGpuImplicitSimulation.${kernel}` });
        const pass = encoder.beginComputePass();
        for (let r = 0; r < repeats; r++) this.encodeDispatches(pass, this.single[kernel]);
        pass.end();
        device.queue.submit([encoder.finish()]);
        return device.queue.onSubmittedWorkDone();
      },
    });
  }

  get stepCount(): number {
    return this.steps;
  }

  /**
   * Changes the step h of the steps encoded from now on (rewrites the uniforms that depend on it);
   * for adaptive drivers. `dt` keeps the step the simulation was created with.
   */
  setTimeStep(h: number): void {
    if (!Number.isFinite(h) || h <= 0)
      throw new WeftInputError('dt', `must be a finite number > 0, got ${h}`);
    const layouts = kernels();
    for (const { buffer, struct, kernel, values } of this.stepUniforms) {
      this.device.queue.writeBuffer(buffer, 0, structBytes(layouts[kernel].structs.get(struct)!, values(h)));
    }
  }

  /** Dispatches encoded per step (for the curious and for benchmarks). */
  get dispatchesPerStep(): number {
    return this.stepPasses.filter((d) => d.kind === 'direct' || d.kind === 'indirect').length;
  }

  /** Encodes `steps` steps into `encoder` (one compute pass). */
  encode(encoder: GPUCommandEncoder, steps: number): void {
    const pass = encoder.beginComputePass({ label: 'WebGpuImplicitSimulation.step' });
    for (let n = 0; n < steps; n++) this.encodeDispatches(pass, this.stepPasses);
    pass.end();
    this.steps += steps;
  }

  step(steps = 1): void {
    requireStepCount(steps);
    for (let done = 0; done < steps; done += this.stepsPerSubmit) {
      const encoder = this.device.createCommandEncoder({ label: 'WebGpuImplicitSimulation.step' });
      this.encode(encoder, Math.min(this.stepsPerSubmit, steps - done));
      this.device.queue.submit([encoder.finish()]);
    }
  }

  async advanceTo(t: number, onProgress?: (time: number, target: number) => void): Promise<void> {
    const start = this.stepCount;
    return this.advance(stepsTo(t, start, this.dt), (done) => onProgress?.((start + done) * this.dt, t));
  }

  finished(): Promise<void> {
    return this.device.queue.onSubmittedWorkDone();
  }

  /**
   * Takes `steps` steps and resolves when they are done. With checkEvery = 0 this is `step()`
   * then {@link finished}; with checkEvery = k it reads the solver state back at each checkpoint
   * and skips the iterations (and Newton phases) no longer needed.
   */
  async advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    requireStepCount(steps);
    if (this.checkEvery === 0) {
      for (let done = 0; done < steps;) {
        const chunk = Math.min(this.stepsPerSubmit, steps - done);
        this.step(chunk);
        await this.finished();
        done += chunk;
        onProgress?.(done, steps);
      }
      return;
    }
    const list = this.stepPasses;
    for (let n = 0; n < steps; n++) {
      let i = 0;
      while (i < list.length) {
        const encoder = this.device.createCommandEncoder({ label: 'WebGpuImplicitSimulation.advance' });
        const pass = encoder.beginComputePass();
        const start = i;
        while (i < list.length && list[i]!.kind !== 'checkpoint') i++;
        this.encodeDispatches(pass, list.slice(start, i));
        pass.end();
        const check = list[i];
        if (check?.kind === 'checkpoint')
          encoder.copyBufferToBuffer(this.control, check.offset, this.checkReadback, 0, 4);
        this.device.queue.submit([encoder.finish()]);
        i++;
        if (check?.kind !== 'checkpoint') continue;
        const groups = await this.serialized(async () => {
          await this.checkReadback.mapAsync(GPUMapMode.READ);
          const value = new Uint32Array(this.checkReadback.getMappedRange(0, 4))[0]!;
          this.checkReadback.unmap();
          return value;
        });
        if (groups === 0) {
          while (
            i < list.length &&
            !(list[i]!.kind === 'label' && (list[i] as { id: string }).id === check.until)
          )
            i++;
        }
      }
      this.steps++;
      onProgress?.(n + 1, steps);
    }
  }

  private serialized<T>(read: () => Promise<T>): Promise<T> {
    const next = this.pendingRead.then(read);
    this.pendingRead = next.catch(() => undefined);
    return next;
  }

  readState(): Promise<SimulationState> {
    return this.serialized(async () => {
      const n = this.model.particleCount;
      const bytes = n * VEC4_BYTES;
      const encoder = this.device.createCommandEncoder({ label: 'WebGpuImplicitSimulation.readState' });
      encoder.copyBufferToBuffer(this.positions, 0, this.stateReadback, 0, bytes);
      encoder.copyBufferToBuffer(this.velocities, 0, this.stateReadback, bytes, bytes);
      encoder.copyBufferToBuffer(this.momenta, 0, this.stateReadback, 2 * bytes, bytes);
      this.device.queue.submit([encoder.finish()]);
      const step = this.steps;
      await this.stateReadback.mapAsync(GPUMapMode.READ);
      const data = new Float32Array(this.stateReadback.getMappedRange().slice(0));
      this.stateReadback.unmap();
      const unpack = (block: number): Float64Array => {
        const out = new Float64Array(3 * n);
        for (let i = 0; i < n; i++)
          for (let c = 0; c < 3; c++) out[3 * i + c] = data[4 * (block * n + i) + c]!;
        return out;
      };
      return requireFiniteState({
        step,
        time: step * this.dt,
        positions: unpack(0),
        velocities: unpack(1),
        ...(this.integrator === 'variational-symplectic-implicit' ? { momenta: unpack(2) } : {}),
      });
    });
  }

  readSolverStats(): Promise<SolverStats> {
    return this.serialized(async () => {
      const encoder = this.device.createCommandEncoder({ label: 'WebGpuImplicitSimulation.readSolverStats' });
      encoder.copyBufferToBuffer(this.control, 0, this.controlReadback, 0, this.controlReadback.size);
      this.device.queue.submit([encoder.finish()]);
      await this.controlReadback.mapAsync(GPUMapMode.READ);
      const view = new DataView(this.controlReadback.getMappedRange().slice(0));
      this.controlReadback.unmap();
      const layout = kernels().solverScalars.structs.get('SolverControl')!;
      const u32 = (name: string): number => view.getUint32(layout.members.get(name)!.offset, true);
      const f32 = (name: string): number => view.getFloat32(layout.members.get(name)!.offset, true);
      const newton =
        this.integrator === 'backward-euler' || this.integrator === 'variational-symplectic-implicit';
      return {
        steps: u32('steps'),
        linearSolves: u32('linearSolves'),
        linearIterations: u32('linearIterations'),
        maxLinearIterations: u32('maxLinearIterations'),
        lastResidual: f32('lastResidual'),
        maxResidual: f32('maxResidual'),
        unconvergedSolves: u32('unconvergedSolves'),
        newtonIterations: u32('newtonIterations'),
        unconvergedSteps: u32('unconvergedSteps'),
        converged: newton ? u32('lastConverged') === 1 : true,
      };
    });
  }

  /**
   * Runs one kernel (or one whole linear solve) on this simulation's buffers and reads buffers
   * back: for testing each kernel against the CPU reference, and for benchmarks. Not for the
   * real-time path, which never waits on the GPU.
   */
  readonly kernels: ImplicitKernelAccess;

  private encodeDispatches(pass: GPUComputePassEncoder, dispatches: readonly Dispatch[]): void {
    for (const dispatch of dispatches) {
      if (dispatch.kind === 'checkpoint' || dispatch.kind === 'label') continue;
      pass.setPipeline(dispatch.pipeline);
      pass.setBindGroup(0, dispatch.bindGroup);
      if (dispatch.kind === 'indirect') pass.dispatchWorkgroupsIndirect(this.control, dispatch.offset);
      else if (dispatch.threads > 0) {
        const [x, y] = dispatchSize(dispatch.threads, this.workgroupSize, this.device.limits);
        pass.dispatchWorkgroups(x, y);
      }
    }
  }

  /** A whole buffer's contents as f32 (a fresh staging buffer: rare, test-only reads). */
  private readBuffer(buffer: GPUBuffer): Promise<Float32Array> {
    return this.serialized(async () => new Float32Array((await readBuffer(this.device, buffer)).buffer));
  }

  destroy(): void {
    for (const buffer of this.buffers) buffer.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
