/**
 * The multigrid preconditioner on the CPU (the reference of shaders/mg-*.wgsl): aggregation
 * multigrid over src/model/multigrid-hierarchy.ts, Galerkin coarse operators with the
 * piecewise-constant prolongation rebuilt at every solve, a V-cycle with weighted block-Jacobi
 * smoothing and an over-corrected coarse-grid correction, used as the preconditioner of CG.
 *
 * Level operator: (A u)_i = S_i u_i + Σ_{(e, j) at i} E_e (u_i − u_j). Level 0: S_i = α m_i I (0
 * for a fixed particle, whose rows are filtered out), E_s = γ J_s + β c_s n nᵀ per spring
 * (src/backends/cpu/implicit-passes.ts conventions). Coarse: S_I = Σ_{i ∈ I} (S_i + Σ E_e over i's
 * edges to fixed particles), E_IJ = Σ of the fine edges between I and J.
 *
 * Sources: the cycle is standard (Briggs, Henson & McCormick, "A Multigrid Tutorial", ch. 3, 8);
 * aggregation for cloth after Tamstorf, Jones & McCormick 2015 (smoothed aggregation; we keep the
 * unsmoothed prolongation, whose coarse operators are a plain gather) and the Galerkin multigrid
 * of Xian, Tong & Liu 2019; over-correction of unsmoothed aggregation after Vaněk et al. and
 * Notay (AGMG). Measured on the hanging cloth, implicit Euler at dt = 1/60, to 1e-3: 11,
 * 14, 17 CG iterations at 32², 64², 128² (diagonal PCG: 93, 194, and about 400 at 128²).
 */
import type { RankOneTerms } from './rank-one-terms.ts';
import { MULTIGRID_CYCLE, type MultigridHierarchy } from '../../model/multigrid-hierarchy.ts';
import type { Model } from '../../model/model.ts';
import { refEdge, type WeightedLists } from '../../model/galerkin-terms.ts';
import type { SystemCoefficients } from '../../integrators/implicit-schemes.ts';
import type { RealArray } from '../common/stepper.ts';
import type { SpringStates } from './implicit-passes.ts';
import type { Constraints } from './linear-solver.ts';

interface LevelOperator {
  /** [6n] node blocks S (xx, yy, zz, xy, xz, yz); S_xx = 0 marks a fixed particle (level 0). */
  readonly S: RealArray;
  /** [6m] edge blocks E. */
  readonly E: RealArray;
  /** [6n] (S_i + Σ E)⁻¹, 0 for fixed particles. */
  readonly inverse: RealArray;
  /** Work vectors: right-hand side, iterate, the other iterate, and A x. */
  readonly b: RealArray;
  readonly x: RealArray;
  readonly y: RealArray;
  readonly ax: RealArray;
}

/** y += s B u for a symmetric block B at `o` and u = (u0, u1, u2) (scalars: no array per call). */
function addBlock(B: RealArray, o: number, u0: number, u1: number, u2: number, y: RealArray, k: number, s = 1): void {
  y[k] = y[k]! + s * (B[o]! * u0 + B[o + 3]! * u1 + B[o + 4]! * u2);
  y[k + 1] = y[k + 1]! + s * (B[o + 3]! * u0 + B[o + 1]! * u1 + B[o + 5]! * u2);
  y[k + 2] = y[k + 2]! + s * (B[o + 4]! * u0 + B[o + 5]! * u1 + B[o + 2]! * u2);
} // prettier-ignore

/** Inverse of the symmetric 3×3 `D` (xx, yy, zz, xy, xz, yz) into `out` at `o`, by cofactors. */
function invertBlock(D: ArrayLike<number>, out: RealArray, o: number): void {
  const [xx, yy, zz, xy, xz, yz] = [D[0]!, D[1]!, D[2]!, D[3]!, D[4]!, D[5]!];
  const [cxx, cxy, cxz] = [yy * zz - yz * yz, xz * yz - xy * zz, xy * yz - xz * yy];
  const det = xx * cxx + xy * cxy + xz * cxz;
  const inv = [cxx, xx * zz - xz * xz, xx * yy - xy * xy, cxy, cxz, xy * xz - xx * yz];
  for (let q = 0; q < 6; q++) out[o + q] = inv[q]! / det;
}

/**
 * B⁻ = −Σ_{λ < 0} λ v vᵀ, the negative part of the symmetric 3×3 block B at `o` (xx, yy, zz, xy,
 * xz, yz), times `scale`, added to `D` (mg-nodes.wgsl's negativePart, the same steps). The
 * eigenvalues by the trigonometric solution of the characteristic cubic (Smith 1961); at most one
 * eigenvector is needed — λ₃'s when only it is negative (B⁻ = −λ₃ v₃v₃ᵀ), λ₁'s when only it is
 * not (B⁻ = λ₁ v₁v₁ᵀ − B) — as the longest cross product of two rows of B − λI. Where none is
 * longer than 0 (a double eigenvalue in float arithmetic) the bound −λ₃ I, resp. λ₁ I − B.
 */
export function addNegativePart(B: ArrayLike<number>, o: number, scale: number, D: Float64Array): void {
  const [xx, yy, zz, xy, xz, yz] = [B[o]!, B[o + 1]!, B[o + 2]!, B[o + 3]!, B[o + 4]!, B[o + 5]!];
  const q = (xx + yy + zz) / 3;
  const p = Math.sqrt(((xx - q) ** 2 + (yy - q) ** 2 + (zz - q) ** 2 + 2 * (xy * xy + xz * xz + yz * yz)) / 6);
  const add = (m: number, v: readonly number[]): void => {
    const w = scale * m;
    [D[0], D[1], D[2]] = [D[0]! + w * v[0]! * v[0]!, D[1]! + w * v[1]! * v[1]!, D[2]! + w * v[2]! * v[2]!];
    [D[3], D[4], D[5]] = [D[3]! + w * v[0]! * v[1]!, D[4]! + w * v[0]! * v[2]!, D[5]! + w * v[1]! * v[2]!];
  };
  const minusB = (): void => {
    for (let k = 0; k < 6; k++) D[k] = D[k]! - scale * B[o + k]!;
  };
  const identity = (m: number): void => {
    for (let k = 0; k < 3; k++) D[k] = D[k]! + scale * m;
  };
  if (!(p > 0)) {
    if (q < 0) identity(-q); // B = q I
    return;
  }
  // det((B − qI) / p) / 2 = cos 3φ.
  const [a, b, c, d, e, f] = [(xx - q) / p, (yy - q) / p, (zz - q) / p, xy / p, xz / p, yz / p];
  const half = (a * (b * c - f * f) - d * (d * c - f * e) + e * (d * f - b * e)) / 2;
  const phi = Math.acos(Math.min(1, Math.max(-1, half))) / 3;
  const [l1, l3] = [q + 2 * p * Math.cos(phi), q + 2 * p * Math.cos(phi + (2 * Math.PI) / 3)];
  const l2 = 3 * q - l1 - l3;
  if (l3 >= 0) return;
  if (l1 <= 0) return minusB();
  const lambda = l2 >= 0 ? l3 : l1;
  const rows = [[xx - lambda, xy, xz], [xy, yy - lambda, yz], [xz, yz, zz - lambda]] as const;
  let [best, length] = [[0, 0, 0], 0];
  for (const [r, t] of [[0, 1], [0, 2], [1, 2]] as const) {
    const [u, w] = [rows[r], rows[t]];
    const cross = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
    const squared = cross[0]! ** 2 + cross[1]! ** 2 + cross[2]! ** 2;
    if (squared > length) [best, length] = [cross, squared];
  }
  const v = best.map((x) => x / Math.sqrt(length));
  if (l2 >= 0) {
    if (length > 0) add(-l3, v);
    else identity(-l3);
  } else {
    minusB();
    if (length > 0) add(l1, v);
    else identity(l1);
  }
} // prettier-ignore

/** out_k = Σ_t w_t X(ref_t) per owner k, X a fine node's S or (EDGE_REF) a fine edge's E. */
function gatherBlocks(lists: WeightedLists, fine: LevelOperator, out: RealArray): void {
  out.fill(0);
  for (let k = 0; k + 1 < lists.offsets.length; k++)
    for (let t = lists.offsets[k]!; t < lists.offsets[k + 1]!; t++) {
      const [ref, w] = [lists.refs[t]!, lists.weights[t]!];
      const edge = refEdge(ref);
      const [X, o] = edge >= 0 ? [fine.E, 6 * edge] : [fine.S, 6 * ref];
      for (let q = 0; q < 6; q++) out[6 * k + q]! += w * X[o + q]!;
    }
}

export class CpuMultigrid {
  private readonly levels: LevelOperator[];

  constructor(
    private readonly model: Model,
    private readonly hierarchy: MultigridHierarchy,
    real: (length: number) => RealArray,
  ) {
    this.levels = hierarchy.levels.map((g) => ({
      S: real(6 * g.nodeCount),
      E: real(6 * g.edgeCount),
      inverse: real(6 * g.nodeCount),
      b: real(3 * g.nodeCount),
      x: real(3 * g.nodeCount),
      y: real(3 * g.nodeCount),
      ax: real(3 * g.nodeCount),
    }));
  }

  /**
   * Every level's operator for A = α M + β B + γ K at `states`, with a contact-constrained solve's
   * penalty ({@link addContactPenalty}) when `constraints` are given.
   */
  assemble(states: SpringStates, a: SystemCoefficients, constraints: Constraints | null = null): void {
    const { model } = this;
    const fine = this.levels[0]!;
    fine.S.fill(0);
    for (let i = 0; i < model.particleCount; i++)
      if (model.particleInvMass[i]! > 0) fine.S[6 * i] = fine.S[6 * i + 1] = fine.S[6 * i + 2] = a.mass * model.particleMass[i]!; // prettier-ignore
    for (let s = 0; s < model.springCount; s++) {
      const [nx, ny, nz] = [states.direction[3 * s]!, states.direction[3 * s + 1]!, states.direction[3 * s + 2]!];
      const c = a.damping * model.springDamping[s]!;
      const outer = [nx * nx, ny * ny, nz * nz, nx * ny, nx * nz, ny * nz];
      for (let q = 0; q < 6; q++) fine.E[6 * s + q] = a.stiffness * states.jacobian[6 * s + q]! + c * outer[q]!;
    } // prettier-ignore
    // Bending (bending.ts) enters level 0's smoother only: its diagonal blocks join D, not the
    // Galerkin operators (README "Bending": 2× fewer CG iterations; in S as well, none fewer).
    // Self-contact pairs (self-contact.ts) likewise.
    if (constraints) this.addContactPenalty(constraints);
    const terms = [states.bending, states.selfContact].filter((t) => t) as RankOneTerms[];
    this.invertDiagonal(
      0,
      terms.length > 0 ? (i, D) => terms.forEach((t) => t.addDiagonal(a, i, D)) : undefined,
    );
    this.hierarchy.coarsenings.forEach((c, l) => {
      const [from, to] = [this.levels[l]!, this.levels[l + 1]!];
      gatherBlocks(c.nodeTerms, from, to.S);
      gatherBlocks(c.edgeTerms, from, to.E);
      this.invertDiagonal(l + 1);
    });
  }

  /**
   * Level 0's S_i += P_i on constrained particles (MULTIGRID_CYCLE.contactPenalty, whose comment
   * gives the why): P_i = w_i n_i n_iᵀ (sliding) or w_i I (sticking), w_i = c tr(D_i)/3,
   * D_i = S_i + Σ_{edges at i} E_e. The coarse levels' S gather it with the rest.
   */
  private addContactPenalty(C: Constraints): void {
    const { S, E } = this.levels[0]!;
    const graph = this.hierarchy.levels[0]!;
    for (let i = 0; i < graph.nodeCount; i++) {
      if (C.active[i] !== 1 || S[6 * i] === 0) continue;
      const o = 6 * i;
      let trace = S[o]! + S[o + 1]! + S[o + 2]!;
      for (let j = graph.offsets[i]!; j < graph.offsets[i + 1]!; j++) {
        const e = 6 * graph.entries[2 * j]!;
        trace += E[e]! + E[e + 1]! + E[e + 2]!;
      }
      const w = (MULTIGRID_CYCLE.contactPenalty * trace) / 3;
      const [nx, ny, nz] = [C.normal[3 * i]!, C.normal[3 * i + 1]!, C.normal[3 * i + 2]!];
      const block =
        C.sticking[i] === 1 ? [1, 1, 1, 0, 0, 0] : [nx * nx, ny * ny, nz * nz, nx * ny, nx * nz, ny * nz];
      for (let q = 0; q < 6; q++) S[o + q]! += w * block[q]!;
    }
  }

  /**
   * inverse_i = M_i⁻¹, 0 where S_xx = 0 (fixed). Level 0: M_i = D_i = S_i + Σ_{edges at i} E_e
   * (+ `add`'s block); a coarse level: M_i = D_i + ½ S_i⁻ + Σ_{edges at i} E_e⁻, B⁻ a block's
   * negative part ({@link addNegativePart}; mg-nodes.wgsl likewise). D alone bounds A only where
   * the blocks are positive semi-definite: 2D − A has the quadratic form Σ u_iᵀ S_i u_i +
   * Σ_e (u_i + u_j)ᵀ E_e (u_i + u_j), so λ_max(D⁻¹A) ≤ 2 where every S and E is — level 0 with
   * clamped Jacobians (with 'exact' ones A itself may be indefinite). Smoothed aggregation's
   * coarse blocks are not: E_IJ sums fine blocks with weights of both signs. On a cloth whose bend
   * springs count as strong (48², structural = shear = bend = 10⁴ N/m) λ_max(D⁻¹A) reached 3.2, 4.9
   * and 5.7 on levels 1–3: ω = 0.75 Jacobi diverged there, the coarsest level's 20 sweeps
   * amplified, and the V-cycle had eigenvalues near −10⁸ — the GPU's CG broke down (p·Ap ≤ 0 by
   * its recurrence), the CPU's took 31 iterations in two steps. With the negative parts
   * 2M − A ⪰ 0 on every level, since (u_i + u_j)ᵀ E (u_i + u_j) ≥ −2 (u_iᵀ E⁻ u_i + u_jᵀ E⁻ u_j):
   * λ_max(M⁻¹A) ≤ 2 (measured 1.2, 1.4, 1.0 on that cloth's levels 1–3), ω = 0.75 Jacobi converges
   * on every level and the V-cycle is SPD (5 iterations in two steps). As blocks, not as their
   * norms times I: that bound over-damps the coarse smoothers (the 12,481-particle disk of
   * multigrid-hierarchy.ts: 42 CG iterations in two steps against 30).
   */
  private invertDiagonal(l: number, add?: (i: number, D: Float64Array) => void): void {
    const { S, E, inverse } = this.levels[l]!;
    const graph = this.hierarchy.levels[l]!;
    const D = new Float64Array(6);
    for (let i = 0; i < graph.nodeCount; i++) {
      if (l === 0 && S[6 * i] === 0) {
        inverse.fill(0, 6 * i, 6 * i + 6);
        continue;
      }
      for (let q = 0; q < 6; q++) D[q] = S[6 * i + q]!;
      if (l > 0) addNegativePart(S, 6 * i, 0.5, D);
      for (let j = graph.offsets[i]!; j < graph.offsets[i + 1]!; j++) {
        const e = 6 * graph.entries[2 * j]!;
        for (let q = 0; q < 6; q++) D[q]! += E[e + q]!;
        if (l > 0) addNegativePart(E, e, 1, D);
      }
      add?.(i, D);
      invertBlock(D, inverse, 6 * i);
    }
  }

  /** out = A u on level l (0 on fixed particles). */
  applyLevel(l: number, u: RealArray, out: RealArray): void {
    const { S, E } = this.levels[l]!;
    const graph = this.hierarchy.levels[l]!;
    for (let i = 0; i < graph.nodeCount; i++) {
      const k = 3 * i;
      out[k] = out[k + 1] = out[k + 2] = 0;
      if (l === 0 && S[6 * i] === 0) continue;
      const [u0, u1, u2] = [u[k]!, u[k + 1]!, u[k + 2]!];
      addBlock(S, 6 * i, u0, u1, u2, out, k);
      for (let j = graph.offsets[i]!; j < graph.offsets[i + 1]!; j++) {
        const o = 3 * graph.entries[2 * j + 1]!;
        addBlock(E, 6 * graph.entries[2 * j]!, u0 - u[o]!, u1 - u[o + 1]!, u2 - u[o + 2]!, out, k);
      }
    }
  }

  /** `sweeps` weighted Jacobi sweeps x ← x + ω D⁻¹ (b − A x) on level l; the result ends in `x`. */
  private smooth(l: number, sweeps: number): void {
    const L = this.levels[l]!;
    const { weight } = MULTIGRID_CYCLE;
    for (let s = 0; s < sweeps; s++) {
      this.applyLevel(l, L.x, L.ax);
      for (let i = 0; i < L.x.length / 3; i++) {
        const k = 3 * i;
        [L.y[k], L.y[k + 1], L.y[k + 2]] = [L.x[k]!, L.x[k + 1]!, L.x[k + 2]!];
        addBlock(L.inverse, 6 * i, L.b[k]! - L.ax[k]!, L.b[k + 1]! - L.ax[k + 1]!, L.b[k + 2]! - L.ax[k + 2]!, L.y, k, weight); // prettier-ignore
      }
      L.x.set(L.y);
    }
  }

  /** One V-cycle from x = 0 on level l (b set). */
  private cycle(l: number): void {
    const L = this.levels[l]!;
    const { smoothing, coarseSweeps } = MULTIGRID_CYCLE;
    L.x.fill(0);
    const c = this.hierarchy.coarsenings[l];
    if (!c) return this.smooth(l, coarseSweeps);
    this.smooth(l, smoothing);
    this.applyLevel(l, L.x, L.ax);
    const C = this.levels[l + 1]!;
    // r_I = Σ_i p_iI (b − A x)_i, then x_i += θ Σ_I p_iI x_I.
    const { restriction: R, prolongation: P } = c;
    for (let I = 0; I < C.b.length / 3; I++)
      for (let d = 0; d < 3; d++) {
        let sum = 0;
        for (let t = R.offsets[I]!; t < R.offsets[I + 1]!; t++) sum += R.weights[t]! * (L.b[3 * R.refs[t]! + d]! - L.ax[3 * R.refs[t]! + d]!); // prettier-ignore
        C.b[3 * I + d] = sum;
      }
    this.cycle(l + 1);
    for (let i = 0; i < L.x.length / 3; i++)
      for (let t = P.offsets[i]!; t < P.offsets[i + 1]!; t++)
        for (let d = 0; d < 3; d++)
          L.x[3 * i + d]! += c.correction * P.weights[t]! * C.x[3 * P.refs[t]! + d]!;
    this.smooth(l, smoothing);
  }

  /** z = V(r): one V-cycle on A z = r from z = 0 (filtered: 0 on fixed particles). */
  precondition(r: RealArray, z: RealArray): void {
    const fine = this.levels[0]!;
    fine.b.set(r);
    this.cycle(0);
    z.set(fine.x);
  }
}
