/**
 * Whether a triangle mesh intersects itself (issue 13's check of a final frame; tests and
 * bench/contacts.mjs use it through src/internal.ts): every pair of triangles that share no
 * vertex, whose boxes overlap (a uniform grid of cells the size of the largest box), through
 * Möller's interval test (T. Möller, "A fast triangle-triangle intersection test", J. Graphics
 * Tools 2(2), 1997): each triangle's corners against the other's plane, then the two intervals on
 * the line where the planes meet; coplanar pairs by edge crossings and containment in 2-D.
 * Float64: touching counts as intersecting, and so does overlapping within 1e-9 of the pair's
 * size of each other's planes (taken as coplanar).
 */
type Vec3 = [number, number, number];

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; // prettier-ignore

/** 2-D: do segments pq and rs cross (or touch)? */
function segmentsCross(p: number[], q: number[], r: number[], s: number[]): boolean {
  const orient = (a: number[], b: number[], c: number[]): number => Math.sign((b[0]! - a[0]!) * (c[1]! - a[1]!) - (b[1]! - a[1]!) * (c[0]! - a[0]!)); // prettier-ignore
  const within = (a: number[], b: number[], c: number[]): boolean => Math.min(a[0]!, b[0]!) <= c[0]! && c[0]! <= Math.max(a[0]!, b[0]!) && Math.min(a[1]!, b[1]!) <= c[1]! && c[1]! <= Math.max(a[1]!, b[1]!); // prettier-ignore
  const [o1, o2, o3, o4] = [orient(p, q, r), orient(p, q, s), orient(r, s, p), orient(r, s, q)];
  if (o1 !== o2 && o3 !== o4) return true;
  return (o1 === 0 && within(p, q, r)) || (o2 === 0 && within(p, q, s)) || (o3 === 0 && within(r, s, p)) || (o4 === 0 && within(r, s, q)); // prettier-ignore
}

/** 2-D: is point p inside (or on) triangle abc? */
function inside2d(p: number[], [a, b, c]: number[][]): boolean {
  const side = (u: number[], v: number[]): number =>
    (v[0]! - u[0]!) * (p[1]! - u[1]!) - (v[1]! - u[1]!) * (p[0]! - u[0]!);
  const [s1, s2, s3] = [side(a!, b!), side(b!, c!), side(c!, a!)];
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}

function coplanar(n: Vec3, t: Vec3[], u: Vec3[]): boolean {
  // Project onto the plane of the two largest components of the normal.
  const a = n.map(Math.abs);
  const drop = a[0]! >= a[1]! && a[0]! >= a[2]! ? 0 : a[1]! >= a[2]! ? 1 : 2;
  const keep = [0, 1, 2].filter((d) => d !== drop);
  const [p, q] = [t.map((v) => keep.map((d) => v[d]!)), u.map((v) => keep.map((d) => v[d]!))];
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++)
      if (segmentsCross(p[i]!, p[(i + 1) % 3]!, q[j]!, q[(j + 1) % 3]!)) return true;
  return inside2d(p[0]!, q) || inside2d(q[0]!, p);
}

/** The interval where triangle t (its corners' distances d to the other plane, projections p) meets the line. */
function interval(p: number[], d: number[]): [number, number] {
  // The corner alone on its side of the plane: the interval runs between the two edges leaving it.
  const alone =
    d[0]! * d[1]! > 0 ? 2 : d[0]! * d[2]! > 0 ? 1 : d[1]! * d[2]! > 0 || d[0] !== 0 ? 0 : d[1] !== 0 ? 1 : 2;
  const [i, j, k] = [alone, (alone + 1) % 3, (alone + 2) % 3];
  const at = (m: number): number => p[i]! + ((p[m]! - p[i]!) * d[i]!) / (d[i]! - d[m]!);
  const [x, y] = [d[i] === d[j] ? p[j]! : at(j), d[i] === d[k] ? p[k]! : at(k)];
  return x < y ? [x, y] : [y, x];
}

/** Do triangles t and u (corners) intersect or touch? */
export function trianglesIntersect(t: Vec3[], u: Vec3[]): boolean {
  const n2 = cross(sub(u[1]!, u[0]!), sub(u[2]!, u[0]!));
  const d1 = t.map((v) => dot(n2, sub(v, u[0]!)));
  if ((d1[0]! > 0 && d1[1]! > 0 && d1[2]! > 0) || (d1[0]! < 0 && d1[1]! < 0 && d1[2]! < 0)) return false;
  const n1 = cross(sub(t[1]!, t[0]!), sub(t[2]!, t[0]!));
  const d2 = u.map((v) => dot(n1, sub(v, t[0]!)));
  if ((d2[0]! > 0 && d2[1]! > 0 && d2[2]! > 0) || (d2[0]! < 0 && d2[1]! < 0 && d2[2]! < 0)) return false;
  // Within 1e-9 of the pair's size of each other's planes: coplanar. Möller's EPSILON test, here
  // relative; without it two triangles of one flat sheet, their distances rounding to ±1e-19 with
  // mixed signs, went to the intervals along n1 × n2 (two equal normals: a direction made of
  // rounding) and were counted as intersecting.
  const size = Math.max(...[...t, ...u].map((v) => Math.hypot(...sub(v, t[0]!))));
  const flat = (d: number[], n: Vec3): boolean => d.every((x) => Math.abs(x) <= 1e-9 * size * Math.hypot(...n)); // prettier-ignore
  if (flat(d1, n2) && flat(d2, n1)) return coplanar(n1, t, u);
  const line = cross(n1, n2);
  const [a, b] = [
    interval(
      t.map((v) => dot(line, v)),
      d1,
    ),
    interval(
      u.map((v) => dot(line, v)),
      d2,
    ),
  ];
  return a[0] <= b[1] && b[0] <= a[1];
}

/**
 * The pairs (j < k) of triangles of the mesh at `positions` that intersect and share no vertex
 * (`triangles`: index triples).
 */
export function selfIntersections(
  positions: ArrayLike<number>,
  triangles: ArrayLike<number>,
): [number, number][] {
  const count = triangles.length / 3;
  const corner = (t: number, c: number): Vec3 => {
    const i = 3 * triangles[3 * t + c]!;
    return [positions[i]!, positions[i + 1]!, positions[i + 2]!];
  };
  const boxes = Array.from({ length: count }, (_, t) => {
    const cs = [0, 1, 2].map((c) => corner(t, c));
    return [0, 1, 2].map((d) => [Math.min(...cs.map((v) => v[d]!)), Math.max(...cs.map((v) => v[d]!))]) as [number, number][]; // prettier-ignore
  });
  // A loop, not Math.max(...): spreading 3 extents per triangle overflows the stack from ~10⁵ triangles.
  const cell = boxes.reduce((most, b) => Math.max(most, ...b.map(([lo, hi]) => hi - lo)), 1e-9);
  const grid = new Map<string, number[]>();
  boxes.forEach((b, t) => {
    const [lo, hi] = [b.map(([l]) => Math.floor(l / cell)), b.map(([, h]) => Math.floor(h / cell))];
    for (let x = lo[0]!; x <= hi[0]!; x++)
      for (let y = lo[1]!; y <= hi[1]!; y++)
        for (let z = lo[2]!; z <= hi[2]!; z++) {
          const key = `${x},${y},${z}`;
          if (!grid.has(key)) grid.set(key, []);
          grid.get(key)!.push(t);
        }
  });
  const found = new Set<string>();
  const pairs: [number, number][] = [];
  const shares = (j: number, k: number): boolean =>
    [0, 1, 2].some((a) => [0, 1, 2].some((b) => triangles[3 * j + a] === triangles[3 * k + b]));
  const overlap = (j: number, k: number): boolean => boxes[j]!.every(([lo, hi], d) => lo <= boxes[k]![d]![1] && boxes[k]![d]![0] <= hi); // prettier-ignore
  for (const list of grid.values())
    for (let a = 0; a < list.length; a++)
      for (let b = a + 1; b < list.length; b++) {
        const [j, k] = list[a]! < list[b]! ? [list[a]!, list[b]!] : [list[b]!, list[a]!];
        const key = `${j},${k}`;
        if (found.has(key) || shares(j, k) || !overlap(j, k)) continue;
        found.add(key);
        const [t, u] = [[0, 1, 2].map((c) => corner(j, c)), [0, 1, 2].map((c) => corner(k, c))];
        if (trianglesIntersect(t, u)) pairs.push([j, k]);
      }
  return pairs;
}
