/**
 * Self-collision of a model's triangles (issue 13 item 6; design: reports/design/self-collision.md).
 *
 * Pairs of primitives that share no vertex — a vertex and a triangle (VT), or two edges (EE) — that
 * come closer than the thickness r repel each other inside the solve with a penalty (Bridson,
 * Fedkiw & Anderson 2002 §7.2 "repulsions"; NVIDIA Newton's VBD self-contact, quadratic part):
 *
 *   E = ½ k (r − d)²   for d < r,   d = n · Σ_j w_j x_j,
 *
 * w the pair's four weights (VT: 1, −α, −β, −γ on p, a, b, c; EE: 1 − s, s, −(1 − t), −t on
 * p₁, q₁, p₂, q₂) and n the unit vector from the second side's closest point to the first's. After
 * each step a planar truncation (design §4, after Newton's `apply_planar_truncation_parallel_by_collision`)
 * shortens any particle's move that would cross a listed pair's separating plane, so no step creates
 * an intersection between triangles that share no vertex.
 */
import { describeValue, WeftInputError } from '../core/errors.ts';

/** Self-collision of a model's triangles (ModelDescription.selfCollision, withSelfCollision). */
export interface SelfCollision {
  /** r, m: the distance pairs are kept apart. Default min(5 mm, 0.2 ℓ_min); at most 0.35 ℓ_min (ℓ_min the shortest triangle edge). */
  readonly thickness?: number;
  /** k, N/m, of the repulsion E = ½ k (r − d)². Default: the model's largest spring stiffness. Must be ≥ 0. */
  readonly stiffness?: number;
  /** c, N·s/m, along the pair's normal. Default 0. Must be ≥ 0. */
  readonly damping?: number;
  /**
   * Pairs the run may hold, per particle (GPU buffers are sized by it). Default 32: two aligned
   * layers list ~19 per particle, a cloth piling onto a floor at h = 1/60 up to ~44. Must be > 0.
   */
  readonly maxPairsPerParticle?: number;
}

/** Self-collision resolved against a model's triangles (Model.selfCollision). */
export interface ResolvedSelfCollision {
  /** r, m. */
  readonly thickness: number;
  /** k, N/m. */
  readonly stiffness: number;
  /** c, N·s/m. */
  readonly damping: number;
  /** Pair capacity per particle. */
  readonly maxPairsPerParticle: number;
  /** The model's triangles, [3t] (Model.triangleIndices). */
  readonly triangleIndices: Uint32Array;
  /** The triangles' unique edges (a, b) with a < b, in order of first appearance, [2e]. */
  readonly edgeIndices: Uint32Array;
  /** The shortest edge at the initial positions, m. */
  readonly shortestEdge: number;
}

/** What self-collision did in the last step (SolverStats.selfContact). */
export interface SelfContactStats {
  /** Pairs listed (within reach) at the step's start. */
  pairs: number;
  /** Pairs whose repulsion acted in the step's solve (or, explicit schemes, at its last evaluation). */
  activePairs: number;
  /** Particles whose move the fail-safe shortened (a pair's separating plane). */
  truncated: number;
  /** Detection sweeps the fail-safe took to reach a list its shortened moves leave unchanged. */
  sweeps: number;
  /** Particles whose whole move the fail-safe undid (a pair too close to trust, or sweeps that did not settle). */
  undone: number;
  /** Pairs closer than the freeze distance at the step's start: their particles did not move. */
  frozen: number;
  /** Pairs between a pinned particle and free ones that could not be kept apart. */
  pinched: number;
}

/** Largest thickness, as a fraction of the shortest edge: room for 50 % compression of a flat grid (design §0). */
export const MAX_THICKNESS_RATIO = 0.35;

/** The unique edges of a triangle list, (a, b) with a < b, in order of first appearance. */
export function triangleEdges(triangles: ArrayLike<number>, particleCount: number): Uint32Array {
  const seen = new Set<number>();
  const edges: number[] = [];
  for (let k = 0; k < triangles.length; k += 3)
    for (let corner = 0; corner < 3; corner++) {
      const u = triangles[k + corner]!;
      const v = triangles[k + ((corner + 1) % 3)]!;
      const [a, b] = u < v ? [u, v] : [v, u];
      const key = a * particleCount + b;
      if (seen.has(key)) continue;
      seen.add(key);
      edges.push(a, b);
    }
  return Uint32Array.from(edges);
}

function nonNegative(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new WeftInputError(
      `selfCollision.${field}`,
      `must be a finite number ≥ 0, got ${describeValue(value)}`,
    );
  return value;
}

/**
 * Validates `option` against the model's triangles and initial positions: fields named
 * `selfCollision.…`; the thickness must leave room between the nearest pairs of the rest mesh.
 */
export function resolveSelfCollision(
  option: SelfCollision,
  triangles: Uint32Array,
  positions: ArrayLike<number>,
  springStiffness: ArrayLike<number>,
): ResolvedSelfCollision {
  if (typeof option !== 'object' || option === null || Array.isArray(option))
    throw new WeftInputError('selfCollision', `must be an object ({ thickness, stiffness, damping, maxPairsPerParticle }), got ${describeValue(option)}`); // prettier-ignore
  for (const key of Object.keys(option))
    if (!['thickness', 'stiffness', 'damping', 'maxPairsPerParticle'].includes(key))
      throw new WeftInputError(`selfCollision.${key}`, 'is not a field of selfCollision (thickness, stiffness, damping, maxPairsPerParticle)'); // prettier-ignore
  if (triangles.length === 0)
    throw new WeftInputError('selfCollision', 'acts between triangles, and the model has none (give `triangles`, or build the model with buildCloth or meshToModel)'); // prettier-ignore
  const particleCount = positions.length / 3;
  const edgeIndices = triangleEdges(triangles, particleCount);
  let shortestEdge = Infinity;
  for (let k = 0; k < edgeIndices.length; k += 2) {
    const a = 3 * edgeIndices[k]!;
    const b = 3 * edgeIndices[k + 1]!;
    const length = Math.hypot(positions[b]! - positions[a]!, positions[b + 1]! - positions[a + 1]!, positions[b + 2]! - positions[a + 2]!); // prettier-ignore
    shortestEdge = Math.min(shortestEdge, length);
  }
  if (!(shortestEdge > 0))
    throw new WeftInputError(
      'selfCollision',
      'the triangles have an edge of length 0 at the initial positions',
    );
  const limit = MAX_THICKNESS_RATIO * shortestEdge;
  const thickness = nonNegative('thickness', option.thickness, Math.min(5e-3, 0.2 * shortestEdge));
  if (!(thickness > 0) || thickness > limit)
    throw new WeftInputError('selfCollision.thickness', `must be > 0 and ≤ ${MAX_THICKNESS_RATIO} × the shortest edge (${shortestEdge.toPrecision(4)} m), so ≤ ${limit.toPrecision(4)} m; got ${thickness}`); // prettier-ignore
  let largestSpring = 0;
  for (let s = 0; s < springStiffness.length; s++)
    largestSpring = Math.max(largestSpring, springStiffness[s]!);
  const maxPairsPerParticle = nonNegative('maxPairsPerParticle', option.maxPairsPerParticle, 32);
  if (!(maxPairsPerParticle > 0))
    throw new WeftInputError('selfCollision.maxPairsPerParticle', `must be > 0, got ${maxPairsPerParticle}`);
  return {
    thickness,
    stiffness: nonNegative('stiffness', option.stiffness, largestSpring),
    damping: nonNegative('damping', option.damping, 0),
    maxPairsPerParticle,
    triangleIndices: triangles,
    edgeIndices,
    shortestEdge,
  };
}
