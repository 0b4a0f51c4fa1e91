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

/** Gathers terms per owner key, then lays them out in CSR order of the owners. */
class TermCollector {
  private readonly byOwner = new Map<number, Map<number, number>>();

  add(owner: number, ref: number, weight: number): void {
    if (weight === 0) return;
    let terms = this.byOwner.get(owner);
    if (!terms) this.byOwner.set(owner, (terms = new Map()));
    terms.set(ref, (terms.get(ref) ?? 0) + weight);
  }

  owners(): number[] {
    return [...this.byOwner.keys()];
  }

  lists(owners: readonly number[]): WeightedLists {
    const offsets = new Uint32Array(owners.length + 1);
    const [refs, weights] = [[] as number[], [] as number[]];
    owners.forEach((owner, k) => {
      for (const [ref, weight] of [...(this.byOwner.get(owner) ?? [])].sort((x, y) => x[0] - y[0])) {
        if (Math.abs(weight) <= NEGLIGIBLE) continue;
        refs.push(ref);
        weights.push(weight);
      }
      offsets[k + 1] = refs.length;
    });
    return { offsets, refs: Uint32Array.from(refs), weights: Float64Array.from(weights) };
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

/** The term lists of Pᵀ A P for the rows of P (module comment). */
export function galerkinCoarsening(fine: ScalarLevel, rows: readonly Map<number, number>[], coarseCount: number): GalerkinCoarsening {
  const pairKey = (I: number, J: number): number => I * 0x100000000 + J;
  const [nodes, edges] = [new TermCollector(), new TermCollector()];
  const pi = rows.map((row) => [...row.values()].reduce((a, b) => a + b, 0));
  rows.forEach((row, i) => {
    const entries = [...row];
    for (const [I, pI] of entries) {
      nodes.add(I, i, pI * pi[i]!);
      for (const [J, pJ] of entries) if (I < J) edges.add(pairKey(I, J), i, -pI * pJ);
    }
  });
  for (let e = 0; e < fine.edgeA.length; e++) {
    const [i, j] = [fine.edgeA[e]!, fine.edgeB[e]!];
    const d = new Map(rows[i]!);
    for (const [J, pJ] of rows[j]!) d.set(J, (d.get(J) ?? 0) - pJ);
    const delta = pi[i]! - pi[j]!;
    const entries = [...d].filter(([, v]) => Math.abs(v) > NEGLIGIBLE);
    for (const [I, dI] of entries) {
      nodes.add(I, edgeRef(e), dI * delta);
      for (const [J, dJ] of entries) if (I < J) edges.add(pairKey(I, J), edgeRef(e), -dI * dJ);
    }
  }
  const edgeKeys = edges.owners().sort((x, y) => x - y);
  const restriction = new TermCollector();
  const prolongation = new TermCollector();
  rows.forEach((row, i) => row.forEach((p, I) => (restriction.add(I, i, p), prolongation.add(i, I, p))));
  const all = (n: number): number[] => Array.from({ length: n }, (_, k) => k);
  return {
    coarseCount,
    edgeA: Uint32Array.from(edgeKeys, (key) => Math.floor(key / 0x100000000)),
    edgeB: Uint32Array.from(edgeKeys, (key) => key % 0x100000000),
    nodeTerms: nodes.lists(all(coarseCount)),
    edgeTerms: edges.lists(edgeKeys),
    restriction: restriction.lists(all(coarseCount)),
    prolongation: prolongation.lists(all(rows.length)),
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
