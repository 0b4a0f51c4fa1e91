import { WeftInputError } from '../../core/errors.ts';

import {
  planStep,
  rungeKuttaStages,
  type IntegrationOptions,
  type StepPlan,
} from '../../integrators/schemes.ts';
import { validateIntegrationOptions } from '../../integrators/options.ts';
import type { Model } from '../../model/model.ts';
import type { GpuSimulation, SimulationState } from '../common/simulation-types.ts';
import { requireFiniteState, requireStepCount } from '../common/state-check.ts';
import { withDevice } from './device.ts';
import { kernels, type KernelName } from './kernels.ts';
import { structBytes } from './layout.ts';
import {
  bindByName,
  bufferFactory,
  dispatchSize,
  pipeline,
  springBytes,
  VEC4_BYTES,
  vec4Bytes,
} from './gpu-common.ts';

/** Options of the WebGPU path. */
export interface WebGpuSimulationOptions extends IntegrationOptions {
  /** A device of the caller's (borrowed, never destroyed). Default: Weft requests one. */
  device?: GPUDevice;
  /** Threads per workgroup of every kernel. Default 64; at most the device's limit. */
  workgroupSize?: number;
  /** Steps encoded into one command buffer before it is submitted. Default 64. */
  stepsPerSubmit?: number;
}

/**
 * Checks that a model fits the device before anything is allocated, naming what does not fit.
 */
export function checkDeviceFits(
  model: Model,
  limits: GPUSupportedLimits,
  workgroupSize: number,
  implicit = false,
): void {
  const layouts = kernels();
  const springStride = layouts.springForces.bindings.get('springs')!.stride;
  const arrays: [string, number][] = [
    ['particles (vec4 per particle)', model.particleCount * VEC4_BYTES],
    ['springs (Spring structs)', model.springCount * springStride],
    ['springs (forces, vec4 per spring)', model.springCount * VEC4_BYTES],
    ['springs (incidence list)', model.incidence.entries.length * 4],
  ];
  if (implicit) {
    const stateStride = layouts.springJacobians.bindings.get('springStates')!.stride;
    arrays.push(
      ['springs (SpringState structs)', model.springCount * stateStride],
      [
        'springs (incidence with other endpoints)',
        (model.particleCount + 1 + 2 * model.incidence.entries.length) * 4,
      ],
      ['particles (3×3 inverse diagonal blocks)', 2 * model.particleCount * VEC4_BYTES],
    );
  }
  const maxBinding = Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize);
  for (const [what, bytes] of arrays) {
    if (bytes > maxBinding) {
      throw new WeftInputError(
        'model',
        `too large for this device: ${what} needs ${bytes} bytes, the device allows ${maxBinding} per storage buffer`,
      );
    }
  }
  const maxWorkgroupSize = Math.min(
    limits.maxComputeWorkgroupSizeX,
    limits.maxComputeInvocationsPerWorkgroup,
  );
  if (workgroupSize > maxWorkgroupSize) {
    throw new WeftInputError(
      'workgroupSize',
      `${workgroupSize} exceeds the device's limit of ${maxWorkgroupSize} (maxComputeWorkgroupSizeX ${limits.maxComputeWorkgroupSizeX}, maxComputeInvocationsPerWorkgroup ${limits.maxComputeInvocationsPerWorkgroup})`,
    );
  }
  const groups = Math.ceil(Math.max(model.particleCount, model.springCount) / workgroupSize);
  const maxGroups = limits.maxComputeWorkgroupsPerDimension;
  if (groups > maxGroups * maxGroups) {
    throw new WeftInputError(
      'model',
      `too large for this device: ${groups} workgroups exceed ${maxGroups}² per dispatch`,
    );
  }
}

/**
 * The WebGPU path: the passes of src/backends/cpu/passes.ts as WGSL kernels, every step of a `step(n)`
 * encoded into one compute pass per submission, no readback until {@link readState}.
 *
 * `positions` is a `STORAGE | VERTEX` buffer of vec4<f32> (w = 1): a render pipeline can draw
 * from it directly.
 */
export class WebGpuSimulation implements GpuSimulation {
  readonly backend = 'webgpu';
  readonly integrator;
  readonly dt: number;
  readonly model: Model;
  readonly description: string;
  readonly device: GPUDevice;
  /** Particle positions, vec4<f32> (xyz m, w = 1); STORAGE | VERTEX | COPY_SRC | COPY_DST. */
  readonly positions: GPUBuffer;
  /** Particle velocities, vec4<f32> (xyz m/s, w = 0). */
  readonly velocities: GPUBuffer;
  private readonly ownsDevice: boolean;
  private readonly workgroupSize: number;
  private readonly stepsPerSubmit: number;
  private readonly plan: StepPlan;
  private readonly buffers: GPUBuffer[] = [];
  private readonly readback: GPUBuffer;
  private readonly passes: { pipeline: GPUComputePipeline; bindGroup: GPUBindGroup; threads: number }[][];
  private steps = 0;

  /** Validates, acquires a device (or borrows the caller's), uploads the model and builds every pipeline. */
  static async create(model: Model, options: WebGpuSimulationOptions): Promise<WebGpuSimulation> {
    validateIntegrationOptions(options);
    return withDevice(
      options.device,
      (device, owned, name) => new WebGpuSimulation(model, options, device, owned, name),
    );
  }

  private constructor(
    model: Model,
    options: WebGpuSimulationOptions,
    device: GPUDevice,
    owned: boolean,
    adapterName: string,
  ) {
    const valid = validateIntegrationOptions(options);
    const workgroupSize = options.workgroupSize ?? 64;
    if (!Number.isInteger(workgroupSize) || workgroupSize < 1) {
      throw new WeftInputError('workgroupSize', `must be a positive integer, got ${workgroupSize}`);
    }
    const stepsPerSubmit = options.stepsPerSubmit ?? 64;
    if (!Number.isInteger(stepsPerSubmit) || stepsPerSubmit < 1) {
      throw new WeftInputError('stepsPerSubmit', `must be a positive integer, got ${stepsPerSubmit}`);
    }
    checkDeviceFits(model, device.limits, workgroupSize);
    this.model = model;
    this.integrator = valid.integrator;
    this.dt = valid.dt;
    this.device = device;
    this.ownsDevice = owned;
    this.workgroupSize = workgroupSize;
    this.stepsPerSubmit = stepsPerSubmit;
    this.description = `WebGPU: ${adapterName}`;
    this.plan = planStep(valid.integrator, valid.dt, valid.rayleighMass);

    const n = model.particleCount;
    const layouts = kernels();
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const create = bufferFactory(device, 'WebGpuSimulation', this.buffers);
    this.positions = create(
      'positions',
      n * VEC4_BYTES,
      storage | GPUBufferUsage.VERTEX,
      vec4Bytes(model.particlePositions, 1),
    );
    this.velocities = create('velocities', n * VEC4_BYTES, storage, vec4Bytes(model.particleVelocities, 0));
    const stagePositions = create('stagePositions', n * VEC4_BYTES, storage);
    const stageVelocities = create('stageVelocities', n * VEC4_BYTES, storage);
    const accelerations = create('accelerations', n * VEC4_BYTES, storage);
    const sumPositions = create('sumPositions', n * VEC4_BYTES, storage);
    const sumVelocities = create('sumVelocities', n * VEC4_BYTES, storage);
    const springForces = create('springForces', model.springCount * VEC4_BYTES, storage);
    const particleInvMass = create(
      'particleInvMass',
      n * 4,
      storage,
      Float32Array.from(model.particleInvMass).buffer,
    );
    const incidentOffsets = create(
      'incidentOffsets',
      (n + 1) * 4,
      storage,
      model.incidence.offsets.slice().buffer,
    );
    const incidentSprings = create(
      'incidentSprings',
      model.incidence.entries.length * 4,
      storage,
      model.incidence.entries.slice().buffer,
    );

    const springData = springBytes(model);
    const springs = create('springs', springData.byteLength, storage, springData);

    const uniform = (label: string, data: ArrayBuffer): GPUBuffer =>
      create(label, data.byteLength, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, data);
    const params = uniform(
      'params',
      structBytes(layouts.springForces.structs.get('SimParams')!, {
        particleCount: n,
        springCount: model.springCount,
        gravity: model.gravity,
        rayleighMass: this.plan.rayleighMass,
      }),
    );
    this.readback = create('readback', 2 * n * VEC4_BYTES, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);

    const pass = (name: KernelName, label: string, threads: number, bound: Record<string, GPUBuffer>) => {
      const target = pipeline(device, name, workgroupSize);
      return {
        pipeline: target,
        bindGroup: bindByName(device, `WebGpuSimulation.${label}`, target, layouts[name], bound),
        threads,
      };
    };
    const shared = {
      params,
      springs,
      springForces,
      incidentOffsets,
      incidentSprings,
      particleInvMass,
      accelerations,
    };
    // a(x, v) at the step's state or at the Runge–Kutta stage state: spring pass, then gather pass.
    const evaluate = (at: 'state' | 'stage') => {
      const evalPositions = at === 'state' ? this.positions : stagePositions;
      const evalVelocities = at === 'state' ? this.velocities : stageVelocities;
      return [
        pass('springForces', `springForces.${at}`, model.springCount, {
          ...shared,
          evalPositions,
          evalVelocities,
        }),
        pass('accelerations', `accelerations.${at}`, n, { ...shared, evalVelocities }),
      ];
    };
    const state = { params, positions: this.positions, velocities: this.velocities, accelerations };
    if (this.plan.kind === 'symplectic') {
      const update = uniform(
        'symplecticUpdate',
        structBytes(layouts.symplecticUpdate.structs.get('SymplecticUpdate')!, {
          h: valid.dt,
          velocityScale: this.plan.velocityScale,
          accelerationScale: this.plan.accelerationScale,
        }),
      );
      this.passes = [
        [...evaluate('state'), pass('symplecticUpdate', 'symplecticUpdate', n, { ...state, update })],
      ];
    } else {
      const stageLayout = layouts.rungeKuttaStage.structs.get('RungeKuttaStage')!;
      this.passes = rungeKuttaStages(this.plan, valid.dt).map((stage, i) => {
        const coefficients = uniform(
          `rungeKuttaStage${i + 1}`,
          structBytes(stageLayout, {
            ...stage,
            isFirst: stage.isFirst ? 1 : 0,
            isLast: stage.isLast ? 1 : 0,
          }),
        );
        return [
          ...evaluate(stage.isFirst ? 'state' : 'stage'),
          pass('rungeKuttaStage', `rungeKuttaStage${i + 1}`, n, {
            ...state,
            stage: coefficients,
            stagePositions,
            stageVelocities,
            sumPositions,
            sumVelocities,
          }),
        ];
      });
    }
  }

  get stepCount(): number {
    return this.steps;
  }

  /** Encodes `steps` steps into `encoder` (one compute pass), for callers that batch their own work. */
  encode(encoder: GPUCommandEncoder, steps: number): void {
    const computePass = encoder.beginComputePass({ label: 'WebGpuSimulation.step' });
    for (let n = 0; n < steps; n++) {
      for (const stage of this.passes) {
        for (const { pipeline: target, bindGroup, threads } of stage) {
          if (threads === 0) continue;
          computePass.setPipeline(target);
          computePass.setBindGroup(0, bindGroup);
          const [x, y] = dispatchSize(threads, this.workgroupSize, this.device.limits);
          computePass.dispatchWorkgroups(x, y);
        }
      }
    }
    computePass.end();
    this.steps += steps;
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

  finished(): Promise<void> {
    return this.device.queue.onSubmittedWorkDone();
  }

  /** Reads in flight share one staging buffer, so each waits for the one before it. */
  private pendingRead: Promise<unknown> = Promise.resolve();

  readState(): Promise<SimulationState> {
    const read = this.pendingRead.then(() => this.readStateNow());
    this.pendingRead = read.catch(() => undefined);
    return read;
  }

  private async readStateNow(): Promise<SimulationState> {
    const n = this.model.particleCount;
    const bytes = n * VEC4_BYTES;
    const encoder = this.device.createCommandEncoder({ label: 'WebGpuSimulation.readState' });
    encoder.copyBufferToBuffer(this.positions, 0, this.readback, 0, bytes);
    encoder.copyBufferToBuffer(this.velocities, 0, this.readback, bytes, bytes);
    this.device.queue.submit([encoder.finish()]);
    const step = this.steps;
    await this.readback.mapAsync(GPUMapMode.READ);
    const data = new Float32Array(this.readback.getMappedRange().slice(0));
    this.readback.unmap();
    const positions = new Float64Array(3 * n);
    const velocities = new Float64Array(3 * n);
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < 3; c++) {
        positions[3 * i + c] = data[4 * i + c]!;
        velocities[3 * i + c] = data[4 * (n + i) + c]!;
      }
    }
    return requireFiniteState({ step, time: step * this.dt, positions, velocities });
  }

  readSolverStats(): Promise<null> {
    return Promise.resolve(null);
  }

  destroy(): void {
    for (const buffer of this.buffers) buffer.destroy();
    if (this.ownsDevice) this.device.destroy();
  }
}
