/**
 * Self-collision on the CPU (src/model/self-collision.ts; design: reports/design/self-collision.md
 * §1, §4): the step's pair list, the pairs' repulsion as rank-one terms (rank-one-terms.ts) and
 * the fail-safe after the step.
 *
 * Pair p with weights w (VT: 1, −α, −β, −γ; EE: 1 − s, s, −(1 − t), −t) and unit normal n from
 * the second side's closest point to the first's: d = n · Σ_j w_j x_j and g_j = ∂d/∂x_j = w_j n
 * (n and w held fixed: the closest points are stationary). E = ½ k (r − d)² gives
 *
 *   f_j = F g_j,   F = k (r − d) − c u_n,   u_n = g · v,   K = k g gᵀ,   B = c g gᵀ,
 *
 * the Gauss–Newton stiffness (the dropped k (r − d)/d (I − n nᵀ) part is negative semidefinite
 * for a repulsion), so CG's A stays SPD. A pair acts in an implicit solve when its predicted gap
 * is inside the band, d + h min(u_n, 0) < r; in an explicit evaluation when d < r. A predicted
 * pair still outside the band (d > r) gets K but F = k max(r − d, 0) = 0: its linearised
 * end-of-step force −h k g (g · v₊) resists the approach, and never pulls the pair in from d to r
 * (the design's F = k (r − d) did: layers 15 mm apart at r = 5 mm were pulled together).
 */
import { WeftError } from '../../core/errors.ts';
import type { Model } from '../../model/model.ts';
import { buildIncidence } from '../../model/incidence.ts';
import type { ResolvedSelfCollision, SelfContactStats } from '../../model/self-collision.ts';
import { edgeEdgeClosest, vertexTriangleClosest } from '../../model/self-contact-geometry.ts';
import { detectSelfPairs, type SelfPairList } from './self-contact-detect.ts';
import { RankOneTerms } from './rank-one-terms.ts';
import { selfFailSafe } from './self-fail-safe.ts';
import type { RealArray } from './passes.ts';

/** Below this gap (× (1 + |x|∞)) a pair's normal is taken from the step's start (design §1). */
const NORMAL_EPSILON = 1e-6;

export class CpuSelfContact extends RankOneTerms {
  /** The pairs listed at the step's start. */
  pairs: SelfPairList = { count: 0, kinds: new Uint8Array(0), primitives: new Uint32Array(0), particles: new Uint32Array(0) }; // prettier-ignore
  /** The hash's reach per particle, m [n] (listPairs). */
  readonly reach: Float64Array;
  /** The positions the step starts from [3n]. */
  readonly start: Float64Array;
  readonly stats: SelfContactStats = { pairs: 0, activePairs: 0, truncated: 0, sweeps: 0, undone: 0, frozen: 0, pinched: 0 }; // prettier-ignore
  readonly self: ResolvedSelfCollision;
  /** The step the pairs were listed for, s. */
  h = 0;
  /** The last pair's weights and unit normal (pairGeometry). */
  readonly weights = new Float64Array(4);
  readonly normal = new Float64Array(3);
  private readonly closest = new Float64Array(3);
  /** The pair pairGeometry works on. */
  private currentPair = 0;
  /** |x|∞ at the step's start, m. */
  extent = 0;

  constructor(model: Model, real: (length: number) => RealArray) {
    super(model, real, model.particleCount);
    this.self = model.selfCollision!;
    this.reach = new Float64Array(model.particleCount);
    this.start = new Float64Array(3 * model.particleCount);
  }

  /**
   * The `selfContacts` op: the pairs that may come within r of each other in a step of h, judged
   * by their relative motion h (v_i − v_j) (see listPairs), with a slack of r/2 + h²|g|.
   */
  detect(x: RealArray, v: RealArray, h: number): void {
    this.h = h;
    this.start.set(x);
    this.extent = this.start.reduce((m, value) => Math.max(m, Math.abs(value)), 0);
    const motion = Float64Array.from(v, (value) => h * value);
    const slack = this.self.thickness / 2 + h * h * Math.hypot(...this.model.gravity);
    this.listPairs(this.start, motion, slack);
    Object.assign(this.stats, { pairs: this.count, activePairs: 0, truncated: 0, sweeps: 0, undone: 0, frozen: 0, pinched: 0 }); // prettier-ignore
  }

  /**
   * Makes the pair list (pairs, indices, incidence) every pair at x that the moves m (per particle,
   * [3n]) may bring within r: dist(P₁, P₂) < r + max_{i∈P₁, j∈P₂} |m_i − m_j| + slack. Particles
   * that move together (a falling sheet) list nothing between them. The spatial hash
   * (self-contact-detect.ts) finds a superset with reach D_i = |m_i − m̄| + slack/2 (m̄ the mean
   * move, |m_i − m_j| ≤ D_i + D_j − slack); the relative bound then decides.
   */
  listPairs(x: ArrayLike<number>, motion: Float64Array, slack: number): void {
    const n = this.model.particleCount;
    const mean = [0, 1, 2].map(
      (k) => motion.reduce((sum, value, j) => (j % 3 === k ? sum + value : sum), 0) / n,
    );
    for (let i = 0; i < n; i++)
      this.reach[i] = Math.hypot(motion[3 * i]! - mean[0]!, motion[3 * i + 1]! - mean[1]!, motion[3 * i + 2]! - mean[2]!) + slack / 2; // prettier-ignore
    const candidates = detectSelfPairs(this.self, x, this.reach);
    const keep: number[] = [];
    this.pairs = candidates;
    this.indices = candidates.particles;
    for (let e = 0; e < candidates.count; e++) {
      const d = this.closestWeights(x, e);
      if (d < this.self.thickness + this.relativeMove(motion, e) + slack) keep.push(e);
    }
    const capacity = Math.floor(this.self.maxPairsPerParticle * n);
    if (keep.length > capacity)
      throw new WeftError('capacity', `self-collision listed ${keep.length} pairs, more than selfCollision.maxPairsPerParticle × ${n} particles = ${capacity} (raise maxPairsPerParticle, or lower dt)`, 'selfCollision.maxPairsPerParticle', { pairs: keep.length, capacity }); // prettier-ignore
    const pick = <T extends Uint8Array | Uint32Array>(from: T, width: number): T => {
      const to = new (from.constructor as new (length: number) => T)(width * keep.length);
      keep.forEach((e, k) => to.set(from.subarray(width * e, width * e + width), width * k));
      return to;
    };
    this.pairs = { count: keep.length, kinds: pick(candidates.kinds, 1), primitives: pick(candidates.primitives, 2), particles: pick(candidates.particles, 4) }; // prettier-ignore
    this.reserve(keep.length);
    this.count = keep.length;
    this.indices = this.pairs.particles;
    this.incidence = buildIncidence(n, this.indices);
  }

  /** max_{i∈P₁, j∈P₂} |m_i − m_j| of pair e (indices as listed). */
  private relativeMove(motion: Float64Array, e: number): number {
    const I = this.indices;
    const split = this.pairs.kinds[e] === 0 ? 1 : 2;
    let most = 0;
    for (let a = 0; a < split; a++)
      for (let b = split; b < 4; b++) {
        const [i, j] = [3 * I[4 * e + a]!, 3 * I[4 * e + b]!];
        most = Math.max(most, Math.hypot(motion[i]! - motion[j]!, motion[i + 1]! - motion[j + 1]!, motion[i + 2]! - motion[j + 2]!)); // prettier-ignore
      }
    return most;
  }

  /**
   * Pair e's weights and unit normal at positions x (into `weights`, `normal`); returns d. Below
   * NORMAL_EPSILON the normal is the one at the step's start, and failing that the triangle's
   * normal (VT) or e₁ × e₂ (EE), signed by the start positions (Newton's robust_edge_pair_normal).
   */
  pairGeometry(x: ArrayLike<number>, e: number, atStart = false): number {
    this.currentPair = e;
    const distance = this.closestWeights(x, e);
    const scale = NORMAL_EPSILON * (1 + this.extent);
    if (distance > scale) return this.normalFrom(x, distance);
    if (!atStart) {
      const startDistance = this.closestWeights(this.start, e);
      if (startDistance > scale) {
        this.normalFrom(this.start, startDistance);
        this.closestWeights(x, e);
        return distance;
      }
    }
    this.fallbackNormal(e);
    this.closestWeights(x, e);
    return distance;
  }

  /** Closest points of pair e at x: the weights; returns the distance. */
  private closestWeights(x: ArrayLike<number>, e: number): number {
    const I = this.indices;
    const [p, a, b, c] = [I[4 * e]!, I[4 * e + 1]!, I[4 * e + 2]!, I[4 * e + 3]!];
    const w = this.weights;
    const q = this.closest;
    if (this.pairs.kinds[e] === 0) {
      const distance = vertexTriangleClosest(x, p, a, b, c, q, 0);
      [w[0], w[1], w[2], w[3]] = [1, -q[0]!, -q[1]!, -q[2]!];
      return distance;
    }
    const distance = edgeEdgeClosest(x, p, a, b, c, q, 0);
    const [s, t] = [q[0]!, q[1]!];
    [w[0], w[1], w[2], w[3]] = [1 - s, s, -(1 - t), -t];
    return distance;
  }

  /** n = Σ_j w_j x_j / d. */
  private normalFrom(x: ArrayLike<number>, distance: number): number {
    const I = this.indices;
    const n = this.normal;
    n.fill(0);
    const e = this.currentPair;
    for (let j = 0; j < 4; j++) {
      const p = 3 * I[4 * e + j]!;
      for (let k = 0; k < 3; k++) n[k]! += this.weights[j]! * x[p + k]!;
    }
    for (let k = 0; k < 3; k++) n[k]! /= distance;
    return distance;
  }

  /** The face normal (VT) or e₁ × e₂ (EE) at the start, pointing from the second side to the first. */
  private fallbackNormal(e: number): void {
    const I = this.indices;
    const x = this.start;
    const at = (j: number, k: number): number => x[3 * I[4 * e + j]! + k]!;
    const u = [0, 1, 2].map((k) => (this.pairs.kinds[e] === 0 ? at(2, k) - at(1, k) : at(1, k) - at(0, k)));
    const w = [0, 1, 2].map((k) => (this.pairs.kinds[e] === 0 ? at(3, k) - at(1, k) : at(3, k) - at(2, k)));
    const n = [u[1]! * w[2]! - u[2]! * w[1]!, u[2]! * w[0]! - u[0]! * w[2]!, u[0]! * w[1]! - u[1]! * w[0]!];
    const length = Math.hypot(n[0]!, n[1]!, n[2]!) || 1;
    // The side: the first primitive's start position relative to the second's, along n.
    const side = [0, 1, 2].reduce((sum, k) => sum + n[k]! * (at(0, k) - at(this.pairs.kinds[e] === 0 ? 1 : 2, k)), 0); // prettier-ignore
    const sign = side < 0 ? -1 : 1;
    for (let k = 0; k < 3; k++) this.normal[k] = (sign * n[k]!) / length;
    if (n.every((value) => value === 0)) this.normal.set([0, 1, 0]);
  }

  /**
   * The pairs' g, F, κ = k, β = c at (x, v): `implicit` activates by the predicted gap (the
   * step's h), else by d < r; with `terms`, F g into the terms (an `eval`).
   */
  states(x: RealArray, v: RealArray, implicit: boolean, terms: boolean): void {
    const { thickness: r, stiffness: k, damping: c } = this.self;
    const I = this.indices;
    let active = 0;
    for (let e = 0; e < this.count; e++) {
      const d = this.pairGeometry(x, e);
      let un = 0;
      for (let j = 0; j < 4; j++) {
        const p = 3 * I[4 * e + j]!;
        for (let q = 0; q < 3; q++) {
          const g = this.weights[j]! * this.normal[q]!;
          this.gradient[12 * e + 3 * j + q] = g;
          un += g * v[p + q]!;
        }
      }
      const on = implicit ? d + this.h * Math.min(un, 0) < r : d < r;
      if (on) active++;
      if (!on) this.gradient.fill(0, 12 * e, 12 * e + 12);
      this.force[e] = on ? k * Math.max(r - d, 0) - c * un : 0;
      this.stiffness[e] = on ? k : 0;
      this.damping[e] = on ? c : 0;
    }
    this.stats.activePairs = active;
    if (terms) this.forceTerms();
  }

  /**
   * This list is `from`'s (its pairs, particles, incidence, step and start): a second set of terms
   * over the same pairs, e.g. a Jacobian's kept apart from the forces evaluated at each iterate.
   */
  sharePairs(from: CpuSelfContact): void {
    Object.assign(this, { pairs: from.pairs, h: from.h, extent: from.extent });
    this.start.set(from.start);
    this.reach.set(from.reach);
    this.reserve(from.count);
    [this.count, this.indices, this.incidence] = [from.count, from.indices, from.incidence];
  }

  /** The `selfFailSafe` op: planar truncation of each free particle's move from the step's start (self-fail-safe.ts); `restart` as the op's. */
  failSafe(x: RealArray, v: RealArray, restart: readonly RealArray[] = []): void {
    selfFailSafe(this, x, v, restart);
  }
}
