/** What both WebGPU simulations share: pipelines cached per device, binding by WGSL name, uploads. */
import type { Model } from '../../model/model.ts';
import { kernels, type KernelName } from './kernels.ts';
import { writeStruct, type KernelLayout } from './layout.ts';

/** Bytes of one vec4<f32> per particle. */
export const VEC4_BYTES = 16;

type Pipelines = Map<string, GPUComputePipeline>;
const pipelineCache = new WeakMap<GPUDevice, Pipelines>();

export function pipeline(device: GPUDevice, name: KernelName, workgroupSize: number): GPUComputePipeline {
  let cache = pipelineCache.get(device);
  if (!cache) pipelineCache.set(device, (cache = new Map()));
  const key = `${name}/${workgroupSize}`;
  let found = cache.get(key);
  if (!found) {
    const kernel = kernels()[name];
    found = device.createComputePipeline({
      label: `Weft.${name}`,
      layout: 'auto',
      compute: {
        module: device.createShaderModule({ label: `Weft.${name}`, code: kernel.code }),
        entryPoint: kernel.entryPoint,
        constants: { workgroupSize },
      },
    });
    cache.set(key, found);
  }
  return found;
}

/** Binds buffers to a kernel's variables by name, with binding numbers read from its WGSL. */
export function bindByName(
  device: GPUDevice,
  label: string,
  target: GPUComputePipeline,
  layout: KernelLayout,
  buffers: Readonly<Record<string, GPUBuffer>>,
): GPUBindGroup {
  const entries: GPUBindGroupEntry[] = [];
  for (const [name, binding] of layout.bindings) {
    const buffer = buffers[name];
    if (!buffer) throw new Error(`${label}: no buffer for WGSL variable '${name}'`);
    entries.push({ binding: binding.binding, resource: { buffer } });
  }
  return device.createBindGroup({ label, layout: target.getBindGroupLayout(0), entries });
}

/** Workgroup counts for `threads` threads: 1-D, or 2-D past maxComputeWorkgroupsPerDimension. */
export function dispatchSize(
  threads: number,
  workgroupSize: number,
  limits: GPUSupportedLimits,
): [number, number] {
  const groups = Math.ceil(threads / workgroupSize);
  const maxPerDimension = limits.maxComputeWorkgroupsPerDimension;
  if (groups <= maxPerDimension) return [groups, 1];
  return [maxPerDimension, Math.ceil(groups / maxPerDimension)];
}

/** xyz per particle → vec4<f32> per particle with the given w. */
export function vec4Bytes(values: Float64Array, w: number): ArrayBuffer {
  const n = values.length / 3;
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) out.set([values[3 * i]!, values[3 * i + 1]!, values[3 * i + 2]!, w], 4 * i);
  return out.buffer;
}

/** The model's springs as an array of the WGSL `Spring` struct, at reflected offsets. */
export function springBytes(model: Model): ArrayBuffer {
  const layouts = kernels();
  const springLayout = layouts.springForces.structs.get('Spring')!;
  const springStride = layouts.springForces.bindings.get('springs')!.stride;
  const bytes = new ArrayBuffer(model.springCount * springStride);
  const view = new DataView(bytes);
  for (let s = 0; s < model.springCount; s++) {
    writeStruct(
      springLayout,
      {
        particleA: model.springIndices[2 * s]!,
        particleB: model.springIndices[2 * s + 1]!,
        restLength: model.springRestLength[s]!,
        stiffness: model.springStiffness[s]!,
        damping: model.springDamping[s]!,
      },
      view,
      s * springStride,
    );
  }
  return bytes;
}

/**
 * A buffer factory: labelled `${owner}.${label}`, sizes rounded up to 16 bytes (at least 16),
 * optionally filled, and recorded in `owned` so that destroy() frees them.
 */
export function bufferFactory(device: GPUDevice, owner: string, owned: GPUBuffer[]) {
  return (label: string, bytes: number, usage: GPUBufferUsageFlags, data?: ArrayBuffer): GPUBuffer => {
    const buffer = device.createBuffer({
      label: `${owner}.${label}`,
      size: Math.max(16, Math.ceil(bytes / 16) * 16),
      usage,
    });
    if (data) device.queue.writeBuffer(buffer, 0, data);
    owned.push(buffer);
    return buffer;
  };
}
