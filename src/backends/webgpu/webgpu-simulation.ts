/**
 * Every fixed-step integrator on WebGPU (explicit, multistep, implicit): the scheme's program
 * (src/integrators/programs.ts, implicit-programs.ts — the same one the CPU reference interprets)
 * compiled by the WebGPU executor, every step of a `step(n)` encoded into one compute pass per
 * submission, no readback until {@link readState}. `positions` is a `STORAGE | VERTEX` buffer of
 * vec4<f32> (w = 1): a render pipeline can draw from it directly.
 */
import { AttachableSimulation } from '../common/attachable-simulation.ts';
import { ParticleAttachments, velocityHistory } from '../common/attachments.ts';
import { ColliderPoses } from '../common/collider-poses.ts';
import { WeftInputError } from '../../core/errors.ts';
import {
  emptyStats,
  type ResolvedImplicitOptions,
  type SolverStats,
} from '../../integrators/implicit-options.ts';
import type { Program } from '../../integrators/program.ts';
import type { Model } from '../../model/model.ts';
import { withContacts } from '../../integrators/contact-programs.ts';
import { withWindOps } from '../../integrators/wind-programs.ts';
import { withStrainLimitOps } from '../../integrators/strain-programs.ts';
import { withSelfContact } from '../../integrators/self-contact-programs.ts';
import type { GpuSimulation, SimulationState } from '../common/simulation-types.ts';
import { advanceInChunks, nextTask, requireStepCount, StateWatch, stepsTo } from '../common/state-check.ts';
import { withDevice } from './device.ts';
import { checkDeviceFits } from './device-fits.ts';
import { WebGpuExecutor } from './executor.ts';
import { readPair, VEC4_BYTES } from './gpu-common.ts';
import { GpuProfiler, type KernelTime } from './profiler.ts';
import {
  integerAtLeast,
  programOf,
  type GpuIntegratorName,
  type WebGpuSimulationOptions,
} from './webgpu-options.ts';

export { GPU_MULTISTEP, type WebGpuSimulationOptions } from './webgpu-options.ts';

export class WebGpuSimulation extends AttachableSimulation implements GpuSimulation {
  readonly backend = 'webgpu';
  readonly integrator: GpuIntegratorName;
  readonly dt: number;
  readonly description: string;
  protected readonly executor: WebGpuExecutor;
  protected readonly program: Program;
  /** The implicit integrators' resolved options (null for the others). */
  protected readonly implicitOptions: ResolvedImplicitOptions | null;
  private readonly stepsPerSubmit: number;
  private readonly checkEvery: number;
  private readonly readback: GPUBuffer;
  /** GPU time per kernel (option `profile`), or null. */
  private readonly profiler: GpuProfiler | null;
  private steps = 0;
  private pendingRead: Promise<unknown> = Promise.resolve();
  /** Reads and checkpointed runs queued in {@link serialized} and not yet finished. */
  private queued = 0;
  private readonly watch: StateWatch;
  protected readonly attachments: ParticleAttachments;
  protected readonly colliderPoses: ColliderPoses;
  /** Startup steps still to take (all of them at creation, and again after a restart). */
  private startupLeft: number;

  /** Validates, acquires a device (or borrows the caller's), uploads the model and compiles the program. */
  static async create(model: Model, options: WebGpuSimulationOptions): Promise<WebGpuSimulation> {
    programOf(options, model.particleCount);
    return withDevice(options.device, (device, owned, name) => new WebGpuSimulation(model, options, device, owned, name));
  } // prettier-ignore

  protected constructor(
    readonly model: Model,
    options: WebGpuSimulationOptions,
    readonly device: GPUDevice,
    private readonly ownsDevice: boolean,
    adapterName: string,
  ) {
    super();
    const { program: scheme, dt, implicit } = programOf(options, model.particleCount);
    const limited = withStrainLimitOps(scheme, model.strainLimit);
    const contacts = withContacts(limited, options.integrator, model.colliders.length);
    const winds = withWindOps(contacts, model.wind);
    const program = withSelfContact(winds, model.selfCollision !== null);
    const workgroupSize = integerAtLeast('workgroupSize', options.workgroupSize, 64);
    this.stepsPerSubmit = integerAtLeast('stepsPerSubmit', options.stepsPerSubmit, implicit ? 4 : 64);
    this.checkEvery = integerAtLeast('checkEvery', options.checkEvery, implicit ? 8 : 0, 0);
    this.profiler = options.profile ? new GpuProfiler(device) : null;
    if ((program.corrector?.check || implicit) && (workgroupSize & (workgroupSize - 1)) !== 0)
      throw new WeftInputError('workgroupSize', `must be a power of two ≥ 2 for the reductions, got ${workgroupSize}`); // prettier-ignore
    checkDeviceFits(model, device.limits, workgroupSize, Boolean(implicit));
    this.integrator = options.integrator;
    this.dt = dt;
    this.program = program;
    this.implicitOptions = implicit ?? null;
    this.description = `WebGPU: ${adapterName}${implicit ? `, ${implicit.solver}` : ''}`;
    this.lifecycle.watch(device);
    this.attachments = new ParticleAttachments(model, velocityHistory(program));
    this.watch = new StateWatch(this.attachments.model);
    this.executor = new WebGpuExecutor(device, this.attachments.model, program, dt, workgroupSize, this.checkEvery); // prettier-ignore
    this.startupLeft = program.startupSteps;
    this.attachments.connect({
      writeVector: (name, indices, xyz) => this.executor.writeParticles(name, indices, xyz),
      writeMasses: (indices) => this.executor.writeMasses(indices),
      restart: () => this.restart(),
      rebuildHierarchy: () => this.executor.rebuildMultigrid(),
    });
    this.colliderPoses = new ColliderPoses(model.colliders);
    this.colliderPoses.connect({ writeCollider: (k, pose, up, uq) => this.executor.contacts?.writeCollider(k, pose, up, uq) }); // prettier-ignore
    this.readback = device.createBuffer({
      label: 'WebGpuSimulation.readback',
      size: 2 * model.particleCount * VEC4_BYTES,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    this.restart();
    // The first step's block compiled now (dispatchCount compiles it), inside the creation's error
    // scope (withDevice): a kernel the device refuses fails createSimulation instead of leaving
    // every step to submit an invalid command buffer (test/gpu-setup-errors.test.ts).
    this.executor.dispatchCount(this.startupLeft > 0 ? 'startup' : 'step');
  }

  /** Runs the setup block (from the state now) and restarts the startup steps. */
  private restart(): void {
    const encoder = this.device.createCommandEncoder({ label: 'WebGpuSimulation.setup' });
    const pass = encoder.beginComputePass();
    this.executor.encode(pass, 'setup');
    pass.end();
    this.device.queue.submit([encoder.finish()]);
    this.startupLeft = this.program.startupSteps;
  }

  /** Particle positions, vec4<f32> (xyz m, w = 1); STORAGE | VERTEX | COPY_SRC | COPY_DST. */
  get positions(): GPUBuffer {
    return this.executor.positions;
  }

  /** Particle velocities, vec4<f32> (xyz m/s, w = 0). */
  get velocities(): GPUBuffer {
    return this.executor.velocities;
  }

  /** variational-symplectic-implicit: the momenta p, n vec4<f32> (xyz kg·m/s) inside a larger buffer. */
  get momenta(): { buffer: GPUBuffer; offset: number; size: number } | undefined {
    return this.program.momenta ? this.executor.location(this.program.momenta) : undefined;
  }

  /** Dispatches a `step()` encodes (for the curious and for benchmarks). */
  get dispatchesPerStep(): number {
    return this.executor.dispatchCount('step');
  }

  /**
   * Dispatches encoded since creation. `advance()` with `checkEvery` > 0 encodes an implicit
   * solve's iterations in chunks and stops at the first chunk that finds it done, so this grows
   * with the iterations done, not with `maxIterations`.
   */
  get dispatchesEncoded(): number {
    return this.executor.dispatchesEncoded;
  }

  get stepCount(): number {
    return this.steps;
  }

  /**
   * A call that submits its own steps (step, advance) folds the wind's time so far into its phases
   * in float64 and restarts its clock (GpuAero.fold). Not `encode()`: several may share one
   * submission, which queue writes would all precede; there the clock counts on from the last fold.
   */
  private beginSubmittingCall(steps: number): void {
    this.beginCall(steps, this.dt);
    this.executor.aero?.fold(this.steps, this.dt);
  }

  /**
   * Encodes `steps` steps into `encoder` (one compute pass), for callers that batch their own
   * work. Kinematic particles get their velocity for these steps now (queue.writeBuffer, before
   * the caller submits), so encode one call per submission; they land on their targets to float
   * rounding, and exactly at the start of the next call.
   */
  encode(encoder: GPUCommandEncoder, steps: number): void {
    this.lifecycle.check('encode()');
    this.beginCall(steps, this.dt);
    this.encodeSteps(encoder, steps);
  }

  private encodeSteps(encoder: GPUCommandEncoder, steps: number): void {
    const profiler = this.profiler;
    const pass = profiler
      ? { encoder, profiler }
      : encoder.beginComputePass({ label: 'WebGpuSimulation.step' });
    for (let n = 0; n < steps; n++) {
      this.executor.encode(pass, this.startupLeft > 0 ? 'startup' : 'step');
      if (this.startupLeft > 0) this.startupLeft--;
      this.steps++;
    }
    if ('profiler' in pass) pass.profiler.finish(encoder);
    else pass.end();
  }

  step(steps = 1): void {
    this.lifecycle.check('step()');
    requireStepCount(steps);
    this.beginSubmittingCall(steps);
    this.submitSteps(steps);
    this.endCall();
  }

  private submitSteps(steps: number): void {
    for (let done = 0; done < steps; done += this.stepsPerSubmit) {
      const encoder = this.device.createCommandEncoder({ label: 'WebGpuSimulation.step' });
      this.encodeSteps(encoder, Math.min(this.stepsPerSubmit, steps - done));
      this.device.queue.submit([encoder.finish()]);
    }
  }

  /**
   * Takes `steps` steps and resolves when they are done. Implicit with checkEvery = k > 0: each
   * step reads the solver's progress back at its checkpoints and skips what is no longer needed.
   */
  advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    return this.lifecycle.guard('advance()', async () => {
      requireStepCount(steps);
      this.beginSubmittingCall(steps);
      await this.advanceNow(steps, onProgress);
      this.endCall();
    });
  }

  private async advanceNow(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    if (this.checkEvery > 0) {
      for (let n = 0; n < steps; n++) {
        const block = this.startupLeft > 0 ? 'startup' : 'step';
        await this.serialized(() => this.executor.runChecked(block, this.profiler ?? undefined));
        if (this.startupLeft > 0) this.startupLeft--;
        this.steps++;
        onProgress?.(n + 1, steps);
      }
      return;
    }
    const settle = async (): Promise<void> => {
      await this.device.queue.onSubmittedWorkDone();
      await nextTask();
    };
    const run = (n: number): void => (this.lifecycle.check('advance()'), this.submitSteps(n));
    await advanceInChunks(run, steps, onProgress, settle, this.stepsPerSubmit);
  }

  async advanceTo(t: number, onProgress?: (time: number, target: number) => void): Promise<void> {
    const start = this.stepCount;
    return this.advance(stepsTo(t, start, this.dt), (done) => onProgress?.((start + done) * this.dt, t));
  }

  finished(): Promise<void> {
    return this.lifecycle.guard('finished()', () => this.device.queue.onSubmittedWorkDone());
  }

  /** Reads (and checkpointed runs) one after another: they share staging buffers. */
  private serialized<T>(read: () => Promise<T>): Promise<T> {
    this.queued++;
    const next = this.pendingRead.then(read).finally(() => this.queued--);
    this.pendingRead = next.catch(() => undefined);
    return next;
  }

  /**
   * The state after every step asked for before this call: copied at once (into staging buffers
   * of its own, so that steps taken while the read is in flight are not in it) unless a
   * checkpointed advance() or another queued read is still running, after which it is queued.
   */
  readState(): Promise<SimulationState> {
    return this.lifecycle.guard('readState()', () =>
      this.queued === 0 ? this.readStateNow(false) : this.serialized(() => this.readStateNow(true)),
    );
  }

  /** Submits the copies before its first await; `shared`: through the simulation's own staging. */
  private async readStateNow(shared: boolean): Promise<SimulationState> {
    const step = this.steps;
    const n = this.model.particleCount;
    const momenta = this.program.momenta;
    const [state, momentum] = await Promise.all([
      readPair(this.device, n, this.positions, this.velocities, shared ? this.readback : undefined),
      momenta ? this.executor.readVector(momenta) : undefined,
      this.executor.selfContact?.checkFlags(),
    ]);
    return this.watch.check({
      step,
      time: step * this.dt,
      ...state,
      ...(momentum ? { momenta: momentum } : {}),
    });
  }

  /**
   * Implicit: the linear solves' and Newton loops' statistics, read from the GPU. Multistep: the
   * corrector's in the same shape (`newtonIterations` = corrector sweeps; a corrector with a
   * tolerance is read from the GPU). Explicit: null.
   */
  readSolverStats(): Promise<SolverStats | null> {
    return this.lifecycle.guard('readSolverStats()', () => this.readSolverStatsNow());
  }

  private async readSolverStatsNow(): Promise<SolverStats | null> {
    const self = this.executor.selfContact;
    const selfContact = self ? { selfContact: await this.serialized(() => self.readStats()) } : {};
    const implicit = this.executor.implicit;
    if (implicit) {
      const steps = this.steps;
      return { ...(await this.serialized(() => implicit.readStats())), steps, ...selfContact };
    }
    if (this.program.rings['Fv'] === undefined) return self ? { ...emptyStats(), steps: this.steps, ...selfContact } : null; // prettier-ignore
    const c = this.program.corrector;
    const corrector = c?.check ? await this.executor.corrector!.readStats() : null;
    const sweeps =
      corrector?.correctorIterations ??
      (c ? c.maxIterations * Math.max(0, this.steps - this.program.startupSteps) : 0);
    return {
      ...emptyStats(),
      steps: this.steps,
      newtonIterations: sweeps,
      unconvergedSteps: corrector?.unconvergedSteps ?? 0,
      converged: corrector?.converged ?? true,
      ...selfContact,
    };
  }

  /**
   * GPU time per kernel of the work submitted so far, the slowest first (option `profile`: a
   * compute pass per dispatch with timestamp queries; waits for that work to finish).
   */
  readProfile(): Promise<KernelTime[]> {
    return this.lifecycle.guard('readProfile()', async () => {
      if (!this.profiler)
        throw new WeftInputError(
          'profile',
          'is off: create the simulation with profile: true to time each kernel',
        );
      return this.profiler.read();
    });
  }

  destroy(): void {
    if (!this.lifecycle.destroy()) return;
    this.profiler?.destroy();
    this.executor.destroy();
    this.readback.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
