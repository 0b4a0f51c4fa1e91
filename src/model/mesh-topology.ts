/**
 * The edges of a triangle mesh and what a mass-spring model makes of them: one stretch spring per
 * unique edge, and one bending spring per interior edge (shared by exactly two triangles) between
 * the two vertices opposite it. Also the checks every mesh passes first: indices in range, no
 * triangle that repeats a vertex or has zero area, no triangle given twice, no unused vertex.
 */
import { describeValue, WeftInputError } from '../core/errors.ts';

/** What {@link meshTopology} finds; every pair is (a, b) with a < b. */
export interface MeshTopology {
  /** Unique edges, in order of first appearance, [2e]. */
  readonly edges: Uint32Array;
  /** Bending springs: the two vertices opposite each interior edge, [2b]. */
  readonly bendPairs: Uint32Array;
  /** Edges of exactly one triangle (the mesh's border). */
  readonly boundaryEdges: number;
  /** Edges of two triangles. */
  readonly interiorEdges: number;
  /** Edges of three or more triangles: stretch springs only (no pair of opposites is "the" one). */
  readonly nonManifoldEdges: number;
  /** Interior edges whose opposite vertices are already joined (by an edge or an earlier bend spring). */
  readonly skippedBendPairs: number;
  /** Area of each triangle, m², [t]. */
  readonly triangleAreas: Float64Array;
}

/** A triangle whose area is at most this × its longest edge² counts as degenerate (zero area). */
export const DEGENERATE_AREA_RATIO = 1e-9;

/** Triangle vertex indices checked: integers in [0, vertexCount), three distinct per triangle. */
function checkIndices(triangles: ArrayLike<number>, vertexCount: number): void {
  if (triangles.length % 3 !== 0)
    throw new WeftInputError('triangles', `length ${triangles.length} is not a multiple of 3 (a, b, c per triangle)`); // prettier-ignore
  if (triangles.length === 0) throw new WeftInputError('triangles', 'there are no triangles');
  for (let k = 0; k < triangles.length; k++) {
    const v = triangles[k];
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) >= vertexCount)
      throw new WeftInputError(`triangles[${k}]`, `vertex index ${describeValue(v)} is out of range [0, ${vertexCount - 1}]`); // prettier-ignore
  }
  for (let t = 0; 3 * t < triangles.length; t++) {
    const [a, b, c] = [triangles[3 * t]!, triangles[3 * t + 1]!, triangles[3 * t + 2]!];
    if (a === b || b === c || a === c)
      throw new WeftInputError(`triangles[${3 * t}]`, `triangle ${t} (${a}, ${b}, ${c}) repeats a vertex`);
  }
}

/** The area of each triangle; one of (near) zero area is an error naming it. */
function areas(positions: ArrayLike<number>, triangles: ArrayLike<number>): Float64Array {
  const result = new Float64Array(triangles.length / 3);
  const p = (v: number, c: number): number => positions[3 * v + c]!;
  for (let t = 0; t < result.length; t++) {
    const [a, b, c] = [triangles[3 * t]!, triangles[3 * t + 1]!, triangles[3 * t + 2]!];
    const u = [p(b, 0) - p(a, 0), p(b, 1) - p(a, 1), p(b, 2) - p(a, 2)] as const;
    const w = [p(c, 0) - p(a, 0), p(c, 1) - p(a, 1), p(c, 2) - p(a, 2)] as const;
    // |u × w| = 2 × area
    const area = 0.5 * Math.hypot(u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]); // prettier-ignore
    const longest = Math.max(
      Math.hypot(...u),
      Math.hypot(...w),
      Math.hypot(u[0] - w[0], u[1] - w[1], u[2] - w[2]),
    );
    if (!(area > DEGENERATE_AREA_RATIO * longest * longest))
      throw new WeftInputError(`triangles[${3 * t}]`, `triangle ${t} (${a}, ${b}, ${c}) has zero area (its vertices are ${longest === 0 ? 'at one point' : 'on one line'})`); // prettier-ignore
    result[t] = area;
  }
  return result;
}

/**
 * The edges, bending pairs and triangle areas of a mesh, validated (errors name `triangles[k]`,
 * k the first index of the offending triangle). `positions` must already be finite.
 */
export function meshTopology(positions: ArrayLike<number>, triangles: ArrayLike<number>): MeshTopology {
  const vertexCount = positions.length / 3;
  checkIndices(triangles, vertexCount);
  const triangleAreas = areas(positions, triangles);

  // Edge key a·n + b (a < b) is exact below 2^53, i.e. for n < 9.4e7 vertices.
  const key = (a: number, b: number): number => (a < b ? a * vertexCount + b : b * vertexCount + a);
  const edgeIndex = new Map<number, number>();
  const edges: number[] = [];
  /** Per edge: the vertex opposite it in each triangle that has it, and that triangle. */
  const opposites: { vertex: number; triangle: number }[][] = [];
  const used = new Uint8Array(vertexCount);
  for (let t = 0; 3 * t < triangles.length; t++) {
    for (let corner = 0; corner < 3; corner++) {
      const a = triangles[3 * t + corner]!;
      const b = triangles[3 * t + ((corner + 1) % 3)]!;
      const opposite = triangles[3 * t + ((corner + 2) % 3)]!;
      used[a] = 1;
      let e = edgeIndex.get(key(a, b));
      if (e === undefined) {
        e = edges.length / 2;
        edgeIndex.set(key(a, b), e);
        edges.push(Math.min(a, b), Math.max(a, b));
        opposites.push([]);
      }
      // Two triangles on one edge with the same opposite vertex are the same three vertices.
      const twin = opposites[e]!.find((o) => o.vertex === opposite);
      if (twin)
        throw new WeftInputError(`triangles[${3 * t}]`, `triangle ${t} repeats triangle ${twin.triangle} (the same three vertices)`); // prettier-ignore
      opposites[e]!.push({ vertex: opposite, triangle: t });
    }
  }
  const unused = used.indexOf(0);
  if (unused >= 0)
    throw new WeftInputError(`positions[${3 * unused}]`, `vertex ${unused} belongs to no triangle (it would have no mass and no spring)`); // prettier-ignore

  const bendPairs: number[] = [];
  const joined = new Set<number>(edgeIndex.keys());
  let [boundaryEdges, interiorEdges, nonManifoldEdges, skippedBendPairs] = [0, 0, 0, 0];
  for (const list of opposites) {
    if (list.length === 1) boundaryEdges++;
    else if (list.length > 2) nonManifoldEdges++;
    if (list.length !== 2) continue;
    interiorEdges++;
    const [c, d] = [list[0]!.vertex, list[1]!.vertex];
    if (joined.has(key(c, d))) {
      skippedBendPairs++;
      continue;
    }
    joined.add(key(c, d));
    bendPairs.push(Math.min(c, d), Math.max(c, d));
  }
  return {
    edges: Uint32Array.from(edges),
    bendPairs: Uint32Array.from(bendPairs),
    boundaryEdges,
    interiorEdges,
    nonManifoldEdges,
    skippedBendPairs,
    triangleAreas,
  };
}
