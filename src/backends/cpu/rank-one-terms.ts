/**
 * Terms whose force and Jacobians are rank one in a 12-vector g over four particles — a dihedral
 * hinge (bending.ts, g = ∇θ) or a self-contact pair (self-contact.ts, g_j = w_j n):
 *
 *   f_j = F g_j,   K = κ g gᵀ,   B = β g gᵀ   (K = −∂f/∂x, B = −∂f/∂v; spec/README.md),
 *
 * positive semidefinite, so A = α M + β B + γ K stays SPD. The passes mirror shaders/bending-*.wgsl:
 * a per-term pass writes σ g_j, and a per-particle pass gathers its terms over a CSR list (entries
 * 4 term + corner) in list order — no scatter, the same sum every run.
 */
import type { Model } from '../../model/model.ts';
import type { Incidence } from '../../model/incidence.ts';
import type { RhsCoefficients, SystemCoefficients } from '../../integrators/implicit-schemes.ts';
import type { RealArray } from './passes.ts';

export class RankOneTerms {
  /** Terms in use. */
  count = 0;
  /** The four particles of each term, [4 · count]. */
  indices: Uint32Array = new Uint32Array(0);
  /** The terms of each particle: entries 4 term + corner (src/model/incidence.ts). */
  incidence: Incidence;
  /** g per term, [12 · capacity]: g₀, g₁, g₂, g₃. */
  gradient: RealArray;
  /** F per term, [capacity]: the force on particle j is F g_j. */
  force: RealArray;
  /** κ per term, [capacity]: K = κ g gᵀ. */
  stiffness: Float64Array;
  /** β per term, [capacity]: B = β g gᵀ. */
  damping: Float64Array;
  /** σ g_j per term and corner, [12 · capacity]: what the gather sums. */
  terms: RealArray;

  constructor(
    readonly model: Model,
    protected readonly real: (length: number) => RealArray,
    capacity: number,
  ) {
    this.incidence = { offsets: new Uint32Array(model.particleCount + 1), entries: new Uint32Array(0) };
    [this.gradient, this.force, this.terms] = [real(12 * capacity), real(capacity), real(12 * capacity)];
    [this.stiffness, this.damping] = [new Float64Array(capacity), new Float64Array(capacity)];
  }

  /** Room for `count` terms (the contents are kept only up to the old capacity). */
  protected reserve(count: number): void {
    if (count <= this.force.length) return;
    const capacity = Math.max(count, 2 * this.force.length);
    [this.gradient, this.force, this.terms] = [this.real(12 * capacity), this.real(capacity), this.real(12 * capacity)]; // prettier-ignore
    [this.stiffness, this.damping] = [new Float64Array(capacity), new Float64Array(capacity)];
  }

  /** With `terms`: F g into the terms (an `eval`'s force). */
  protected forceTerms(): void {
    for (let e = 0; e < this.count; e++) this.setTerms(e, this.force[e]!);
  }

  /** g · u of term e (g as stored). */
  project(e: number, u: RealArray): number {
    const I = this.indices;
    const g = this.gradient;
    let s = 0;
    for (let c = 0; c < 4; c++) {
      const p = 3 * I[4 * e + c]!;
      const k = 12 * e + 3 * c;
      s += g[k]! * u[p]! + g[k + 1]! * u[p + 1]! + g[k + 2]! * u[p + 2]!;
    }
    return s;
  }

  /**
   * shaders/bending-terms.wgsl: σ = s_f F − κ (γ_v g·v + γ_a g·a) − β (β_v g·v + β_a g·a), the
   * term's share of the implicit right-hand side (implicit-rhs.wgsl's linear form).
   */
  rhsTerms(c: RhsCoefficients, v: RealArray, a: RealArray): void {
    for (let e = 0; e < this.count; e++) {
      const [dv, da] = [this.project(e, v), this.project(e, a)];
      const sigma =
        c.forceScale * this.force[e]! -
        this.stiffness[e]! * (c.velocityStiffness * dv + c.accelerationStiffness * da) -
        this.damping[e]! * (c.velocityDamping * dv + c.accelerationDamping * da);
      this.setTerms(e, sigma);
    }
  }

  /** The product's terms σ = (γ κ + β β_e) g·u (bending-terms.wgsl with v = u). */
  productTerms(system: SystemCoefficients, u: RealArray): void {
    for (let e = 0; e < this.count; e++) {
      const weight = system.stiffness * this.stiffness[e]! + system.damping * this.damping[e]!;
      this.setTerms(e, weight * this.project(e, u));
    }
  }

  protected setTerms(e: number, sigma: number): void {
    for (let k = 0; k < 12; k++) this.terms[12 * e + k] = sigma * this.gradient[12 * e + k]!;
  }

  /**
   * shaders/bending-gather.wgsl: to_i += Σ terms (÷ m_i with `perMass`) on free particles, over
   * particle i's terms in list order.
   */
  gather(to: RealArray, perMass: boolean): void {
    const { offsets, entries } = this.incidence;
    const terms = this.terms;
    for (let i = 0; i < this.model.particleCount; i++) {
      const invMass = this.model.particleInvMass[i]!;
      if (invMass === 0 || offsets[i] === offsets[i + 1]) continue;
      let fx = 0;
      let fy = 0;
      let fz = 0;
      for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
        const k = 3 * entries[e]!;
        fx += terms[k]!;
        fy += terms[k + 1]!;
        fz += terms[k + 2]!;
      }
      const s = perMass ? invMass : 1;
      const p = 3 * i;
      to[p] = to[p]! + s * fx;
      to[p + 1] = to[p + 1]! + s * fy;
      to[p + 2] = to[p + 2]! + s * fz;
    }
  }

  /**
   * shaders/bending-diagonal.wgsl: particle i's diagonal block of γ K + β B over its terms,
   * Σ (γ κ + β β_e) g_i g_iᵀ, added to `sum` (xx, yy, zz, xy, xz, yz).
   */
  addDiagonal(system: SystemCoefficients, i: number, sum: number[] | Float64Array): void {
    const { offsets, entries } = this.incidence;
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
      const entry = entries[e]!;
      const t = entry >> 2;
      const w = system.stiffness * this.stiffness[t]! + system.damping * this.damping[t]!;
      const [x, y, z] = [this.gradient[3 * entry]!, this.gradient[3 * entry + 1]!, this.gradient[3 * entry + 2]!]; // prettier-ignore
      const block = [x * x, y * y, z * z, x * y, x * z, y * z];
      for (let k = 0; k < 6; k++) sum[k]! += w * block[k]!;
    }
  }
}
