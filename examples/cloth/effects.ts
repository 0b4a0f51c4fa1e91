/**
 * The demo's own compute pass after each solver step: wind drag and contact with the sphere and
 * the floor (effects.wgsl). It writes the simulation's `positions` and `velocities` (and
 * `momenta`, for variational-symplectic-implicit) in place, between two of its steps.
 */
import type { GpuSimulation } from '../../src/index.ts';
import effectsCode from './effects.wgsl?raw';
import { UniformStruct } from './uniform-layout.ts';

/** The WebGPU simulations, which expose their buffers and encode into a caller's encoder. */

const WORKGROUP = 64;

/** What the pass does this frame; SI units. */
export interface EffectSettings {
  /** Mean wind velocity, m/s. */
  wind: readonly [number, number, number];
  /** Drag rate along the normal, 1/s (air resistance, also without wind). */
  windDrag: number;
  /** The sphere, or null. */
  sphere: { center: readonly [number, number, number]; radius: number } | null;
  floorHeight: number;
  /** Distance kept from the sphere and the floor, m. */
  thickness: number;
  /** Fraction of the tangential velocity lost per step in contact. */
  friction: number;
  /** Phase of the gusts, s. */
  time: number;
}

const pipelines = new WeakMap<GPUDevice, GPUComputePipeline>();

export class ClothEffects {
  private readonly struct = new UniformStruct(effectsCode, 'Effects');
  private readonly uniform: GPUBuffer;
  private readonly particleMass: GPUBuffer;
  /** Bound in place of `momenta` when the integrator keeps none. */
  private readonly noMomenta: GPUBuffer | null;
  private readonly pipeline: GPUComputePipeline;
  private readonly bindGroup: GPUBindGroup;
  private readonly hasMomenta: boolean;

  constructor(
    private readonly simulation: GpuSimulation,
    normals: GPUBuffer,
  ) {
    const device = simulation.device;
    const model = simulation.model;
    let pipeline = pipelines.get(device);
    if (!pipeline) {
      pipeline = device.createComputePipeline({
        label: 'ClothEffects.pipeline',
        layout: 'auto',
        compute: {
          module: device.createShaderModule({ label: 'ClothEffects.effects', code: effectsCode }),
          entryPoint: 'effectsMain',
          constants: { workgroupSize: WORKGROUP },
        },
      });
      pipelines.set(device, pipeline);
    }
    this.pipeline = pipeline;
    this.uniform = device.createBuffer({
      label: 'ClothEffects.uniform',
      size: this.struct.size,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    const masses = Float32Array.from(model.particleMass, (m, i) => (model.particleFixed[i] ? 0 : m));
    this.particleMass = device.createBuffer({
      label: 'ClothEffects.particleMass',
      size: masses.byteLength,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(this.particleMass, 0, masses);
    this.hasMomenta = simulation.integrator === 'variational-symplectic-implicit';
    const momenta = this.hasMomenta ? (simulation.momenta ?? null) : null;
    this.noMomenta = momenta
      ? null
      : device.createBuffer({ label: 'ClothEffects.noMomenta', size: 16, usage: GPUBufferUsage.STORAGE });
    this.bindGroup = device.createBindGroup({
      label: 'ClothEffects.bindGroup',
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: this.uniform } },
        { binding: 1, resource: { buffer: normals } },
        { binding: 2, resource: { buffer: this.particleMass } },
        { binding: 3, resource: { buffer: simulation.positions } },
        { binding: 4, resource: { buffer: simulation.velocities } },
        { binding: 5, resource: momenta ? { ...momenta } : { buffer: this.noMomenta! } },
      ],
    });
  }

  /** Sets what every pass encoded before the next submission does. */
  update(settings: EffectSettings): void {
    this.simulation.device.queue.writeBuffer(
      this.uniform,
      0,
      this.struct.write({
        sphereCenter: settings.sphere?.center ?? [0, 0, 0],
        sphereRadius: settings.sphere?.radius ?? 0,
        wind: settings.wind,
        windDrag: settings.windDrag,
        h: this.simulation.dt,
        floorHeight: settings.floorHeight,
        thickness: settings.thickness,
        friction: settings.friction,
        time: settings.time,
        particleCount: this.simulation.model.particleCount,
        hasMomenta: this.hasMomenta,
      }),
    );
  }

  encode(encoder: GPUCommandEncoder): void {
    const pass = encoder.beginComputePass({ label: 'ClothEffects' });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.dispatchWorkgroups(Math.ceil(this.simulation.model.particleCount / WORKGROUP));
    pass.end();
  }

  destroy(): void {
    this.uniform.destroy();
    this.particleMass.destroy();
    this.noMomenta?.destroy();
  }
}
