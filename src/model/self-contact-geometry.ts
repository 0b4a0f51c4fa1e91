/**
 * The closest-point geometry of self-collision's pairs (design: reports/design/self-collision.md
 * §1–§3): a vertex against a triangle (VT) and an edge against an edge (EE), and each particle's
 * reach D_i. Pure f64 arithmetic on flat xyz positions; scalars only, so the hot loops of the
 * detection allocate nothing per pair.
 */
import { DEGENERATE_AREA_RATIO } from './mesh-topology.ts';

/** Edge–edge: the segments count as parallel when ae − b² ≤ this × ae (sin²θ ≤ 1e-5, θ ≤ 0.18°; design §3). */
export const EDGE_PARALLEL_RATIO = 1e-5;
/** Edge–edge: an edge with |d|² ≤ this × the longer edge's |d|² is a point (|d| ≤ 1e-5 of it). */
export const EDGE_POINT_RATIO = 1e-10;

const clamp01 = (s: number): number => (s < 0 ? 0 : s > 1 ? 1 : s);

/**
 * Crushed triangle: the nearest of the projections of x_p onto the segments ab, bc, ca
 * (t = clamp((p − u)·(v − u) / |v − u|²), t = 0 on a segment of length 0), as barycentrics.
 */
function nearestEdgeBary(
  x: ArrayLike<number>,
  p: number,
  a: number,
  b: number,
  c: number,
  out: { [k: number]: number },
  at: number,
): void {
  const px = x[3 * p]!;
  const py = x[3 * p + 1]!;
  const pz = x[3 * p + 2]!;
  let best = Infinity;
  for (let edge = 0; edge < 3; edge++) {
    const u = 3 * (edge === 0 ? a : edge === 1 ? b : c);
    const v = 3 * (edge === 0 ? b : edge === 1 ? c : a);
    const ex = x[v]! - x[u]!;
    const ey = x[v + 1]! - x[u + 1]!;
    const ez = x[v + 2]! - x[u + 2]!;
    const ux = px - x[u]!;
    const uy = py - x[u + 1]!;
    const uz = pz - x[u + 2]!;
    const ee = ex * ex + ey * ey + ez * ez;
    const t = ee > 0 ? clamp01((ux * ex + uy * ey + uz * ez) / ee) : 0;
    const dx = ux - t * ex;
    const dy = uy - t * ey;
    const dz = uz - t * ez;
    const d2 = dx * dx + dy * dy + dz * dz;
    if (!(d2 < best)) continue;
    best = d2;
    // ab: (1 − t, t, 0); bc: (0, 1 − t, t); ca: c + t(a − c) = (t, 0, 1 − t).
    out[at] = edge === 0 ? 1 - t : edge === 1 ? 0 : t;
    out[at + 1] = edge === 0 ? t : edge === 1 ? 1 - t : 0;
    out[at + 2] = edge === 0 ? 0 : edge === 1 ? t : 1 - t;
  }
}

/** Writes (α, β, γ) to out[at..at+2] and returns |x_p − (α x_a + β x_b + γ x_c)|. */
function baryDistance(
  x: ArrayLike<number>,
  p: number,
  a: number,
  b: number,
  c: number,
  out: { [k: number]: number },
  at: number,
  alpha: number,
  beta: number,
  gamma: number,
): number {
  out[at] = alpha;
  out[at + 1] = beta;
  out[at + 2] = gamma;
  const dx = x[3 * p]! - (alpha * x[3 * a]! + beta * x[3 * b]! + gamma * x[3 * c]!);
  const dy = x[3 * p + 1]! - (alpha * x[3 * a + 1]! + beta * x[3 * b + 1]! + gamma * x[3 * c + 1]!);
  const dz = x[3 * p + 2]! - (alpha * x[3 * a + 2]! + beta * x[3 * b + 2]! + gamma * x[3 * c + 2]!);
  return Math.sqrt(dx * dx + dy * dy + dz * dz);
}

/**
 * Closest point of triangle (a, b, c) to particle p: barycentrics (α, β, γ) written to
 * out[at..at+2]; returns the distance |x_p − (α x_a + β x_b + γ x_c)|.
 *
 * Ericson, "Real-Time Collision Detection" (2005) §5.1.5, ClosestPtPointTriangle: with
 * d₁ = ab·ap, d₂ = ac·ap, d₃ = ab·bp, d₄ = ac·bp, d₅ = ab·cp, d₆ = ac·cp, the Voronoi regions in
 * order — vertex a (d₁ ≤ 0, d₂ ≤ 0), vertex b (d₃ ≥ 0, d₄ ≤ d₃), edge ab (v_c = d₁d₄ − d₃d₂ ≤ 0,
 * d₁ ≥ 0, d₃ ≤ 0), vertex c (d₆ ≥ 0, d₅ ≤ d₆), edge ac (v_b = d₅d₂ − d₁d₆ ≤ 0, d₂ ≥ 0, d₆ ≤ 0),
 * edge bc (v_a = d₃d₆ − d₅d₄ ≤ 0, d₄ − d₃ ≥ 0, d₅ − d₆ ≥ 0) — else the face,
 * (α, β, γ) = (v_a, v_b, v_c) / (v_a + v_b + v_c). A crushed triangle
 * (|ab × ac|² ≤ 1e-9 |ab|² |ac|², DEGENERATE_AREA_RATIO) is tested first and gives the nearest of
 * its three edge projections: Ericson's edge-ab test degenerates when a = b (0/0).
 */
export function vertexTriangleClosest(
  x: ArrayLike<number>,
  p: number,
  a: number,
  b: number,
  c: number,
  out: { [k: number]: number },
  at = 0,
): number {
  const ax = x[3 * a]!;
  const ay = x[3 * a + 1]!;
  const az = x[3 * a + 2]!;
  const abx = x[3 * b]! - ax;
  const aby = x[3 * b + 1]! - ay;
  const abz = x[3 * b + 2]! - az;
  const acx = x[3 * c]! - ax;
  const acy = x[3 * c + 1]! - ay;
  const acz = x[3 * c + 2]! - az;
  const nx = aby * acz - abz * acy; // ab × ac
  const ny = abz * acx - abx * acz;
  const nz = abx * acy - aby * acx;
  const abab = abx * abx + aby * aby + abz * abz;
  const acac = acx * acx + acy * acy + acz * acz;
  if (!(nx * nx + ny * ny + nz * nz > DEGENERATE_AREA_RATIO * abab * acac)) {
    nearestEdgeBary(x, p, a, b, c, out, at);
    return baryDistance(x, p, a, b, c, out, at, out[at]!, out[at + 1]!, out[at + 2]!);
  }
  const apx = x[3 * p]! - ax;
  const apy = x[3 * p + 1]! - ay;
  const apz = x[3 * p + 2]! - az;
  const d1 = abx * apx + aby * apy + abz * apz;
  const d2 = acx * apx + acy * apy + acz * apz;
  if (d1 <= 0 && d2 <= 0) return baryDistance(x, p, a, b, c, out, at, 1, 0, 0);
  const bpx = x[3 * p]! - x[3 * b]!;
  const bpy = x[3 * p + 1]! - x[3 * b + 1]!;
  const bpz = x[3 * p + 2]! - x[3 * b + 2]!;
  const d3 = abx * bpx + aby * bpy + abz * bpz;
  const d4 = acx * bpx + acy * bpy + acz * bpz;
  if (d3 >= 0 && d4 <= d3) return baryDistance(x, p, a, b, c, out, at, 0, 1, 0);
  const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const s = d1 / (d1 - d3);
    return baryDistance(x, p, a, b, c, out, at, 1 - s, s, 0);
  }
  const cpx = x[3 * p]! - x[3 * c]!;
  const cpy = x[3 * p + 1]! - x[3 * c + 1]!;
  const cpz = x[3 * p + 2]! - x[3 * c + 2]!;
  const d5 = abx * cpx + aby * cpy + abz * cpz;
  const d6 = acx * cpx + acy * cpy + acz * cpz;
  if (d6 >= 0 && d5 <= d6) return baryDistance(x, p, a, b, c, out, at, 0, 0, 1);
  const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const s = d2 / (d2 - d6);
    return baryDistance(x, p, a, b, c, out, at, 1 - s, 0, s);
  }
  const va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    const s = (d4 - d3) / (d4 - d3 + (d5 - d6));
    return baryDistance(x, p, a, b, c, out, at, 0, 1 - s, s);
  }
  const sum = va + vb + vc; // = |ab × ac|² > 0 here
  return baryDistance(x, p, a, b, c, out, at, va / sum, vb / sum, vc / sum);
}

/**
 * Closest points of segments p₁q₁ and p₂q₂: (s, t) written to out[at], out[at+1], with
 * c₁ = p₁ + s (q₁ − p₁), c₂ = p₂ + t (q₂ − p₂); returns |c₁ − c₂|.
 *
 * Ericson §5.1.9, ClosestPtSegmentSegment: d₁ = q₁ − p₁, d₂ = q₂ − p₂, r = p₁ − p₂,
 * a = d₁·d₁, e = d₂·d₂, b = d₁·d₂, c = d₁·r, f = d₂·r, denom = ae − b². Then
 * s = clamp((bf − ce) / denom), t = (bs + f) / e; t clamped to [0, 1] recomputes
 * s = clamp((bt − c) / a). Parallel when denom ≤ 1e-5 ae (design §3): s = 0, t = clamp(f / e),
 * s = clamp((bt − c) / a) — exact for exactly parallel segments, and for nearly parallel ones
 * (sin θ ≤ 3.2e-3) at most ~|d₁| sin θ above the true distance. An edge with
 * |d|² ≤ 1e-10 × the other's is a point: the point–segment projection.
 */
export function edgeEdgeClosest(
  x: ArrayLike<number>,
  p1: number,
  q1: number,
  p2: number,
  q2: number,
  out: { [k: number]: number },
  at = 0,
): number {
  const p1x = x[3 * p1]!;
  const p1y = x[3 * p1 + 1]!;
  const p1z = x[3 * p1 + 2]!;
  const p2x = x[3 * p2]!;
  const p2y = x[3 * p2 + 1]!;
  const p2z = x[3 * p2 + 2]!;
  const d1x = x[3 * q1]! - p1x;
  const d1y = x[3 * q1 + 1]! - p1y;
  const d1z = x[3 * q1 + 2]! - p1z;
  const d2x = x[3 * q2]! - p2x;
  const d2y = x[3 * q2 + 1]! - p2y;
  const d2z = x[3 * q2 + 2]! - p2z;
  const rx = p1x - p2x;
  const ry = p1y - p2y;
  const rz = p1z - p2z;
  const a = d1x * d1x + d1y * d1y + d1z * d1z;
  const e = d2x * d2x + d2y * d2y + d2z * d2z;
  const f = d2x * rx + d2y * ry + d2z * rz;
  const point = EDGE_POINT_RATIO * (a > e ? a : e);
  let s = 0;
  let t = 0;
  if (a <= point) {
    if (e > point) t = clamp01(f / e); // p₁ against segment 2
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz;
    if (e <= point)
      s = clamp01(-c / a); // p₂ against segment 1
    else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z;
      const denom = a * e - b * b;
      if (denom > EDGE_PARALLEL_RATIO * a * e) {
        s = clamp01((b * f - c * e) / denom);
        t = (b * s + f) / e;
        if (t < 0) {
          t = 0;
          s = clamp01(-c / a);
        } else if (t > 1) {
          t = 1;
          s = clamp01((b - c) / a);
        }
      } else {
        t = clamp01(f / e);
        s = clamp01((b * t - c) / a);
      }
    }
  }
  out[at] = s;
  out[at + 1] = t;
  const dx = rx + s * d1x - t * d2x;
  const dy = ry + s * d1y - t * d2y;
  const dz = rz + s * d1z - t * d2z;
  return Math.sqrt(dx * dx + dy * dy + dz * dz);
}

/**
 * Each particle's reach, the most it may move in a step of h (design §2; the fail-safe clamps to it):
 * D_i = 2h|v_i| + h²|g| + r/2, into out [n].
 */
export function selfReach(
  v: ArrayLike<number>,
  h: number,
  gravity: readonly [number, number, number],
  thickness: number,
  out: Float64Array,
): Float64Array {
  const base = h * h * Math.hypot(gravity[0], gravity[1], gravity[2]) + thickness / 2;
  for (let i = 0; 3 * i < v.length; i++) {
    const speed = Math.sqrt(v[3 * i]! ** 2 + v[3 * i + 1]! ** 2 + v[3 * i + 2]! ** 2);
    out[i] = 2 * h * speed + base;
  }
  return out;
}
