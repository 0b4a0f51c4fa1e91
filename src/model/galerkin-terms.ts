/**
 * Smoothed aggregation's prolongation and the Galerkin product it implies, as weighted gathers
 * built once per topology (Vaněk, Mandel & Brezina 1996; for cloth, Tamstorf, Jones & McCormick
 * 2015, §4).
 *
 * A level's operator has the form (A u)_i = S_i u_i + Σ_{edges e = (i, j)} E_e (u_i − u_j), S and E
 * symmetric 3×3 blocks; its quadratic form is uᵀAu = Σ_i u_iᵀ S_i u_i + Σ_e (u_i − u_j)ᵀ E_e (u_i − u_j),
 * with u = 0 on fixed particles. The prolongation is scalar per (fine node, coarse node):
 * P = (I − ω D⁻¹ L) P₀, P₀ the aggregation's piecewise-constant one and L the scalar Laplacian of
 * the level (edge weights w_e, node weights s_i; at level 0 w = spring stiffness, s = 0, edges to
 * fixed particles kept, so basis functions fade towards pinned particles), D = diag(L). Because P is
 * scalar and fixed per topology, u = P v turns the quadratic form into the same form on the coarse
 * nodes with blocks that are fixed linear combinations of the fine ones. With d_eI = p_iI − p_jI,
 * π_i = Σ_I p_iI and δ_e = Σ_I d_eI:
 *
 *   S_I  = Σ_i p_iI π_i S_i + Σ_e d_eI δ_e E_e            (the block row sum of Pᵀ A P)
 *   E_IJ = −Σ_i p_iI p_iJ S_i − Σ_e d_eI d_eJ E_e  (I ≠ J)  (minus its off-diagonal block)
 *
 * so every coarse block is a deterministic gather of fine blocks with constant weights — the same
 * kernel on any level, no float atomics, nothing rebuilt but the numbers. ω = 0 gives the
 * unsmoothed aggregation (weights ±1, E_IJ = Σ of the fine edges between I and J).
 */

import { PairNumbering } from './pair-numbering.ts';

/** Per owner (coarse node, coarse edge, …) a list of (ref, weight) terms in CSR form. */
export interface WeightedLists {
  /** [owners + 1] */
  readonly offsets: Uint32Array;
  /** [terms]: a fine node, or EDGE_REF | a fine edge (term lists of coarse blocks). */
  readonly refs: Uint32Array;
  /** [terms] */
  readonly weights: Float64Array;
}

/** Marks a term's ref as a fine edge (E_e) rather than a fine node (S_i). */
export const EDGE_REF = 0x80000000;
const edgeRef = (e: number): number => (EDGE_REF | e) >>> 0;
/** The fine edge of a ref, or −1 for a node ref. */
export const refEdge = (ref: number): number => (ref >= EDGE_REF ? ref - EDGE_REF : -1);

/** A level's scalar Laplacian in the operator form: node weights s, edges (a, b) with weights w. */
export interface ScalarLevel {
  readonly nodeCount: number;
  readonly edgeA: ArrayLike<number>;
  readonly edgeB: ArrayLike<number>;
  readonly w: ArrayLike<number>;
  readonly s: ArrayLike<number>;
}

/** Rows of P: per fine node its (coarse node → weight) entries; empty for fixed particles. */
export function smoothedProlongation(level: ScalarLevel, aggregate: Int32Array, omega: number, strong = 0): Map<number, number>[] {
  const diagonal = Float64Array.from(level.s);
  const top = new Float64Array(level.nodeCount);
  for (let e = 0; e < level.w.length; e++) {
    top[level.edgeA[e]!] = Math.max(top[level.edgeA[e]!]!, level.w[e]!);
    top[level.edgeB[e]!] = Math.max(top[level.edgeB[e]!]!, level.w[e]!);
  }
  const isStrong = (e: number): boolean => level.w[e]! >= strong * Math.min(top[level.edgeA[e]!]!, top[level.edgeB[e]!]!);
  for (let e = 0; e < level.w.length; e++) {
    if (!isStrong(e)) continue;
    diagonal[level.edgeA[e]!]! += level.w[e]!;
    diagonal[level.edgeB[e]!]! += level.w[e]!;
  }
  const rows = Array.from({ length: level.nodeCount }, (_, i) => new Map<number, number>(aggregate[i]! >= 0 ? [[aggregate[i]!, 1]] : [])); // prettier-ignore
  if (omega === 0) return rows;
  // p_iJ = (1 − ω)[i ∈ J] + (ω / d_i) Σ_{e = (i, j), j ∈ J} w_e
  for (let i = 0; i < level.nodeCount; i++) if (aggregate[i]! >= 0 && diagonal[i]! > 0) rows[i]!.set(aggregate[i]!, 1 - omega);
  const add = (i: number, j: number, w: number): void => {
    const J = aggregate[j]!;
    if (aggregate[i]! < 0 || J < 0 || !(diagonal[i]! > 0)) return;
    rows[i]!.set(J, (rows[i]!.get(J) ?? 0) + (omega * w) / diagonal[i]!);
  };
  for (let e = 0; e < level.w.length; e++) {
    if (!isStrong(e)) continue;
    add(level.edgeA[e]!, level.edgeB[e]!, level.w[e]!);
    add(level.edgeB[e]!, level.edgeA[e]!, level.w[e]!);
  }
  return rows;
} // prettier-ignore

/**
 * Weights (products of prolongation entries, all ≤ 1) below this are round-off of an exact
 * cancellation (p_iI − p_jI = 0 between symmetric neighbours): kept, they would add coarse edges
 * of weight ~1e-17 that mislead the next level's matching.
 */
const NEGLIGIBLE = 1e-12;

/**
 * (owner, ref, weight) terms in the order pushed, laid out per owner in CSR order; within an owner
 * they keep that order. No (owner, ref) pair is pushed twice (each fine node or edge adds one term
 * to each block it reaches), so nothing needs merging.
 */
class Triples {
  private owner = new Uint32Array(1024);
  private ref = new Uint32Array(1024);
  private weight = new Float64Array(1024);
  private length = 0;

  push(owner: number, ref: number, weight: number): void {
    if (Math.abs(weight) <= NEGLIGIBLE) return;
    if (this.length === this.owner.length) {
      const grow = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
        const b = make(2 * a.length);
        b.set(a);
        return b;
      };
      this.owner = grow(this.owner, (n) => new Uint32Array(n));
      this.ref = grow(this.ref, (n) => new Uint32Array(n));
      this.weight = grow(this.weight, (n) => new Float64Array(n));
    }
    this.owner[this.length] = owner;
    this.ref[this.length] = ref;
    this.weight[this.length++] = weight;
  }

  /** CSR over `count` owners, `position` mapping an owner to its place (default: itself). */
  lists(count: number, position?: Uint32Array): WeightedLists {
    const offsets = new Uint32Array(count + 1);
    const owners = this.owner.subarray(0, this.length);
    const at = position ? owners.map((k) => position[k]!) : owners;
    for (let t = 0; t < this.length; t++) offsets[at[t]! + 1]!++;
    for (let k = 0; k < count; k++) offsets[k + 1]! += offsets[k]!;
    const cursor = offsets.slice(0, count);
    const [refs, weights] = [new Uint32Array(this.length), new Float64Array(this.length)];
    for (let t = 0; t < this.length; t++) {
      const slot = cursor[at[t]!]!++;
      refs[slot] = this.ref[t]!;
      weights[slot] = this.weight[t]!;
    }
    return { offsets, refs, weights };
  }
}

/** The coarse level that P makes of a fine one: its edges and the term lists of its blocks. */
export interface GalerkinCoarsening {
  readonly coarseCount: number;
  /** Coarse edges (a < b), in the order of `edgeTerms`. */
  readonly edgeA: Uint32Array;
  readonly edgeB: Uint32Array;
  /** Per coarse node: S_I as a combination of fine S (node refs) and E (EDGE_REF | edge). */
  readonly nodeTerms: WeightedLists;
  /** Per coarse edge: E_IJ likewise. */
  readonly edgeTerms: WeightedLists;
  /** Per coarse node I: (fine node i, p_iI) — the restriction r_I = Σ_i p_iI r_i. */
  readonly restriction: WeightedLists;
  /** Per fine node i: (coarse node I, p_iI) — the prolongation (P v)_i = Σ_I p_iI v_I. */
  readonly prolongation: WeightedLists;
}

/** P's rows in CSR form, each sorted by coarse node. */
function rowsCsr(rows: readonly Map<number, number>[]): { offsets: Uint32Array; cols: Uint32Array; vals: Float64Array } {
  const offsets = new Uint32Array(rows.length + 1);
  rows.forEach((row, i) => (offsets[i + 1] = offsets[i]! + row.size));
  const [cols, vals] = [new Uint32Array(offsets[rows.length]!), new Float64Array(offsets[rows.length]!)];
  rows.forEach((row, i) => [...row].sort((x, y) => x[0] - y[0]).forEach(([I, p], k) => ([cols[offsets[i]! + k], vals[offsets[i]! + k]] = [I, p])));
  return { offsets, cols, vals };
} // prettier-ignore

/** The term lists of Pᵀ A P for the rows of P (module comment). */
export function galerkinCoarsening(fine: ScalarLevel, rows: readonly Map<number, number>[], coarseCount: number): GalerkinCoarsening {
  const pairs = new PairNumbering(coarseCount);
  const [nodes, edges, restriction, prolongation] = [new Triples(), new Triples(), new Triples(), new Triples()];
  const { offsets, cols, vals } = rowsCsr(rows);
  const pi = Float64Array.from(rows, (_, i) => vals.subarray(offsets[i]!, offsets[i + 1]!).reduce((sum, p) => sum + p, 0));
  for (let i = 0; i < rows.length; i++)
    for (let a = offsets[i]!; a < offsets[i + 1]!; a++) {
      const [I, pI] = [cols[a]!, vals[a]!];
      nodes.push(I, i, pI * pi[i]!);
      restriction.push(I, i, pI);
      prolongation.push(i, I, pI);
      for (let b = a + 1; b < offsets[i + 1]!; b++) edges.push(pairs.of(I, cols[b]!), i, -pI * vals[b]!);
    }
  // d_e = p_i − p_j: the two sorted rows merged into scratch arrays.
  let widest = 0;
  for (let i = 0; i < rows.length; i++) widest = Math.max(widest, offsets[i + 1]! - offsets[i]!);
  const [dCols, dVals] = [new Uint32Array(2 * widest), new Float64Array(2 * widest)];
  for (let e = 0; e < fine.edgeA.length; e++) {
    const [i, j] = [fine.edgeA[e]!, fine.edgeB[e]!];
    let [a, b, m] = [offsets[i]!, offsets[j]!, 0];
    while (a < offsets[i + 1]! || b < offsets[j + 1]!) {
      const [ca, cb] = [a < offsets[i + 1]! ? cols[a]! : Infinity, b < offsets[j + 1]! ? cols[b]! : Infinity];
      const v = ca <= cb ? vals[a]! - (ca === cb ? vals[b++]! : 0) : -vals[b]!;
      const I = Math.min(ca, cb);
      if (ca <= cb) a++;
      else b++;
      if (Math.abs(v) > NEGLIGIBLE) [dCols[m], dVals[m++]] = [I, v];
    }
    const delta = pi[i]! - pi[j]!;
    for (let x = 0; x < m; x++) {
      nodes.push(dCols[x]!, edgeRef(e), dVals[x]! * delta);
      for (let y = x + 1; y < m; y++) edges.push(pairs.of(dCols[x]!, dCols[y]!), edgeRef(e), -dVals[x]! * dVals[y]!);
    }
  }
  const { edgeA, edgeB, position } = pairs.ordered();
  return {
    coarseCount,
    edgeA,
    edgeB,
    nodeTerms: nodes.lists(coarseCount),
    edgeTerms: edges.lists(edgeA.length, position),
    restriction: restriction.lists(coarseCount),
    prolongation: prolongation.lists(rows.length),
  };
} // prettier-ignore

/** A coarse level's scalar Laplacian: the term lists applied to the fine one's s and w. */
export function coarseScalarLevel(fine: ScalarLevel, g: GalerkinCoarsening): ScalarLevel {
  const value = (ref: number): number => (ref >= EDGE_REF ? fine.w[refEdge(ref)]! : fine.s[ref]!);
  const apply = (lists: WeightedLists, count: number): Float64Array =>
    Float64Array.from({ length: count }, (_, k) => {
      let sum = 0;
      for (let t = lists.offsets[k]!; t < lists.offsets[k + 1]!; t++)
        sum += lists.weights[t]! * value(lists.refs[t]!);
      return sum;
    });
  return { nodeCount: g.coarseCount, edgeA: g.edgeA, edgeB: g.edgeB, s: apply(g.nodeTerms, g.coarseCount), w: apply(g.edgeTerms, g.edgeA.length) }; // prettier-ignore
}
