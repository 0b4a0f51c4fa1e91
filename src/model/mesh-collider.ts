/**
 * Static triangle meshes as colliders (issue 13): the signed distance to a mesh through a
 * bounding-volume hierarchy built once, searched on the CPU here and on the GPU by
 * shaders/colliders.wgsl (the same traversal, node by node, so both find the same triangle).
 *
 * - Hierarchy: axis-aligned boxes, each inner node split at the median centroid along the axis
 *   its centroids spread most (leaves of ≤ 4 triangles), stored depth-first: an inner node's
 *   left child is the next node and `first` names its right child; a leaf's triangles are
 *   `first … first + count − 1` of the triangles as reordered by the build.
 * - Nearest triangle: depth-first with a stack, the nearer child first, pruning every node whose
 *   box is no nearer than the best triangle so far (Ericson, "Real-Time Collision Detection",
 *   2005, §6.3 and §5.1.5 ClosestPtPointTriangle for the closest point and its region).
 * - Sign: the angle-weighted pseudonormal of the feature the closest point lies on — the face's
 *   normal, an edge's two face normals summed, a vertex's face normals weighted by the angle at
 *   it — which gives the right inside/outside for any point of a closed, consistently wound mesh
 *   (Bærentzen & Aanæs, "Signed distance computation using the angle weighted pseudonormal",
 *   IEEE TVCG 11(3), 2005, Theorem 1). Triangles wind counter-clockwise seen from outside; on an
 *   open mesh the front is the side the normals face.
 * - φ = ±|x − p| and n = ±(x − p)/|x − p| (the pseudonormal on the surface itself).
 */
import { describeValue, WeftInputError } from '../core/errors.ts';

type Vec3 = readonly [number, number, number];

/** A mesh's hierarchy and triangles, in the build's order (float64; the GPU stores float32). */
export interface MeshBvh {
  /** Per node: lower xyz, upper xyz, [6 nodeCount]. */
  readonly bounds: Float64Array;
  /** Per node: a leaf's first triangle, or an inner node's right child. */
  readonly first: Uint32Array;
  /** Per node: a leaf's triangle count (> 0), 0 for an inner node. */
  readonly count: Uint32Array;
  /** Per triangle: a, b, c xyz, [9 triangleCount]. */
  readonly corners: Float64Array;
  /**
   * Per triangle: the pseudonormals of its face, edges ab, bc, ca and vertices a, b, c, each xyz
   * unit length, [21 triangleCount].
   */
  readonly normals: Float64Array;
  /** The nodes of the longest path from the root (the GPU's stack needs one entry a level). */
  readonly depth: number;
}

/** Deepest hierarchy the GPU's fixed traversal stack holds (shaders/colliders.wgsl MESH_STACK). */
export const MESH_STACK = 32;
const LEAF_SIZE = 4;

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; // prettier-ignore
const unit = (a: Vec3): Vec3 => {
  const l = Math.hypot(...a);
  return [a[0] / l, a[1] / l, a[2] / l];
};

/** Validates a mesh collider's vertices and triangles (errors name `<at>.vertices`, `<at>.triangles[j]`). */
function readMesh(
  vertices: unknown,
  triangles: unknown,
  at: string,
): { points: Vec3[]; corners: number[][] } {
  const list = (value: unknown, field: string): number[] => {
    if (
      value === null ||
      typeof value !== 'object' ||
      typeof (value as ArrayLike<number>).length !== 'number'
    )
      throw new WeftInputError(field, `must be an array of numbers, got ${describeValue(value)}`);
    return Array.from(value as ArrayLike<number>);
  };
  const v = list(vertices, `${at}.vertices`);
  const t = list(triangles, `${at}.triangles`);
  if (v.length === 0 || v.length % 3 !== 0) throw new WeftInputError(`${at}.vertices`, `must hold xyz triples (a length that is a positive multiple of 3), got ${v.length} numbers`); // prettier-ignore
  if (t.length === 0 || t.length % 3 !== 0) throw new WeftInputError(`${at}.triangles`, `must hold index triples (a length that is a positive multiple of 3), got ${t.length} numbers`); // prettier-ignore
  v.forEach((x, k) => {
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new WeftInputError(`${at}.vertices[${k}]`, `must be a finite number, got ${describeValue(x)}`); // prettier-ignore
  });
  const points: Vec3[] = [];
  for (let k = 0; k < v.length; k += 3) points.push([v[k]!, v[k + 1]!, v[k + 2]!]);
  const corners: number[][] = [];
  for (let j = 0; j < t.length / 3; j++) {
    const abc = t.slice(3 * j, 3 * j + 3);
    if (!abc.every((i) => Number.isInteger(i) && i >= 0 && i < points.length))
      throw new WeftInputError(`${at}.triangles[${j}]`, `must be three vertex indices in [0, ${points.length - 1}], got ${describeValue(abc)}`); // prettier-ignore
    const [a, b, c] = abc.map((i) => points[i]!) as [Vec3, Vec3, Vec3];
    if (!(Math.hypot(...cross(sub(b, a), sub(c, a))) > 0))
      throw new WeftInputError(`${at}.triangles[${j}]`, `is degenerate (its corners ${describeValue(abc)} are collinear): it has no normal`); // prettier-ignore
    corners.push(abc);
  }
  return { points, corners };
}

/**
 * The pseudonormals of every triangle: face, edges (the faces sharing the edge summed; an
 * open edge keeps its one face's) and vertices (angle-weighted sums), unit length, [21 t].
 */
function pseudonormals(points: readonly Vec3[], corners: readonly number[][]): Float64Array {
  const faces = corners.map(([a, b, c]) =>
    unit(cross(sub(points[b!]!, points[a!]!), sub(points[c!]!, points[a!]!))),
  );
  const vertexSum = points.map((): [number, number, number] => [0, 0, 0]);
  const edgeSum = new Map<string, [number, number, number]>();
  const edgeKey = (i: number, j: number): string => (i < j ? `${i},${j}` : `${j},${i}`);
  corners.forEach((abc, f) => {
    const n = faces[f]!;
    for (let k = 0; k < 3; k++) {
      const [i, j, l] = [abc[k]!, abc[(k + 1) % 3]!, abc[(k + 2) % 3]!];
      const angle = Math.acos(Math.max(-1, Math.min(1, dot(unit(sub(points[j]!, points[i]!)), unit(sub(points[l]!, points[i]!))))));
      for (let d = 0; d < 3; d++) vertexSum[i]![d]! += angle * n[d]!;
      const key = edgeKey(i, j);
      const sum = edgeSum.get(key) ?? [0, 0, 0];
      for (let d = 0; d < 3; d++) sum[d]! += n[d]!;
      edgeSum.set(key, sum);
    }
  }); // prettier-ignore
  const out = new Float64Array(21 * corners.length);
  corners.forEach(([a, b, c], f) => {
    const features: Vec3[] = [faces[f]!, edgeSum.get(edgeKey(a!, b!))!, edgeSum.get(edgeKey(b!, c!))!, edgeSum.get(edgeKey(c!, a!))!, vertexSum[a!]!, vertexSum[b!]!, vertexSum[c!]!]; // prettier-ignore
    // A sum that cancels (two faces folded flat onto each other) falls back to the face's normal.
    features.forEach((n, k) => out.set(Math.hypot(...n) > 1e-12 ? unit(n) : faces[f]!, 21 * f + 3 * k));
  });
  return out;
}

/** Builds the hierarchy of a mesh collider's triangles (validated; errors name `<at>.…`). */
export function buildMeshBvh(vertices: unknown, triangles: unknown, at: string): MeshBvh {
  const { points, corners } = readMesh(vertices, triangles, at);
  const normals = pseudonormals(points, corners);
  const centroid = corners.map((abc) => [0, 1, 2].map((d) => (points[abc[0]!]![d]! + points[abc[1]!]![d]! + points[abc[2]!]![d]!) / 3)); // prettier-ignore
  const order = corners.map((_, j) => j);
  const nodes: { lower: number[]; upper: number[]; first: number; count: number }[] = [];
  let depth = 0;
  const build = (from: number, to: number, level: number): void => {
    depth = Math.max(depth, level);
    const lower = [Infinity, Infinity, Infinity];
    const upper = [-Infinity, -Infinity, -Infinity];
    const [cLow, cHigh] = [
      [Infinity, Infinity, Infinity],
      [-Infinity, -Infinity, -Infinity],
    ];
    for (let k = from; k < to; k++) {
      for (const i of corners[order[k]!]!)
        for (let d = 0; d < 3; d++) [lower[d], upper[d]] = [Math.min(lower[d]!, points[i]![d]!), Math.max(upper[d]!, points[i]![d]!)]; // prettier-ignore
      for (let d = 0; d < 3; d++) [cLow[d], cHigh[d]] = [Math.min(cLow[d]!, centroid[order[k]!]![d]!), Math.max(cHigh[d]!, centroid[order[k]!]![d]!)]; // prettier-ignore
    }
    const node = { lower, upper, first: from, count: to - from };
    nodes.push(node);
    if (to - from <= LEAF_SIZE) return;
    const spread = [0, 1, 2].map((d) => cHigh[d]! - cLow[d]!);
    const axis = spread.indexOf(Math.max(...spread));
    const part = order.slice(from, to).sort((i, j) => centroid[i]![axis]! - centroid[j]![axis]! || i - j);
    order.splice(from, to - from, ...part);
    const middle = (from + to) >> 1;
    node.count = 0;
    build(from, middle, level + 1);
    node.first = nodes.length;
    build(middle, to, level + 1);
  };
  build(0, corners.length, 1);
  if (depth > MESH_STACK) throw new WeftInputError(`${at}.triangles`, `make a hierarchy ${depth} levels deep; the GPU's traversal holds ${MESH_STACK} (about ${4 << (MESH_STACK - 2)} triangles)`); // prettier-ignore
  const bounds = new Float64Array(6 * nodes.length);
  nodes.forEach((n, k) => bounds.set([...n.lower, ...n.upper], 6 * k));
  const cornersOut = new Float64Array(9 * corners.length);
  const normalsOut = new Float64Array(21 * corners.length);
  order.forEach((j, k) => {
    corners[j]!.forEach((i, c) => cornersOut.set(points[i]!, 9 * k + 3 * c));
    normalsOut.set(normals.subarray(21 * j, 21 * j + 21), 21 * k);
  });
  return { bounds, first: Uint32Array.from(nodes, (n) => n.first), count: Uint32Array.from(nodes, (n) => n.count), corners: cornersOut, normals: normalsOut, depth }; // prettier-ignore
}

/**
 * The closest point of triangle t of `corners` ([9 t], a, b, c) to x into `out` (xyz) and the
 * feature it lies on, returned: 0 the face, 1–3 the edges ab, bc, ca, 4–6 the vertices a, b, c
 * (Ericson 2005 §5.1.5, its Voronoi regions in order; scalars, no array a call).
 */
function closestPoint(x: Vec3, corners: ArrayLike<number>, t: number, out: number[]): number {
  const o = 9 * t;
  const [ax, ay, az, bx, by, bz, cx, cy, cz] = [corners[o]!, corners[o + 1]!, corners[o + 2]!, corners[o + 3]!, corners[o + 4]!, corners[o + 5]!, corners[o + 6]!, corners[o + 7]!, corners[o + 8]!]; // prettier-ignore
  const [abx, aby, abz, acx, acy, acz] = [bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az];
  const set = (px: number, py: number, pz: number, feature: number): number => {
    [out[0], out[1], out[2]] = [px, py, pz];
    return feature;
  };
  const d1 = abx * (x[0] - ax) + aby * (x[1] - ay) + abz * (x[2] - az);
  const d2 = acx * (x[0] - ax) + acy * (x[1] - ay) + acz * (x[2] - az);
  if (d1 <= 0 && d2 <= 0) return set(ax, ay, az, 4);
  const d3 = abx * (x[0] - bx) + aby * (x[1] - by) + abz * (x[2] - bz);
  const d4 = acx * (x[0] - bx) + acy * (x[1] - by) + acz * (x[2] - bz);
  if (d3 >= 0 && d4 <= d3) return set(bx, by, bz, 5);
  const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const v = d1 / (d1 - d3);
    return set(ax + v * abx, ay + v * aby, az + v * abz, 1);
  }
  const d5 = abx * (x[0] - cx) + aby * (x[1] - cy) + abz * (x[2] - cz);
  const d6 = acx * (x[0] - cx) + acy * (x[1] - cy) + acz * (x[2] - cz);
  if (d6 >= 0 && d5 <= d6) return set(cx, cy, cz, 6);
  const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const w = d2 / (d2 - d6);
    return set(ax + w * acx, ay + w * acy, az + w * acz, 3);
  }
  const va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    const w = (d4 - d3) / (d4 - d3 + (d5 - d6));
    return set(bx + w * (cx - bx), by + w * (cy - by), bz + w * (cz - bz), 2);
  }
  const denominator = 1 / (va + vb + vc);
  const [v, w] = [vb * denominator, vc * denominator];
  return set(ax + abx * v + acx * w, ay + aby * v + acy * w, az + abz * v + acz * w, 0);
}

/** The closest point of triangle (a, b, c) to x and its feature (see closestPoint). */
export function closestOnTriangle(x: Vec3, a: Vec3, b: Vec3, c: Vec3): { point: Vec3; feature: number } {
  const out = [0, 0, 0];
  const feature = closestPoint(x, [...a, ...b, ...c], 0, out);
  return { point: [out[0]!, out[1]!, out[2]!], feature };
}

/** Squared distance from x to a node's box (0 inside it). */
function boxDistance2(bounds: Float64Array, node: number, x: Vec3): number {
  let sum = 0;
  for (let d = 0; d < 3; d++) {
    const out = Math.max(bounds[6 * node + d]! - x[d]!, 0, x[d]! - bounds[6 * node + 3 + d]!);
    sum += out * out;
  }
  return sum;
}

/** The signed distance φ from x (in the mesh's frame) to the mesh and the outward unit normal there. */
export function meshDistance(mesh: MeshBvh, x: Vec3): { distance: number; normal: Vec3 } {
  const { bounds, first, count, corners, normals } = mesh;
  const [point, candidate] = [
    [0, 0, 0],
    [0, 0, 0],
  ];
  let [best, triangle, feature] = [Infinity, -1, 0];
  const stack = [0];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!(boxDistance2(bounds, node, x) < best)) continue;
    if (count[node]! > 0) {
      for (let t = first[node]!; t < first[node]! + count[node]!; t++) {
        const f = closestPoint(x, corners, t, candidate);
        const d2 = (x[0] - candidate[0]!) ** 2 + (x[1] - candidate[1]!) ** 2 + (x[2] - candidate[2]!) ** 2;
        if (d2 < best) {
          [best, triangle, feature] = [d2, t, f];
          [point[0], point[1], point[2]] = [candidate[0]!, candidate[1]!, candidate[2]!];
        }
      }
      continue;
    }
    const [left, right] = [node + 1, first[node]!];
    // The nearer child is searched first (pushed last); the left one on a tie.
    if (boxDistance2(bounds, left, x) <= boxDistance2(bounds, right, x)) stack.push(right, left);
    else stack.push(left, right);
  }
  const k = 21 * triangle + 3 * feature;
  const pseudo: Vec3 = [normals[k]!, normals[k + 1]!, normals[k + 2]!];
  const d: Vec3 = [x[0] - point[0]!, x[1] - point[1]!, x[2] - point[2]!];
  const length = Math.sqrt(best);
  const sign = dot(d, pseudo) < 0 ? -1 : 1;
  if (!(length > 0)) return { distance: 0, normal: pseudo };
  return { distance: sign * length, normal: [(sign * d[0]) / length, (sign * d[1]) / length, (sign * d[2]) / length] }; // prettier-ignore
}
