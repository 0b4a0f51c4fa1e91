/**
 * The aggregation hierarchy of the multigrid preconditioner, built once per topology from the
 * spring graph (any mesh, not only builder grids). Each level is a graph whose operator has the
 * form (A u)_I = S_I u_I + Σ_{edges e = (I, J)} E_e (u_I − u_J) (symmetric 3×3 blocks S, E). With
 * the piecewise-constant prolongation of an aggregation, the Galerkin product Pᵀ A P keeps that
 * form: S_I = Σ_{i ∈ I} S_i (plus the edges from i to fixed particles), E_IJ = Σ of the fine
 * edges between I and J, and the edges inside an aggregate cancel — so a coarse operator is a
 * deterministic gather over the index lists built here.
 *
 * Aggregation: two passes of heavy-edge matching (Notay's double pairwise aggregation, AGMG),
 * weights = spring stiffness; a node left unmatched joins its strongest matched neighbour. Fixed
 * particles belong to no aggregate (the solves filter them). About 4 fine nodes per coarse node;
 * coarsening stops at ≤ 8 nodes or when a pass no longer halves the count.
 */
import type { Model } from './model.ts';

/** A level's graph: node incidence in CSR form, per entry the edge and the other endpoint. */
export interface GraphLevel {
  readonly nodeCount: number;
  readonly edgeCount: number;
  /** [n + 1] */
  readonly offsets: Uint32Array;
  /** [2 · entries]: (edge, other node) pairs. */
  readonly entries: Uint32Array;
}

/** How level l + 1 is made from level l. */
export interface Coarsening {
  /** [fine n]: the coarse node of each fine node, −1 for fixed particles. */
  readonly aggregate: Int32Array;
  /** Coarse node I's fine nodes: `children[childOffsets[I] .. childOffsets[I + 1])`. */
  readonly childOffsets: Uint32Array;
  readonly children: Uint32Array;
  /** Coarse edge e's fine edges: `fineEdges[fineEdgeOffsets[e] .. fineEdgeOffsets[e + 1])`. */
  readonly fineEdgeOffsets: Uint32Array;
  readonly fineEdges: Uint32Array;
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
 * after the coarse-grid correction, that correction scaled by `overCorrection` (an unsmoothed
 * aggregation's prolongation under-estimates smooth errors; θ < 2 keeps the cycle an SPD
 * preconditioner), and `coarseSweeps` sweeps on the coarsest level (an even count, so that the
 * GPU's ping-pong iterates end where they started). Tuned on the issue-10 cloth at dt = 1/60
 * (implicit Euler, first steps, tolerance 1e-3), CG iterations at 32², 64², 128², 256²: V(1,1)
 * with ω = 0.6 and no over-correction 23, 32, 53, 63 (a perturbed state); V(2,2), ω = 0.75,
 * θ = 1.8: 14, 18, 24, 31; V(3,3): see test/cpu-multigrid.test.ts and `npm run bench`.
 */
export const MULTIGRID_CYCLE = { smoothing: 3, weight: 0.75, overCorrection: 1.8, coarseSweeps: 20 } as const;

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
  const order = Array.from({ length: edgeA.length }, (_, e) => e).sort((x, y) => weight[y]! - weight[x]! || x - y);
  const group = new Int32Array(n).fill(-1);
  let count = 0;
  for (const e of order) {
    const [i, j] = [edgeA[e]!, edgeB[e]!];
    if (i !== j && group[i]! < 0 && group[j]! < 0 && eligible(i) && eligible(j)) group[i] = group[j] = count++;
  }
  // A node left alone joins its strongest matched neighbour, else stays a singleton.
  const best = new Float64Array(n).fill(-Infinity);
  const join = new Int32Array(n).fill(-1);
  for (const e of order)
    for (const [i, j] of [[edgeA[e]!, edgeB[e]!], [edgeB[e]!, edgeA[e]!]] as const)
      if (group[i]! < 0 && eligible(i) && group[j]! >= 0 && weight[e]! > best[i]!) [best[i], join[i]] = [weight[e]!, group[j]!];
  for (let i = 0; i < n; i++) if (group[i]! < 0 && eligible(i)) group[i] = join[i]! >= 0 ? join[i]! : count++;
  return { group, count };
} // prettier-ignore

/** Edges between distinct groups, merged: coarse (a, b) with a < b, their weights summed, fine edges listed. */
function coarseEdges(group: Int32Array, edgeA: ArrayLike<number>, edgeB: ArrayLike<number>, weight: ArrayLike<number>) {
  const index = new Map<number, number>();
  const [a, b, w] = [[] as number[], [] as number[], [] as number[]];
  const owner = new Int32Array(edgeA.length).fill(-1);
  for (let e = 0; e < edgeA.length; e++) {
    let [I, J] = [group[edgeA[e]!]!, group[edgeB[e]!]!];
    if (I < 0 || J < 0 || I === J) continue;
    if (I > J) [I, J] = [J, I];
    const key = I * 0x100000000 + J;
    let c = index.get(key);
    if (c === undefined) {
      index.set(key, (c = a.push(I) - 1));
      b.push(J);
      w.push(0);
    }
    w[c]! += weight[e]!;
    owner[e] = c;
  }
  return { a, b, w, owner };
} // prettier-ignore

/** The hierarchy of a model: level 0 is its particles and springs. */
export function buildMultigridHierarchy(model: Model): MultigridHierarchy {
  const levels: GraphLevel[] = [];
  const coarsenings: Coarsening[] = [];
  let edgeA: ArrayLike<number> = model.springIndices.filter((_, k) => k % 2 === 0);
  let edgeB: ArrayLike<number> = model.springIndices.filter((_, k) => k % 2 === 1);
  let weight: ArrayLike<number> = model.springStiffness;
  let n = model.particleCount;
  let eligible = (i: number): boolean => model.particleInvMass[i]! > 0;
  levels.push(graphLevel(n, edgeA, edgeB));
  while (n > COARSEST) {
    // Two matchings: pairs, then pairs of pairs.
    const first = matchPairs(n, edgeA, edgeB, weight, eligible);
    const pairs = coarseEdges(first.group, edgeA, edgeB, weight);
    const second = matchPairs(first.count, pairs.a, pairs.b, pairs.w, () => true);
    const aggregate = Int32Array.from(first.group, (g) => (g < 0 ? -1 : second.group[g]!));
    const count = second.count;
    if (count > n / 2) break;
    const edges = coarseEdges(aggregate, edgeA, edgeB, weight);
    const children = csr(count, aggregate);
    const fine = csr(edges.a.length, edges.owner);
    coarsenings.push({ aggregate, childOffsets: children.offsets, children: children.members, fineEdgeOffsets: fine.offsets, fineEdges: fine.members }); // prettier-ignore
    levels.push(graphLevel(count, edges.a, edges.b));
    [n, edgeA, edgeB, weight, eligible] = [count, edges.a, edges.b, edges.w, () => true];
  }
  return { levels, coarsenings };
}
