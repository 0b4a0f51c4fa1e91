/**
 * Adaptive integration of a small system on WebGPU with the step-size controller on the GPU
 * (issue 10: the GPU never waits on the CPU inside a step): shaders/fused-adaptive.wgsl runs many
 * attempted steps — the program's ops, the error norm, the accept/reject decision, the next step —
 * per dispatch of one workgroup, several dispatches per submission, and the host reads the
 * controller's state and statistics back once per submission. A step that fails at the minimum
 * step halts the batch on the GPU (the state stays at the last accepted step) and is reported here.
 * The program runs in its generated form (its ops called in sequence: fused-blocks.ts; a pipeline
 * per program shape) or interpreted (fused-interpreter.wgsl; one pipeline for every program).
 */
import { WeftStepSizeError } from '../../core/errors.ts';
import type { Model } from '../../model/model.ts';
import type { Program } from '../../integrators/program.ts';
import type {
  AdaptiveStats,
  NewtonStats,
  ResolvedAdaptiveOptions,
} from '../../integrators/adaptive-options.ts';
import { emptyNewtonStats } from '../../integrators/adaptive-options.ts';
import { checkDeviceFits } from './device-fits.ts';
import { compileFused, FusedUnsupported, type FusedCode } from './fused-program.ts';
import { FLOAT32_TOLERANCE_FLOOR } from './implicit-ops.ts';
import { arenaStride, bindByName, bufferFactory, cachedPipeline, groupThreadsFor, incidenceWithOthers, mappedCopy, readPair, springBytes, VEC4_BYTES, vec4Bytes } from './gpu-common.ts'; // prettier-ignore
import { idleBeforeMap } from './host-wait.ts';
import { fusedProgramKernel, kernels } from './kernels.ts';
import { structBytes, type StructLayout } from './layout.ts';

/** The most particles the fused kernel takes by default: one workgroup does all the work. */
export const FUSED_MAX_PARTICLES = 1024;
/** Dispatches per submission (the controller's state is read back once per submission). */
const DISPATCHES_PER_SUBMIT = 8;

/** The statistics the GPU keeps (AdaptiveStats without what the driver adds). */
export type FusedStats = Omit<AdaptiveStats, 'derivativeEvaluations' | 'newton'> & {
  time: number;
  attempts: number;
  evaluations: number;
  newton: NewtonStats;
};

/**
 * How the fused kernel runs a program: 'generated', its ops called in sequence (a pipeline per
 * program shape; on SwiftShader an op costs only its own body), or 'interpreted' from a word
 * stream (one pipeline for every program; on SwiftShader each op costs the bodies of all).
 */
export type FusedForm = 'generated' | 'interpreted';

const STATUS = ['running', 'done', 'newton-failed', 'non-finite', 'accuracy'] as const;

export class FusedAdaptiveStepper {
  readonly estimateOrder: number;
  readonly positions: GPUBuffer;
  private readonly velocities: GPUBuffer;
  private readonly buffers: GPUBuffer[] = [];
  private readonly control: GPUBuffer;
  /** Two readbacks of the control state: a batch queued behind another reads back to the other. */
  private readonly readbacks: [GPUBuffer, GPUBuffer];
  private readonly layout: StructLayout;
  private readonly pipeline: GPUComputePipeline;
  private readonly bindGroup: GPUBindGroup;
  /** The statistics as of the last readback. */
  stats: FusedStats;
  /** Submissions so far: one readback each. */
  submissions = 0;
  /** Attempted steps one dispatch runs at most (fewer when the batch ends). */
  readonly attemptsPerDispatch: number;
  /** Dispatches per submission. */
  readonly dispatchesPerSubmit = DISPATCHES_PER_SUBMIT;
  /** Wall ms per attempt of the last full submission (0: none yet), to idle while the next runs. */
  private msPerAttempt = 0;

  /** Throws FusedUnsupported (fused-program.ts) when the program has no fused form. */
  constructor(
    private readonly device: GPUDevice,
    private readonly model: Model,
    program: Program,
    private readonly o: ResolvedAdaptiveOptions,
    readonly form: FusedForm = 'generated',
  ) {
    // The kernel's eval is the springs' and gravity's alone: a model's hinges (dihedral bending)
    // would be left out of its steps without a word.
    if (model.bending) throw new FusedUnsupported('the model bends (the kernel has no hinge passes)');
    const code = compileFused(program);
    // A power of two (the reductions' tree), no more threads than particles need but at least a
    // SIMD group of 4 (fewer idle no lanes; on a CPU adapter, where the group is 4, every model
    // then shares one pipeline per arena stride).
    const threads = Math.min(
      groupThreadsFor(device, 64),
      Math.max(4, 2 ** Math.floor(Math.log2(Math.max(1, model.particleCount)))),
    );
    checkDeviceFits(model, device.limits, threads, Boolean(program.implicit));
    this.estimateOrder = program.adaptive!.estimateOrder;
    const layouts = kernels().fusedAdaptive;
    this.layout = layouts.structs.get('FusedControl')!;
    const n = model.particleCount;
    const create = bufferFactory(device, 'FusedAdaptiveStepper', this.buffers);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const uniform = GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST;
    const stride = arenaStride(n);
    this.positions = create('positions', n * VEC4_BYTES, storage | GPUBufferUsage.VERTEX, vec4Bytes(model.particlePositions, 1)); // prettier-ignore
    this.velocities = create('velocities', n * VEC4_BYTES, storage, vec4Bytes(model.particleVelocities, 0));
    this.control = create('control', this.layout.size, storage, this.initialControl());
    const readback = (): GPUBuffer => create('readback', this.layout.size, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST); // prettier-ignore
    this.readbacks = [readback(), readback()];
    const params = structBytes(layouts.structs.get('SimParams')!, { particleCount: n, springCount: model.springCount, gravity: model.gravity, rayleighMass: 0 }); // prettier-ignore
    // About 4,096 particle-attempts per dispatch: short dispatches on large models (a GPU watchdog).
    const attemptsPerDispatch = Math.max(1, Math.min(64, Math.floor(4096 / Math.max(n, 1))));
    this.attemptsPerDispatch = attemptsPerDispatch;
    const buffers = {
      params: create('params', 32, uniform, params),
      positions: this.positions,
      velocities: this.velocities,
      arena: create('arena', Math.max(1, code.slots.size) * stride * VEC4_BYTES, storage),
      settings: create('settings', layouts.structs.get('FusedSettings')!.size, uniform, this.settings(code, attemptsPerDispatch, program)), // prettier-ignore
      ...(form === 'interpreted' ? { code: create('code', code.words.byteLength, uniform, code.words.slice().buffer) } : {}), // prettier-ignore
      coefficients: create('coefficients', code.coefficients.byteLength, uniform, code.coefficients.slice().buffer), // prettier-ignore
      control: this.control,
      springs: create('springs', springBytes(model).byteLength, storage, springBytes(model)),
      incidence: create(
        'incidence',
        4 * (n + 1 + 2 * model.incidence.entries.length),
        storage,
        incidenceWithOthers(model),
      ),
      particleMasses: create('particleMasses', 8 * n, storage, Float32Array.from({ length: 2 * n }, (_, k) => k % 2 === 0 ? (model.particleFixed[k >> 1] ? 0 : model.particleMass[k >> 1]!) : model.particleInvMass[k >> 1]!).buffer), // prettier-ignore
      // P⁻¹ per particle, then a spring state per incidence entry (fused-common.wgsl `work`).
      work: create('work', (2 * n + 2 * model.incidence.entries.length) * VEC4_BYTES, storage),
    };
    // The generated kernel is cached by its text (programs of one shape share it); both forms'
    // pipelines are labelled Weft.fusedAdaptive.
    const kernel = form === 'generated' ? fusedProgramKernel(code.blocks) : layouts;
    const name = form === 'generated' ? `fusedAdaptive\n${code.blocks}` : 'fusedAdaptive';
    // The step-size controller is a constant (fused-common.wgsl drakeControl).
    const constants = { arenaStride: stride, drakeControl: o.errorControl === 'drake' ? 1 : 0 };
    this.pipeline = cachedPipeline(device, name, kernel, threads, constants, 'fusedAdaptive');
    this.bindGroup = bindByName(device, 'FusedAdaptiveStepper', this.pipeline, kernel, buffers);
    this.stats = this.parse(new DataView(this.initialControl()));
  }

  /** FusedSettings: the program's entry points and the controller's and solver's options. */
  private settings(code: FusedCode, attemptsPerDispatch: number, program: Program): ArrayBuffer {
    const o = this.o;
    const implicit = program.implicit;
    const tolerance = Math.max(implicit?.tolerance ?? 0, FLOAT32_TOLERANCE_FLOOR);
    return structBytes(kernels().fusedAdaptive.structs.get('FusedSettings')!, {
      firstPc: code.firstPc,
      attemptPc: code.attemptPc,
      acceptPc: code.acceptPc,
      attemptsPerDispatch,
      maxNorm: o.tolerances.norm === 'max' ? 1 : 0,
      onMinStepThrow: o.onMinStep === 'throw' ? 1 : 0,
      freeParticles: this.model.particleInvMass.filter((w) => w > 0).length,
      estimateOrder: this.estimateOrder,
      safetyFactor: o.safetyFactor,
      growthLimit: o.growthLimit,
      shrinkLimit: o.shrinkLimit,
      minStep: o.minStep,
      maxStep: o.maxStep,
      newtonFailureShrink: o.newtonFailureShrink,
      tolerance2: tolerance * tolerance,
      maxIterations: implicit?.maxIterations ?? 0,
      // The solve's modes and CG's vectors (r, p, q = A p, z = P⁻¹ r), which the generated blocks
      // pass as literals and the interpreter reads here.
      preconditioner: code.modes.preconditioner,
      exactJacobian: code.modes.exactJacobian ? 1 : 0,
      warmStart: code.modes.warmStart ? 1 : 0,
      cgResidual: code.modes.cg[0],
      cgDirection: code.modes.cg[1],
      cgProduct: code.modes.cg[2],
      cgPreconditioned: code.modes.cg[3],
      newtonIterations: implicit?.newtonIterations ?? 0,
      correctionTolerance: implicit?.correctionTolerance ?? 0,
      residualTolerance: implicit?.residualTolerance ?? 0,
      absoluteTolerance: implicit?.absoluteResidualTolerance ?? 0,
    });
  }

  /** Time 0, no proposal yet, statistics zero, status DONE (nothing runs before a request). */
  private initialControl(): ArrayBuffer {
    const values: Record<string, number> = {};
    for (const name of this.layout.members.keys()) values[name] = 0;
    Object.assign(values, { proposal: NaN, smallestStep: Infinity, status: 1 });
    return structBytes(this.layout, values);
  }

  /**
   * Runs batches until `target` (s; null: none) is reached or `steps` more steps are accepted
   * (0: no count), reporting the time after each readback; `proposal` (s) sets the controller's
   * next step first (the first step). Throws WeftStepSizeError when a step fails at the minimum
   * step (the state stays at the last accepted step).
   */
  async advance(
    target: number | null,
    steps: number,
    proposal?: number,
    onBatch?: (time: number) => void,
  ): Promise<void> {
    const hi = Math.fround(target ?? 0);
    const request = new ArrayBuffer(20);
    const view = new DataView(request);
    const offset = (name: string): number => this.layout.members.get(name)!.offset;
    view.setFloat32(offset('targetHi'), hi, true);
    view.setFloat32(offset('targetLo'), target === null ? 0 : target - hi, true);
    view.setUint32(offset('bounded'), target === null ? 0 : 1, true);
    view.setUint32(offset('stepsLeft'), steps, true);
    view.setUint32(offset('status'), 0, true);
    if (offset('status') !== 16) throw new Error('FusedControl: the request is not its first five members');
    this.device.queue.writeBuffer(this.control, 0, request);
    if (proposal !== undefined)
      this.device.queue.writeBuffer(this.control, offset('proposal'), new Float32Array([proposal]));
    const acceptedBefore = this.stats.acceptedSteps;
    let batch = this.submit(0);
    for (;;) {
      const stepsLeft = steps - (this.stats.acceptedSteps - acceptedBefore);
      const expected = this.expectedAttempts(target, stepsLeft);
      // While more than this batch's attempts remain, the next is queued behind it: the GPU goes on
      // while the host waits for, maps and reads this one's readback (on a CPU adapter a timer, a
      // map and a poll, which the GPU otherwise waited out each batch).
      const queued = this.stepsBeyond(target, stepsLeft) ? this.submit(1 - batch.slot) : null;
      // (The batch started when it was submitted or when the one before it was read back. With
      // another queued, a late map costs the GPU nothing: the host idles for all of it.)
      const expectedMs = this.msPerAttempt * expected - (performance.now() - batch.started);
      await idleBeforeMap(expectedMs, queued ? 1 : 0.75);
      const data = await this.read(batch.slot);
      const attempts = this.stats.attempts;
      this.stats = this.parse(data);
      const read = performance.now();
      if (this.stats.attempts - attempts === this.attemptsPerDispatch * DISPATCHES_PER_SUBMIT)
        this.msPerAttempt = (read - batch.started) / (this.stats.attempts - attempts);
      const status = STATUS[data.getUint32(offset('status'), true)] ?? 'running';
      onBatch?.(this.stats.time);
      if (status === 'running') {
        batch = queued ? { ...queued, started: Math.max(queued.started, read) } : this.submit(batch.slot);
        continue;
      }
      // The batch queued behind found the batch over and ran no attempt.
      if (queued) await this.read(queued.slot);
      if (status === 'done') return;
      throw new WeftStepSizeError(this.stats.time, data.getFloat32(offset('haltStep'), true), status);
    }
  }

  /** Submits a batch of dispatches and the copy of the control state to readback `slot`. */
  private submit(slot: number): { slot: number; started: number } {
    const encoder = this.device.createCommandEncoder({ label: 'FusedAdaptiveStepper.advance' });
    const pass = encoder.beginComputePass();
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    for (let k = 0; k < DISPATCHES_PER_SUBMIT; k++) pass.dispatchWorkgroups(1);
    pass.end();
    encoder.copyBufferToBuffer(this.control, 0, this.readbacks[slot]!, 0, this.layout.size);
    this.device.queue.submit([encoder.finish()]);
    this.submissions++;
    return { slot, started: performance.now() };
  }

  private async read(slot: number): Promise<DataView> {
    return new DataView(await mappedCopy(this.readbacks[slot]!));
  }

  /** Whether more steps are left than one batch runs (unknown before the first readback: yes). */
  private stepsBeyond(target: number | null, stepsLeft: number): boolean {
    const s = this.stats;
    const left = target === null ? stepsLeft : Math.ceil((target - s.time) / s.nextStep);
    return !(left <= this.attemptsPerDispatch * DISPATCHES_PER_SUBMIT);
  }

  /**
   * The attempts the next submission should run: all it can, or about as many as the steps left
   * (`stepsLeft` accepted steps still asked for, or the time to the target over the next step).
   */
  private expectedAttempts(target: number | null, stepsLeft: number): number {
    const most = this.attemptsPerDispatch * DISPATCHES_PER_SUBMIT;
    const s = this.stats;
    const left = target === null ? stepsLeft : Math.ceil((target - s.time) / s.nextStep);
    return left > 0 && left < most ? left : most;
  }

  private parse(view: DataView): FusedStats {
    const member = (name: string): { offset: number; type: string } => this.layout.members.get(name)!;
    const get = (name: string): number => {
      const { offset, type } = member(name);
      return type === 'f32' ? view.getFloat32(offset, true) : view.getUint32(offset, true);
    };
    const iterations = get('newtonIterations');
    const estimator = get('estimatorIterations');
    const newton: NewtonStats = {
      ...emptyNewtonStats(),
      iterations,
      jacobianEvaluations: iterations,
      factorizations: iterations,
      errorEstimatorIterations: estimator,
      errorEstimatorJacobianEvaluations: estimator,
      errorEstimatorFactorizations: estimator,
      linearSolves: get('linearSolves'),
      linearIterations: get('linearIterations'),
      maxLinearIterations: get('maxLinearIterations'),
      lastLinearResidual: get('lastResidual'),
      maxLinearResidual: get('maxResidual'),
      unconvergedLinearSolves: get('unconvergedSolves'),
      failedSolves: get('failedNewtonLoops'),
    };
    return {
      time: get('timeHi') + get('timeLo'),
      attempts: get('attempts'),
      evaluations: get('evaluations'),
      acceptedSteps: get('acceptedSteps'),
      rejectedSteps: get('rejectedSteps'),
      shrinksFromErrorControl: get('shrinksFromErrorControl'),
      shrinksFromNewtonFailure: get('shrinksFromNewtonFailure'),
      smallestStep: get('smallestStep'),
      largestStep: get('largestStep'),
      lastErrorEstimate: get('lastErrorEstimate'),
      maxErrorEstimate: get('maxErrorEstimate'),
      minStepViolations: get('minStepViolations'),
      accuracyMet: get('accuracyMissed') === 0,
      nextStep: get('proposal'),
      newton,
    };
  }

  readCurrent(): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    return readPair(this.device, this.model.particleCount, this.positions, this.velocities);
  }

  destroy(): void {
    for (const buffer of this.buffers) buffer.destroy();
  }
}
