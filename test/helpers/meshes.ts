/**
 * Closed triangle meshes for the mesh-collider tests, wound counter-clockwise seen from outside
 * (each triangle's normal checked against the direction from the centre, flipped if it faces in).
 */
type Vec3 = readonly [number, number, number];

export interface TriangleMesh {
  vertices: number[];
  triangles: number[];
}

/** Orients every triangle of a star-shaped mesh so its normal points away from `centre`. */
function orient(vertices: readonly number[], triangles: number[], centre: Vec3): TriangleMesh {
  const at = (i: number): Vec3 => [vertices[3 * i]!, vertices[3 * i + 1]!, vertices[3 * i + 2]!];
  for (let t = 0; t < triangles.length; t += 3) {
    const [a, b, c] = [at(triangles[t]!), at(triangles[t + 1]!), at(triangles[t + 2]!)];
    const [u, v] = [[b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]]; // prettier-ignore
    const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
    const out = [0, 1, 2].map((d) => (a[d]! + b[d]! + c[d]!) / 3 - centre[d]!);
    if (n[0]! * out[0]! + n[1]! * out[1]! + n[2]! * out[2]! < 0)
      [triangles[t + 1], triangles[t + 2]] = [triangles[t + 2]!, triangles[t + 1]!];
  }
  return { vertices: [...vertices], triangles };
}

/** An axis-aligned box: 8 corners, 12 triangles. */
export function boxMesh(center: Vec3, half: Vec3): TriangleMesh {
  const vertices: number[] = [];
  for (let i = 0; i < 8; i++)
    vertices.push(...[0, 1, 2].map((d) => center[d]! + ((i >> d) & 1 ? half[d]! : -half[d]!)));
  // Each face: the four corners with bit d equal to s, as a quad around it.
  const triangles: number[] = [];
  for (let d = 0; d < 3; d++)
    for (const s of [0, 1]) {
      const [e, f] = [(d + 1) % 3, (d + 2) % 3];
      const corner = (i: number, j: number): number => (s << d) | (i << e) | (j << f);
      triangles.push(corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 0), corner(1, 1), corner(0, 1));
    }
  return orient(vertices, triangles, center);
}

/** An icosahedron subdivided `levels` times (20 × 4^levels triangles), vertices at `radius`. */
export function icosphere(levels: number, radius: number): TriangleMesh {
  const g = (1 + Math.sqrt(5)) / 2;
  let points: number[][] = [[-1, g, 0], [1, g, 0], [-1, -g, 0], [1, -g, 0], [0, -1, g], [0, 1, g], [0, -1, -g], [0, 1, -g], [g, 0, -1], [g, 0, 1], [-g, 0, -1], [-g, 0, 1]]; // prettier-ignore
  let faces = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]; // prettier-ignore
  const scale = (p: number[]): number[] => p.map((c) => (c / Math.hypot(...p)) * radius);
  points = points.map(scale);
  for (let level = 0; level < levels; level++) {
    const midpoints = new Map<string, number>();
    const middle = (i: number, j: number): number => {
      const key = i < j ? `${i},${j}` : `${j},${i}`;
      if (!midpoints.has(key)) {
        midpoints.set(key, points.length);
        points.push(scale(points[i]!.map((c, d) => (c + points[j]![d]!) / 2)));
      }
      return midpoints.get(key)!;
    };
    faces = faces.flatMap(([a, b, c]) => {
      const [ab, bc, ca] = [middle(a!, b!), middle(b!, c!), middle(c!, a!)];
      return [[a!, ab, ca], [b!, bc, ab], [c!, ca, bc], [ab, bc, ca]]; // prettier-ignore
    });
  }
  return orient(points.flat(), faces.flat(), [0, 0, 0]);
}
