/**
 * The explicit and multistep integrators on WebGPU: the scheme's program (src/integrators/
 * programs.ts, the same one the CPU reference interprets) compiled by the WebGPU executor, every
 * step of a `step(n)` encoded into one compute pass per submission, no readback until
 * {@link readState}. `positions` is a `STORAGE | VERTEX` buffer of vec4<f32> (w = 1): a render
 * pipeline can draw from it directly.
 */
import { WeftInputError } from '../../core/errors.ts';
import type { MultistepIntegratorName, MultistepOptions } from '../../integrators/adaptive-options.ts';
import { emptyStats, type SolverStats } from '../../integrators/implicit-options.ts';
import { isMultistep } from '../../integrators/catalog.ts';
import { resolveMultistepOptions, validateIntegrationOptions } from '../../integrators/options.ts';
import type { Program } from '../../integrators/program.ts';
import { explicitProgram, multistepProgram } from '../../integrators/programs.ts';
import type { ExplicitIntegratorName, IntegrationOptions } from '../../integrators/schemes.ts';
import type { Model } from '../../model/model.ts';
import type { GpuSimulation, SimulationState } from '../common/simulation-types.ts';
import { requireFiniteState, requireStepCount, stepsTo } from '../common/state-check.ts';
import { withDevice } from './device.ts';
import { checkDeviceFits } from './device-fits.ts';
import { WebGpuExecutor } from './executor.ts';
import { readPair, VEC4_BYTES } from './gpu-common.ts';

/** The multistep integrators the GPU runs: all of them. */
export const GPU_MULTISTEP = [
  'adams-bashforth-2',
  'adams-bashforth-3',
  'adams-moulton-pc',
  'heun-implicit',
  'implicit-euler-pc',
] as const;

/** Options of the WebGPU path. */
export interface WebGpuSimulationOptions extends Omit<IntegrationOptions, 'integrator'> {
  integrator: ExplicitIntegratorName | MultistepIntegratorName;
  /** A device of the caller's (borrowed, never destroyed). Default: Weft requests one. */
  device?: GPUDevice;
  /** Threads per workgroup of every kernel. Default 64; at most the device's limit. */
  workgroupSize?: number;
  /** Steps encoded into one command buffer before it is submitted. Default 64. */
  stepsPerSubmit?: number;
  correctorTolerance?: number;
  maxCorrectorIterations?: number;
}

/** The scheme's program and step, options checked (before a device is requested). */
function programOf(options: WebGpuSimulationOptions): { program: Program; dt: number } {
  if (!isMultistep(options.integrator)) {
    const valid = validateIntegrationOptions(options as IntegrationOptions);
    return { program: explicitProgram(valid.integrator, valid.rayleighMass), dt: valid.dt };
  }
  const name = options.integrator;
  const o = resolveMultistepOptions({ ...options, precision: 'f32' } as MultistepOptions);
  return {
    program: multistepProgram(name, o.rayleighMass, o.correctorTolerance, o.maxCorrectorIterations),
    dt: o.dt,
  };
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new WeftInputError(field, `must be a positive integer, got ${v}`);
  return v;
}

export class WebGpuSimulation implements GpuSimulation {
  readonly backend = 'webgpu';
  readonly integrator: ExplicitIntegratorName | MultistepIntegratorName;
  readonly dt: number;
  readonly description: string;
  private readonly executor: WebGpuExecutor;
  private readonly program: Program;
  private readonly stepsPerSubmit: number;
  private readonly readback: GPUBuffer;
  private steps = 0;
  private pendingRead: Promise<unknown> = Promise.resolve();

  /** Validates, acquires a device (or borrows the caller's), uploads the model and compiles the program. */
  static async create(model: Model, options: WebGpuSimulationOptions): Promise<WebGpuSimulation> {
    programOf(options);
    return withDevice(options.device, (device, owned, name) => new WebGpuSimulation(model, options, device, owned, name));
  } // prettier-ignore

  private constructor(
    readonly model: Model,
    options: WebGpuSimulationOptions,
    readonly device: GPUDevice,
    private readonly ownsDevice: boolean,
    adapterName: string,
  ) {
    const { program, dt } = programOf(options);
    const workgroupSize = positiveInteger('workgroupSize', options.workgroupSize, 64);
    this.stepsPerSubmit = positiveInteger('stepsPerSubmit', options.stepsPerSubmit, 64);
    if (program.corrector?.check && (workgroupSize & (workgroupSize - 1)) !== 0)
      throw new WeftInputError(
        'workgroupSize',
        `must be a power of two for the corrector's reduction, got ${workgroupSize}`,
      );
    checkDeviceFits(model, device.limits, workgroupSize);
    this.integrator = options.integrator;
    this.dt = dt;
    this.program = program;
    this.description = `WebGPU: ${adapterName}`;
    this.executor = new WebGpuExecutor(device, model, program, dt, workgroupSize);
    this.readback = device.createBuffer({
      label: 'WebGpuSimulation.readback',
      size: 2 * model.particleCount * VEC4_BYTES,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const encoder = device.createCommandEncoder({ label: 'WebGpuSimulation.setup' });
    const pass = encoder.beginComputePass();
    this.executor.encode(pass, 'setup');
    pass.end();
    device.queue.submit([encoder.finish()]);
  }

  /** Particle positions, vec4<f32> (xyz m, w = 1); STORAGE | VERTEX | COPY_SRC | COPY_DST. */
  get positions(): GPUBuffer {
    return this.executor.positions;
  }

  /** Particle velocities, vec4<f32> (xyz m/s, w = 0). */
  get velocities(): GPUBuffer {
    return this.executor.velocities;
  }

  get stepCount(): number {
    return this.steps;
  }

  /** Encodes `steps` steps into `encoder` (one compute pass), for callers that batch their own work. */
  encode(encoder: GPUCommandEncoder, steps: number): void {
    const pass = encoder.beginComputePass({ label: 'WebGpuSimulation.step' });
    for (let n = 0; n < steps; n++) {
      this.executor.encode(pass, this.steps < this.program.startupSteps ? 'startup' : 'step');
      this.steps++;
    }
    pass.end();
  }

  step(steps = 1): void {
    requireStepCount(steps);
    for (let done = 0; done < steps; done += this.stepsPerSubmit) {
      const encoder = this.device.createCommandEncoder({ label: 'WebGpuSimulation.step' });
      this.encode(encoder, Math.min(this.stepsPerSubmit, steps - done));
      this.device.queue.submit([encoder.finish()]);
    }
  }

  async advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    requireStepCount(steps);
    const chunk = Math.max(this.stepsPerSubmit, Math.ceil(steps / 100));
    for (let done = 0; done < steps;) {
      const next = Math.min(chunk, steps - done);
      this.step(next);
      await this.finished();
      done += next;
      onProgress?.(done, steps);
    }
  }

  async advanceTo(t: number, onProgress?: (time: number, target: number) => void): Promise<void> {
    const start = this.stepCount;
    return this.advance(stepsTo(t, start, this.dt), (done) => onProgress?.((start + done) * this.dt, t));
  }

  finished(): Promise<void> {
    return this.device.queue.onSubmittedWorkDone();
  }

  /** Reads in flight share one staging buffer, so each waits for the one before it. */
  readState(): Promise<SimulationState> {
    const read = this.pendingRead.then(() => this.readStateNow());
    this.pendingRead = read.catch(() => undefined);
    return read;
  }

  private async readStateNow(): Promise<SimulationState> {
    const step = this.steps;
    const n = this.model.particleCount;
    const state = await readPair(this.device, n, this.positions, this.velocities, this.readback);
    return requireFiniteState({ step, time: step * this.dt, ...state });
  }

  /**
   * Multistep: the corrector's statistics in the implicit integrators' shape (`newtonIterations`
   * = corrector sweeps; a corrector with a tolerance is read from the GPU); explicit: null.
   */
  async readSolverStats(): Promise<SolverStats | null> {
    if (this.program.rings['Fv'] === undefined) return null;
    const c = this.program.corrector;
    const corrector = c?.check ? await this.executor.readCorrector() : null;
    const sweeps =
      corrector?.correctorIterations ??
      (c ? c.maxIterations * Math.max(0, this.steps - this.program.startupSteps) : 0);
    return {
      ...emptyStats(),
      steps: this.steps,
      newtonIterations: sweeps,
      unconvergedSteps: corrector?.unconvergedSteps ?? 0,
      converged: corrector?.converged ?? true,
    };
  }

  destroy(): void {
    this.executor.destroy();
    this.readback.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
