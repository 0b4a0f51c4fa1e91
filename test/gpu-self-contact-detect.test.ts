/**
 * Self-collision detection on WebGPU (Node, SwiftShader; design reports/design/self-collision.md
 * §2, §3, phase 2): the generic prefix scan; the pair lists and incidence of crumpled and folded
 * cloths against a CPU reference in float64 on the float32 states (test/helpers/self-detect-cases.ts);
 * determinism under another cell size, table size, workgroup size and reversed thread order; fixed
 * particles; the capacity and query-box errors.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { runSelfScan, SELF_FLAGS, selfReach, type SelfDetectSpec } from '../src/internal.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { LONG_RUN, shortOrLong } from './helpers/long-run.ts';
import {
  cloth,
  cpuListFailures,
  crumpled,
  GRAVITY,
  H,
  defaultCellSize,
  detectOnGpu as detectOn,
  detector as detectorOn,
  folded,
  incidenceOf,
  listDifference,
  pairListFailures,
  random,
  velocities,
  type Cloth,
} from './helpers/self-detect-cases.ts';

/**
 * The larger cloth's side: 24² under npm test (576 particles, 2,691 primitives: a 4,096-entry
 * table, nine workgroups of 64), 32² under npm run test:long. Its CPU brute-force reference is
 * quadratic: the 32² cases took most of this file's time.
 */
const LARGE = shortOrLong(24, 32);

const node = useNodeDevice((device, uncaptured) => Object.assign(device, { uncaptured }));

afterEach(() => expect(node.runner().uncaptured.splice(0)).toEqual([]));

const detector = (c: Cloth, options: Parameters<typeof detectorOn>[2] = {}) =>
  detectorOn(node.runner(), c, options);
const detectOnGpu = (c: Cloth, x: Float64Array, v: Float64Array, options: Parameters<typeof detectOn>[4] = {}, runs = 1, reach?: Float64Array) => detectOn(node.runner(), c, x, v, options, runs, reach); // prettier-ignore

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

  test('a 2-D grid of workgroups (one thread each, 262,150 entries: 65,538 workgroups), its spare workgroups writing no block sums', async () => {
    const count = 262_150;
    const values = Uint32Array.from({ length: count }, (_, k) => (k * 48271) % 7);
    const expected = new Uint32Array(count + 1);
    for (let k = 0; k < count; k++) expected[k + 1] = expected[k]! + values[k]!;
    const result = await runSelfScan(node.runner(), values, 1);
    expect(result.dispatches).toBe(19);
    expect(result.sums).toEqual(expected);
    expect(result.sentinelIntact).toBe(true);
  }, 120_000);

  test('other workgroup sizes (4, 32): the same sums', async () => {
    const values = Uint32Array.from({ length: 3000 }, (_, k) => (k * 7919) % 13);
    const expected = new Uint32Array(3001);
    for (let k = 0; k < 3000; k++) expected[k + 1] = expected[k]! + values[k]!;
    for (const size of [4, 32])
      expect((await runSelfScan(node.runner(), values, size)).sums).toEqual(expected);
  }, 60_000);
});

describe('pair lists and incidence against the CPU (float64 brute force on the float32 states)', () => {
  // Each shape at 16², the larger cloth crumpled here and folded below (its quadratic CPU
  // references cost ~1 s of CI each; npm run test:long runs all four cases in both).
  test.each([
    ['folded', 16, 1],
    ['crumpled', 16, 2],
    ...(LONG_RUN ? ([['folded', LARGE, 3]] as const) : []),
    ['crumpled', LARGE, 4],
  ] as const)(
    '%s %d² cloth (seed %d)',
    async (shape, nx, seed) => {
      const c = cloth(nx);
      const x = shape === 'folded' ? folded(c, seed) : crumpled(c, seed);
      const v = velocities(c.n, seed + 100);
      const result = await detectOnGpu(c, x, v);
      const { failures, counts } = pairListFailures(c, result, x, v);
      console.log(`${shape} ${nx}²: ${counts.pairs} pairs (${counts.edgeEdge} EE), ${counts.near} within the f32/f64 boundary band`); // prettier-ignore
      expect(failures).toEqual([]);
      expect(counts.pairs).toBeGreaterThan(c.n / 4);
      expect(counts.edgeEdge).toBeGreaterThan(0);
    },
    120_000,
  );
});

test('reach given per particle (uniform in [r/2, r/2 + 1 cm]) instead of from v: the list for that reach', async () => {
  const c = cloth(16);
  const x = crumpled(c, 31);
  const next = random(32);
  const reach = Float64Array.from({ length: c.n }, () => c.self.thickness / 2 + 0.01 * next());
  const result = await detectOnGpu(c, x, new Float64Array(3 * c.n), {}, 1, reach);
  const { failures, counts } = pairListFailures(c, result, x, new Float64Array(3 * c.n), undefined, reach);
  expect(failures).toEqual([]);
  expect(counts.pairs).toBeGreaterThan(c.n);
}, 60_000);

describe('against the CPU detection (detectSelfPairs, float64, on the float32 state and reach)', () => {
  test.each([
    ['folded', 16, 41],
    ['crumpled', 16, 42],
    ['folded', LARGE, 43],
    ...(LONG_RUN ? ([['crumpled', LARGE, 44]] as const) : []),
  ] as const)(
    '%s %d² (seed %d): the same pairs in the same order',
    async (shape, nx, seed) => {
      const c = cloth(nx);
      const x = shape === 'folded' ? folded(c, seed) : crumpled(c, seed);
      const v = velocities(c.n, seed + 100);
      const reach = selfReach(Float64Array.from(v, Math.fround), H, [0, -GRAVITY, 0], c.self.thickness, new Float64Array(c.n)); // prettier-ignore
      const result = await detectOnGpu(c, x, v, {}, 1, reach);
      const { failures, shared } = cpuListFailures(c, result, x, reach);
      expect(failures).toEqual([]);
      expect(shared).toBeGreaterThan(c.n / 2);
    },
    120_000,
  );
});

describe('determinism: a pure function of (x, v)', () => {
  test('16² folded: again, twice on one detector, threads reversed, other cell and table sizes and workgroup sizes', async () => {
    const c = cloth(16);
    const [x, v] = [folded(c, 7), velocities(c.n, 8)];
    const first = await detectOnGpu(c, x, v);
    expect(first.count).toBeGreaterThan(c.n);
    const size = await defaultCellSize(node.runner(), c, x, v);
    const variants: Partial<SelfDetectSpec>[] = [
      {},
      { reverseThreads: true },
      { cellSize: 0.45 * size },
      { cellSize: 2.5 * size, tableSize: 64 },
      { tableSize: 1000, reverseThreads: true },
      { tableSize: 8192, workgroupSize: 32 },
      { workgroupSize: 4, reverseThreads: true },
    ];
    for (const options of variants) expect(listDifference(await detectOnGpu(c, x, v, options), first), JSON.stringify(options)).toBeNull(); // prettier-ignore
    expect(
      listDifference(await detectOnGpu(c, x, v, {}, 3), first),
      'three detections on one detector',
    ).toBeNull();
  }, 120_000);

  test(`${LARGE}² crumpled: threads reversed and a cell size of 1.7×, bit-identical`, async () => {
    const c = cloth(LARGE);
    const [x, v] = [crumpled(c, 9), velocities(c.n, 10)];
    const first = await detectOnGpu(c, x, v);
    const size = await defaultCellSize(node.runner(), c, x, v);
    expect(
      listDifference(await detectOnGpu(c, x, v, { reverseThreads: true, cellSize: 1.7 * size }), first),
    ).toBeNull();
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
      await expect(detect.read()).rejects.toThrow(/listed \d+ pairs, more than selfCollision.maxPairsPerParticle × 256 particles = 2 \(maxPairsPerParticle 0.01: raise it, or lower dt\)/); // prettier-ignore
      await expect(detect.read()).rejects.toMatchObject({ code: 'capacity', field: 'selfCollision.maxPairsPerParticle', details: { capacity: 2 } }); // prettier-ignore
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

  test('a fixed cell size and a query box wider than 8 cells (50 m/s at h = 1/240): an error saying to lower dt', async () => {
    const c = cloth(16);
    const detect = detector(c, { cellSize: await defaultCellSize(node.runner(), c, c.rest, new Float64Array(3 * c.n)) }); // prettier-ignore
    try {
      detect.upload(c.rest, velocities(c.n, 15, 50));
      detect.detect();
      await expect(detect.read()).rejects.toThrow(/query box spans more than 8 cells .* lower dt/);
      await expect(detect.read()).rejects.toMatchObject({ code: 'step-size', field: 'dt' });
      expect((await detect.read(true)).flags & SELF_FLAGS.query).toBe(SELF_FLAGS.query);
    } finally {
      detect.destroy();
    }
  }, 60_000);

  test('a non-finite velocity with the step’s own cell size: the query-box error, no silent drop', async () => {
    const c = cloth(16);
    const v = new Float64Array(3 * c.n);
    v[3 * 40] = Infinity;
    const detect = detector(c);
    try {
      detect.upload(c.rest, v);
      detect.detect();
      await expect(detect.read()).rejects.toMatchObject({ code: 'step-size', field: 'dt' });
    } finally {
      detect.destroy();
    }
  }, 60_000);
});

describe('the cell size is the step’s, sized on the GPU from the reach (issue 13: it was the rest mesh’s)', () => {
  // One particle of a crumpled 16² cloth given a reach of 0.25 m (60 m/s at h = 1/240), the rest
  // r/2 to r/2 + 5 mm: every query box is then r + D_p + D_max + ρ_max ≥ 0.26 m wide on each side,
  // 13 cells of the rest mesh's 4.2 cm (the old fixed size, which raised the query-box error).
  test('one fast particle: no error, the CPU detectSelfPairs’ list, and c_s = 2 (r + D_max + max(ρ_max, λ_max))', async () => {
    const c = cloth(16);
    const x = crumpled(c, 51);
    const next = random(52);
    const reach = Float64Array.from({ length: c.n }, () => c.self.thickness / 2 + 0.005 * next());
    reach[100] = 0.25;
    const result = await detectOnGpu(c, x, new Float64Array(3 * c.n), {}, 1, reach);
    const { failures, shared } = cpuListFailures(c, result, x, reach);
    expect(failures).toEqual([]);
    expect(shared).toBeGreaterThan(c.n);
    // The cell size from the float32 state's maxima in float64 (rest-mesh size: 4.2 cm).
    const x32 = Float64Array.from(x, Math.fround);
    const { triangleIndices: tri, edgeIndices: edges } = c.self;
    const at = (i: number) => [0, 1, 2].map((k) => x32[3 * i + k]!);
    let extent = 0;
    for (let t = 0; 3 * t < tri.length; t++) {
      const corners = [0, 1, 2].map((k) => at(tri[3 * t + k]!));
      const g = [0, 1, 2].map((k) => (corners[0]![k]! + corners[1]![k]! + corners[2]![k]!) / 3);
      for (const p of corners) extent = Math.max(extent, Math.hypot(...p.map((value, k) => value - g[k]!)));
    }
    for (let e = 0; 2 * e < edges.length; e++)
      extent = Math.max(extent, 0.5 * Math.hypot(...at(edges[2 * e]!).map((value, k) => value - at(edges[2 * e + 1]!)[k]!))); // prettier-ignore
    const expected = 2 * (c.self.thickness + Math.fround(0.25) + extent);
    expect(Math.abs(result.cellSize - expected)).toBeLessThan(1e-6 * expected);
  }, 120_000);
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
