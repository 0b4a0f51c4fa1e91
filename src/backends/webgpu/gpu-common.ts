/** What both WebGPU simulations share: pipelines cached per device, binding by WGSL name, uploads. */
import type { Model } from '../../model/model.ts';
import { kernels, type KernelName } from './kernels.ts';
import { writeStruct, type KernelLayout } from './layout.ts';

/** Bytes of one vec4<f32> per particle. */
export const VEC4_BYTES = 16;

/**
 * Vec4s per slot of a work-vector arena for n particles (the executor's and the fused kernel's),
 * a pipeline constant (program-vectors.wgsl) and a multiple of 16 (a slot binds on its own at a
 * 256-byte-aligned offset): 256 up to 256 particles, then n rounded up to an eighth of its octave,
 * so that models of similar size share their pipelines (SwiftShader compiles a kernel in ~0.2–1 s)
 * for at most 12.5 % more arena. Kernels loop to n; the stride only places the slots.
 */
export function arenaStride(n: number): number {
  const step = 2 ** Math.max(4, Math.floor(Math.log2(n)) - 3);
  return Math.max(256, Math.ceil(n / step) * step);
}

type Pipelines = Map<string, GPUComputePipeline>;
const pipelineCache = new WeakMap<GPUDevice, Pipelines>();

const moduleCache = new WeakMap<GPUDevice, Map<string, GPUShaderModule>>();

/**
 * The pipeline of kernel `name` with its `override` constants (workgroupSize, and e.g. the vector
 * references of a program op, which specialise the kernel so that its branches fold away), cached
 * per device and constants; one shader module per kernel and device.
 */
export function pipeline(
  device: GPUDevice,
  name: KernelName,
  workgroupSize: number,
  constants: Readonly<Record<string, number>> = {},
): GPUComputePipeline {
  return cachedPipeline(device, name, kernels()[name], workgroupSize, constants);
}

/**
 * {@link pipeline} for any reflected kernel (`name` unique among all kernels: self-kernels.ts's
 * share the caches; the key of the caches, the objects labelled `Weft.${label}`).
 */
export function cachedPipeline(
  device: GPUDevice,
  name: string,
  kernel: KernelLayout,
  workgroupSize: number,
  constants: Readonly<Record<string, number>> = {},
  label = name,
): GPUComputePipeline {
  let cache = pipelineCache.get(device);
  if (!cache) pipelineCache.set(device, (cache = new Map()));
  const all = { groupThreads: groupThreadsFor(device, workgroupSize), ...constants };
  // Only the constants its entry point uses (a program's references are shared by several kernels).
  const used = Object.entries(all).filter(([key]) => kernel.overrides.has(key));
  const key = `${name}/${workgroupSize}/${JSON.stringify(used)}`;
  let found = cache.get(key);
  if (!found) {
    let modules = moduleCache.get(device);
    if (!modules) moduleCache.set(device, (modules = new Map()));
    let module = modules.get(name);
    if (!module)
      modules.set(name, (module = device.createShaderModule({ label: `Weft.${label}`, code: kernel.code })));
    found = device.createComputePipeline({
      label: `Weft.${label}`,
      layout: 'auto',
      compute: {
        module,
        entryPoint: kernel.entryPoint,
        constants: { workgroupSize, ...Object.fromEntries(used) },
      },
    });
    cache.set(key, found);
  }
  return found;
}

/**
 * Threads per workgroup of the kernels that reduce (`groupThreads`, implicit-common.wgsl; each
 * covers workgroupSize particles whatever it is): the workgroup size on a GPU, one SIMD group on a
 * CPU adapter. SwiftShader runs each SIMD group of a workgroup that has barriers as a coroutine and
 * switches between all of them at each barrier: at 64 threads, the CG product's reduction took 3×
 * as long as its gather (README, "Kernels and GPU resources").
 */
export function groupThreadsFor(device: GPUDevice, workgroupSize: number): number {
  const info = (device as { adapterInfo?: GPUAdapterInfo & { subgroupMaxSize?: number } }).adapterInfo;
  const cpu = info?.isFallbackAdapter === true || info?.architecture === 'swiftshader';
  if (!cpu) return workgroupSize;
  return Math.min(workgroupSize, Math.max(1, info.subgroupMaxSize ?? 4));
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

/** CSR offsets [0, n], then per entry the pair (2 · spring + side, the other endpoint), as u32. */
export function incidenceWithOthers(model: Model): ArrayBuffer {
  const n = model.particleCount;
  const { offsets, entries } = model.incidence;
  const data = new Uint32Array(n + 1 + 2 * entries.length);
  data.set(offsets);
  entries.forEach((entry, e) => {
    data[n + 1 + 2 * e] = entry;
    data[n + 2 + 2 * e] = model.springIndices[2 * (entry >> 1) + 1 - (entry & 1)]!;
  });
  return data.buffer;
}

/** The model's springs as an array of the WGSL `Spring` struct, at reflected offsets. */
export function springBytes(model: Model): ArrayBuffer {
  const layouts = kernels();
  const springLayout = layouts.programForces.structs.get('Spring')!;
  const springStride = layouts.programForces.bindings.get('springs')!.stride;
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
/** The smallest buffer made: larger than any one struct a kernel binds as an array element. */
const MIN_BUFFER_BYTES = 256;

export function bufferFactory(device: GPUDevice, owner: string, owned: GPUBuffer[]) {
  return (label: string, bytes: number, usage: GPUBufferUsageFlags, data?: ArrayBuffer): GPUBuffer => {
    const buffer = device.createBuffer({
      label: `${owner}.${label}`,
      // At least one element of any struct array (an empty array, e.g. a model without springs,
      // is still bound, and a binding smaller than one element is a validation error).
      size: Math.max(MIN_BUFFER_BYTES, Math.ceil(bytes / 16) * 16),
      usage,
    });
    if (data) device.queue.writeBuffer(buffer, 0, data);
    owned.push(buffer);
    return buffer;
  };
}

/**
 * Finishes an error norm from per-workgroup partials (Σ terms², max |term|, non-finite flag): NaN
 * when any term was not finite, else √(Σ / 6 n_free) (rms) or the max, as the CPU's errorNorm.
 */
export function finishNorm(partials: Float32Array, freeParticles: number, norm: 'rms' | 'max'): number {
  let sum = 0;
  let max = 0;
  for (let k = 0; k < partials.length; k += 4) {
    if (partials[k + 2]! > 0) return NaN;
    sum += partials[k]!;
    max = Math.max(max, partials[k + 1]!);
  }
  if (freeParticles === 0) return 0;
  return norm === 'rms' ? Math.sqrt(sum / (6 * freeParticles)) : max;
}

/**
 * Two vec4 buffers of n particles as xyz float64. `staging` (MAP_READ, ≥ 2n vec4) is reused and
 * unmapped when given; otherwise a staging buffer is made and destroyed (test-time reads).
 */
export async function readPair(
  device: GPUDevice,
  n: number,
  positions: GPUBuffer,
  velocities: GPUBuffer,
  staging?: GPUBuffer,
): Promise<{ positions: Float64Array; velocities: Float64Array }> {
  const bytes = n * VEC4_BYTES;
  const buffer =
    staging ??
    device.createBuffer({ size: 2 * bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder({ label: 'Weft.readPair' });
  encoder.copyBufferToBuffer(positions, 0, buffer, 0, bytes);
  encoder.copyBufferToBuffer(velocities, 0, buffer, bytes, bytes);
  device.queue.submit([encoder.finish()]);
  await buffer.mapAsync(GPUMapMode.READ);
  const data = new Float32Array(buffer.getMappedRange().slice(0));
  if (staging) staging.unmap();
  else buffer.destroy();
  const out = { positions: new Float64Array(3 * n), velocities: new Float64Array(3 * n) };
  for (let i = 0; i < n; i++)
    for (let c = 0; c < 3; c++) {
      out.positions[3 * i + c] = data[4 * i + c]!;
      out.velocities[3 * i + c] = data[4 * (n + i) + c]!;
    }
  return out;
}

/** n vec4<f32> of `buffer` from `offset` as xyz float64 (a staging buffer of its own). */
export async function readVec4Range(device: GPUDevice, buffer: GPUBuffer, offset: number, n: number): Promise<Float64Array> {
  const size = n * VEC4_BYTES;
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder({ label: 'Weft.readVec4Range' });
  encoder.copyBufferToBuffer(buffer, offset, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const data = new Float32Array(staging.getMappedRange().slice(0));
  staging.destroy();
  return Float64Array.from({ length: 3 * n }, (_, k) => data[4 * Math.floor(k / 3) + (k % 3)]!);
} // prettier-ignore

/** A whole buffer's bytes (a staging buffer of its own: statistics and test-time reads). */
export async function readBuffer(device: GPUDevice, buffer: GPUBuffer): Promise<Uint8Array> {
  const staging = device.createBuffer({
    size: buffer.size,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const encoder = device.createCommandEncoder({ label: 'Weft.readBuffer' });
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, buffer.size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const bytes = new Uint8Array(staging.getMappedRange().slice(0));
  staging.destroy();
  return bytes;
}

/** Calls `run(start, end)` for each run of consecutive values in `indices` (positions start..end). */
export function forRuns(indices: Uint32Array, run: (start: number, end: number) => void): void {
  for (let start = 0; start < indices.length;) {
    let end = start + 1;
    while (end < indices.length && indices[end] === indices[end - 1]! + 1) end++;
    run(start, end);
    start = end;
  }
}

/**
 * Writes xyz values of particles `indices` (w = `w`) into a vec4 buffer at `offset`, one
 * writeBuffer per run of consecutive indices: queued after the work submitted so far, no readback.
 */
export function writeVec4Runs(device: GPUDevice, buffer: GPUBuffer, offset: number, indices: Uint32Array, xyz: Float64Array, w: number): void {
  forRuns(indices, (start, end) => {
    const data = new Float32Array(4 * (end - start));
    for (let k = start; k < end; k++) data.set([xyz[3 * k]!, xyz[3 * k + 1]!, xyz[3 * k + 2]!, w], 4 * (k - start));
    device.queue.writeBuffer(buffer, offset + indices[start]! * VEC4_BYTES, data);
  });
} // prettier-ignore

/** Writes value(i) of particles `indices` into an f32 buffer, one writeBuffer per run. */
export function writeScalarRuns(device: GPUDevice, buffer: GPUBuffer, indices: Uint32Array, value: (i: number) => number): void {
  forRuns(indices, (start, end) => {
    device.queue.writeBuffer(buffer, indices[start]! * 4, Float32Array.from(indices.subarray(start, end), value));
  });
} // prettier-ignore

/** The bytes of a MAP_READ `buffer` (mapped now, after the submission that wrote it), which is unmapped again. */
export async function mappedCopy(buffer: GPUBuffer): Promise<ArrayBuffer> {
  await buffer.mapAsync(GPUMapMode.READ);
  const bytes = buffer.getMappedRange().slice(0);
  buffer.unmap();
  return bytes;
}
