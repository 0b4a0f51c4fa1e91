/**
 * Self-collision detection on the CPU (src/backends/cpu/self-contact-detect.ts): the hashed,
 * counting-sorted broad phase against an O(N²) enumeration with the same predicate, on crumpled
 * cloth; the list's independence of the cell and table sizes; the query-box cap; and the option's
 * validation (resolveSelfCollision).
 */
import { describe, expect, test } from 'vitest';
import {
  buildCloth,
  detectSelfPairs,
  edgeEdgeClosest,
  resolveSelfCollision,
  selfCellHash,
  vertexTriangleClosest,
  WeftError,
  WeftInputError,
  type Model,
  type SelfPairList,
} from '../src/internal.ts';
import { brutePairs, crumple, random32, type PairRows } from './helpers/self-contact-brute.ts';

const SPACING = 0.1;
/** Under mutation testing (WEFT_MUTATION=1): the 12² and 16² crumpled cloths (the 20² and 24² O(N²) references take ~10 s). */
const MUTATION_RUN = process.env['WEFT_MUTATION'] === '1';

function cloth(size: number): Model {
  return buildCloth({ nx: size, ny: size, spacing: SPACING });
}

function selfOf(model: Model, thickness: number) {
  return resolveSelfCollision(
    { thickness },
    model.triangleIndices,
    model.particlePositions,
    model.springStiffness,
  );
}

/** Reach per particle: r/2 plus, for a random third of them, up to `extra` more. */
function reachOf(n: number, thickness: number, extra: number, seed: number): Float64Array {
  const random = random32(seed);
  return Float64Array.from({ length: n }, () => thickness / 2 + (random() < 1 / 3 ? extra * random() : 0));
}

function rows(list: SelfPairList): PairRows {
  return Array.from({ length: list.count }, (_, k) => [list.kinds[k]!, list.primitives[2 * k]!, list.primitives[2 * k + 1]!]); // prettier-ignore
}

/** A list as lines (kind primitive partner | particles). */
function lines(list: SelfPairList): string[] {
  return Array.from({ length: list.count }, (_, k) => `${list.kinds[k]} ${list.primitives[2 * k]} ${list.primitives[2 * k + 1]} | ${list.particles.subarray(4 * k, 4 * k + 4).join(' ')}`); // prettier-ignore
}

/** actual = expected, reported as the counts and the first differing entry (toEqual's diff of 10⁴ rows takes minutes). */
function expectSame(actual: readonly unknown[], expected: readonly unknown[], label = ''): void {
  const key = (row: unknown): string => String(row);
  const at = expected.findIndex((row, k) => key(row) !== key(actual[k]));
  const differs = (list: readonly unknown[]) => ({
    count: list.length,
    first: at < 0 ? null : key(list[at]),
  });
  expect(differs(actual), label).toEqual(differs(expected));
}

function brute(
  model: Model,
  self: ReturnType<typeof selfOf>,
  x: Float64Array,
  reach: Float64Array,
): PairRows {
  const scratch = new Float64Array(3);
  return brutePairs(
    model.particleCount,
    self.triangleIndices,
    self.edgeIndices,
    self.thickness,
    reach,
    (p, a, b, c) => vertexTriangleClosest(x, p, a, b, c, scratch),
    (p1, q1, p2, q2) => edgeEdgeClosest(x, p1, q1, p2, q2, scratch),
  );
}

describe('detectSelfPairs', () => {
  const cases = [
    { size: 12, seed: 1, folds: 2, ratio: 0.34, extra: 0 },
    { size: 16, seed: 2, folds: 3, ratio: 0.2, extra: 0.3 },
    { size: 20, seed: 3, folds: 4, ratio: 0.3, extra: 0.15 },
    { size: 24, seed: 4, folds: 3, ratio: 0.25, extra: 0.5 },
  ];
  test.each(cases.filter(({ size }) => !MUTATION_RUN || size <= 16))(
    'equals the O(N²) enumeration on a crumpled $size² cloth ($folds folds, r = $ratio ℓ, reach up to r/2 + $extra ℓ)',
    ({ size, seed, folds, ratio, extra }) => {
      const model = cloth(size);
      const self = selfOf(model, ratio * SPACING);
      const x = crumple(model.particlePositions, SPACING, seed, folds, 0.08);
      const reach = reachOf(model.particleCount, self.thickness, extra * SPACING, seed);
      const list = detectSelfPairs(self, x, reach);
      const expected = brute(model, self, x, reach);
      expectSame(rows(list), expected);
      // Enough pairs of each kind that a wrong broad phase would show.
      expect(expected.filter(([kind]) => kind === 0).length).toBeGreaterThan(100);
      expect(expected.filter(([kind]) => kind === 1).length).toBeGreaterThan(100);
      // The particles are the primitives' indices as stored.
      const [tri, edges] = [self.triangleIndices, self.edgeIndices];
      for (const [k, [kind, first, second]] of expected.entries())
        expect(Array.from(list.particles.subarray(4 * k, 4 * k + 4))).toEqual(
          kind === 0
            ? [first, tri[3 * second], tri[3 * second + 1], tri[3 * second + 2]]
            : [edges[2 * first], edges[2 * first + 1], edges[2 * second], edges[2 * second + 1]],
        );
    },
  );

  test('the list is the same for three cell sizes and three table sizes', () => {
    const model = cloth(20);
    const self = selfOf(model, 0.3 * SPACING);
    const x = crumple(model.particlePositions, SPACING, 7, 4, 0.08);
    const reach = reachOf(model.particleCount, self.thickness, 0.2 * SPACING, 7);
    const reference = detectSelfPairs(self, x, reach);
    expect(reference.count).toBeGreaterThan(500);
    // The default c_s = 2 (r + D_max + max(ρ, λ)) is ≈ 2.4 ℓ here; 1 ℓ gives query boxes of up to 8 cells.
    for (const cellSize of [SPACING, 1.7 * SPACING, 20 * SPACING])
      for (const tableSize of [1, 1009, 4096]) {
        const list = detectSelfPairs(self, x, reach, { cellSize, tableSize });
        expectSame(lines(list), lines(reference), `cell ${cellSize}, table ${tableSize}`);
      }
  });

  test('a flat grid at rest: no pair while r + 2D < ℓ/√2 (the nearest non-adjacent primitives)', () => {
    const model = cloth(16);
    const self = selfOf(model, 0.34 * SPACING);
    const x = model.particlePositions;
    const rest = new Float64Array(model.particleCount).fill(self.thickness / 2); // r + 2D = 0.68 ℓ
    expect(detectSelfPairs(self, x, rest).count).toBe(0);
    // r + 2D = 0.72 ℓ > 0.7071 ℓ: each cell's off-diagonal corners meet the other triangle, 2 × 15².
    const wider = new Float64Array(model.particleCount).fill(0.19 * SPACING);
    const list = detectSelfPairs(self, x, wider);
    expect(rows(list).filter(([kind]) => kind === 0).length).toBe(2 * 15 * 15);
    expectSame(rows(list), brute(model, self, x, wider));
  });

  test('a query box wider than 8 cells per axis throws: lower dt', () => {
    const model = cloth(8);
    const self = selfOf(model, 0.2 * SPACING);
    const reach = new Float64Array(model.particleCount).fill(self.thickness / 2);
    expect(() =>
      detectSelfPairs(self, model.particlePositions, reach, { cellSize: 0.5 * SPACING }),
    ).not.toThrow();
    reach[17] = 2 * SPACING; // one fast particle: every query box grows by D_max
    const fails = (): SelfPairList =>
      detectSelfPairs(self, model.particlePositions, reach, { cellSize: 0.5 * SPACING });
    expect(fails).toThrow(WeftError);
    expect(fails).toThrow(/more than 8: a particle moves too far in one step .*lower dt/);
    // The default cell size grows with D_max, so it never throws.
    expect(detectSelfPairs(self, model.particlePositions, reach).count).toBeGreaterThan(0);
  });

  test("Teschner's hash in wrapping u32 arithmetic (as WGSL's u32 products)", () => {
    const big = BigInt(2 ** 32);
    const u32 = (v: number): bigint => ((BigInt(v) % big) + big) % big;
    for (const [i, j, k] of [
      [0, 0, 0],
      [1, 2, 3],
      [-1, -7, 40000],
      [123456, -654321, 2 ** 30],
    ]) {
      // prettier-ignore
      const words = [u32(i!) * 73856093n, u32(j!) * 19349663n, u32(k!) * 83492791n].map((v) => v % big);
      const hash = Number((words[0]! ^ words[1]! ^ words[2]!) % 1000003n);
      expect(selfCellHash(i!, j!, k!, 1000003)).toBe(hash);
    }
  });
});

describe('resolveSelfCollision errors name selfCollision.…', () => {
  const model = cloth(4);
  const resolve =
    (option: unknown, triangles = model.triangleIndices) =>
    () =>
      resolveSelfCollision(option as never, triangles, model.particlePositions, model.springStiffness);
  test.each([
    [
      'thickness above 0.35 ℓ_min',
      { thickness: 0.036 },
      'selfCollision.thickness',
      /≤ 0.35 × the shortest edge/,
    ],
    ['thickness 0', { thickness: 0 }, 'selfCollision.thickness', /must be > 0/],
    ['negative stiffness', { stiffness: -1 }, 'selfCollision.stiffness', /≥ 0, got -1/],
    ['negative damping', { damping: -0.5 }, 'selfCollision.damping', /≥ 0/],
    ['zero pair capacity', { maxPairsPerParticle: 0 }, 'selfCollision.maxPairsPerParticle', /> 0/],
    ['an unknown field', { thicknes: 0.01 }, 'selfCollision.thicknes', /is not a field of selfCollision/],
  ])('%s', (_, option, field, message) => {
    expect(resolve(option)).toThrow(WeftInputError);
    expect(resolve(option)).toThrow(message);
    try {
      resolve(option)();
    } catch (error) {
      expect((error as WeftInputError).field).toBe(field);
    }
  });
  test('no triangles', () => {
    expect(resolve({}, new Uint32Array(0))).toThrow(
      /selfCollision: acts between triangles, and the model has none/,
    );
  });
  test('defaults: r = min(5 mm, 0.2 ℓ_min), k the largest spring stiffness, c = 0', () => {
    const self = resolveSelfCollision(
      {},
      model.triangleIndices,
      model.particlePositions,
      model.springStiffness,
    );
    expect([self.thickness, self.stiffness, self.damping]).toEqual([5e-3, 1000, 0]);
    expect(self.shortestEdge).toBeCloseTo(SPACING, 15);
  });
});
