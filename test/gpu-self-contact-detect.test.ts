/**
 * Self-collision detection on WebGPU (Node, SwiftShader; design reports/design/self-collision.md
 * §2, §3, phase 2): the generic prefix scan; the pair lists and incidence of crumpled and folded
 * cloths against a CPU reference in float64 on the float32 states; determinism under another cell
 * size, table size and reversed thread order; the capacity and query-box errors.
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  buildCloth,
  edgeEdgeClosest,
  GpuSelfContactDetect,
  runSelfScan,
  SELF_FLAGS,
  selfReach,
  vertexTriangleClosest,
  withSelfCollision,
  type GpuSelfPairs,
  type Model,
  type SelfDetectSpec,
} from '../src/internal.ts';

import { useNodeDevice } from './helpers/node-device-suite.ts';

type ResolvedSelfCollision = NonNullable<Model['selfCollision']>;

const node = useNodeDevice((device, uncaptured) => Object.assign(device, { uncaptured }));

afterEach(() => expect(node.runner().uncaptured.splice(0)).toEqual([]));

/** Deterministic uniform [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('prefix scan (self-scan.wgsl, self-scan-add.wgsl)', () => {
  test.each([
    [1, 1],
    [255, 1],
    [256, 3],
    [257, 3],
    [5000, 3],
    [65535, 3],
    [65536, 5],
    [70001, 5],
  ])(
    '%d entries: exclusive sums and the total, in %d dispatches',
    async (count, dispatches) => {
      const next = random(count);
      const values = Uint32Array.from({ length: count }, () => Math.floor(next() * 9));
      const expected = new Uint32Array(count + 1);
      for (let k = 0; k < count; k++) expected[k + 1] = expected[k]! + values[k]!;
      const result = await runSelfScan(node.runner(), values);
      expect(result.dispatches).toBe(dispatches);
      expect(result.sums).toEqual(expected);
    },
    60_000,
  );

  test('other workgroup sizes (4, 32): the same sums', async () => {
    const values = Uint32Array.from({ length: 3000 }, (_, k) => (k * 7919) % 13);
    const expected = new Uint32Array(3001);
    for (let k = 0; k < 3000; k++) expected[k + 1] = expected[k]! + values[k]!;
    for (const size of [4, 32])
      expect((await runSelfScan(node.runner(), values, size)).sums).toEqual(expected);
  }, 60_000);
});

const SPACING = 0.02;
const THICKNESS = 0.004;
const H = 1 / 240;
const GRAVITY = 9.81;

interface Cloth {
  readonly self: ResolvedSelfCollision;
  readonly rest: Float64Array;
  readonly n: number;
}

/** An nx² horizontal cloth (spacing 2 cm) with self-collision at r = 4 mm. */
function cloth(nx: number): Cloth {
  const model = withSelfCollision(buildCloth({ nx, ny: nx, spacing: SPACING, pins: 'none' }), { thickness: THICKNESS }); // prettier-ignore
  return { self: model.selfCollision!, rest: model.particlePositions, n: model.particleCount };
}

/**
 * The cloth folded over a cylinder along z at half its width, its gap 2ρ growing from 3 mm to
 * 23 mm along z (pairs near and far from the threshold), jittered by ±`jitter` ℓ.
 */
function folded(c: Cloth, seed: number, jitter = 0.1): Float64Array {
  const next = random(seed);
  const nx = Math.round(Math.sqrt(c.n));
  const x = new Float64Array(3 * c.n);
  const u0 = (SPACING * (nx - 1)) / 2 + 0.3 * SPACING;
  for (let j = 0; j < nx; j++)
    for (let i = 0; i < nx; i++) {
      const rho = (0.003 + (0.02 * j) / (nx - 1)) / 2;
      const u = i * SPACING;
      const theta = (u - u0) / rho;
      const [px, py] = u <= u0 ? [u, 0] : theta <= Math.PI ? [u0 + rho * Math.sin(theta), rho * (1 - Math.cos(theta))] : [u0 - (u - u0 - Math.PI * rho), 2 * rho]; // prettier-ignore
      x.set(
        [px, py, j * SPACING].map((v) => v + jitter * SPACING * (2 * next() - 1)),
        3 * (j * nx + i),
      );
    }
  return x;
}

/** The flat cloth jittered by ±0.45 ℓ per coordinate, and rolled into waves of 3 ℓ. */
function crumpled(c: Cloth, seed: number): Float64Array {
  const next = random(seed);
  return c.rest.map((v, k) => {
    const wave = k % 3 === 1 ? 1.5 * SPACING * Math.sin(c.rest[k - 1]! / (0.5 * SPACING)) : 0;
    return v + wave + 0.45 * SPACING * (2 * next() - 1);
  });
}

function velocities(n: number, seed: number, scale = 0.5): Float64Array {
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
 * Every VT and EE pair with d < r_q + tol by an O(N²) enumeration in float64 at the float32
 * positions (the geometry of src/model/self-contact-geometry.ts, the predicate of design §2), in
 * the list's order: VT by vertex then triangle, then EE by edge then edge'.
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

/** The CSR incidence of a pair list: per particle, 4 · pair + corner ascending (fixed particles: none). */
function incidenceOf(particles: Uint32Array, n: number, fixed?: ArrayLike<number>): { offsets: Uint32Array; entries: Uint32Array } {
  const lists: number[][] = Array.from({ length: n }, () => []);
  particles.forEach((i, k) => {
    if (!fixed?.[i]) lists[i]!.push(k);
  });
  const offsets = new Uint32Array(n + 1);
  lists.forEach((list, i) => (offsets[i + 1] = offsets[i]! + list.length));
  return { offsets, entries: Uint32Array.from(lists.flat()) };
} // prettier-ignore

interface Detection {
  readonly result: GpuSelfPairs;
  readonly x: Float64Array;
  readonly v: Float64Array;
}

function detector(c: Cloth, options: Partial<SelfDetectSpec> = {}): GpuSelfContactDetect {
  const spec = { particleCount: c.n, triangleIndices: c.self.triangleIndices, edgeIndices: c.self.edgeIndices, thickness: c.self.thickness, gravity: GRAVITY, maxPairsPerParticle: 48, restPositions: c.rest }; // prettier-ignore
  const detect = new GpuSelfContactDetect(node.runner(), { ...spec, ...options });
  detect.setStep(H);
  return detect;
}

/** `runs` GPU detections of `c` at (x, v) (rounded to float32 on upload); the last one's result. */
async function detectOnGpu(c: Cloth, x: Float64Array, v: Float64Array, options: Partial<SelfDetectSpec> = {}, runs = 1): Promise<GpuSelfPairs> {
  const detect = detector(c, options);
  try {
    detect.upload(x, v);
    for (let k = 0; k < runs; k++) detect.detect();
    return await detect.read();
  } finally {
    detect.destroy();
  }
} // prettier-ignore

/** Checks a GPU list against the brute force and its incidence against the list's; returns counts. */
function compare(c: Cloth, { result, x, v }: Detection): { pairs: number; near: number; ee: number } {
  const x32 = Float64Array.from(x, Math.fround);
  const v32 = Float64Array.from(v, Math.fround);
  const reach = selfReach(v32, H, [0, -GRAVITY, 0], c.self.thickness, new Float64Array(c.n));
  const tol = 1e-5 * (1 + Math.max(...x32.map(Math.abs)));
  const reference = bruteForce(c.self, x32, reach, tol);
  expect(result.flags).toBe(0);
  const key = (kind: number, prim: number, partner: number) => `${kind}:${prim}:${partner}`;
  const listed = new Set<string>();
  for (let k = 0; k < result.count; k++) {
    listed.add(key(result.kinds[k]!, result.primitives[2 * k]!, result.primitives[2 * k + 1]!));
    if (k > 0) {
      const order = Math.sign(result.kinds[k]! - result.kinds[k - 1]!) || Math.sign(result.primitives[2 * k]! - result.primitives[2 * k - 2]!) || Math.sign(result.primitives[2 * k + 1]! - result.primitives[2 * k - 1]!); // prettier-ignore
      expect(order, `pair ${k} follows pair ${k - 1}`).toBe(1);
    }
  }
  expect(listed.size).toBe(result.count);
  const sure = reference.filter((p) => p.margin <= -tol).map((p) => key(p.kind, p.prim, p.partner));
  const near = new Set(reference.filter((p) => Math.abs(p.margin) < tol).map((p) => key(p.kind, p.prim, p.partner)));
  expect(sure.filter((k) => !listed.has(k)), 'pairs the GPU missed').toEqual([]);
  expect([...listed].filter((k) => !near.has(k) && !sure.includes(k)), 'pairs the GPU listed beyond r_q').toEqual([]);
  expect(result.vertexTriangleCount).toBe(result.kinds.filter((kind) => kind === 0).length);
  // The four particles of each record, from its primitives.
  const { triangleIndices: tri, edgeIndices: edges } = c.self;
  for (let k = 0; k < result.count; k++) {
    const [prim, partner] = [result.primitives[2 * k]!, result.primitives[2 * k + 1]!];
    const ids = result.kinds[k] === 0 ? [prim, tri[3 * partner], tri[3 * partner + 1], tri[3 * partner + 2]] : [edges[2 * prim], edges[2 * prim + 1], edges[2 * partner], edges[2 * partner + 1]]; // prettier-ignore
    expect([...result.particles.subarray(4 * k, 4 * k + 4)]).toEqual(ids);
  }
  const incidence = incidenceOf(result.particles, c.n);
  expect(result.incidence.offsets).toEqual(incidence.offsets);
  expect(result.incidence.entries).toEqual(incidence.entries);
  return { pairs: result.count, near: near.size, ee: result.count - result.vertexTriangleCount };
} // prettier-ignore

describe('pair lists and incidence against the CPU (float64 brute force on the float32 states)', () => {
  test.each([
    ['folded', 16, 1],
    ['crumpled', 16, 2],
    ['folded', 32, 3],
    ['crumpled', 32, 4],
  ] as const)(
    '%s %d² cloth (seed %d)',
    async (shape, nx, seed) => {
      const c = cloth(nx);
      const x = shape === 'folded' ? folded(c, seed) : crumpled(c, seed);
      const v = velocities(c.n, seed + 100);
      const result = await detectOnGpu(c, x, v);
      const counts = compare(c, { result, x, v });
      console.log(
        `${shape} ${nx}²: ${counts.pairs} pairs (${counts.ee} EE), ${counts.near} within the f32/f64 boundary band`,
      );
      expect(counts.pairs).toBeGreaterThan(c.n / 4);
      expect(counts.ee).toBeGreaterThan(0);
    },
    120_000,
  );
});

/** The list and incidence, the parts that must be bit-identical. */
const lists = (r: GpuSelfPairs) => ({ kinds: r.kinds, primitives: r.primitives, particles: r.particles, incidence: r.incidence }); // prettier-ignore

describe('determinism: a pure function of (x, v)', () => {
  test('16² folded: again, twice on one detector, threads reversed, other cell and table sizes and workgroup sizes', async () => {
    const c = cloth(16);
    const [x, v] = [folded(c, 7), velocities(c.n, 8)];
    const first = await detectOnGpu(c, x, v);
    expect(first.count).toBeGreaterThan(c.n);
    const size = detector(c).cellSize();
    const variants: Partial<SelfDetectSpec>[] = [
      {},
      { reverseThreads: true },
      { cellSize: 0.45 * size },
      { cellSize: 2.5 * size, tableSize: 64 },
      { tableSize: 1000, reverseThreads: true },
      { tableSize: 8192, workgroupSize: 32 },
      { workgroupSize: 4, reverseThreads: true },
    ];
    for (const options of variants) expect(lists(await detectOnGpu(c, x, v, options)), JSON.stringify(options)).toEqual(lists(first)); // prettier-ignore
    expect(lists(await detectOnGpu(c, x, v, {}, 3)), 'three detections on one detector').toEqual(
      lists(first),
    );
  }, 120_000);

  test('32² crumpled: threads reversed and a cell size of 1.7×, bit-identical', async () => {
    const c = cloth(32);
    const [x, v] = [crumpled(c, 9), velocities(c.n, 10)];
    const first = await detectOnGpu(c, x, v);
    const size = detector(c).cellSize();
    expect(lists(await detectOnGpu(c, x, v, { reverseThreads: true, cellSize: 1.7 * size }))).toEqual(
      lists(first),
    );
  }, 120_000);
});

describe('fixed particles, flags and errors', () => {
  test('fixed particles get no incidence entries; their pairs are listed', async () => {
    const c = cloth(16);
    const [x, v] = [folded(c, 11), velocities(c.n, 12)];
    const fixed = Uint8Array.from({ length: c.n }, (_, i) => (i % 16 > 12 ? 1 : 0));
    const free = await detectOnGpu(c, x, v);
    const pinned = await detectOnGpu(c, x, v, { fixed });
    expect(pinned.primitives).toEqual(free.primitives);
    expect(pinned.incidence).toEqual(incidenceOf(pinned.particles, c.n, fixed));
    expect(pinned.incidence.entries.length).toBeLessThan(free.incidence.entries.length);
  }, 60_000);

  test('pair capacity (maxPairsPerParticle 0.01): an error naming selfCollision.maxPairsPerParticle, sticky until cleared', async () => {
    const c = cloth(16);
    const [x, v] = [folded(c, 13), velocities(c.n, 14)];
    const detect = detector(c, { maxPairsPerParticle: 0.01 });
    try {
      detect.upload(x, v);
      detect.detect();
      await expect(detect.read()).rejects.toThrow(/maxPairsPerParticle: the detection found \d+ pairs, more than its capacity of 2 \(0.01 per particle × 256 particles\); raise/); // prettier-ignore
      const raw = await detect.read(true);
      expect(raw.flags).toBe(SELF_FLAGS.pairs);
      expect(raw.count).toBe(2);
      expect(raw.total).toBeGreaterThan(c.n);
      // Sticky: a detection with no pairs leaves the flag set until the host clears it.
      detect.upload(c.rest, new Float64Array(3 * c.n));
      detect.detect();
      expect((await detect.read(true)).flags).toBe(SELF_FLAGS.pairs);
      detect.clearFlags();
      detect.detect();
      expect((await detect.read()).count).toBe(0);
    } finally {
      detect.destroy();
    }
  }, 60_000);

  test('a query box wider than 8 cells (50 m/s at h = 1/240): an error saying to lower dt', async () => {
    const c = cloth(16);
    const detect = detector(c);
    try {
      detect.upload(c.rest, velocities(c.n, 15, 50));
      detect.detect();
      await expect(detect.read()).rejects.toThrow(/query box spans more than 8 cells .* lower dt/);
      expect((await detect.read(true)).flags & SELF_FLAGS.query).toBe(SELF_FLAGS.query);
    } finally {
      detect.destroy();
    }
  }, 60_000);
});

test.each([16])(
  'time per detection on this adapter, %d² folded cloth',
  async (nx) => {
    const c = cloth(nx);
    const detect = detector(c);
    try {
      detect.upload(folded(c, 16), velocities(c.n, 17));
      detect.detect();
      await detect.read();
      const runs = 5;
      const start = performance.now();
      for (let k = 0; k < runs; k++) detect.detect();
      await node.runner().queue.onSubmittedWorkDone();
      const ms = (performance.now() - start) / runs;
      const { count } = await detect.read();
      console.log(`${nx}² folded: ${ms.toFixed(1)} ms per detection (${detect.dispatches.length} dispatches, ${count} pairs) on ${node.adapter()}`); // prettier-ignore
      expect(ms).toBeGreaterThan(0);
    } finally {
      detect.destroy();
    }
  },
  60_000,
);
