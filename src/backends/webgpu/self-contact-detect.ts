/**
 * Self-collision detection on WebGPU (design: reports/design/self-collision.md §2, §3; CPU
 * reference: detectSelfPairs, src/backends/cpu/self-contact-detect.ts): the buffers and the
 * dispatches of one detection at (x, v), no dynamics. Per detection:
 *
 *   selfReset · selfBounds (D_i, the maxima D_max, ρ_max, λ_max) · selfKeys (the step's cell size,
 *   keys, bucket counts) · scan of the 2T counts · selfScatter ·
 *   selfNarrow count · scan of the n + e pair counts · selfNarrow write (partners, ranked records,
 *   incidence counts) · scan of the n incidence counts · selfIncScatter · selfIncSort
 *
 * — 9 dispatches and three scans of ≤ 5 each. The cell size is the step's, 2 (r + D_max +
 * max(ρ_max, λ_max)), computed on the GPU from the maxima (as the CPU's detectSelfPairs sizes its
 * cells), so a query box spans at most 3 cells per axis however fast the particles move; the
 * query-box error remains for a fixed `cellSize` and for non-finite positions or reaches. The
 * pair list is a pure function of (x, v): the pairs
 * whose predicate holds, in the order VT by vertex then triangle, then EE by edge then edge; the
 * incidence lists each particle's 4 · pair + corner ascending. Neither depends on the cell size,
 * the table size or the threads' order.
 */
import type { Dispatch } from './dispatch.ts';
import { encodeDispatches } from './dispatch.ts';
import { bindByName, bufferFactory, readBuffer, VEC4_BYTES } from './gpu-common.ts';
import { writeStruct } from './layout.ts';
import { selfKernels, selfPipeline, type SelfKernelName } from './self-kernels.ts';
import { scanDispatches, scanPlan, scanScratchWords } from './self-scan.ts';
import { decodeSelfPairs, type GpuSelfPairs } from './self-contact-read.ts';

/** What detection needs of the model (ResolvedSelfCollision and the model's particles). */
export interface SelfDetectSpec {
  readonly particleCount: number;
  /** [3t] */
  readonly triangleIndices: Uint32Array;
  /** [2e], a < b */
  readonly edgeIndices: Uint32Array;
  /** 1 where the particle is fixed: it gets no incidence entries. Default: none fixed. */
  readonly fixed?: ArrayLike<number>;
  /** r, m. */
  readonly thickness: number;
  /** |g|, m/s². */
  readonly gravity: number;
  /** Pair capacity P_max = floor(maxPairsPerParticle · n). */
  readonly maxPairsPerParticle: number;
  /**
   * c_s, m, fixed. Default: each detection's own, 2 (r + D_max + max(ρ_max, λ_max)) from its
   * reaches and positions (self-keys.wgsl), read back as {@link GpuSelfPairs.cellSize}.
   */
  readonly cellSize?: number;
  /** T. Default nextPow2(t + e). */
  readonly tableSize?: number;
  /** Threads per workgroup (default 64). */
  readonly workgroupSize?: number;
  /** Threads take their work in reverse order (determinism tests). */
  readonly reverseThreads?: boolean;
  /**
   * 'velocity' (default): selfKeys computes D_i = 2h|v_i| + h²|g| + r/2; 'given': the D_i in the
   * particle buffer's x components are used as they are ({@link GpuSelfContactDetect.uploadReach}).
   */
  readonly reach?: 'velocity' | 'given';
  /**
   * The dynamics' relative predicate (CpuSelfContact.listPairs): with reach 'given', selfParticle
   * holds (D_i, m_i) and selfPairs word 4 the slack; a pair is listed when dist < r + max |m_i − m_j|
   * + slack. Default false: dist < r + D_P1 + D_P2.
   */
  readonly relative?: boolean;
}

/** The program's vectors the kernels read: x and v by reference (program-vectors.wgsl). */
export interface SelfDetectVectors {
  readonly positions: GPUBuffer;
  readonly velocities: GPUBuffer;
  readonly arena: GPUBuffer;
  readonly arenaStride: number;
  readonly xRef: number;
  readonly vRef: number;
}

/** Region offsets in u32 words (the WGSL struct SelfDetect's u32 members). */
function regions(
  n: number,
  t: number,
  e: number,
  tableSize: number,
  capacity: number,
  workgroupSize: number,
) {
  const gridKeys = 4 * tableSize + 1;
  const gridItems = gridKeys + 4 * (t + e);
  const gridScratch = gridItems + 4 * (t + e);
  const primCount = 16;
  const pairOffset = primCount + n + e;
  const slots = pairOffset + n + e + 1;
  const pairs = slots + 4 * capacity;
  const partners = pairs + 4 * capacity;
  const incCount = partners + 2 * capacity;
  const incStart = incCount + n;
  const incSorted = incStart + n + 1;
  const pairScratch = incSorted + 4 * capacity;
  const scratch = Math.max(scanScratchWords(n + e, workgroupSize), scanScratchWords(n, workgroupSize));
  return {
    offsets: { edgeBase: 3 * t, fixedBase: 3 * t + 2 * e, gridCount: 0, gridStart: 2 * tableSize, gridKeys, gridItems, primCount, pairOffset, slots, pairs, partners, incCount, incStart, incSorted }, // prettier-ignore
    gridScratch,
    gridWords: gridScratch + scanScratchWords(2 * tableSize, workgroupSize),
    pairScratch,
    pairWords: pairScratch + scratch,
  };
}

export class GpuSelfContactDetect {
  readonly particleCount: number;
  readonly triangleCount: number;
  readonly edgeCount: number;
  readonly tableSize: number;
  readonly pairCapacity: number;
  readonly workgroupSize: number;
  /** Made here when no vectors were given (upload() fills them). */
  readonly vectors: SelfDetectVectors;
  readonly grid: GPUBuffer;
  readonly pairs: GPUBuffer;
  readonly particle: GPUBuffer;
  private readonly owned: GPUBuffer[] = [];
  private readonly uniform: GPUBuffer;
  private readonly layout: ReturnType<typeof regions>;
  /** The detection's dispatches, in order. */
  readonly dispatches: readonly Dispatch[];

  constructor(
    readonly device: GPUDevice,
    readonly spec: SelfDetectSpec,
    vectors?: SelfDetectVectors,
  ) {
    const n = (this.particleCount = spec.particleCount);
    const t = (this.triangleCount = spec.triangleIndices.length / 3);
    const e = (this.edgeCount = spec.edgeIndices.length / 2);
    this.tableSize = spec.tableSize ?? 2 ** Math.ceil(Math.log2(Math.max(1, t + e)));
    this.pairCapacity = Math.floor(spec.maxPairsPerParticle * n);
    const wgs = (this.workgroupSize = spec.workgroupSize ?? 64);
    this.layout = regions(n, t, e, this.tableSize, Math.max(1, this.pairCapacity), wgs);
    const create = bufferFactory(device, 'Weft.selfDetect', this.owned);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const topology = new Uint32Array(3 * t + 2 * e + n);
    topology.set(spec.triangleIndices);
    topology.set(spec.edgeIndices, 3 * t);
    if (spec.fixed) for (let i = 0; i < n; i++) topology[3 * t + 2 * e + i] = spec.fixed[i] ? 1 : 0;
    const topologyBuffer = create('topology', topology.byteLength, storage, topology.buffer);
    this.grid = create('grid', 4 * this.layout.gridWords, storage);
    this.pairs = create('pairs', 4 * this.layout.pairWords, storage);
    this.particle = create('particle', (n + t + e) * VEC4_BYTES, storage);
    const uniformStruct = selfKernels().selfKeys.structs.get('SelfDetect')!;
    this.uniform = create('uniform', uniformStruct.size, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    this.vectors = vectors ?? this.ownVectors(create);
    this.setStep(1 / 60);
    const buffers = { positions: this.vectors.positions, velocities: this.vectors.velocities, arena: this.vectors.arena, selfDetect: this.uniform, selfTopology: topologyBuffer, selfGrid: this.grid, selfPairs: this.pairs, selfParticle: this.particle }; // prettier-ignore
    const constants = {
      arenaStride: this.vectors.arenaStride,
      xRef: this.vectors.xRef,
      vRef: this.vectors.vRef,
    };
    const pass = (kernel: SelfKernelName, threads: number, extra: Record<string, number> = {}): Dispatch => {
      const target = selfPipeline(device, kernel, wgs, { ...constants, ...extra });
      const bindGroup = bindByName(device, `Weft.${kernel}`, target, selfKernels()[kernel], buffers);
      return { kind: 'dispatch', label: kernel, domain: 'particles', threads, pipeline: target, bindGroup };
    };
    const uniform = (bytes: ArrayBuffer) =>
      create('scanLevel', bytes.byteLength, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, bytes);
    const scan = (buffer: GPUBuffer, count: number, input: number, output: number, scratch: number) =>
      scanDispatches(
        device,
        'Weft.selfScan',
        buffer,
        scanPlan(count, input, output, scratch, wgs),
        wgs,
        uniform,
      );
    const o = this.layout.offsets;
    this.dispatches = [
      pass('selfReset', Math.max(2 * this.tableSize, n)),
      pass('selfBounds', Math.max(n, t + e), { reachFromVelocity: spec.reach === 'given' ? 0 : 1 }),
      pass('selfKeys', t + e),
      ...scan(this.grid, 2 * this.tableSize, o.gridCount, o.gridStart, this.layout.gridScratch),
      pass('selfScatter', t + e),
      pass('selfNarrow', n + e, { writePairs: 0, relative: spec.relative ? 1 : 0 }),
      ...scan(this.pairs, n + e, o.primCount, o.pairOffset, this.layout.pairScratch),
      pass('selfNarrow', n + e, { writePairs: 1, relative: spec.relative ? 1 : 0 }),
      ...scan(this.pairs, n, o.incCount, o.incStart, this.layout.pairScratch),
      pass('selfIncScatter', 4 * this.pairCapacity),
      pass('selfIncSort', n),
    ];
  }

  /** positions, velocities and a one-slot arena of the detection's own (standalone use). */
  private ownVectors(create: ReturnType<typeof bufferFactory>): SelfDetectVectors {
    const bytes = this.particleCount * VEC4_BYTES;
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    return {
      positions: create('positions', bytes, storage),
      velocities: create('velocities', bytes, storage),
      arena: create('arena', VEC4_BYTES, storage),
      arenaStride: 0,
      xRef: 0,
      vRef: 1,
    };
  }

  /** The regions of the grid and pairs buffers, in u32 words (the WGSL struct SelfDetect's). */
  get offsets(): ReturnType<typeof regions>['offsets'] {
    return this.layout.offsets;
  }

  /** Writes the uniform for a step of h (queued). */
  setStep(h: number): void {
    const struct = selfKernels().selfKeys.structs.get('SelfDetect')!;
    const bytes = new ArrayBuffer(Math.ceil(struct.size / 16) * 16);
    const values = { h, gravity: this.spec.gravity, thickness: this.spec.thickness, cellSize: this.spec.cellSize ?? 0, particleCount: this.particleCount, triangleCount: this.triangleCount, edgeCount: this.edgeCount, tableSize: this.tableSize, pairCapacity: this.pairCapacity, reverseThreads: this.spec.reverseThreads ? 1 : 0, ...this.layout.offsets }; // prettier-ignore
    writeStruct(struct, values, new DataView(bytes));
    this.device.queue.writeBuffer(this.uniform, 0, bytes);
  }

  /** Standalone use: x and v (xyz per particle) into the detection's own vectors. */
  upload(positions: ArrayLike<number>, velocities: ArrayLike<number>): void {
    const pack = (values: ArrayLike<number>, w: number): Float32Array<ArrayBuffer> => {
      const out = new Float32Array(4 * this.particleCount);
      for (let i = 0; i < this.particleCount; i++)
        out.set([values[3 * i]!, values[3 * i + 1]!, values[3 * i + 2]!, w], 4 * i);
      return out;
    };
    this.device.queue.writeBuffer(this.vectors.positions, 0, pack(positions, 1));
    this.device.queue.writeBuffer(this.vectors.velocities, 0, pack(velocities, 0));
  }

  /** Reach 'given': D_i per particle [n], m, into the particle buffer (queued). */
  uploadReach(reach: ArrayLike<number>): void {
    const out = new Float32Array(4 * this.particleCount);
    for (let i = 0; i < this.particleCount; i++) out[4 * i] = reach[i]!;
    this.device.queue.writeBuffer(this.particle, 0, out);
  }

  /** Records the detection's dispatches into `pass`; returns how many. */
  encode(pass: GPUComputePassEncoder): number {
    return encodeDispatches(pass, this.dispatches, this.workgroupSize, this.device.limits);
  }

  /** One detection, submitted on its own. */
  detect(): void {
    const encoder = this.device.createCommandEncoder({ label: 'Weft.selfDetect' });
    const pass = encoder.beginComputePass();
    this.encode(pass);
    pass.end();
    this.device.queue.submit([encoder.finish()]);
  }

  /** Clears the sticky flags (queued). */
  clearFlags(): void {
    this.device.queue.writeBuffer(this.pairs, 0, new Uint32Array(1));
  }

  /**
   * The last detection's pairs, incidence and flags (a debug read-back). Throws on a flag (pair
   * capacity, query box, count mismatch) unless `unchecked`.
   */
  async read(unchecked = false): Promise<GpuSelfPairs> {
    const bytes = await readBuffer(this.device, this.pairs);
    return decodeSelfPairs(
      new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4),
      this,
      this.layout.offsets,
      unchecked,
    );
  }

  destroy(): void {
    for (const buffer of this.owned) buffer.destroy();
  }
}
