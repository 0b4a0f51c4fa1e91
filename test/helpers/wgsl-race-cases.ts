/**
 * Workgroup tree reductions with their threads run in reverse order, for the quick cases
 * (test/helpers/wgsl-quick-cases.ts KERNEL_CHECKS) and so for the WGSL mutator.
 *
 * A tree reduction (implicit-common.wgsl workgroupSum, program-norm.wgsl) is race-free when, in
 * each step between two barriers, no thread writes an element another one reads. On a GPU the
 * threads of a step run in any order, so a reduction that is not (a thread past `stride` adding
 * in: `local <= stride`) returns another sum now and then. SwiftShader hides it: the four lanes of
 * a SIMD group load before they store, and the SIMD groups of a workgroup run one after another
 * in the order of their thread indices, so the reading thread (0) always reads before the extra
 * writer (≥ 1). Here the kernel's source is compiled with its local index reversed
 * (`local = N − 1 − index`, N the reduction's thread count) and with 32 threads (8 SIMD groups;
 * the project's SwiftShader default is one group of 4): the threads' work is the same, only the
 * order they run in is flipped — which a race-free kernel cannot tell, and a racing one can.
 * Buffers are this file's own; the expected partial sums are summed here in float64.
 *
 * No vitest here (the mutator imports this file inside its own vitest process).
 */
import { bindByName, kernels, readBuffer, structBytes, type KernelName } from '../../src/internal.ts';

const THREADS = 32;
/** Particles: a full workgroup and a part of one. */
const COUNT = 40;

/**
 * `name`'s source with the entry point's local_invocation_index reversed over `threads` (the WGSL
 * expression of the reduction's thread count).
 */
function reversed(name: KernelName, threads: string): string {
  const { code, entryPoint } = kernels()[name];
  const header = new RegExp(`fn ${entryPoint}\\(([^{]*?)\\)\\s*\\{`);
  const match = header.exec(code);
  if (!match || !/@builtin\(local_invocation_index\) local: u32/.test(match[1]!))
    throw new Error(`${name}: no entry point ${entryPoint} with a local_invocation_index named local`);
  const params = match[1]!.replace('local_invocation_index) local: u32', 'local_invocation_index) reversedIndex: u32'); // prettier-ignore
  return code.replace(
    header,
    `fn ${entryPoint}(${params}) {\n  let local = ${threads} - 1u - reversedIndex;`,
  );
}

/** Runs `name` (reversed) over COUNT particles with THREADS threads; returns its partials. */
async function runReversed(
  device: GPUDevice,
  name: KernelName,
  threads: string,
  constants: Record<string, number>,
  extra: (create: (data: ArrayBuffer, usage: number) => GPUBuffer) => Record<string, GPUBuffer>,
  positions: Float32Array,
  velocities: Float32Array,
): Promise<Float32Array> {
  const layout = kernels()[name];
  const owned: GPUBuffer[] = [];
  const create = (data: ArrayBuffer, usage: number): GPUBuffer => {
    const buffer = device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage: usage | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC }); // prettier-ignore
    device.queue.writeBuffer(buffer, 0, data);
    owned.push(buffer);
    return buffer;
  };
  try {
    const storage = GPUBufferUsage.STORAGE;
    const groups = Math.ceil(COUNT / THREADS);
    const module = device.createShaderModule({ label: `reversed ${name}`, code: reversed(name, threads) });
    const all: Record<string, number> = { workgroupSize: THREADS, groupThreads: THREADS, arenaStride: 48, ...constants }; // prettier-ignore
    const used = Object.fromEntries(Object.entries(all).filter(([key]) => layout.overrides.has(key)));
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: layout.entryPoint, constants: used } }); // prettier-ignore
    const partials = create(new ArrayBuffer(16 * groups), storage);
    const buffers: Record<string, GPUBuffer> = {
      params: create(structBytes(layout.structs.get('SimParams')!, { particleCount: COUNT, springCount: 0, gravity: [0, 0, 0], rayleighMass: 0 }), GPUBufferUsage.UNIFORM), // prettier-ignore
      positions: create(positions.slice().buffer, storage),
      velocities: create(velocities.slice().buffer, storage),
      arena: create(new ArrayBuffer(16 * 48), storage),
      partials,
      ...extra(create),
    };
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindByName(device, `reversed ${name}`, pipeline, layout, buffers));
    pass.dispatchWorkgroups(groups);
    pass.end();
    device.queue.submit([encoder.finish()]);
    const bytes = await readBuffer(device, partials);
    return new Float32Array(bytes.buffer, bytes.byteOffset, 4 * groups).slice();
  } finally {
    for (const buffer of owned) buffer.destroy();
  }
}

/** Every component of the COUNT particles' x and v non-zero and different, w as the buffers keep it. */
function state(): { positions: Float32Array; velocities: Float32Array } {
  const positions = new Float32Array(4 * COUNT);
  const velocities = new Float32Array(4 * COUNT);
  for (let i = 0; i < COUNT; i++) {
    positions.set([Math.sin(1.3 * i + 0.2), 0.5 + Math.cos(0.7 * i), -0.3 + Math.sin(2.1 * i), 1], 4 * i);
    velocities.set([0.2 * Math.cos(1.1 * i), -0.4 * Math.sin(0.9 * i + 1), 0.1 + 0.3 * Math.cos(1.7 * i), 0], 4 * i); // prettier-ignore
  }
  return { positions, velocities };
}

/** Per workgroup of THREADS particles: f summed (or maxed) over its particles, in float64. */
function perGroup(f: (i: number) => number, combine: (a: number, b: number) => number): number[] {
  return Array.from({ length: Math.ceil(COUNT / THREADS) }, (_, g) => {
    let total = 0;
    for (let i = g * THREADS; i < Math.min(COUNT, (g + 1) * THREADS); i++) total = combine(total, f(i));
    return total;
  });
}

function compare(what: string, gpu: Float32Array, component: number, expected: number[]): string[] {
  return expected.flatMap((value, g) => {
    const got = gpu[4 * g + component]!;
    // float32 sums of ≤ 32 terms of O(1) in another order: ~1e-6 relative; one term added twice: ≥ 1e-2.
    return Math.abs(got - value) <= 1e-5 * Math.abs(value) ? [] : [`${what}, workgroup ${g}: GPU ${got}, ${value}`]; // prettier-ignore
  });
}

/**
 * implicit-common.wgsl workgroupSum, through program-dots.wgsl (x·x and v·v per workgroup), and
 * program-norm.wgsl's own tree (Σ terms² and max |term| of the error norm with e = (x, v), a = 1,
 * r = 0), each with its threads reversed (see the file's comment): their partials against sums
 * and maxima taken here.
 */
export async function reversedReductions(device: GPUDevice): Promise<string[]> {
  const { positions, velocities } = state();
  const dot = (a: Float32Array, i: number): number =>
    a[4 * i]! ** 2 + a[4 * i + 1]! ** 2 + a[4 * i + 2]! ** 2;
  const largest = (i: number): number =>
    Math.max(
      ...[0, 1, 2].flatMap((k) => [Math.abs(positions[4 * i + k]!), Math.abs(velocities[4 * i + k]!)]),
    );
  const add = (a: number, b: number): number => a + b;
  const failures: string[] = [];
  const dots = await runReversed(device, 'programDots', 'groupThreads', { count: 2, u0: 0, w0: 0, u1: 1, w1: 1 }, () => ({}), positions, velocities); // prettier-ignore
  failures.push(
    ...compare(
      'program-dots x·x',
      dots,
      0,
      perGroup((i) => dot(positions, i), add),
    ),
  );
  failures.push(
    ...compare(
      'program-dots v·v',
      dots,
      1,
      perGroup((i) => dot(velocities, i), add),
    ),
  );
  const norm = await runReversed(
    device,
    'programNorm',
    'workgroupSize',
    { errorX: 0, errorV: 1, startX: 0, startV: 1, endX: 0, endV: 1 },
    (create) => ({
      op: create(structBytes(kernels().programNorm.structs.get('NormOp')!, { relative: 0, absolutePosition: 1, absoluteVelocity: 1, positionWeight: 1, velocityWeight: 1 }), GPUBufferUsage.UNIFORM), // prettier-ignore
      particleInvMass: create(new Float32Array(COUNT).fill(10).buffer, GPUBufferUsage.STORAGE),
    }),
    positions,
    velocities,
  );
  failures.push(...compare('program-norm Σ terms²', norm, 0, perGroup((i) => dot(positions, i) + dot(velocities, i), add))); // prettier-ignore
  failures.push(...compare('program-norm max |term|', norm, 1, perGroup(largest, Math.max)));
  return failures;
}
