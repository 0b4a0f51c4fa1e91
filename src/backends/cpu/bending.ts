/**
 * Dihedral bending on the CPU (src/model/bending.ts), pass for pass the WebGPU's
 * shaders/bending-*.wgsl: a per-hinge pass (θ, ∇θ and the generalised force F at (x, v)), a
 * per-hinge pass of terms σ_h ∇_jθ, and a per-particle gather of its hinges' terms over a CSR list
 * in list order (entries 4 h + corner) — no scatter, the same sum every run.
 *
 * Implicit solvers get the Gauss–Newton part of the stiffness and the exact damping Jacobian:
 *
 *   K_h = 2 k c ∇θ ∇θᵀ,   B_h = d c ∇θ ∇θᵀ   (K = −∂f/∂x, B = −∂f/∂v, spec/README.md),
 *
 * positive semidefinite, rank one per hinge. The exact K adds 2 k c (θ − θ₀) ∇²θ, indefinite
 * wherever θ ≠ θ₀; it is dropped under both `jacobian` options (as the springs' clamped g keeps
 * their blocks PSD by default, implicit-passes.ts), so CG always sees an SPD matrix and the
 * product stays two passes: s_h = Σ_j ∇_jθ · u_j per hinge, then y_i += (γ K_h + β B_h) s_h ∇_iθ.
 */
import type { Model } from '../../model/model.ts';
import { angleDifference, hingeAngle, type ResolvedBending } from '../../model/bending.ts';
import { buildIncidence, type Incidence } from '../../model/incidence.ts';
import type { RhsCoefficients, SystemCoefficients } from '../../integrators/implicit-schemes.ts';
import type { RealArray } from './passes.ts';

/** The hinges' state at one evaluation point and the work of the passes. */
export class CpuBending {
  /** The hinges of each particle: entries 4 h + corner (src/model/incidence.ts). */
  readonly incidence: Incidence;
  /** ∇θ, [12h]: ∇₀θ, ∇₁θ, ∇₂θ, ∇₃θ per hinge, 1/m. */
  readonly gradient: RealArray;
  /** F_h = −(2 k c (θ − θ₀) + d c θ̇), [h], J: the force on particle j is F_h ∇_jθ. */
  readonly force: RealArray;
  /** σ_h ∇_jθ per hinge and corner, [12h]: what the gather sums. */
  readonly terms: RealArray;
  private readonly bending: ResolvedBending;
  private readonly scratch = new Float64Array(12);

  constructor(
    private readonly model: Model,
    real: (length: number) => RealArray,
  ) {
    this.bending = model.bending!;
    const h = this.bending.hingeCount;
    this.incidence = buildIncidence(model.particleCount, this.bending.hingeIndices);
    [this.gradient, this.force, this.terms] = [real(12 * h), real(h), real(12 * h)];
  }

  /** shaders/bending-hinges.wgsl: ∇θ and F at (x, v); with `terms`, also F ∇θ into the terms. */
  states(x: RealArray, v: RealArray, terms: boolean): void {
    const { hingeIndices: I, hingeRestAngle, hingeStiffness, hingeDamping, hingeCount } = this.bending;
    const g = this.scratch;
    for (let h = 0; h < hingeCount; h++) {
      const theta = hingeAngle(x, I[4 * h]!, I[4 * h + 1]!, I[4 * h + 2]!, I[4 * h + 3]!, g);
      let rate = 0;
      for (let c = 0; c < 4; c++) {
        const p = 3 * I[4 * h + c]!;
        rate += g[3 * c]! * v[p]! + g[3 * c + 1]! * v[p + 1]! + g[3 * c + 2]! * v[p + 2]!;
      }
      const difference = angleDifference(theta, hingeRestAngle[h]!);
      const force = -(2 * hingeStiffness[h]! * difference + hingeDamping[h]! * rate);
      this.force[h] = force;
      this.gradient.set(g, 12 * h);
      if (terms) for (let k = 0; k < 12; k++) this.terms[12 * h + k] = force * g[k]!;
    }
  }

  /** Σ_j ∇_jθ · u_j of hinge h (∇θ as stored). */
  private project(h: number, u: RealArray): number {
    const { hingeIndices: I } = this.bending;
    const g = this.gradient;
    let s = 0;
    for (let c = 0; c < 4; c++) {
      const p = 3 * I[4 * h + c]!;
      const k = 12 * h + 3 * c;
      s += g[k]! * u[p]! + g[k + 1]! * u[p + 1]! + g[k + 2]! * u[p + 2]!;
    }
    return s;
  }

  /**
   * shaders/bending-terms.wgsl: σ_h = s_f F_h − 2kc (γ_v ∇θ·v + γ_a ∇θ·a) − dc (β_v ∇θ·v + β_a ∇θ·a),
   * the hinge's share of the implicit right-hand side (implicit-rhs.wgsl's linear form).
   */
  rhsTerms(c: RhsCoefficients, v: RealArray, a: RealArray): void {
    const { hingeStiffness, hingeDamping, hingeCount } = this.bending;
    for (let h = 0; h < hingeCount; h++) {
      const [dv, da] = [this.project(h, v), this.project(h, a)];
      const sigma =
        c.forceScale * this.force[h]! -
        2 * hingeStiffness[h]! * (c.velocityStiffness * dv + c.accelerationStiffness * da) -
        hingeDamping[h]! * (c.velocityDamping * dv + c.accelerationDamping * da);
      this.setTerms(h, sigma);
    }
  }

  /** The product's terms σ_h = (γ 2kc + β dc) ∇θ·u (bending-terms.wgsl with v = u). */
  productTerms(system: SystemCoefficients, u: RealArray): void {
    const { hingeStiffness, hingeDamping, hingeCount } = this.bending;
    for (let h = 0; h < hingeCount; h++) {
      const weight = system.stiffness * 2 * hingeStiffness[h]! + system.damping * hingeDamping[h]!;
      this.setTerms(h, weight * this.project(h, u));
    }
  }

  private setTerms(h: number, sigma: number): void {
    for (let k = 0; k < 12; k++) this.terms[12 * h + k] = sigma * this.gradient[12 * h + k]!;
  }

  /**
   * shaders/bending-gather.wgsl: to_i += Σ_e terms_e (÷ m_i with `perMass`) on free particles, over
   * particle i's hinges in list order.
   */
  gather(to: RealArray, perMass: boolean): void {
    const { offsets, entries } = this.incidence;
    const terms = this.terms;
    for (let i = 0; i < this.model.particleCount; i++) {
      const invMass = this.model.particleInvMass[i]!;
      if (invMass === 0) continue;
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
   * shaders/bending-diagonal.wgsl: particle i's diagonal block of γ K + β B over its hinges,
   * Σ (γ 2kc + β dc) ∇_iθ ∇_iθᵀ, added to `sum` (xx, yy, zz, xy, xz, yz).
   */
  addDiagonal(system: SystemCoefficients, i: number, sum: number[] | Float64Array): void {
    const { offsets, entries } = this.incidence;
    const { hingeStiffness, hingeDamping } = this.bending;
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
      const entry = entries[e]!;
      const h = entry >> 2;
      const w = system.stiffness * 2 * hingeStiffness[h]! + system.damping * hingeDamping[h]!;
      const [x, y, z] = [this.gradient[3 * entry]!, this.gradient[3 * entry + 1]!, this.gradient[3 * entry + 2]!]; // prettier-ignore
      const block = [x * x, y * y, z * z, x * y, x * z, y * z];
      for (let k = 0; k < 6; k++) sum[k]! += w * block[k]!;
    }
  }
}
