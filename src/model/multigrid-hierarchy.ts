/**
 * The aggregation hierarchy of the multigrid preconditioner, built once per topology from the
 * spring graph (any mesh, not only builder grids). Each level is a graph whose operator has the
 * form (A u)_I = S_I u_I + Σ_{edges e = (I, J)} E_e (u_I − u_J) (symmetric 3×3 blocks S, E). With
 * a scalar prolongation (smoothed aggregation, src/model/galerkin-terms.ts) the Galerkin product
 * Pᵀ A P keeps that form, each coarse block a fixed weighted sum of fine blocks — so a coarse
 * operator is a deterministic gather over the weighted lists built here.
 *
 * Aggregation: two passes of heavy-edge matching (Notay's double pairwise aggregation, AGMG),
 * weights = spring stiffness at level 0 and the off-diagonal weights of the Galerkin product of
 * the stiffness Laplacian below; a node left unmatched joins its strongest matched neighbour.
 * Fixed particles belong to no aggregate (the solves filter them). About 4 fine nodes per coarse
 * node; coarsening stops at ≤ 8 nodes or when a pass no longer halves the count.
 */
import type { Model } from './model.ts';
import { coarseScalarLevel, galerkinCoarsening, smoothedProlongation, type ScalarLevel, type WeightedLists } from './galerkin-terms.ts'; // prettier-ignore
import { PairNumbering } from './pair-numbering.ts';

/** A level's graph: node incidence in CSR form, per entry the edge and the other endpoint. */
export interface GraphLevel {
  readonly nodeCount: number;
  readonly edgeCount: number;
  /** [n + 1] */
  readonly offsets: Uint32Array;
  /** [2 · entries]: (edge, other node) pairs. */
  readonly entries: Uint32Array;
}

/** How level l + 1 is made from level l (src/model/galerkin-terms.ts). */
export interface Coarsening {
  /** [fine n]: the aggregate of each fine node, −1 for fixed particles. */
  readonly aggregate: Int32Array;
  /** Coarse node I's aggregate: `children[childOffsets[I] .. childOffsets[I + 1])`. */
  readonly childOffsets: Uint32Array;
  readonly children: Uint32Array;
  /** Per coarse node I: (fine node i, p_iI), the restriction r_I = Σ_i p_iI r_i. */
  readonly restriction: WeightedLists;
  /** Per fine node i: (coarse node I, p_iI), the prolongation (P v)_i = Σ_I p_iI v_I. */
  readonly prolongation: WeightedLists;
  /** Per coarse node: S_I as weights of fine S (node refs) and E (EDGE_REF | edge). */
  readonly nodeTerms: WeightedLists;
  /** Per coarse edge: E_IJ likewise. */
  readonly edgeTerms: WeightedLists;
  /** θ: the coarse correction's scale (over-corrected where the prolongation is unsmoothed). */
  readonly correction: number;
}

export interface MultigridHierarchy {
  /** levels[0] is the particles and springs (fixed particles included, as nodes to filter). */
  readonly levels: readonly GraphLevel[];
  /** coarsenings[l] makes levels[l + 1] from levels[l]. */
  readonly coarsenings: readonly Coarsening[];
}

const COARSEST = 8;

/**
 * The V-cycle both backends run: `smoothing` weighted block-Jacobi sweeps (weight ω) before and
 * after the coarse-grid correction and `coarseSweeps` sweeps on the coarsest level (an even
 * count, so that the GPU's ping-pong iterates end where they started). The prolongation is
 * smoothed aggregation's (src/model/galerkin-terms.ts): one damped-Jacobi step of weight
 * `prolongationSmoothing` (2/3, the usual choice for ρ(D⁻¹L) ≤ 2) over the strong connections —
 * springs at least `strongConnection` × the stiffest spring at both ends, which keeps the coarse
 * stencils narrow — with the coarse correction unscaled. With `prolongationSmoothing` 0 (plain
 * aggregation) the correction is over-scaled by `overCorrection` (an unsmoothed prolongation
 * under-estimates smooth errors; θ < 2 keeps the cycle an SPD preconditioner).
 *
 * Measured, CG iterations to 1e-3, implicit Euler at dt = 1/60, first two steps (CPU): issue 10's
 * cloth at 32², 64², 128² and the jittered disk of test/helpers/irregular-mesh.ts at 817, 3,169,
 * 12,481 particles — plain aggregation, θ = 1.8: 11, 14, 17 and 17, 25, 34; smoothed, strength
 * 0.8: 7, 9, 10 and 10, 15, 22; smoothed over every spring: 6, 7, 8 and 9, 15, 22 but 4–30× the
 * coarse terms (a coarse level nearly dense by the third); smoothed on the first coarsening only:
 * 10, 16, 25. V(2,2): 8, 10, 11 and 11, 18, 25; V(1,1): 11, 13, 15 and 15, 24, 34. The smoother
 * is ω-weighted block Jacobi with the coarse levels' diagonal blocks enlarged by the negative parts
 * of their blocks (CpuMultigrid.invertDiagonal), without which it diverged on coarse levels where
 * stiff bend springs count as strong; that cost the cloth and the disk above at most one iteration
 * per solve (test/cpu-multigrid.test.ts's scenes, most per solve in two steps: cloth 8, 10, 12 →
 * 8, 10, 13; disk 10, 15, 22 → 10, 16, 22).
 *
 * Contacts: a constrained solve is CG on S A S (S_i = I − n_i n_iᵀ on a sliding contact, 0 on a
 * sticking one; Baraff & Witkin 1998 §5.3), and a V-cycle of A alone preconditions it badly: its
 * coarse corrections move constrained particles along n, which the filter then removes (issue
 * 13's drop on a sphere, CG iterations a solve: 30.5 at 64², 36.7 at 128², 90.5 at 512²). So the
 * cycle is that of A + P, P_i = c tr(D_i)/3 · n_i n_iᵀ (sticking: · I) on constrained particles,
 * c = `contactPenalty`, D_i level 0's diagonal block S_i + Σ E: the directional dampers of Jeon,
 * Choi, Kim, Choi & Ko 2013 ("Constrainable multigrid for cloth", Pacific Graphics), which the
 * Galerkin coarse operators gather with S, so that every level sees which motions the contacts
 * forbid (Tamstorf, Jones & McCormick 2015 §5 prefilter the matrix for the same reason). As
 * c → ∞, (A + P)⁻¹ → S (S A S)⁺ S; a finite c spares the coarse levels, whose aggregates span
 * normals that differ. S P S = 0, so CG's filtered products are unchanged. Measured (CPU, the
 * drop at 64², steps 21–30): c = 0, 1, 3, 10, 100: 30.5, 8.2, 7.3, 7.1, 8.2 iterations a solve.
 */
export const MULTIGRID_CYCLE = { smoothing: 3, weight: 0.75, coarseSweeps: 20, prolongationSmoothing: 2 / 3, strongConnection: 0.8, overCorrection: 1.8, contactPenalty: 3 } as const; // prettier-ignore

/** How the hierarchy is built: the prolongation's smoothing weight (0: plain aggregation). */
export interface HierarchyOptions {
  readonly prolongationSmoothing?: number;
}

/** CSR of `count` lists from (list, member) pairs, members in pair order. */
function csr(count: number, owner: ArrayLike<number>): { offsets: Uint32Array; members: Uint32Array } {
  const offsets = new Uint32Array(count + 1);
  for (let k = 0; k < owner.length; k++) if (owner[k]! >= 0) offsets[owner[k]! + 1]! += 1;
  for (let i = 0; i < count; i++) offsets[i + 1]! += offsets[i]!;
  const cursor = offsets.slice(0, count);
  const members = new Uint32Array(offsets[count]!);
  for (let k = 0; k < owner.length; k++) if (owner[k]! >= 0) members[cursor[owner[k]!]!++] = k;
  return { offsets, members };
}

function graphLevel(nodeCount: number, edgeA: ArrayLike<number>, edgeB: ArrayLike<number>): GraphLevel {
  const owner = new Int32Array(2 * edgeA.length);
  for (let e = 0; e < edgeA.length; e++) [owner[2 * e], owner[2 * e + 1]] = [edgeA[e]!, edgeB[e]!];
  const { offsets, members } = csr(nodeCount, owner);
  const entries = new Uint32Array(2 * members.length);
  members.forEach((k, j) => {
    const e = k >> 1;
    entries[2 * j] = e;
    entries[2 * j + 1] = k & 1 ? edgeA[e]! : edgeB[e]!;
  });
  return { nodeCount, edgeCount: edgeA.length, offsets, entries };
}

/** Heavy-edge matching of the nodes with `eligible` set; returns pair index per node (−1: none). */
function matchPairs(n: number, edgeA: ArrayLike<number>, edgeB: ArrayLike<number>, weight: ArrayLike<number>, eligible: (i: number) => boolean): { group: Int32Array; count: number } {
  const order = Uint32Array.from({ length: edgeA.length }, (_, e) => e).sort((x, y) => weight[y]! - weight[x]! || x - y);
  const group = new Int32Array(n).fill(-1);
  let count = 0;
  for (const e of order) {
    const [i, j] = [edgeA[e]!, edgeB[e]!];
    if (i !== j && group[i]! < 0 && group[j]! < 0 && eligible(i) && eligible(j)) group[i] = group[j] = count++;
  }
  // A node left alone joins its strongest matched neighbour, else stays a singleton.
  const best = new Float64Array(n).fill(-Infinity);
  const join = new Int32Array(n).fill(-1);
  const consider = (i: number, j: number, e: number): void => {
    if (group[i]! < 0 && eligible(i) && group[j]! >= 0 && weight[e]! > best[i]!) [best[i], join[i]] = [weight[e]!, group[j]!];
  };
  for (const e of order) {
    consider(edgeA[e]!, edgeB[e]!, e);
    consider(edgeB[e]!, edgeA[e]!, e);
  }
  for (let i = 0; i < n; i++) if (group[i]! < 0 && eligible(i)) group[i] = join[i]! >= 0 ? join[i]! : count++;
  return { group, count };
} // prettier-ignore

/** Edges between distinct groups, merged: coarse (a, b) with a < b and their weights summed. */
function coarseEdges(group: Int32Array, groupCount: number, edgeA: ArrayLike<number>, edgeB: ArrayLike<number>, weight: ArrayLike<number>) {
  const pairs = new PairNumbering(groupCount);
  const w: number[] = [];
  for (let e = 0; e < edgeA.length; e++) {
    let [I, J] = [group[edgeA[e]!]!, group[edgeB[e]!]!];
    if (I < 0 || J < 0 || I === J) continue;
    if (I > J) [I, J] = [J, I];
    const c = pairs.of(I, J);
    w[c] = (w[c] ?? 0) + weight[e]!;
  }
  const [a, b] = [new Uint32Array(pairs.count), new Uint32Array(pairs.count)];
  for (let c = 0; c < pairs.count; c++) [a[c], b[c]] = pairs.pair(c);
  return { a, b, w };
} // prettier-ignore

/** The aggregates of one level: two heavy-edge matchings, pairs then pairs of pairs. */
function aggregates(
  level: ScalarLevel,
  eligible: (i: number) => boolean,
): { aggregate: Int32Array; count: number } {
  const first = matchPairs(level.nodeCount, level.edgeA, level.edgeB, level.w, eligible);
  const pairs = coarseEdges(first.group, first.count, level.edgeA, level.edgeB, level.w);
  const second = matchPairs(first.count, pairs.a, pairs.b, pairs.w, () => true);
  return {
    aggregate: Int32Array.from(first.group, (g) => (g < 0 ? -1 : second.group[g]!)),
    count: second.count,
  };
}

/** The hierarchy of a model: level 0 is its particles and springs. */
export function buildMultigridHierarchy(model: Model, options: HierarchyOptions = {}): MultigridHierarchy {
  const { strongConnection, overCorrection } = MULTIGRID_CYCLE;
  const omega = options.prolongationSmoothing ?? MULTIGRID_CYCLE.prolongationSmoothing;
  const levels: GraphLevel[] = [];
  const coarsenings: Coarsening[] = [];
  let level: ScalarLevel = {
    nodeCount: model.particleCount,
    edgeA: model.springIndices.filter((_, k) => k % 2 === 0),
    edgeB: model.springIndices.filter((_, k) => k % 2 === 1),
    w: model.springStiffness,
    s: new Float64Array(model.particleCount),
  };
  let eligible = (i: number): boolean => model.particleInvMass[i]! > 0;
  levels.push(graphLevel(level.nodeCount, level.edgeA, level.edgeB));
  while (level.nodeCount > COARSEST) {
    const { aggregate, count } = aggregates(level, eligible);
    if (count > level.nodeCount / 2) break;
    const g = galerkinCoarsening(
      level,
      smoothedProlongation(level, aggregate, omega, strongConnection),
      count,
    );
    const children = csr(count, aggregate);
    coarsenings.push({ aggregate, childOffsets: children.offsets, children: children.members, restriction: g.restriction, prolongation: g.prolongation, nodeTerms: g.nodeTerms, edgeTerms: g.edgeTerms, correction: omega > 0 ? 1 : overCorrection }); // prettier-ignore
    level = coarseScalarLevel(level, g);
    levels.push(graphLevel(count, level.edgeA, level.edgeB));
    eligible = () => true;
  }
  return { levels, coarsenings };
}
