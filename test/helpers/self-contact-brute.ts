/**
 * Independent references for self-collision's geometry and detection (test/self-contact-*.test.ts):
 *
 * - distances by another formulation than Ericson's region tests: a convex quadratic's minimum over
 *   a triangle (or the unit square of two segments' parameters) is either its interior stationary
 *   point, when that lies inside, or the minimum over the boundary, a set of point–segment
 *   distances (each a clamped 1-D projection);
 * - the same minima by dense sampling and local refinement (no formula at all), to check the above;
 * - every VT and EE pair by an O(N²) enumeration with the detection's predicate.
 */
type Vec3 = [number, number, number];

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; // prettier-ignore
const along = (p: Vec3, d: Vec3, s: number): Vec3 => [p[0] + s * d[0], p[1] + s * d[1], p[2] + s * d[2]];
const norm = (a: Vec3): number => Math.sqrt(dot(a, a));

/** Deterministic uniform [0, 1) (mulberry32). */
export function random32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Distance from x to segment uv and the parameter of the nearest point (clamped projection). */
export function pointSegment(x: Vec3, u: Vec3, v: Vec3): { distance: number; t: number } {
  const d = sub(v, u);
  const dd = dot(d, d);
  const t = dd > 0 ? Math.min(1, Math.max(0, dot(sub(x, u), d) / dd)) : 0;
  return { distance: norm(sub(x, along(u, d, t))), t };
}

/**
 * Distance from x to triangle abc and the feature it is reached on: 'face', 'ab', 'bc', 'ca', 'a', 'b', 'c'.
 * Face candidate: barycentrics from triple products, β = ((x − a) × ac)·n / |n|², γ = (ab × (x − a))·n / |n|².
 */
export function referencePointTriangle(
  x: Vec3,
  a: Vec3,
  b: Vec3,
  c: Vec3,
): { distance: number; feature: string; point: Vec3 } {
  let best = { distance: Infinity, feature: '', point: a };
  const edges: [Vec3, Vec3, string, string, string][] = [[a, b, 'ab', 'a', 'b'], [b, c, 'bc', 'b', 'c'], [c, a, 'ca', 'c', 'a']]; // prettier-ignore
  for (const [u, v, name, start, end] of edges) {
    const { distance, t } = pointSegment(x, u, v);
    if (distance < best.distance)
      best = { distance, feature: t === 0 ? start : t === 1 ? end : name, point: along(u, sub(v, u), t) };
  }
  const [ab, ac, ax] = [sub(b, a), sub(c, a), sub(x, a)];
  const n = cross(ab, ac);
  const nn = dot(n, n);
  if (nn > 0) {
    const beta = dot(cross(ax, ac), n) / nn;
    const gamma = dot(cross(ab, ax), n) / nn;
    const distance = Math.abs(dot(ax, n)) / Math.sqrt(nn);
    if (beta >= 0 && gamma >= 0 && beta + gamma <= 1 && distance < best.distance)
      best = { distance, feature: 'face', point: along(x, n, -dot(ax, n) / nn) };
  }
  return best;
}

/**
 * Distance between segments p₁q₁ and p₂q₂ and the closest points: the least of the four
 * endpoint–segment distances and, for non-parallel lines, the common perpendicular's,
 * s = ((p₂ − p₁) × d₂)·n / |n|², t = ((p₂ − p₁) × d₁)·n / |n|², n = d₁ × d₂, when both lie in [0, 1].
 */
export function referenceSegmentSegment(
  p1: Vec3,
  q1: Vec3,
  p2: Vec3,
  q2: Vec3,
): { distance: number; c1: Vec3; c2: Vec3 } {
  const [d1, d2, w] = [sub(q1, p1), sub(q2, p2), sub(p2, p1)];
  let best = { distance: Infinity, c1: p1, c2: p2 };
  for (const [x, onFirst] of [
    [p1, false],
    [q1, false],
    [p2, true],
    [q2, true],
  ] as [Vec3, boolean][]) {
    const [u, v] = onFirst ? [p1, q1] : [p2, q2];
    const { distance, t } = pointSegment(x, u, v);
    const nearest = along(u, sub(v, u), t);
    if (distance < best.distance)
      best = onFirst ? { distance, c1: nearest, c2: x } : { distance, c1: x, c2: nearest };
  }
  const n = cross(d1, d2);
  const nn = dot(n, n);
  if (nn > 0) {
    const s = dot(cross(w, d2), n) / nn;
    const t = dot(cross(w, d1), n) / nn;
    const [c1, c2] = [along(p1, d1, s), along(p2, d2, t)];
    const distance = norm(sub(c1, c2));
    if (s >= 0 && s <= 1 && t >= 0 && t <= 1 && distance < best.distance) best = { distance, c1, c2 };
  }
  return best;
}

/**
 * min over (u, v) ∈ domain of |point(u, v)| by sampling a 40 × 40 grid, then 60 rounds of a 9 × 9
 * grid around the best sample, shrinking 0.4× each round (the squared distance is a convex quadratic,
 * so the refinement cannot get stuck). `clampTo` maps (u, v) into the domain.
 */
function sampledMinimum(
  gap: (u: number, v: number) => number,
  clampTo: (u: number, v: number) => [number, number],
): number {
  let [bu, bv, best] = [0, 0, Infinity];
  for (let i = 0; i <= 40; i++)
    for (let j = 0; j <= 40; j++) {
      const [u, v] = clampTo(i / 40, j / 40);
      const g = gap(u, v);
      if (g < best) [bu, bv, best] = [u, v, g];
    }
  let step = 1 / 40;
  for (let round = 0; round < 60; round++, step *= 0.4) {
    const [cu, cv] = [bu, bv];
    for (let i = -4; i <= 4; i++)
      for (let j = -4; j <= 4; j++) {
        const [u, v] = clampTo(cu + (i * step) / 4, cv + (j * step) / 4);
        const g = gap(u, v);
        if (g < best) [bu, bv, best] = [u, v, g];
      }
  }
  return best;
}

/** Distance from x to triangle abc by sampling its barycentric (β, γ) simplex. */
export function sampledPointTriangle(x: Vec3, a: Vec3, b: Vec3, c: Vec3): number {
  const [ab, ac] = [sub(b, a), sub(c, a)];
  return sampledMinimum(
    (beta, gamma) => norm(sub(x, along(along(a, ab, beta), ac, gamma))),
    (u, v) => {
      const [beta, gamma] = [Math.max(0, Math.min(1, u)), Math.max(0, Math.min(1, v))];
      const sum = beta + gamma;
      return sum > 1 ? [beta / sum, gamma / sum] : [beta, gamma];
    },
  );
}

/** Distance between segments by sampling (s, t) ∈ [0, 1]². */
export function sampledSegmentSegment(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3): number {
  const [d1, d2] = [sub(q1, p1), sub(q2, p2)];
  return sampledMinimum(
    (s, t) => norm(sub(along(p1, d1, s), along(p2, d2, t))),
    (u, v) => [Math.max(0, Math.min(1, u)), Math.max(0, Math.min(1, v))],
  );
}

/** The pair lists of detectSelfPairs, as plain arrays (kind, primitive, primitive′). */
export type PairRows = [number, number, number][];

/**
 * Every VT and EE pair by brute force, in the detection's order: VT by (particle, triangle), every
 * particle against every triangle, then EE by (edge, edge′), with its predicate d < r + D_P₁ + D_P₂
 * (D_P the max over the primitive's particles) and no shared vertex. `vtDistance` and `eeDistance`
 * are the narrow phase's functions (tested on their own in test/self-contact-geometry.test.ts).
 */
export function brutePairs(
  particleCount: number,
  triangles: ArrayLike<number>,
  edges: ArrayLike<number>,
  thickness: number,
  reach: ArrayLike<number>,
  vtDistance: (p: number, a: number, b: number, c: number) => number,
  eeDistance: (p1: number, q1: number, p2: number, q2: number) => number,
): PairRows {
  const rows: PairRows = [];
  for (let p = 0; p < particleCount; p++)
    for (let t = 0; 3 * t < triangles.length; t++) {
      const [a, b, c] = [triangles[3 * t]!, triangles[3 * t + 1]!, triangles[3 * t + 2]!];
      if (p === a || p === b || p === c) continue;
      const radius = thickness + reach[p]! + Math.max(reach[a]!, reach[b]!, reach[c]!);
      if (vtDistance(p, a, b, c) < radius) rows.push([0, p, t]);
    }
  for (let e = 0; 2 * e < edges.length; e++)
    for (let f = e + 1; 2 * f < edges.length; f++) {
      const [p1, q1, p2, q2] = [edges[2 * e]!, edges[2 * e + 1]!, edges[2 * f]!, edges[2 * f + 1]!];
      if (p1 === p2 || p1 === q2 || q1 === p2 || q1 === q2) continue;
      const radius = thickness + Math.max(reach[p1]!, reach[q1]!) + Math.max(reach[p2]!, reach[q2]!);
      if (eeDistance(p1, q1, p2, q2) < radius) rows.push([1, e, f]);
    }
  return rows;
}

/**
 * A crumpled state of a flat grid in the xz-plane (spacing ℓ): `folds` folds across random lines
 * through the cloth, each lifting the folded part by a random gap in [0, 0.6 ℓ) and tilting it a
 * little, then noise of `noise` ℓ on every coordinate. Many layers end up within a thickness.
 */
export function crumple(
  positions: ArrayLike<number>,
  spacing: number,
  seed: number,
  folds = 3,
  noise = 0.05,
): Float64Array {
  const random = random32(seed);
  const x = Float64Array.from(positions);
  const n = x.length / 3;
  for (let k = 0; k < folds; k++) {
    let [cx, cz] = [0, 0];
    for (let i = 0; i < n; i++) [cx, cz] = [cx + x[3 * i]! / n, cz + x[3 * i + 2]! / n];
    const angle = 2 * Math.PI * random();
    const [ux, uz] = [Math.cos(angle), Math.sin(angle)];
    const offset = (random() - 0.5) * 4 * spacing;
    const lift = 0.6 * spacing * random();
    const tilt = 0.1 * (random() - 0.5);
    for (let i = 0; i < n; i++) {
      const side = (x[3 * i]! - cx) * ux + (x[3 * i + 2]! - cz) * uz - offset;
      if (side <= 0) continue;
      // Mirror across the line, lift by `lift` plus a slope `tilt` with the distance from the fold.
      x[3 * i] = x[3 * i]! - 2 * side * ux;
      x[3 * i + 2] = x[3 * i + 2]! - 2 * side * uz;
      x[3 * i + 1] = x[3 * i + 1]! + lift + tilt * side;
    }
  }
  for (let i = 0; i < x.length; i++) x[i] = x[i]! + noise * spacing * (2 * random() - 1);
  return x;
}
