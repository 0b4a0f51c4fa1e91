/**
 * Exclusive prefix sums of u32 regions on the GPU (shaders/self-scan.wgsl, self-scan-add.wgsl; the
 * structure of kishimisu/WebGPU-Radix-Sort's prefix_sum.js): level 0 scans chunks of
 * 4 · workgroupSize entries and writes each chunk's total to a block region; each further level
 * scans the previous level's blocks in place, until one chunk holds them all; then the blocks'
 * prefixes are added back, top level first. With 64 threads (256 entries a chunk): 1 dispatch up to
 * 256 entries, 3 up to 65,536, 5 up to 2²⁴. Counting: the result is the same in any thread order.
 */
import { encodeDispatches, type Dispatch } from './dispatch.ts';
import { writeStruct } from './layout.ts';
import { selfKernels, selfPipeline } from './self-kernels.ts';
import { bindByName, bufferFactory, readBuffer } from './gpu-common.ts';

/** One level of a scan (the WGSL struct ScanLevel); offsets in u32 words of the scanned buffer. */
export interface ScanLevel {
  readonly inputOffset: number;
  readonly outputOffset: number;
  readonly inputCount: number;
  readonly outputCount: number;
  readonly blockOffset: number;
  readonly writeBlocks: number;
}

/** The levels of an exclusive scan of `count` entries into `count + 1` (the last: the total). */
export interface ScanPlan {
  readonly levels: readonly ScanLevel[];
  /** u32 words of block sums used from the scratch offset. */
  readonly scratchWords: number;
}

/**
 * The levels of a scan of `count` entries at `inputOffset` into `count + 1` at `outputOffset`,
 * block sums from `scratchOffset` (all in u32 words of one buffer).
 */
export function scanPlan(
  count: number,
  inputOffset: number,
  outputOffset: number,
  scratchOffset: number,
  workgroupSize: number,
): ScanPlan {
  const chunk = 4 * workgroupSize;
  const levels: ScanLevel[] = [];
  let level = { inputOffset, outputOffset, inputCount: count, outputCount: count + 1 };
  let scratch = scratchOffset;
  for (;;) {
    const groups = Math.ceil(level.outputCount / chunk);
    const blockOffset = groups > 1 ? scratch : 0;
    levels.push({ ...level, blockOffset, writeBlocks: groups > 1 ? 1 : 0 });
    if (groups <= 1) break;
    scratch += groups;
    level = { inputOffset: blockOffset, outputOffset: blockOffset, inputCount: groups, outputCount: groups };
  }
  return { levels, scratchWords: scratch - scratchOffset };
}

/** u32 words of block sums a scan of `count` entries needs. */
export function scanScratchWords(count: number, workgroupSize: number): number {
  return scanPlan(count, 0, 0, 0, workgroupSize).scratchWords;
}

/**
 * The dispatches of `plan` on `buffer`: each level's scan, then the adds from the second-highest
 * level down. `uniform(bytes)` makes a uniform buffer holding one level's ScanLevel.
 */
export function scanDispatches(
  device: GPUDevice,
  label: string,
  buffer: GPUBuffer,
  plan: ScanPlan,
  workgroupSize: number,
  uniform: (bytes: ArrayBuffer) => GPUBuffer,
): Dispatch[] {
  const layouts = selfKernels();
  const struct = layouts.selfScan.structs.get('ScanLevel')!;
  const uniforms = plan.levels.map((level) => {
    const bytes = new ArrayBuffer(Math.ceil(struct.size / 16) * 16);
    writeStruct(struct, { ...level }, new DataView(bytes));
    return uniform(bytes);
  });
  const pass = (kernel: 'selfScan' | 'selfScanAdd', k: number, threads: number): Dispatch => {
    const target = selfPipeline(device, kernel, workgroupSize);
    const buffers = { scanLevel: uniforms[k]!, scanData: buffer };
    const bindGroup = bindByName(device, `${label}.${kernel}${k}`, target, layouts[kernel], buffers);
    return { kind: 'dispatch', label: `${label}.${kernel}${k}`, domain: 'particles', threads, pipeline: target, bindGroup }; // prettier-ignore
  };
  const list = plan.levels.map((level, k) => pass('selfScan', k, Math.ceil(level.outputCount / 4)));
  for (let k = plan.levels.length - 2; k >= 0; k--)
    list.push(pass('selfScanAdd', k, plan.levels[k]!.outputCount));
  return list;
}

/**
 * The exclusive scan of `values` (with the total last, values.length + 1 entries) computed on the
 * GPU by the dispatches of {@link scanDispatches}, with `workgroupSize` threads (tests); after the
 * block sums, as many words again of a sentinel, which must come back untouched.
 */
export async function runSelfScan(device: GPUDevice, values: Uint32Array, workgroupSize = 64): Promise<{ sums: Uint32Array; dispatches: number; sentinelIntact: boolean }> {
  const count = values.length;
  const plan = scanPlan(count, 0, count, 2 * count + 1, workgroupSize);
  const used = 2 * count + 1 + plan.scratchWords;
  const words = used + count + 1;
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
  const owned: GPUBuffer[] = [];
  const create = bufferFactory(device, 'Weft.selfScanTest', owned);
  try {
    const data = create('data', 4 * words, usage);
    const initial = new Uint32Array(words).fill(0xdeadbeef);
    initial.set(values);
    device.queue.writeBuffer(data, 0, initial);
    const list = scanDispatches(device, 'Weft.selfScanTest', data, plan, workgroupSize, (bytes) => create('level', bytes.byteLength, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, bytes)); // prettier-ignore
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    encodeDispatches(pass, list, workgroupSize, device.limits);
    pass.end();
    device.queue.submit([encoder.finish()]);
    const all = new Uint32Array((await readBuffer(device, data)).buffer, 0, words);
    return { sums: all.slice(count, 2 * count + 1), dispatches: list.length, sentinelIntact: all.subarray(used).every((w) => w === 0xdeadbeef) }; // prettier-ignore
  } finally {
    for (const buffer of owned) buffer.destroy();
  }
} // prettier-ignore
