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
import { buildIncidence } from '../../model/incidence.ts';
import { RankOneTerms } from './rank-one-terms.ts';
import type { RealArray } from './passes.ts';

/** The hinges' state at one evaluation point and the work of the passes (rank-one-terms.ts, g = ∇θ). */
export class CpuBending extends RankOneTerms {
  private readonly bending: ResolvedBending;
  private readonly scratch = new Float64Array(12);

  constructor(model: Model, real: (length: number) => RealArray) {
    const bending = model.bending!;
    super(model, real, bending.hingeCount);
    this.bending = bending;
    this.count = bending.hingeCount;
    this.indices = bending.hingeIndices;
    this.incidence = buildIncidence(model.particleCount, bending.hingeIndices);
    // K_h = 2 k c ∇θ ∇θᵀ, B_h = d c ∇θ ∇θᵀ.
    for (let h = 0; h < this.count; h++) {
      this.stiffness[h] = 2 * bending.hingeStiffness[h]!;
      this.damping[h] = bending.hingeDamping[h]!;
    }
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
}
