/**
 * A triangle mesh of a sphere for Weft's mesh colliders (src/model/mesh-collider.ts): an
 * icosahedron subdivided `levels` times (20 × 4^levels triangles), its vertices on the sphere,
 * each triangle wound counter-clockwise seen from outside (turned if its normal faces in).
 */
export function icosphere(levels: number, radius: number): { vertices: number[]; triangles: number[] } {
  const g = (1 + Math.sqrt(5)) / 2;
  const onSphere = (p: number[]): number[] => p.map((c) => (c / Math.hypot(...p)) * radius);
  const points = [[-1, g, 0], [1, g, 0], [-1, -g, 0], [1, -g, 0], [0, -1, g], [0, 1, g], [0, -1, -g], [0, 1, -g], [g, 0, -1], [g, 0, 1], [-g, 0, -1], [-g, 0, 1]].map(onSphere); // prettier-ignore
  let faces = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]; // prettier-ignore
  for (let level = 0; level < levels; level++) {
    const middles = new Map<string, number>();
    const middle = (i: number, j: number): number => {
      const key = i < j ? `${i},${j}` : `${j},${i}`;
      if (!middles.has(key))
        middles.set(key, points.push(onSphere(points[i]!.map((c, d) => c + points[j]![d]!))) - 1);
      return middles.get(key)!;
    };
    faces = faces.flatMap(([a, b, c]) => {
      const [ab, bc, ca] = [middle(a!, b!), middle(b!, c!), middle(c!, a!)];
      return [[a!, ab, ca], [b!, bc, ab], [c!, ca, bc], [ab, bc, ca]]; // prettier-ignore
    });
  }
  for (const f of faces) {
    const [a, b, c] = f.map((i) => points[i]!) as [number[], number[], number[]];
    const [u, v] = [b.map((x, d) => x - a[d]!), c.map((x, d) => x - a[d]!)];
    const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
    if (n[0]! * a[0]! + n[1]! * a[1]! + n[2]! * a[2]! < 0) [f[1], f[2]] = [f[2]!, f[1]!];
  }
  return { vertices: points.flat(), triangles: faces.flat() };
}
