/**
 * Self-collision's fail-safe (design: reports/design/self-collision.md §4): planar truncation after
 * the step, as NVIDIA Newton's VBD does (`apply_planar_truncation_parallel_by_collision`,
 * `apply_truncation_ts`), written as a per-pair pass and a per-particle gather, and repeated
 * until the pair list of the shortened moves no longer shortens them.
 *
 * At the step's start x₀ each listed pair's closest points give a plane with normal n̂ (from the
 * second side to the first) through q_B + λ d₀ n̂, which separates the pair (the closest-point plane
 * supports a convex primitive). λ splits the gap by how far each side approaches, δ_B / (δ_A + δ_B),
 * clamped to [0.05, 0.95]; a side with a pinned particle gets the room it needs. Each free particle
 * then moves x₀ + t Δx with t = min(0.85 τ, τ − 10⁻³) over its pairs' planes (τ: the fraction of its
 * move at which it would reach the plane), and v ← t v. Each corner stays on its side, so a listed
 * pair does not cross.
 *
 * The list is of the moves themselves (CpuSelfContact.listPairs): every pair with
 * dist(P₁, P₂) < r + max |Δx_i − Δx_j|. A pair not listed keeps every point of P₁ farther than r
 * from every point of P₂, since a point's move is a convex combination of its corners'. Shortening
 * moves changes the relative moves, so the list is made again from the shortened moves (a sweep)
 * until no move shortens. A pair's plane is placed by the whole moves, so it stays where it was in
 * every sweep, and a move shortened to 0.85 τ is not shortened again (SETTLE); t only falls. If the sweeps
 * have not settled within
 * MAX_SWEEPS, the step's moves are undone (x₀ had no intersection), counted as `undone`.
 * No step therefore creates an intersection between triangles that share no vertex.
 */
import type { CpuSelfContact } from './self-contact.ts';
import type { RealArray } from './passes.ts';

/** The share of the way to a plane a particle may go (Newton's relaxation). */
const RELAXATION = 0.85;
/**
 * A move is shortened only where 0.85 τ < 1 − SETTLE. A move shortened to 0.85 τ finds
 * 0.85 τ' = 1 in the next sweep (τ' = τ / (0.85 τ)), which rounding puts a few ulps either side
 * of 1 (float32: ± 3e-7); without the margin it was shortened again by an ulp and forced one more
 * sweep (a whole detection). Letting such a move be costs nothing: its corner stops at
 * 0.85 / (1 − SETTLE) of the way to the plane, still on its side. Issue 13; as
 * self-fail-truncate.wgsl.
 */
const SETTLE = 1e-5;
/** Pairs closer than this (× (1 + |x|∞)) at the start freeze their particles for the step. */
const FREEZE = 4e-5;

/** Per pair: n̂ (3), the plane's level n̂ · (q_B + λ d₀ n̂), and whether it froze. */
function pairPlanes(
  contact: CpuSelfContact,
  moves: Float64Array,
  planes: Float64Array,
  frozen: Uint8Array,
): void {
  const { model, indices: I, start, weights: w, normal: n, stats } = contact;
  const fixed = (j: number): boolean => model.particleInvMass[I[j]!] === 0;
  for (let e = 0; e < contact.count; e++) {
    const d0 = contact.pairGeometry(start, e, true);
    frozen[e] = d0 < FREEZE * (1 + contact.extent) ? 1 : 0;
    if (frozen[e]) stats.frozen++;
    const firstSide = contact.pairs.kinds[e] === 0 ? 1 : 2; // corners [0, firstSide) are side A
    let [deltaA, deltaB, levelB, fixedA, fixedB] = [0, 0, 0, false, false];
    for (let j = 0; j < 4; j++) {
      const p = 3 * I[4 * e + j]!;
      let along = 0;
      let startAlong = 0;
      for (let k = 0; k < 3; k++) {
        along += n[k]! * moves[p + k]!;
        startAlong += n[k]! * start[p + k]!;
      }
      if (j < firstSide) {
        deltaA = Math.max(deltaA, -along);
        fixedA ||= fixed(4 * e + j);
      } else {
        deltaB = Math.max(deltaB, along);
        fixedB ||= fixed(4 * e + j);
        levelB -= w[j]! * startAlong; // n̂ · q_B, q_B = −Σ_{j∈B} w_j x_j
      }
    }
    let lambda = deltaA + deltaB > 0 ? Math.min(0.95, Math.max(0.05, deltaB / (deltaA + deltaB))) : 0.5;
    // A pinned side is not truncated: the plane leaves it the room it moves, δ / 0.85 of d₀.
    const [needA, needB] = [deltaA / (RELAXATION * d0), deltaB / (RELAXATION * d0)];
    if (fixedB) lambda = Math.max(lambda, Math.min(0.95, needB));
    if (fixedA) lambda = Math.min(lambda, 1 - Math.min(0.95, needA));
    if ((fixedB && needB >= 0.95) || (fixedA && needA >= 0.95)) stats.pinched++;
    planes.set([n[0]!, n[1]!, n[2]!, levelB + lambda * d0], 4 * e);
  }
}

/** Sweeps of list, planes and truncation before the fail-safe gives up and undoes the step's moves. */
const MAX_SWEEPS = 8;

/**
 * x ← x₀ + T Δx and v ← T v on free particles, T the product of each sweep's truncations; a
 * shortened particle's v is written to each of `restart` too (program.ts, `selfFailSafe`).
 */
export function selfFailSafe(
  contact: CpuSelfContact,
  x: RealArray,
  v: RealArray,
  restart: readonly RealArray[] = [],
): void {
  const { model, start, stats } = contact;
  const n = model.particleCount;
  const moves = Float64Array.from(x, (value, k) => value - start[k]!);
  const scale = new Float64Array(n).fill(1);
  const current = new Float64Array(3 * n);
  const slack = 0.1 * contact.self.thickness;
  let settled = false;
  for (let sweep = 0; sweep < MAX_SWEEPS && !settled; sweep++) {
    settled = sweepOnce(contact, moves, scale, current, slack, (t) => t);
    stats.sweeps = sweep + 1;
  }
  // Not settled: the particles it shortened stay where they were, and the sweeps go on; still not
  // settled, every free particle stays (x₀ had no intersection).
  for (let sweep = 0; sweep < MAX_SWEEPS && !settled; sweep++) {
    scale.forEach((value, i) => (scale[i] = value < 1 ? 0 : 1));
    settled = sweepOnce(contact, moves, scale, current, slack, () => 0);
    stats.sweeps++;
  }
  if (!settled) scale.forEach((value, i) => (scale[i] = model.particleInvMass[i] === 0 ? 1 : 0));
  for (let i = 0; i < n; i++) {
    if (scale[i] === 1) continue;
    if (scale[i] === 0) stats.undone++;
    else stats.truncated++;
    for (let k = 3 * i; k < 3 * i + 3; k++) {
      x[k] = start[k]! + scale[i]! * moves[k]!;
      v[k] = scale[i]! * v[k]!;
      for (const history of restart) history[k] = v[k]!;
    }
  }
}

/**
 * One sweep: the list of the moves scale · moves, its planes, and each free particle's scale
 * multiplied by `shorten`(t) where its truncation t < 1. Returns whether none was shortened.
 */
function sweepOnce(contact: CpuSelfContact, moves: Float64Array, scale: Float64Array, current: Float64Array, slack: number, shorten: (t: number) => number): boolean {
  const n = contact.model.particleCount;
  for (let k = 0; k < 3 * n; k++) current[k] = scale[Math.floor(k / 3)]! * moves[k]!;
  contact.listPairs(contact.start, current, slack);
  const planes = new Float64Array(4 * contact.count);
  const frozen = new Uint8Array(contact.count);
  pairPlanes(contact, moves, planes, frozen); // planes from the whole moves: the same in every sweep
  let settled = true;
  for (let i = 0; i < n; i++) {
    if (contact.model.particleInvMass[i] === 0 || scale[i] === 0) continue;
    const t = truncation(contact, i, current, planes, frozen);
    if (t < 1) {
      scale[i]! *= shorten(t);
      settled = false;
    }
  }
  return settled;
} // prettier-ignore

/** The truncation t of particle i's move against its pairs' planes (1: none); 0 when a pair froze. */
function truncation(contact: CpuSelfContact, i: number, moves: Float64Array, planes: Float64Array, frozen: Uint8Array): number {
  const { offsets, entries } = contact.incidence;
  const p = 3 * i;
  let t = 1;
  for (let entry = offsets[i]!; entry < offsets[i + 1]!; entry++) {
    const e = entries[entry]! >> 2;
    const sideA = (entries[entry]! & 3) < (contact.pairs.kinds[e] === 0 ? 1 : 2);
    const sign = sideA ? 1 : -1;
    let startAlong = 0;
    let moveAlong = 0;
    for (let k = 0; k < 3; k++) {
      startAlong += planes[4 * e + k]! * contact.start[p + k]!;
      moveAlong += planes[4 * e + k]! * moves[p + k]!;
    }
    const room = sign * (startAlong - planes[4 * e + 3]!); // > 0: on its own side
    const approach = -sign * moveAlong;
    if (approach <= 0) continue;
    if (frozen[e]) return 0; // too close to trust a plane: only moves apart
    const tau = Math.max(room, 0) / approach;
    if (RELAXATION * tau < 1 - SETTLE) t = Math.min(t, Math.max(0, Math.min(RELAXATION * tau, tau - 1e-3))); // prettier-ignore
  }
  return t;
} // prettier-ignore
