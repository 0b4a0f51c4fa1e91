/**
 * Self-collision on WebGPU (CPU mirror: CpuSelfContact, src/backends/cpu/self-contact.ts, and
 * selfFailSafe, self-fail-safe.ts), as dispatches added to the executor's own ops:
 * - `selfContacts`: the moves m = h v, their mean (self-pair-mean.wgsl, one workgroup, a fixed
 *   order) and each particle's reach D_i = |m_i − m̄| + slack/2 (self-pair-reach.wgsl), then the
 *   detection (self-contact-detect.ts) at x₀ with the relative predicate
 *   dist < r + max |m_i − m_j| + slack — the CPU's listPairs;
 * - `eval`: self-pair-states.wgsl (explicit activation d < r, terms F g) then self-pair-gather.wgsl;
 *   `jacobians`: the states with the implicit activation d + h min(u_n, 0) < r; `rhs`, products and
 *   the diagonal: self-pair-terms, -gather, -product and -diagonal.wgsl (the rank-one passes of
 *   bending-ops.ts over the detection's incidence);
 * - `selfFailSafe`: 2 × MAX_SWEEPS sweeps, each a gate (self-fail-gate.wgsl) and, indirect on the
 *   counts it writes (zero once settled), the moves' listing, planes and truncation; then
 *   self-fail-apply.wgsl. No readback inside a step.
 */
import type { Op } from '../../integrators/program.ts';
import type { SelfContactStats } from '../../model/self-collision.ts';
import { SELF_START } from '../../integrators/self-contact-programs.ts';
import type { Dispatch, ExecutorServices } from './dispatch.ts';
import { historyRestartConstants } from './history-restart.ts';
import { dispatchSize, VEC4_BYTES } from './gpu-common.ts';
import { GpuSelfContactDetect, type SelfDetectVectors } from './self-contact-detect.ts';
import { checkSelfFlags, SELF_SCALARS } from './self-contact-read.ts';
import type { KernelName } from './kernels.ts';

/** Sweeps of each kind before the fail-safe gives up (self-fail-safe.ts MAX_SWEEPS). */
const MAX_SWEEPS = 8;
/** selfControl words (self-pair-common.wgsl CONTROL_*). */
const CONTROL_WORDS = 8;

/** The arena the detection reads x₀ from (the executor's). */
export type SelfArena = Pick<SelfDetectVectors, 'positions' | 'velocities' | 'arena' | 'arenaStride'>;

export class GpuSelfContact {
  readonly detection: GpuSelfContactDetect;
  /** The diagonal blocks of A the system kernels add (bending's buffer when the model bends). */
  readonly diagonal: GPUBuffer;
  private readonly accumulate: number;
  private readonly buffers: Record<string, GPUBuffer>;
  private readonly constants: Record<string, number>;
  private readonly sweepCount: number;

  constructor(
    private readonly x: ExecutorServices,
    arena: SelfArena,
    h: number,
  ) {
    const { model, device } = x;
    const self = model.selfCollision!;
    const n = model.particleCount;
    const startRef = x.reference(SELF_START);
    const gravity = Math.hypot(...model.gravity);
    this.detection = new GpuSelfContactDetect(device, { particleCount: n, triangleIndices: self.triangleIndices, edgeIndices: self.edgeIndices, thickness: self.thickness, gravity, maxPairsPerParticle: self.maxPairsPerParticle, workgroupSize: x.workgroupSize, reach: 'given', relative: true }, { ...arena, xRef: startRef, vRef: 1 }); // prettier-ignore
    const o = this.detection.offsets;
    const capacity = Math.max(1, this.detection.pairCapacity);
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    this.accumulate = x.bending ? 1 : 0;
    this.diagonal = x.bending?.diagonal ?? x.create('selfDiagonal', 2 * n * VEC4_BYTES, storage);
    this.sweepCount = 4 + this.detection.dispatches.length;
    const args = new Uint32Array(6 * this.sweepCount);
    this.buffers = {
      selfPairs: this.detection.pairs,
      selfParticle: this.detection.particle,
      pairStates: x.create('selfPairStates', 4 * capacity * VEC4_BYTES, storage),
      pairTerms: x.create('selfPairTerms', 4 * capacity * VEC4_BYTES, storage),
      selfScale: x.create('selfScale', 4 * n, storage, new Float32Array(n).fill(1).buffer),
      selfControl: x.create('selfControl', 4 * CONTROL_WORDS, storage),
      selfArgs: x.create('selfArgs', args.byteLength, storage | GPUBufferUsage.INDIRECT),
      bendingDiagonal: this.diagonal,
      selfOp: x.uniform('selfPairStates', 'SelfPairOp', (h) => ({ h, thickness: self.thickness, stiffness: self.stiffness, damping: self.damping, gravity }), true), // prettier-ignore
    };
    this.constants = { pairsAt: o.pairs, countAt: o.pairOffset + n + this.detection.edgeCount, pairCapacity: this.detection.pairCapacity, incidenceAt: o.incStart, entriesAt: o.incSorted, startRef }; // prettier-ignore
    this.writeTemplate(args);
    this.detection.setStep(h);
  }

  /** The sweep's workgroup counts, as encodeDispatches would launch them, into selfArgs' template. */
  private writeTemplate(args: Uint32Array<ArrayBuffer>): void {
    const { device, workgroupSize } = this.x;
    const threads = [1, this.x.model.particleCount, ...this.detection.dispatches.map((d) => d.threads), this.x.model.particleCount, this.x.model.particleCount]; // prettier-ignore
    threads.forEach((count, k) => {
      const [gx, gy] = count > 0 ? dispatchSize(count, workgroupSize, device.limits) : [0, 0];
      args.set([gx, gy, count > 0 ? 1 : 0], 3 * k);
    });
    device.queue.writeBuffer(this.buffers['selfArgs']!, 0, args);
  }

  private pass(kernel: KernelName, constants: Record<string, number>, extra: Record<string, GPUBuffer> = {}, domain: Dispatch['domain'] = 'particles'): Dispatch {
    return this.x.dispatch(kernel, kernel, domain, { ...this.buffers, ...extra }, { ...this.constants, ...constants }); // prettier-ignore
  } // prettier-ignore

  /** The detection uses step h from now on (its uniform). */
  setStep(h: number): void {
    this.detection.setStep(h);
  }

  /** The `selfContacts` op: the pairs of the moves h v at x (= x₀), as CpuSelfContact.detect. */
  contacts(op: Extract<Op, { op: 'selfContacts' }>, heads: ReadonlyMap<string, number>): Dispatch[] {
    const refs = { xRef: this.x.reference(op.x, heads), vRef: this.x.reference(op.v, heads), motion: 0 };
    return [this.pass('selfPairMean', refs, {}, 'single'), this.pass('selfPairReach', refs), ...this.detection.dispatches];
  } // prettier-ignore

  /** After an `eval`'s gather: a += Σ F g / m at (x, v), the pairs active where d < r. */
  evaluate(refs: { xRef: number; vRef: number; aRef: number }): Dispatch[] {
    return [this.pass('selfPairStates', { ...refs, implicit: 0, writeTerms: 1 }), this.pass('selfPairGather', { toRef: refs.aRef, perMass: 1 })]; // prettier-ignore
  }

  /** After a `jacobians`: the pair states at (x, v), active where d + h min(u_n, 0) < r. */
  jacobians(xRef: number, vRef: number): Dispatch {
    return this.pass('selfPairStates', { xRef, vRef, implicit: 1, writeTerms: 0 });
  }

  /** After an `rhs`: to += the pairs' share of the right-hand side. */
  rhs(op: Extract<Op, { op: 'rhs' }>, refs: { vRef: number; aRef: number; toRef: number }, solver: GPUBuffer): Dispatch[] {
    const uniform = this.x.uniform('selfPairTerms', 'SelfTermsOp', (h) => {
      const c = op.coefficients(h);
      return { forceScale: c.forceScale, velocityStiffness: c.velocityStiffness, accelerationStiffness: c.accelerationStiffness, velocityDamping: c.velocityDamping, accelerationDamping: c.accelerationDamping }; // prettier-ignore
    }, true);
    return [
      this.pass('selfPairTerms', { vRef: refs.vRef, aRef: refs.aRef, fromSolver: 0 }, { op: uniform, solver }),
      this.pass('selfPairGather', { toRef: refs.toRef, perMass: 0 }),
    ];
  } // prettier-ignore

  /** After a product q = A p (and bending's part): q += the pairs', and CG's partial p·q. */
  product(solver: GPUBuffer, inputRef: number, productRef: number): Dispatch[] {
    const op = this.buffers['selfOp']!; // unused by the product (fromSolver = 1): any uniform binds
    return [
      this.pass('selfPairTerms', { vRef: inputRef, aRef: inputRef, fromSolver: 1 }, { solver, op }),
      this.pass('selfPairProduct', { inputRef, productRef }),
    ];
  }

  /** After bending's diagonal pass (if any): the pairs' part of each diagonal block of `solver`'s A. */
  diagonalPass(solver: GPUBuffer): Dispatch {
    return this.pass('selfPairDiagonal', { accumulate: this.accumulate }, { solver });
  }

  /** The `selfFailSafe` op: 2 × MAX_SWEEPS gated sweeps, then the moves applied (selfFailSafe). */
  failSafe(op: Extract<Op, { op: 'selfFailSafe' }>, heads: ReadonlyMap<string, number>): Dispatch[] {
    const refs = { xRef: this.x.reference(op.x, heads), vRef: this.x.reference(op.v, heads) };
    const argsBuffer = this.buffers['selfArgs']!;
    const out: Dispatch[] = [];
    for (let sweep = 0; sweep < 2 * MAX_SWEEPS; sweep++) {
      const phase = sweep < MAX_SWEEPS ? 1 : 2;
      out.push(this.pass('selfFailGate', { sweep, dispatchCount: this.sweepCount }, {}, 'single'));
      const list = [
        this.pass('selfPairMean', { ...refs, motion: phase }, {}, 'single'),
        this.pass('selfPairReach', { ...refs, motion: phase }),
        ...this.detection.dispatches,
        this.pass('selfFailPlanes', refs),
        this.pass('selfFailTruncate', { ...refs, phase }),
      ];
      list.forEach((d, k) => out.push({ ...d, indirect: { buffer: argsBuffer, offset: 4 * (3 * this.sweepCount + 3 * k) } })); // prettier-ignore
    }
    const restart = historyRestartConstants(this.x, 'selfFailSafe', op.restart, heads);
    out.push(this.pass('selfFailApply', { ...refs, ...restart }));
    return out;
  }

  /**
   * Raises the detection's sticky flags (pairs past the capacity, a query box past its cells) as
   * the CPU's errors: two small readbacks, made with every read of the state so that a run whose
   * pairs were cut is an error, not a result.
   */
  async checkFlags(): Promise<void> {
    const device = this.x.device;
    const d = this.detection;
    const [head, total] = await Promise.all([readRange(device, d.pairs, 0, 64), readRange(device, d.pairs, 4 * this.constants['countAt']!, 4)]); // prettier-ignore
    const words = new Uint32Array(head.buffer);
    const scalars = new Float32Array(head.buffer);
    checkSelfFlags(words[SELF_SCALARS.flags]!, new Uint32Array(total.buffer)[0]!, d, scalars[SELF_SCALARS.cellSize]!, scalars[SELF_SCALARS.reach]!); // prettier-ignore
  }

  /** The last step's statistics (a readback), raising the detection's flags as the CPU's errors. */
  async readStats(): Promise<SelfContactStats> {
    const device = this.x.device;
    const control = new Uint32Array((await readRange(device, this.buffers['selfControl']!, 0, 4 * CONTROL_WORDS)).buffer); // prettier-ignore
    const head = new Uint32Array((await readRange(device, this.detection.pairs, 0, 64)).buffer);
    const d = this.detection;
    const total = new Uint32Array((await readRange(device, d.pairs, 4 * this.constants['countAt']!, 4)).buffer)[0]!; // prettier-ignore
    const scalars = new Float32Array(head.buffer);
    checkSelfFlags(
      head[SELF_SCALARS.flags]!,
      total,
      d,
      scalars[SELF_SCALARS.cellSize]!,
      scalars[SELF_SCALARS.reach]!,
    );
    const pairs = control[7]!;
    let activePairs = 0;
    if (pairs > 0) {
      const states = new Float32Array((await readRange(device, this.buffers['pairStates']!, 0, 4 * pairs * VEC4_BYTES)).buffer); // prettier-ignore
      for (let e = 0; e < pairs; e++) activePairs += states[16 * e + 15]! > 0 ? 1 : 0;
    }
    return { pairs, activePairs, truncated: control[5]!, sweeps: control[2]!, undone: control[6]!, frozen: control[3]!, pinched: control[4]! }; // prettier-ignore
  }

  destroy(): void {
    this.detection.destroy();
  }
}

/** `bytes` of `buffer` from `offset` (a staging buffer of its own). */
async function readRange(device: GPUDevice, buffer: GPUBuffer, offset: number, bytes: number): Promise<Uint8Array> {
  const size = Math.ceil(bytes / 4) * 4;
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder({ label: 'Weft.selfRead' });
  encoder.copyBufferToBuffer(buffer, offset, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Uint8Array(staging.getMappedRange().slice(0));
  staging.destroy();
  return out;
} // prettier-ignore
