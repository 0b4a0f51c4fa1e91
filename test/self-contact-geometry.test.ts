/**
 * Self-collision's closest-point geometry (src/model/self-contact-geometry.ts) against independent
 * references (test/helpers/self-contact-brute.ts): another formulation on 1.2·10⁴+ random cases per
 * function, and that formulation itself against dense sampling with refinement.
 */
import { describe, expect, test } from 'vitest';
import { edgeEdgeClosest, selfReach, vertexTriangleClosest } from '../src/internal.ts';
import {
  pointSegment,
  random32,
  referencePointTriangle,
  referenceSegmentSegment,
  sampledPointTriangle,
  sampledSegmentSegment,
} from './helpers/self-contact-brute.ts';

type Vec3 = [number, number, number];

/** Distance agreement: |d − d_ref| ≤ TOLERANCE · L, L the case's largest coordinate (≤ 3 here). */
const TOLERANCE = 1e-13;

/**
 * Under mutation testing (vitest.mutate.config.ts, WEFT_MUTATION=1): a quarter of the random cases
 * (still thousands per function, every region) and of the counts each class must reach; the
 * references' own checks against sampling (which test the test's helpers, not the core) are
 * skipped — 8 s → 4.5 s of tests on the loaded 2-core VM.
 */
const MUTATION_RUN = process.env['WEFT_MUTATION'] === '1';
const cases = (n: number): number => (MUTATION_RUN ? n / 4 : n);

const random = random32(20260);
const uniform = (lo: number, hi: number): number => lo + (hi - lo) * random();
const point = (scale = 1): Vec3 => [uniform(-scale, scale), uniform(-scale, scale), uniform(-scale, scale)];
const add = (a: Vec3, b: Vec3, k = 1): Vec3 => [a[0] + k * b[0], a[1] + k * b[1], a[2] + k * b[2]];
const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]; // prettier-ignore
const norm = (a: Vec3): number => Math.hypot(...a);
const unit = (a: Vec3): Vec3 => [a[0] / norm(a), a[1] / norm(a), a[2] / norm(a)];
const scaleOf = (...vs: Vec3[]): number => Math.max(1, ...vs.flatMap((v) => v.map(Math.abs)));

/** Runs vertexTriangleClosest on (x, a, b, c); checks what must hold of any answer; returns d (and the point). */
function vtPoint(x: Vec3, a: Vec3, b: Vec3, c: Vec3): { d: number; q: Vec3 } {
  const out = new Float64Array(5);
  const d = vertexTriangleClosest([...x, ...a, ...b, ...c], 0, 1, 2, 3, out, 1);
  const [alpha, beta, gamma] = [out[1]!, out[2]!, out[3]!];
  expect(Math.min(alpha, beta, gamma)).toBeGreaterThanOrEqual(0);
  expect(Math.abs(alpha + beta + gamma - 1)).toBeLessThan(1e-12);
  expect([out[0], out[4]]).toEqual([0, 0]); // nothing written outside out[at..at+2]
  // The barycentrics reproduce d: |x − (a + β ab + γ ac)| (another rounding order).
  const q = add(add(a, sub(b, a), beta), sub(c, a), gamma);
  expect(Math.abs(norm(sub(x, q)) - d)).toBeLessThanOrEqual(1e-14 * scaleOf(x, a, b, c));
  return { d, q };
}
const vt = (x: Vec3, a: Vec3, b: Vec3, c: Vec3): number => vtPoint(x, a, b, c).d;

/** Runs edgeEdgeClosest; checks (s, t) ∈ [0, 1]² and that they reproduce d; returns d. */
function ee(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3): { d: number; s: number; t: number; c1: Vec3; c2: Vec3 } {
  const out = new Float64Array(4);
  const d = edgeEdgeClosest([...p1, ...q1, ...p2, ...q2], 0, 1, 2, 3, out, 1);
  const [s, t] = [out[1]!, out[2]!];
  expect(Math.min(s, t)).toBeGreaterThanOrEqual(0);
  expect(Math.max(s, t)).toBeLessThanOrEqual(1);
  expect([out[0], out[3]]).toEqual([0, 0]);
  const [c1, c2] = [add(p1, sub(q1, p1), s), add(p2, sub(q2, p2), t)];
  expect(Math.abs(norm(sub(c1, c2)) - d)).toBeLessThanOrEqual(1e-14 * scaleOf(p1, q1, p2, q2));
  return { d, s, t, c1, c2 };
}

describe('vertexTriangleClosest (Ericson §5.1.5, barycentrics)', () => {
  test('1.2·10⁴ random cases, every Voronoi region, agree with the triple-product formulation', () => {
    const regions = new Map<string, number>();
    let [worst, worstPoint] = [0, 0];
    for (let k = 0; k < cases(12000); k++) {
      const [a, b, c] = [point(), point(), point()];
      // Half the points anywhere in a box twice the triangle's, half near its plane, near its border.
      const near = add(a, add(sub(b, a), sub(c, a), uniform(-0.5, 1.5) / 1), 0);
      const inPlane = add(add(a, sub(b, a), uniform(-0.4, 1.2)), sub(c, a), uniform(-0.4, 1.2));
      const n = unit(cross(sub(b, a), sub(c, a)));
      const x = k % 2 === 0 ? point(2) : add(random() < 0.5 ? inPlane : near, n, uniform(-0.2, 0.2));
      const reference = referencePointTriangle(x, a, b, c);
      regions.set(reference.feature, (regions.get(reference.feature) ?? 0) + 1);
      const { d, q } = vtPoint(x, a, b, c);
      worst = Math.max(worst, Math.abs(d - reference.distance) / scaleOf(x, a, b, c));
      // The closest point is unique (a convex set), so the barycentrics' point matches the reference's.
      worstPoint = Math.max(worstPoint, norm(sub(q, reference.point)) / scaleOf(x, a, b, c));
    }
    expect(worst).toBeLessThan(TOLERANCE);
    expect(worstPoint).toBeLessThan(1e-12);
    for (const feature of ['face', 'ab', 'bc', 'ca', 'a', 'b', 'c'])
      expect(regions.get(feature) ?? 0, feature).toBeGreaterThan(cases(200));
  });

  test('slivers above the crushed threshold (|ab × ac|² = 1e-8 |ab|²|ac|²) are exact too', () => {
    let worst = 0;
    for (let k = 0; k < cases(3000); k++) {
      const [a, b] = [point(), point()];
      const side = unit(cross(sub(b, a), point()));
      const c = add(add(a, sub(b, a), uniform(-0.5, 1.5)), side, 1e-4 * norm(sub(b, a)) * uniform(1.2, 3));
      const x = add(add(a, sub(b, a), uniform(-0.3, 1.3)), point(), uniform(0, 0.3));
      worst = Math.max(worst, Math.abs(vt(x, a, b, c) - referencePointTriangle(x, a, b, c).distance));
    }
    expect(worst).toBeLessThan(TOLERANCE);
  });

  test('crushed triangles: exact when degenerate, within the smallest height when nearly so', () => {
    let [worstExact, worstNear, exceeded] = [0, 0, 0];
    for (let k = 0; k < cases(4000); k++) {
      const [a, b] = [point(), point()];
      const kind = k % 4;
      // 0: a = b; 1: c on the line ab (rounded); 2: a = b = c; 3: c 1e-6 |ab| off the line (crushed, not degenerate).
      const onLine = add(a, sub(b, a), uniform(-1, 2));
      const c =
        kind === 0 ? point() : kind === 1 ? onLine : kind === 2 ? a : add(onLine, unit(cross(sub(b, a), point())), 1e-6 * norm(sub(b, a))); // prettier-ignore
      const [u, v, w]: [Vec3, Vec3, Vec3] = kind === 0 ? [a, a, c] : kind === 2 ? [a, a, a] : [a, b, c];
      const x = add(add(u, sub(w, u), uniform(-0.5, 1.5)), point(), uniform(0, 0.5));
      const reference = referencePointTriangle(x, u, v, w).distance;
      const d = vt(x, u, v, w);
      if (kind === 3) {
        const area2 = norm(cross(sub(b, a), sub(c, a)));
        const height = area2 / Math.max(norm(sub(b, a)), norm(sub(c, a)), norm(sub(c, b)));
        worstNear = Math.max(worstNear, (d - reference) / height);
        if (d < reference - TOLERANCE) exceeded++;
      } else worstExact = Math.max(worstExact, Math.abs(d - reference));
    }
    expect(worstExact).toBeLessThan(TOLERANCE);
    expect(worstNear).toBeLessThanOrEqual(1);
    expect(exceeded).toBe(0);
  });

  test.skipIf(MUTATION_RUN)('the reference formulation agrees with dense sampling and refinement', () => {
    for (let k = 0; k < 300; k++) {
      const [a, b] = [point(), point()];
      const c = k % 10 === 0 ? add(a, sub(b, a), uniform(-1, 2)) : point();
      const x = point(2);
      const sampled = sampledPointTriangle(x, a, b, c);
      expect(Math.abs(referencePointTriangle(x, a, b, c).distance - sampled)).toBeLessThan(1e-9);
      expect(Math.abs(vt(x, a, b, c) - sampled)).toBeLessThan(1e-9);
    }
  });
});

describe('edgeEdgeClosest (Ericson §5.1.9)', () => {
  test('1.2·10⁴ random pairs, interior and clamped minima, agree with the common-perpendicular formulation', () => {
    const classes = new Map<string, number>();
    let [worst, worstPoints] = [0, 0];
    for (let k = 0; k < cases(12000); k++) {
      const [p1, q1] = [point(), point()];
      // Half anywhere, half crossing segment 1 near its middle at a small gap.
      const middle = add(add(p1, sub(q1, p1), uniform(-0.2, 1.2)), point(), 0.1);
      const d2 = point();
      const [p2, q2] =
        k % 2 === 0 ? [point(), point()] : [add(middle, d2, -uniform(-0.2, 1.2)), add(middle, d2, 1)];
      const { d, s, t, c1, c2 } = ee(p1, q1, p2, q2);
      const reference = referenceSegmentSegment(p1, q1, p2, q2);
      const kind =
        (s > 0 && s < 1 ? 'interior' : 'clamped') + '-' + (t > 0 && t < 1 ? 'interior' : 'clamped');
      classes.set(kind, (classes.get(kind) ?? 0) + 1);
      worst = Math.max(worst, Math.abs(d - reference.distance) / scaleOf(p1, q1, p2, q2));
      // Away from parallel the closest points are unique and well-conditioned: they match too.
      const sin = norm(cross(unit(sub(q1, p1)), unit(sub(q2, p2))));
      if (sin > 0.1)
        worstPoints = Math.max(worstPoints, norm(sub(c1, reference.c1)) + norm(sub(c2, reference.c2)));
    }
    expect(worst).toBeLessThan(TOLERANCE);
    expect(worstPoints).toBeLessThan(1e-11);
    for (const kind of ['interior-interior', 'interior-clamped', 'clamped-interior', 'clamped-clamped'])
      expect(classes.get(kind) ?? 0, kind).toBeGreaterThan(cases(500));
  });

  test('exactly parallel and collinear (overlapping or apart) segments are exact', () => {
    let [worst, overlapping] = [0, 0];
    for (let k = 0; k < cases(4000); k++) {
      const [p1, q1] = [point(), point()];
      const d1 = sub(q1, p1);
      const ratio = [0.25, -0.5, 1, -1, 2, -4][k % 6]!; // powers of 2: d₂ ∥ d₁ exactly, ae = b²
      const offset = k % 3 === 0 ? [0, 0, 0] as Vec3 : point(0.3); // prettier-ignore
      const p2 = add(add(p1, d1, uniform(-2, 2)), offset);
      const q2 = add(p2, d1, ratio);
      const reference = referenceSegmentSegment(p1, q1, p2, q2).distance;
      if (k % 3 === 0 && reference < 1e-12) overlapping++;
      worst = Math.max(worst, Math.abs(ee(p1, q1, p2, q2).d - reference) / scaleOf(p1, q1, p2, q2));
    }
    expect(worst).toBeLessThan(TOLERANCE);
    expect(overlapping).toBeGreaterThan(cases(500));
  });

  test('nearly parallel: exact above sin²θ = 1e-5; below, never under and at most (|d₁| + |d₂|) sin θ over', () => {
    let [worstAbove, worstBelow, under, above, below] = [0, 0, 0, 0, 0];
    for (let k = 0; k < cases(6000); k++) {
      const [p1, q1] = [point(), point()];
      const d1 = sub(q1, p1);
      const sin2 = 10 ** uniform(-14, -2);
      const side = unit(cross(d1, point()));
      const d2 = add(add([0, 0, 0], d1, uniform(0.3, 1.5) * (random() < 0.5 ? -1 : 1)), side, Math.sqrt(sin2) * norm(d1)); // prettier-ignore
      // Crossing near the middle at a small gap, or shifted along the line.
      const start = add(
        add(add(p1, d1, 0.5 + uniform(-1, 1)), d2, -0.5),
        cross(side, unit(d1)),
        uniform(-0.05, 0.05),
      );
      const [p2, q2] = [start, add(start, d2)];
      const reference = referenceSegmentSegment(p1, q1, p2, q2).distance;
      const { d } = ee(p1, q1, p2, q2);
      const sin = norm(cross(unit(d1), unit(d2)));
      if (d < reference - TOLERANCE) under++;
      if (sin * sin > 2e-5) {
        above++;
        worstAbove = Math.max(worstAbove, Math.abs(d - reference));
      } else {
        below++;
        worstBelow = Math.max(worstBelow, (d - reference) / ((norm(d1) + norm(d2)) * sin + 1e-300));
      }
    }
    expect(under).toBe(0);
    expect(Math.min(above, below)).toBeGreaterThan(cases(1000));
    expect(worstAbove).toBeLessThan(TOLERANCE * 3);
    expect(worstBelow).toBeLessThanOrEqual(1);
  });

  test('below sin²θ = 1e-5 it takes the parallel branch of design §3, as the WGSL does: c₂ nearest p₁, c₁ nearest c₂', () => {
    // Segments crossing at 0.1° (sin²θ = 3e-6) with a gap of 1e-3: the true distance is 1e-3 at the
    // crossing; the parallel branch measures from p₁'s foot on segment 2 instead.
    const theta = (0.1 * Math.PI) / 180;
    const [p1, q1]: [Vec3, Vec3] = [
      [-1, 0, 0],
      [1, 0, 0],
    ];
    const [p2, q2]: [Vec3, Vec3] = [
      [-Math.cos(theta), -Math.sin(theta), 1e-3],
      [Math.cos(theta), Math.sin(theta), 1e-3],
    ];
    const { d, c1, c2 } = ee(p1, q1, p2, q2);
    const foot = add(p2, sub(q2, p2), pointSegment(p1, p2, q2).t);
    const back = add(p1, sub(q1, p1), pointSegment(foot, p1, q1).t);
    expect(norm(sub(c2, foot))).toBeLessThan(1e-15);
    expect(norm(sub(c1, back))).toBeLessThan(1e-15);
    expect(Math.abs(d - Math.hypot(1e-3, Math.sin(theta) * Math.cos(theta)))).toBeLessThan(1e-15); // 2.0e-3
    expect(referenceSegmentSegment(p1, q1, p2, q2).distance).toBeCloseTo(1e-3, 15);
  });

  test('point-like edges: exact when of length 0, within the short edge length below 1e-5 of the other', () => {
    let [worstExact, worstShort] = [0, 0];
    for (let k = 0; k < cases(4000); k++) {
      const [p1, p2, q2] = [point(), point(), point()];
      const kind = k % 4; // 0: q₁ = p₁; 1: both edges points; 2: |d₁| = 1e-7 |d₂| (a point); 3: 1e-4 |d₂| (a segment)
      const length = kind === 2 ? 1e-7 : kind === 3 ? 1e-4 : 0;
      const q1 = add(p1, unit(point()), length * norm(sub(q2, p2)));
      const [a, b] = kind === 1 ? [p2, p2] : [p2, q2];
      const reference = referenceSegmentSegment(p1, q1, a, b).distance;
      const d = k % 8 < 4 ? ee(p1, q1, a, b).d : ee(a, b, p1, q1).d; // either edge first
      if (kind === 2) worstShort = Math.max(worstShort, Math.abs(d - reference) / norm(sub(q1, p1)));
      else worstExact = Math.max(worstExact, Math.abs(d - reference));
    }
    expect(worstExact).toBeLessThan(TOLERANCE * 3);
    expect(worstShort).toBeLessThanOrEqual(1);
  });

  test('an edge with |d|² ≤ 1e-10 × the other’s, first or second, is its start point projected on the other (design §3, as self-contact-common.wgsl)', () => {
    // The threshold is 1e-10 × the longer edge's |d|², whichever edge that is: the short edge's
    // weight goes all to its start point (its parameter 0), the long edge's parameter is the
    // projection of that point (pointSegment, test/helpers). The GPU's pairs use the same rule, so
    // the CPU and GPU put a pair's force on the same particles.
    const own = random32(31); // its own draws: the other tests' random cases stay as they were
    const at = (): Vec3 => [2 * own() - 1, 2 * own() - 1, 2 * own() - 1];
    for (let k = 0; k < 200; k++) {
      const [p1, q1, p] = [at(), at(), at()];
      const q = add(p, unit(at()), 1e-6 * norm(sub(q1, p1))); // |d|² = 1e-12 of the long edge's
      const second = ee(p1, q1, p, q); // the short edge second (a > e)
      expect(second.t).toBe(0);
      expect(Math.abs(second.s - pointSegment(p, p1, q1).t)).toBeLessThan(1e-12);
      const first = ee(p, q, p1, q1); // the short edge first (a < e)
      expect(first.s).toBe(0);
      expect(Math.abs(first.t - pointSegment(p, p1, q1).t)).toBeLessThan(1e-12);
    }
  });

  test.skipIf(MUTATION_RUN)('the reference formulation agrees with dense sampling and refinement', () => {
    for (let k = 0; k < 300; k++) {
      const [p1, q1, p2] = [point(), point(), point()];
      const q2 = k % 10 === 0 ? add(p2, sub(q1, p1), 0.5) : point();
      const sampled = sampledSegmentSegment(p1, q1, p2, q2);
      expect(Math.abs(referenceSegmentSegment(p1, q1, p2, q2).distance - sampled)).toBeLessThan(1e-9);
      expect(Math.abs(ee(p1, q1, p2, q2).d - sampled)).toBeLessThan(1e-9);
    }
  });
});

test('selfReach: D_i = 2h|v_i| + h²|g| + r/2', () => {
  const v = [3, 4, 0, 0, 0, 0, -1, 2, -2];
  const out = selfReach(v, 0.01, [0, -9.81, 0], 0.004, new Float64Array(3));
  const base = 1e-4 * 9.81 + 0.002;
  expect(Array.from(out)).toEqual([0.02 * 5 + base, base, 0.02 * 3 + base]);
});
