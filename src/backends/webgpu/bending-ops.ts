/**
 * Dihedral bending on WebGPU (CPU mirror: src/backends/cpu/bending.ts), as dispatches added to the
 * executor's own ops, never a path of its own:
 * - `eval`: bending-hinges.wgsl (∇θ, F and the terms F ∇θ at (x, v)) then bending-gather.wgsl
 *   (a_i += Σ terms / m_i), after the springs' gather;
 * - `jacobians`: bending-hinges.wgsl (the hinge states the solver reads);
 * - `rhs`: bending-terms.wgsl with the rhs's coefficients, then bending-gather.wgsl (b_i += Σ terms);
 * - each product q = A p: bending-terms.wgsl (σ = (γ 2kc + β dc) ∇θ·p from the solve's
 *   SolverParams) then bending-product.wgsl (q_i += Σ terms, and CG's partial p·q);
 * - the diagonal (pcg, jacobi): bending-diagonal.wgsl before system-diagonal.wgsl adds it.
 * The per-hinge passes run on the per-particle grid (each thread a stride of hinges), so Newton
 * loops and CG gate them with the per-particle counts as they gate every other pass.
 */
import type { Op } from '../../integrators/program.ts';
import { buildIncidence } from '../../model/incidence.ts';
import type { Dispatch, ExecutorServices } from './dispatch.ts';
import { kernels } from './kernels.ts';
import { writeStruct } from './layout.ts';
import { VEC4_BYTES } from './gpu-common.ts';

/** The hinges' buffers and the dispatches of their passes. */
export class GpuBending {
  /** Bending's part of each particle's diagonal block of A: two vec4 per particle. */
  readonly diagonal: GPUBuffer;
  private readonly buffers: Readonly<Record<string, GPUBuffer>>;
  private readonly hingeCount: number;

  constructor(private readonly x: ExecutorServices) {
    const { model } = x;
    const bending = model.bending!;
    const n = model.particleCount;
    this.hingeCount = bending.hingeCount;
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const layout = kernels().bendingHinges.structs.get('Hinge')!;
    const stride = kernels().bendingHinges.bindings.get('hinges')!.stride;
    const hinges = new ArrayBuffer(Math.max(1, this.hingeCount) * stride);
    const view = new DataView(hinges);
    for (let h = 0; h < this.hingeCount; h++) {
      const values = {
        particles: Array.from(bending.hingeIndices.subarray(4 * h, 4 * h + 4)),
        restAngle: bending.hingeRestAngle[h]!,
        stiffness: 2 * bending.hingeStiffness[h]!, // 2 k c
        damping: bending.hingeDamping[h]!, // d c
        pad: 0,
      };
      writeStruct(layout, values, view, h * stride);
    }
    const { offsets, entries } = buildIncidence(n, bending.hingeIndices);
    const incidence = new Uint32Array(offsets.length + entries.length);
    incidence.set(offsets);
    incidence.set(entries, offsets.length);
    const perCorner = Math.max(1, 4 * this.hingeCount) * VEC4_BYTES;
    this.diagonal = x.create('bendingDiagonal', 2 * n * VEC4_BYTES, storage);
    this.buffers = {
      hinges: x.create('hinges', hinges.byteLength, storage, hinges),
      hingeStates: x.create('hingeStates', perCorner, storage),
      hingeTerms: x.create('hingeTerms', perCorner, storage),
      hingeIncidence: x.create('hingeIncidence', incidence.byteLength, storage, incidence.buffer),
      bendingDiagonal: this.diagonal,
      // The product's terms read the solve's SolverParams; the rhs's read `op`.
      op: x.uniform('bendingTerms', 'BendingTermsOp', () => ({ forceScale: 0, velocityStiffness: 0, accelerationStiffness: 0, velocityDamping: 0, accelerationDamping: 0 })), // prettier-ignore
    };
  }

  private pass(
    kernel: Parameters<ExecutorServices['dispatch']>[0],
    constants: Record<string, number>,
    extra: Record<string, GPUBuffer> = {},
  ): Dispatch {
    return this.x.dispatch(kernel, kernel, 'particles', { ...this.buffers, ...extra }, { hingeCount: this.hingeCount, ...constants }); // prettier-ignore
  }

  /** After an `eval`'s gather: a += Σ F ∇θ / m at (x, v). */
  evaluate(refs: { xRef: number; vRef: number; aRef: number }): Dispatch[] {
    return [this.pass('bendingHinges', { ...refs, writeTerms: 1 }), this.pass('bendingGather', { toRef: refs.aRef, perMass: 1 })]; // prettier-ignore
  }

  /** After a `jacobians`: the hinge states at (x, v). */
  jacobians(xRef: number, vRef: number): Dispatch {
    return this.pass('bendingHinges', { xRef, vRef, writeTerms: 0 });
  }

  /** After an `rhs`: to += the hinges' share of the right-hand side (bending-terms.wgsl). */
  rhs(op: Extract<Op, { op: 'rhs' }>, refs: { vRef: number; aRef: number; toRef: number }, solver: GPUBuffer): Dispatch[] {
    const op_ = this.x.uniform('bendingTerms', 'BendingTermsOp', (h) => {
      const c = op.coefficients(h);
      return { forceScale: c.forceScale, velocityStiffness: c.velocityStiffness, accelerationStiffness: c.accelerationStiffness, velocityDamping: c.velocityDamping, accelerationDamping: c.accelerationDamping }; // prettier-ignore
    }, true);
    return [
      this.pass('bendingTerms', { vRef: refs.vRef, aRef: refs.aRef, fromSolver: 0 }, { op: op_, solver }),
      this.pass('bendingGather', { toRef: refs.toRef, perMass: 0 }),
    ];
  } // prettier-ignore

  /** After a product q = A p (system-product.wgsl or mg-product.wgsl) with `solver`'s A: q += the hinges'. */
  product(solver: GPUBuffer, inputRef: number, productRef: number): Dispatch[] {
    return [
      this.pass('bendingTerms', { vRef: inputRef, aRef: inputRef, fromSolver: 1 }, { solver }),
      this.pass('bendingProduct', { inputRef, productRef }),
    ];
  }

  /** Before system-diagonal.wgsl: the hinges' part of each diagonal block of `solver`'s A. */
  diagonalPass(solver: GPUBuffer): Dispatch {
    return this.pass('bendingDiagonal', {}, { solver });
  }
}
