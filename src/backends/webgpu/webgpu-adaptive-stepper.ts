/**
 * The adaptive explicit steppers on WebGPU — Cash–Karp RK45 and step doubling of the Runge–Kutta
 * schemes — as the same passes as their CPU mirrors (src/backends/cpu/rk45.ts, step-doubling.ts,
 * stage-passes.ts, error-norm.ts): a(x, v) by the spring and gather kernels, stage states and
 * solutions by one stage-combination kernel, and the error norm by one reduction kernel whose
 * per-workgroup partials are read back once per attempted step (the controller needs the number).
 */
import { WeftInputError } from '../../core/errors.ts';
import type { AttemptOutcome, GpuAdaptiveStepper } from '../common/stepper.ts';

export type { GpuAdaptiveStepper };
import type { ErrorTolerances } from '../cpu/error-norm.ts';
import { emptyNewtonStats, type NewtonStats } from '../../integrators/adaptive-options.ts';
import { RUNGE_KUTTA_TABLEAUX, type ButcherTableau } from '../../integrators/tableaux.ts';
import { STEP_DOUBLING_ORDER, tableauOf, type ExplicitIntegratorName } from '../../integrators/schemes.ts';
import type { LinearSolverName } from '../../integrators/implicit-options.ts';
import { WebGpuImplicitSimulation } from './webgpu-implicit-simulation.ts';
import type { Model } from '../../model/model.ts';
import { bindByName, dispatchSize, pipeline, springBytes, VEC4_BYTES, vec4Bytes } from './gpu-common.ts';
import { kernels, type KernelName } from './kernels.ts';
import { structBytes } from './layout.ts';
import { checkDeviceFits } from './device-fits.ts';

interface Pair {
  positions: GPUBuffer;
  velocities: GPUBuffer;
}

const STAGE_SLOTS = 8;
const WORKGROUP = 64;

/**
 * Buffers and passes shared by both steppers. A "combination slot" is a uniform buffer rewritten
 * before each submission (its h changes from attempt to attempt); each dispatch in one submission
 * has its own slot.
 */
export class GpuStepperCore {
  readonly device: GPUDevice;
  readonly n: number;
  readonly current: Pair;
  readonly buffers: GPUBuffer[] = [];
  private readonly layouts = kernels();
  private readonly params: GPUBuffer;
  private readonly springs: GPUBuffer;
  private readonly springForces: GPUBuffer;
  private readonly incidentOffsets: GPUBuffer;
  private readonly incidentSprings: GPUBuffer;
  private readonly particleInvMass: GPUBuffer;
  readonly stage: Pair;
  readonly accelerations: GPUBuffer;
  /** kx_j and kv_j, eight slots of n vec4 each. */
  readonly stageVelocities: GPUBuffer;
  readonly stageAccelerations: GPUBuffer;
  private readonly partials: GPUBuffer;
  private readonly partialReadback: GPUBuffer;
  private readonly normUniform: GPUBuffer;
  private readonly slots: GPUBuffer[] = [];
  private slotCursor = 0;
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly groups: [number, number];
  private readonly springGroups: [number, number];
  evaluations = 0;

  constructor(
    device: GPUDevice,
    readonly model: Model,
    rayleighMass: number,
    private readonly tolerances: ErrorTolerances,
  ) {
    checkDeviceFits(model, device.limits, WORKGROUP);
    this.device = device;
    const n = (this.n = model.particleCount);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const create = (label: string, bytes: number, usage = storage, data?: ArrayBuffer): GPUBuffer => {
      const buffer = device.createBuffer({
        label: `WebGpuAdaptive.${label}`,
        size: Math.max(16, Math.ceil(bytes / 16) * 16),
        usage,
      });
      if (data) device.queue.writeBuffer(buffer, 0, data);
      this.buffers.push(buffer);
      return buffer;
    };
    this.create = create;
    this.current = {
      positions: create(
        'positions',
        n * VEC4_BYTES,
        storage | GPUBufferUsage.VERTEX,
        vec4Bytes(model.particlePositions, 1),
      ),
      velocities: create('velocities', n * VEC4_BYTES, storage, vec4Bytes(model.particleVelocities, 0)),
    };
    this.stage = this.pair('stage');
    this.accelerations = create('accelerations', n * VEC4_BYTES);
    this.stageVelocities = create('stageVelocities', STAGE_SLOTS * n * VEC4_BYTES);
    this.stageAccelerations = create('stageAccelerations', STAGE_SLOTS * n * VEC4_BYTES);
    const springData = springBytes(model);
    this.springs = create('springs', springData.byteLength, storage, springData);
    this.springForces = create('springForces', model.springCount * VEC4_BYTES);
    this.incidentOffsets = create(
      'incidentOffsets',
      (n + 1) * 4,
      storage,
      model.incidence.offsets.slice().buffer,
    );
    this.incidentSprings = create(
      'incidentSprings',
      model.incidence.entries.length * 4,
      storage,
      model.incidence.entries.slice().buffer,
    );
    this.particleInvMass = create(
      'particleInvMass',
      n * 4,
      storage,
      Float32Array.from(model.particleInvMass).buffer,
    );
    this.params = create(
      'params',
      32,
      GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
      structBytes(this.layouts.springForces.structs.get('SimParams')!, {
        particleCount: n,
        springCount: model.springCount,
        gravity: model.gravity,
        rayleighMass,
      }),
    );
    this.groups = dispatchSize(n, WORKGROUP, device.limits);
    this.springGroups = dispatchSize(Math.max(1, model.springCount), WORKGROUP, device.limits);
    const partialCount = this.groups[0] * this.groups[1];
    this.partials = create('partials', partialCount * VEC4_BYTES);
    this.partialReadback = create(
      'partialReadback',
      partialCount * VEC4_BYTES,
      GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    );
    this.normUniform = create('errorNorm', 32, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
  }

  private readonly create: (
    label: string,
    bytes: number,
    usage?: GPUBufferUsageFlags,
    data?: ArrayBuffer,
  ) => GPUBuffer;

  pair(label: string): Pair {
    return {
      positions: this.create(`${label}Positions`, this.n * VEC4_BYTES),
      velocities: this.create(`${label}Velocities`, this.n * VEC4_BYTES),
    };
  }

  private bind(
    kernel: KernelName,
    key: string,
    buffers: Record<string, GPUBuffer>,
  ): { target: GPUComputePipeline; group: GPUBindGroup } {
    const target = pipeline(this.device, kernel, WORKGROUP);
    let group = this.bindGroups.get(key);
    if (!group) {
      group = bindByName(this.device, `WebGpuAdaptive.${key}`, target, this.layouts[kernel], {
        params: this.params,
        springs: this.springs,
        springForces: this.springForces,
        incidentOffsets: this.incidentOffsets,
        incidentSprings: this.incidentSprings,
        particleInvMass: this.particleInvMass,
        accelerations: this.accelerations,
        partials: this.partials,
        norm: this.normUniform,
        stageVelocities: this.stageVelocities,
        stageAccelerations: this.stageAccelerations,
        ...buffers,
      });
      this.bindGroups.set(key, group);
    }
    return { target, group };
  }

  private dispatch(
    pass: GPUComputePassEncoder,
    kernel: KernelName,
    key: string,
    buffers: Record<string, GPUBuffer>,
    springs = false,
  ): void {
    const { target, group } = this.bind(kernel, key, buffers);
    pass.setPipeline(target);
    pass.setBindGroup(0, group);
    const [x, y] = springs ? this.springGroups : this.groups;
    pass.dispatchWorkgroups(x, y);
  }

  /** Combination slots are reused from the first (call once per submission). */
  resetSlots(): void {
    this.slotCursor = 0;
  }

  /** Starts a submission's worth of work: combination slots are reused from the first. */
  begin(): GPUCommandEncoder {
    this.slotCursor = 0;
    return this.device.createCommandEncoder({ label: 'WebGpuAdaptive.attempt' });
  }

  /** a(x, v) of `at` into `accelerations`, then stored as derivative `slot` (kx = v, kv = a). */
  evaluate(encoder: GPUCommandEncoder, at: Pair, atKey: string, slot: number): void {
    const pass = encoder.beginComputePass();
    if (this.model.springCount > 0) {
      this.dispatch(
        pass,
        'springForces',
        `springForces.${atKey}`,
        { evalPositions: at.positions, evalVelocities: at.velocities },
        true,
      );
    }
    this.dispatch(pass, 'accelerations', `accelerations.${atKey}`, { evalVelocities: at.velocities });
    pass.end();
    const bytes = this.n * VEC4_BYTES;
    encoder.copyBufferToBuffer(at.velocities, 0, this.stageVelocities, slot * bytes, bytes);
    encoder.copyBufferToBuffer(this.accelerations, 0, this.stageAccelerations, slot * bytes, bytes);
    this.evaluations++;
  }

  /** out = base + h Σ c_j k_j (base null: out = h Σ c_j k_j). */
  combine(
    encoder: GPUCommandEncoder,
    h: number,
    coefficients: readonly number[],
    base: Pair | null,
    baseKey: string,
    out: Pair,
    outKey: string,
  ): void {
    if (this.slotCursor === this.slots.length) {
      this.slots.push(
        this.create(`combination${this.slots.length}`, 48, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST),
      );
    }
    const slot = this.slotCursor++;
    if (coefficients.length > STAGE_SLOTS)
      throw new Error(`at most ${STAGE_SLOTS} derivatives per combination`);
    const c = [...coefficients, 0, 0, 0, 0, 0, 0, 0, 0].slice(0, 8);
    this.device.queue.writeBuffer(
      this.slots[slot]!,
      0,
      structBytes(this.layouts.stageCombination.structs.get('Combination')!, {
        coefficients0: c.slice(0, 4),
        coefficients1: c.slice(4, 8),
        h,
        hasBase: base ? 1 : 0,
        stages: coefficients.length,
      }),
    );
    const pass = encoder.beginComputePass();
    const from = base ?? this.current; // unused when hasBase = 0, but a binding is required
    this.dispatch(pass, 'stageCombination', `combine.${slot}.${baseKey}.${outKey}`, {
      combination: this.slots[slot]!,
      basePositions: from.positions,
      baseVelocities: from.velocities,
      outPositions: out.positions,
      outVelocities: out.velocities,
    });
    pass.end();
  }

  /** Encodes the error norm of (a, b) against the current state and its readback. */
  norm(encoder: GPUCommandEncoder, mode: 0 | 1, a: Pair, aKey: string, b: Pair, bKey: string): void {
    const t = this.tolerances;
    this.device.queue.writeBuffer(
      this.normUniform,
      0,
      structBytes(this.layouts.errorNorm.structs.get('ErrorNorm')!, {
        relative: t.relative,
        absolutePosition: t.absolutePosition,
        absoluteVelocity: t.absoluteVelocity,
        positionWeight: t.positionWeight,
        velocityWeight: t.velocityWeight,
        mode,
      }),
    );
    const pass = encoder.beginComputePass();
    this.dispatch(pass, 'errorNorm', `errorNorm.${aKey}.${bKey}`, {
      startPositions: this.current.positions,
      startVelocities: this.current.velocities,
      aPositions: a.positions,
      aVelocities: a.velocities,
      bPositions: b.positions,
      bVelocities: b.velocities,
    });
    pass.end();
    encoder.copyBufferToBuffer(this.partials, 0, this.partialReadback, 0, this.partials.size);
  }

  /** Submits, reads the partials back and finishes the norm as the CPU's errorNorm does. */
  async submitAndReadNorm(encoder: GPUCommandEncoder): Promise<number> {
    this.device.queue.submit([encoder.finish()]);
    await this.partialReadback.mapAsync(GPUMapMode.READ);
    const partials = new Float32Array(this.partialReadback.getMappedRange().slice(0));
    this.partialReadback.unmap();
    let sum = 0;
    let max = 0;
    for (let k = 0; k < partials.length; k += 4) {
      if (partials[k + 2]! > 0) return NaN;
      sum += partials[k]!;
      max = Math.max(max, partials[k + 1]!);
    }
    let free = 0;
    for (let i = 0; i < this.n; i++) if (this.model.particleInvMass[i]! > 0) free++;
    if (free === 0) return 0;
    return this.tolerances.norm === 'rms' ? Math.sqrt(sum / (6 * free)) : max;
  }

  /** Saves derivative 0 aside (a buffer cannot be copied onto itself), or restores it. */
  saveFirstDerivative(encoder: GPUCommandEncoder, restore: boolean): void {
    const bytes = this.n * VEC4_BYTES;
    this.saved ??= this.pair('savedDerivative');
    const [velocity, acceleration] = [this.saved.positions, this.saved.velocities];
    if (restore) {
      encoder.copyBufferToBuffer(velocity, 0, this.stageVelocities, 0, bytes);
      encoder.copyBufferToBuffer(acceleration, 0, this.stageAccelerations, 0, bytes);
    } else {
      encoder.copyBufferToBuffer(this.stageVelocities, 0, velocity, 0, bytes);
      encoder.copyBufferToBuffer(this.stageAccelerations, 0, acceleration, 0, bytes);
    }
  }
  private saved: Pair | undefined;

  copyPair(encoder: GPUCommandEncoder, from: Pair, to: Pair): void {
    encoder.copyBufferToBuffer(from.positions, 0, to.positions, 0, from.positions.size);
    encoder.copyBufferToBuffer(from.velocities, 0, to.velocities, 0, from.velocities.size);
  }

  async readPair(pair: Pair): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    const bytes = this.n * VEC4_BYTES;
    const staging = this.device.createBuffer({
      size: 2 * bytes,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const encoder = this.device.createCommandEncoder();
    encoder.copyBufferToBuffer(pair.positions, 0, staging, 0, bytes);
    encoder.copyBufferToBuffer(pair.velocities, 0, staging, bytes, bytes);
    this.device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const data = new Float32Array(staging.getMappedRange().slice(0));
    staging.destroy();
    const positions = new Float64Array(3 * this.n);
    const velocities = new Float64Array(3 * this.n);
    for (let i = 0; i < this.n; i++) {
      for (let c = 0; c < 3; c++) {
        positions[3 * i + c] = data[4 * i + c]!;
        velocities[3 * i + c] = data[4 * (this.n + i) + c]!;
      }
    }
    return { positions, velocities };
  }

  /** One explicit Runge–Kutta step of the tableau from `from` (derivative 0 already stored) into `to`. */
  /**
   * One explicit Runge–Kutta step of the tableau from `from` into `to`; stage j's derivative lives
   * in slot `slots[j]` (stage 0's must already be there).
   */
  tableauStep(
    encoder: GPUCommandEncoder,
    tableau: ButcherTableau,
    h: number,
    from: Pair,
    fromKey: string,
    to: Pair,
    toKey: string,
    slots: readonly number[] = [0, 1, 2, 3, 4, 5],
  ): void {
    for (let i = 1; i < tableau.b.length; i++) {
      this.combine(encoder, h, placeWeights(tableau.a[i]!, slots), from, fromKey, this.stage, 'stage');
      this.evaluate(encoder, this.stage, 'stage', slots[i]!);
    }
    this.combine(encoder, h, placeWeights(tableau.b, slots), from, fromKey, to, toKey);
  }

  destroy(): void {
    for (const buffer of this.buffers) buffer.destroy();
  }
}

/** Coefficients per derivative slot: weight j goes to slot `slots[j]`. */
export function placeWeights(weights: readonly number[], slots: readonly number[]): number[] {
  const out: number[] = [];
  weights.forEach((w, j) => {
    const slot = slots[j]!;
    while (out.length <= slot) out.push(0);
    out[slot] = (out[slot] ?? 0) + w;
  });
  return out;
}

const CASH_KARP = RUNGE_KUTTA_TABLEAUX['cash-karp'];
const ERROR_WEIGHTS = CASH_KARP.b.map((b, j) => b - CASH_KARP.bEmbedded[j]!);

/**
 * What the GPU steppers share: the core's accepted state (drawn from, read back, destroyed with
 * it) and adopting a candidate as the new accepted state.
 */
abstract class CoreStepper implements GpuAdaptiveStepper {
  abstract readonly estimateOrder: number;

  protected constructor(protected readonly core: GpuStepperCore) {}

  get positions(): GPUBuffer {
    return this.core.current.positions;
  }

  get derivativeEvaluations(): number {
    return this.core.evaluations;
  }

  abstract attempt(h: number): Promise<AttemptOutcome>;
  abstract accept(): void;

  /** Copies `candidate` into the accepted state (on the GPU, no readback). */
  protected adopt(candidate: Pair): void {
    const encoder = this.core.device.createCommandEncoder();
    this.core.copyPair(encoder, candidate, this.core.current);
    this.core.device.queue.submit([encoder.finish()]);
  }

  readCurrent(): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    return this.core.readPair(this.core.current);
  }

  destroy(): void {
    this.core.destroy();
  }
}

/** Cash–Karp RK45 on the GPU (CPU mirror: src/backends/cpu/rk45.ts CashKarpStepper). */
export class WebGpuCashKarpStepper extends CoreStepper {
  readonly estimateOrder = 5;
  private readonly candidate: Pair;
  private readonly error: Pair;
  /** Derivative 0 belongs to the current state until the next accept. */
  private firstStageValid = false;

  constructor(device: GPUDevice, model: Model, rayleighMass: number, tolerances: ErrorTolerances) {
    super(new GpuStepperCore(device, model, rayleighMass, tolerances));
    this.candidate = this.core.pair('candidate');
    this.error = this.core.pair('error');
  }

  async attempt(h: number): Promise<AttemptOutcome> {
    const core = this.core;
    const encoder = core.begin();
    if (!this.firstStageValid) {
      core.evaluate(encoder, core.current, 'current', 0);
      this.firstStageValid = true;
    }
    core.tableauStep(encoder, CASH_KARP, h, core.current, 'current', this.candidate, 'candidate');
    core.combine(encoder, h, ERROR_WEIGHTS, null, 'none', this.error, 'error');
    core.norm(encoder, 0, this.error, 'error', this.candidate, 'candidate');
    return { kind: 'estimated', error: await core.submitAndReadNorm(encoder) };
  }

  accept(): void {
    this.adopt(this.candidate);
    this.firstStageValid = false;
  }
}

/**
 * Step doubling of a Runge–Kutta scheme on the GPU (CPU mirror: src/backends/cpu/step-doubling.ts):
 * y₁ from one step h, y½ from two steps h/2, error norm of y₁ − y½, y½ (or its Richardson
 * extrapolation) propagated. The symplectic schemes are doubled on the CPU only.
 */
export class WebGpuStepDoublingStepper extends CoreStepper {
  readonly estimateOrder: number;
  readonly order: number;
  private readonly tableau: ButcherTableau;
  private readonly full: Pair;
  private readonly middle: Pair;
  private readonly half: Pair;
  private startValid = false;

  constructor(
    device: GPUDevice,
    model: Model,
    scheme: ExplicitIntegratorName,
    rayleighMass: number,
    tolerances: ErrorTolerances,
    extrapolate: boolean,
  ) {
    const tableau = tableauOf(scheme);
    if (!tableau) {
      throw new WeftInputError('scheme', `step doubling of '${scheme}' runs on the CPU only`);
    }
    if (extrapolate)
      throw new WeftInputError(
        'extrapolate',
        'Richardson extrapolation of step doubling runs on the CPU only',
      );
    super(new GpuStepperCore(device, model, rayleighMass, tolerances));
    this.tableau = tableau;
    this.order = STEP_DOUBLING_ORDER[scheme];
    this.estimateOrder = this.order + 1;
    this.full = this.core.pair('full');
    this.middle = this.core.pair('middle');
    this.half = this.core.pair('half');
  }

  async attempt(h: number): Promise<AttemptOutcome> {
    const core = this.core;
    const encoder = core.begin();
    // a(y_n) is evaluated once per accepted state and shared by the full and the first half step
    // (as on the CPU): saved aside while slot 0 serves the middle state.
    if (this.startValid) core.saveFirstDerivative(encoder, true);
    else {
      core.evaluate(encoder, core.current, 'current', 0);
      core.saveFirstDerivative(encoder, false);
      this.startValid = true;
    }
    core.tableauStep(encoder, this.tableau, h, core.current, 'current', this.full, 'full');
    core.tableauStep(encoder, this.tableau, h / 2, core.current, 'current', this.middle, 'middle');
    core.evaluate(encoder, this.middle, 'middle', 0);
    core.tableauStep(encoder, this.tableau, h / 2, this.middle, 'middle', this.half, 'half');
    core.norm(encoder, 1, this.full, 'full', this.half, 'half');
    return { kind: 'estimated', error: await core.submitAndReadNorm(encoder) };
  }

  accept(): void {
    this.adopt(this.half);
    this.startValid = false;
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
export class WebGpuVelocityImplicitStepper extends CoreStepper {
  readonly estimateOrder = 2;
  /**
   * Newton and linear-solver statistics in the CPU stepper's shape. Matrix-free with a fresh
   * Jacobian each iteration: jacobianEvaluations = factorizations = iterations.
   */
  readonly newton: NewtonStats = emptyNewtonStats();
  private readonly full: Pair;
  private newtonIterations = 0;

  private constructor(
    private readonly simulation: WebGpuImplicitSimulation,
    device: GPUDevice,
    model: Model,
    options: GpuVelocityImplicitOptions,
  ) {
    super(new GpuStepperCore(device, model, options.rayleighMass, options.tolerances));
    this.full = this.core.pair('full');
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
  override get derivativeEvaluations(): number {
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
    const encoder = this.core.begin();
    this.core.norm(encoder, 1, this.full, 'full', this.simulationState(), 'simulation');
    return { kind: 'estimated', error: await this.core.submitAndReadNorm(encoder) };
  }

  accept(): void {
    this.adopt(this.simulationState());
  }

  override destroy(): void {
    this.simulation.destroy();
    super.destroy();
  }
}
