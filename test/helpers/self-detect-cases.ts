/**
 * Self-collision detection on WebGPU checked against the CPU (design
 * reports/design/self-collision.md §2, §3, phase 2), shared by test/gpu-self-contact-detect.test.ts
 * and the quick case of test/helpers/wgsl-quick-cases.ts (and so the WGSL mutator):
 *
 * - scenes: a horizontal cloth (2 cm apart, r = 4 mm) folded over a cylinder whose gap grows along
 *   the fold, or jittered and rolled into waves, with random velocities (h = 1/240 s);
 * - an O(N²) float64 enumeration of every VT and EE pair with the detection's predicate (the CPU's
 *   geometry, src/model/self-contact-geometry.ts) at the float32 positions;
 * - {@link pairListFailures}: the GPU list equals it (set and order) except pairs within
 *   1e-5 (1 + |x|∞) of r_q (float32 against float64), its records' particles follow from their
 *   primitives, and its incidence equals the one built from the list.
 *
 * No vitest here: the mutator imports this file inside its own vitest process.
 */
import {
  buildCloth,
  detectSelfPairs,
  edgeEdgeClosest,
  GpuSelfContactDetect,
  selfReach,
  vertexTriangleClosest,
  withSelfCollision,
  type GpuSelfPairs,
  type Model,
  type SelfDetectSpec,
} from '../../src/internal.ts';

type ResolvedSelfCollision = NonNullable<Model['selfCollision']>;

export const SPACING = 0.02;
export const THICKNESS = 0.004;
export const H = 1 / 240;
export const GRAVITY = 9.81;

export interface Cloth {
  readonly self: ResolvedSelfCollision;
  readonly rest: Float64Array;
  readonly n: number;
  readonly nx: number;
}

/** Deterministic uniform [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An nx² horizontal cloth (spacing 2 cm) with self-collision at r = 4 mm. */
export function cloth(nx: number): Cloth {
  const model = withSelfCollision(buildCloth({ nx, ny: nx, spacing: SPACING, pins: 'none' }), { thickness: THICKNESS }); // prettier-ignore
  return { self: model.selfCollision!, rest: model.particlePositions, n: model.particleCount, nx };
}

/**
 * The cloth folded over a cylinder along z at about half its width, its gap 2ρ growing from 3 mm
 * to 23 mm along z (pairs near and far from the threshold), jittered by ±`jitter` ℓ.
 */
export function folded(c: Cloth, seed: number, jitter = 0.1): Float64Array {
  const next = random(seed);
  const x = new Float64Array(3 * c.n);
  const u0 = (SPACING * (c.nx - 1)) / 2 + 0.3 * SPACING;
  for (let j = 0; j < c.nx; j++)
    for (let i = 0; i < c.nx; i++) {
      const rho = (0.003 + (0.02 * j) / (c.nx - 1)) / 2;
      const u = i * SPACING;
      const theta = (u - u0) / rho;
      const [px, py] = u <= u0 ? [u, 0] : theta <= Math.PI ? [u0 + rho * Math.sin(theta), rho * (1 - Math.cos(theta))] : [u0 - (u - u0 - Math.PI * rho), 2 * rho]; // prettier-ignore
      x.set(
        [px, py, j * SPACING].map((v) => v + jitter * SPACING * (2 * next() - 1)),
        3 * (j * c.nx + i),
      );
    }
  return x;
}

/** The flat cloth jittered by ±0.45 ℓ per coordinate, and rolled into waves of 3 ℓ. */
export function crumpled(c: Cloth, seed: number): Float64Array {
  const next = random(seed);
  return c.rest.map((v, k) => {
    const wave = k % 3 === 1 ? 1.5 * SPACING * Math.sin(c.rest[k - 1]! / (0.5 * SPACING)) : 0;
    return v + wave + 0.45 * SPACING * (2 * next() - 1);
  });
}

/** Velocities uniform in ±scale per component. */
export function velocities(n: number, seed: number, scale = 0.5): Float64Array {
  const next = random(seed);
  return Float64Array.from({ length: 3 * n }, () => scale * (2 * next() - 1));
}

interface ReferencePair {
  readonly kind: number;
  readonly prim: number;
  readonly partner: number;
  /** d − r_q, m. */
  readonly margin: number;
}

/**
 * Every VT and EE pair with d < r_q + tol by an O(N²) enumeration in float64 (design §2's
 * predicate), in the list's order: VT by vertex then triangle, then EE by edge then edge'.
 */
function bruteForce(
  self: ResolvedSelfCollision,
  x: Float64Array,
  reach: Float64Array,
  tol: number,
): ReferencePair[] {
  const { triangleIndices: tri, edgeIndices: edges, thickness: r } = self;
  const out: ReferencePair[] = [];
  const bary = [0, 0, 0];
  for (let p = 0; 3 * p < x.length; p++)
    for (let t = 0; 3 * t < tri.length; t++) {
      const [a, b, c] = [tri[3 * t]!, tri[3 * t + 1]!, tri[3 * t + 2]!];
      if (a === p || b === p || c === p) continue;
      const margin = vertexTriangleClosest(x, p, a, b, c, bary) - (r + reach[p]! + Math.max(reach[a]!, reach[b]!, reach[c]!)); // prettier-ignore
      if (margin < tol) out.push({ kind: 0, prim: p, partner: t, margin });
    }
  for (let e = 0; 2 * e < edges.length; e++)
    for (let f = e + 1; 2 * f < edges.length; f++) {
      const [p1, q1, p2, q2] = [edges[2 * e]!, edges[2 * e + 1]!, edges[2 * f]!, edges[2 * f + 1]!];
      if (p1 === p2 || p1 === q2 || q1 === p2 || q1 === q2) continue;
      const margin = edgeEdgeClosest(x, p1, q1, p2, q2, bary) - (r + Math.max(reach[p1]!, reach[q1]!) + Math.max(reach[p2]!, reach[q2]!)); // prettier-ignore
      if (margin < tol) out.push({ kind: 1, prim: e, partner: f, margin });
    }
  return out;
}

/** The CSR incidence of a pair list: per particle not fixed, 4 · pair + corner ascending. */
export function incidenceOf(particles: Uint32Array, n: number, fixed?: ArrayLike<number>): { offsets: Uint32Array; entries: Uint32Array } {
  const lists: number[][] = Array.from({ length: n }, () => []);
  particles.forEach((i, k) => {
    if (!fixed?.[i]) lists[i]!.push(k);
  });
  const offsets = new Uint32Array(n + 1);
  lists.forEach((list, i) => (offsets[i + 1] = offsets[i]! + list.length));
  return { offsets, entries: Uint32Array.from(lists.flat()) };
} // prettier-ignore

/** A detector of `c` (48 pairs per particle unless `options` say otherwise), step H. */
export function detector(
  device: GPUDevice,
  c: Cloth,
  options: Partial<SelfDetectSpec> = {},
): GpuSelfContactDetect {
  const spec = { particleCount: c.n, triangleIndices: c.self.triangleIndices, edgeIndices: c.self.edgeIndices, thickness: c.self.thickness, gravity: GRAVITY, maxPairsPerParticle: 48 }; // prettier-ignore
  const detect = new GpuSelfContactDetect(device, { ...spec, ...options });
  detect.setStep(H);
  return detect;
}

/** The cell size the detector sizes for itself for `c` at (x, v) and step H (read back), m. */
export async function defaultCellSize(device: GPUDevice, c: Cloth, x: Float64Array, v: Float64Array): Promise<number> {
  return (await detectOnGpu(device, c, x, v)).cellSize;
} // prettier-ignore

/**
 * `runs` GPU detections of `c` at (x, v) (rounded to float32 on upload), with the reach D_i given
 * when `reach` is (options.reach 'given'); the last one's result.
 */
export async function detectOnGpu(device: GPUDevice, c: Cloth, x: Float64Array, v: Float64Array, options: Partial<SelfDetectSpec> = {}, runs = 1, reach?: Float64Array): Promise<GpuSelfPairs> {
  const detect = detector(device, c, reach ? { ...options, reach: 'given' } : options);
  try {
    detect.upload(x, v);
    if (reach) detect.uploadReach(reach);
    for (let k = 0; k < runs; k++) detect.detect();
    return await detect.read();
  } finally {
    detect.destroy();
  }
} // prettier-ignore

const key = (kind: number, prim: number, partner: number) => `${kind}:${prim}:${partner}`;
const some = (list: readonly string[]) => list.slice(0, 5).join(', ') + (list.length > 5 ? ` … (${list.length})` : ''); // prettier-ignore

/** The GPU list's records out of order, and those whose particles do not follow from their primitives. */
function recordFailures(c: Cloth, result: GpuSelfPairs): string[] {
  const failures: string[] = [];
  const { triangleIndices: tri, edgeIndices: edges } = c.self;
  for (let k = 0; k < result.count; k++) {
    const [prim, partner] = [result.primitives[2 * k]!, result.primitives[2 * k + 1]!];
    if (k > 0) {
      const order = Math.sign(result.kinds[k]! - result.kinds[k - 1]!) || Math.sign(prim - result.primitives[2 * k - 2]!) || Math.sign(partner - result.primitives[2 * k - 1]!); // prettier-ignore
      if (order !== 1) failures.push(`pair ${k} does not follow pair ${k - 1}`);
    }
    const ids = result.kinds[k] === 0 ? [prim, tri[3 * partner], tri[3 * partner + 1], tri[3 * partner + 2]] : [edges[2 * prim], edges[2 * prim + 1], edges[2 * partner], edges[2 * partner + 1]]; // prettier-ignore
    if (ids.some((id, corner) => result.particles[4 * k + corner] !== id)) failures.push(`pair ${k}: particles ${[...result.particles.subarray(4 * k, 4 * k + 4)]}, expected ${ids}`); // prettier-ignore
  }
  const vt = result.kinds.filter((kind) => kind === 0).length;
  if (result.vertexTriangleCount !== vt) failures.push(`${result.vertexTriangleCount} VT pairs counted, ${vt} listed`); // prettier-ignore
  return failures;
}

/** What {@link pairListFailures} found besides failures: pairs, EE pairs, pairs within the band. */
export interface PairCounts {
  readonly pairs: number;
  readonly edgeEdge: number;
  readonly near: number;
}

/**
 * The reasons the GPU's result at (x, v) is not the CPU's (empty when it is), and its counts;
 * `fixed`: the particles the detector was told are fixed; `givenReach`: the D_i it was given
 * (default: D_i = 2h|v_i| + h²|g| + r/2 from v).
 */
export function pairListFailures(c: Cloth, result: GpuSelfPairs, x: Float64Array, v: Float64Array, fixed?: ArrayLike<number>, givenReach?: Float64Array): { failures: string[]; counts: PairCounts } {
  const x32 = Float64Array.from(x, Math.fround);
  const reach = givenReach ? Float64Array.from(givenReach, Math.fround) : selfReach(Float64Array.from(v, Math.fround), H, [0, -GRAVITY, 0], c.self.thickness, new Float64Array(c.n)); // prettier-ignore
  const tol = 1e-5 * (1 + Math.max(...x32.map(Math.abs)));
  const reference = bruteForce(c.self, x32, reach, tol);
  const failures = result.flags === 0 ? [] : [`flags ${result.flags}`];
  const listed = new Set<string>();
  for (let k = 0; k < result.count; k++) listed.add(key(result.kinds[k]!, result.primitives[2 * k]!, result.primitives[2 * k + 1]!)); // prettier-ignore
  if (listed.size !== result.count) failures.push(`${result.count - listed.size} pairs listed twice`);
  const sure = new Set(reference.filter((p) => p.margin <= -tol).map((p) => key(p.kind, p.prim, p.partner)));
  const near = new Set(reference.filter((p) => Math.abs(p.margin) < tol).map((p) => key(p.kind, p.prim, p.partner)));
  const missed = [...sure].filter((k) => !listed.has(k));
  const extra = [...listed].filter((k) => !near.has(k) && !sure.has(k));
  if (missed.length > 0) failures.push(`pairs the GPU missed (kind:primitive:partner): ${some(missed)}`);
  if (extra.length > 0) failures.push(`pairs the GPU listed beyond r_q: ${some(extra)}`);
  failures.push(...recordFailures(c, result).slice(0, 5));
  const incidence = incidenceOf(result.particles, c.n, fixed);
  const same = (a: Uint32Array, b: Uint32Array) => a.length === b.length && a.every((value, k) => value === b[k]);
  if (!same(result.incidence.offsets, incidence.offsets) || !same(result.incidence.entries, incidence.entries))
    failures.push('the incidence is not the one built from the list');
  const counts = { pairs: result.count, edgeEdge: result.count - result.vertexTriangleCount, near: near.size };
  return { failures, counts };
} // prettier-ignore

/** The lists and incidence of two results differ (bit for bit): why, or null. */
export function listDifference(a: GpuSelfPairs, b: GpuSelfPairs): string | null {
  const same = (u: ArrayLike<number>, w: ArrayLike<number>) => u.length === w.length && Array.prototype.every.call(u, (value, k) => value === w[k]); // prettier-ignore
  for (const field of ['kinds', 'primitives', 'particles'] as const)
    if (!same(a[field], b[field])) return `${field} differ`;
  if (!same(a.incidence.offsets, b.incidence.offsets) || !same(a.incidence.entries, b.incidence.entries)) return 'incidence differs'; // prettier-ignore
  return null;
}

/**
 * The quick case (wgsl-quick-cases.ts KERNEL_CHECKS.selfDetect): a 10² folded cloth with its last
 * three columns fixed, against the brute force, and its cell size against 2 (r + D_max +
 * max(ρ_max, λ_max)) from the state; then with threads reversed and a cell size of 0.6× and a
 * table of 100 buckets, bit-identical.
 */
export async function selfDetectQuick(device: GPUDevice): Promise<string[]> {
  const c = cloth(10);
  const [x, v] = [folded(c, 21), velocities(c.n, 22)];
  const fixed = Uint8Array.from({ length: c.n }, (_, i) => (i % 10 > 6 ? 1 : 0));
  const first = await detectOnGpu(device, c, x, v, { fixed });
  const { failures, counts } = pairListFailures(c, first, x, v, fixed);
  if (counts.pairs < c.n || counts.edgeEdge === 0) failures.push(`only ${counts.pairs} pairs, ${counts.edgeEdge} EE`);
  // The detection's own cell size (self-bounds.wgsl's maxima, self-keys.wgsl): 2 (r + D_max +
  // max(ρ_max, λ_max)) at the float32 state, D_i = 2h|v_i| + h²|g| + r/2, ρ a triangle's largest
  // corner–centroid distance, λ half an edge.
  const [x32, v32] = [Float64Array.from(x, Math.fround), Float64Array.from(v, Math.fround)];
  const at = (a: Float64Array, i: number) => [a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!];
  const dist = (p: number[], q: number[]) => Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!, p[2]! - q[2]!);
  let [reach, extent] = [0, 0];
  for (let i = 0; i < c.n; i++) reach = Math.max(reach, 2 * H * Math.hypot(...at(v32, i)) + H * H * GRAVITY + c.self.thickness / 2);
  const { triangleIndices: tri, edgeIndices: edges } = c.self;
  for (let t = 0; 3 * t < tri.length; t++) {
    const corners = [0, 1, 2].map((k) => at(x32, tri[3 * t + k]!));
    const g = [0, 1, 2].map((k) => (corners[0]![k]! + corners[1]![k]! + corners[2]![k]!) / 3);
    extent = Math.max(extent, ...corners.map((p) => dist(p, g)));
  }
  for (let e = 0; 2 * e < edges.length; e++) extent = Math.max(extent, dist(at(x32, edges[2 * e]!), at(x32, edges[2 * e + 1]!)) / 2);
  const expectedSize = 2 * (c.self.thickness + reach + extent);
  if (!(Math.abs(first.cellSize - expectedSize) <= 1e-5 * expectedSize)) failures.push(`cell size: GPU ${first.cellSize} m, 2 (r + D_max + max(ρ_max, λ_max)) = ${expectedSize} m`);
  const size = await defaultCellSize(device, c, x, v);
  const other = await detectOnGpu(device, c, x, v, { fixed, reverseThreads: true, cellSize: 0.6 * size, tableSize: 100 }); // prettier-ignore
  const difference = listDifference(first, other);
  if (difference) failures.push(`threads reversed, another cell and table size: ${difference}`);
  return failures;
} // prettier-ignore

/**
 * The reasons the GPU's list with reach `reach` given is not the CPU's detectSelfPairs at the
 * float32 state (its own spatial hash, in float64; a pair may differ only within 1e-5 (1 + |x|∞) of
 * r_q), empty when it is; and how many pairs the two share.
 */
export function cpuListFailures(c: Cloth, result: GpuSelfPairs, x: Float64Array, reach: Float64Array): { failures: string[]; shared: number } {
  const x32 = Float64Array.from(x, Math.fround);
  const reach32 = Float64Array.from(reach, Math.fround);
  const cpu = detectSelfPairs(c.self, x32, reach32);
  const tol = 1e-5 * (1 + Math.max(...x32.map(Math.abs)));
  const near = new Set(bruteForce(c.self, x32, reach32, tol).filter((p) => Math.abs(p.margin) < tol).map((p) => key(p.kind, p.prim, p.partner))); // prettier-ignore
  const keys = (list: { count: number; kinds: Uint8Array; primitives: Uint32Array }) => Array.from({ length: list.count }, (_, k) => key(list.kinds[k]!, list.primitives[2 * k]!, list.primitives[2 * k + 1]!)); // prettier-ignore
  const [gpu, ours] = [keys(result), keys(cpu)];
  const [gpuSet, cpuSet] = [new Set(gpu), new Set(ours)];
  const failures: string[] = [];
  const onlyGpu = gpu.filter((k) => !cpuSet.has(k) && !near.has(k));
  const onlyCpu = ours.filter((k) => !gpuSet.has(k) && !near.has(k));
  if (onlyGpu.length > 0) failures.push(`listed by the GPU only: ${some(onlyGpu)}`);
  if (onlyCpu.length > 0) failures.push(`listed by the CPU only: ${some(onlyCpu)}`);
  // The shared pairs in the same order (both lists sorted).
  const sharedGpu = gpu.filter((k) => cpuSet.has(k));
  const sharedCpu = ours.filter((k) => gpuSet.has(k));
  if (sharedGpu.some((k, i) => k !== sharedCpu[i])) failures.push('the shared pairs come in another order');
  return { failures, shared: sharedGpu.length };
} // prettier-ignore
