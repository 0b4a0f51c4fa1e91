/**
 * Tests for the survivors of the seventh random sample of the TypeScript core's mutants (seed 7 at
 * 2766366, issue 14; reports/mutation/SURVIVORS.md): each pins a behaviour no suite of the mutation
 * set checked, with the expected value stated here, not computed by the code under test.
 */
import { describe, expect, test } from 'vitest';
import { buildCloth, createModel, createSimulation } from '../src/index.ts';
import {
  CpuMultistepSimulation,
  detectSelfPairs,
  resolveSelfCollision,
  resolveWind,
  triangleAeroForce,
  trianglesIntersect,
} from '../src/internal.ts';
import { oscillatorModel, OSCILLATOR } from './helpers/adaptive-problems.ts';
import { advanceUnderClock } from './helpers/fake-clock.ts';

describe('the CPU backend describes itself', () => {
  test.each([
    ['f64', 'CPU (TypeScript, float64)'],
    ['f32', 'CPU (TypeScript, float32 storage)'],
  ] as const)('an explicit integrator in %s: %j', async (precision, description) => {
    const model = buildCloth({ nx: 2, ny: 2 });
    const simulation = await createSimulation(model, { integrator: 'rk4', dt: 0.01, backend: 'cpu', precision }); // prettier-ignore
    expect(simulation.description).toBe(description);
    simulation.destroy();
  });

  test("an implicit one names its solver: 'auto' below 4,096 particles is pcg", async () => {
    // A 3 × 3 cloth, 9 particles: far below the 4,096 from which 'auto' takes multigrid.
    // (test/cpu-multigrid.test.ts checks 63² and 64², outside the mutation set: 12 s.)
    const simulation = await createSimulation(buildCloth({ nx: 3, ny: 3 }), { integrator: 'implicit-euler', dt: 0.01, backend: 'cpu' }); // prettier-ignore
    expect(simulation.description).toBe('CPU (TypeScript, float64), pcg');
    simulation.destroy();
  });
});

describe('model validation: the field of a bad triangle list', () => {
  test('four triangle indices are refused, naming triangles', () => {
    const description = {
      positions: [0, 0, 0, 1, 0, 0, 0, 1, 0],
      masses: [1, 1, 1],
      springPairs: [],
      springStiffness: 1,
      springRestLengths: [],
      triangles: [0, 1, 2, 0],
    };
    expect(() => createModel(description)).toThrow(/^triangles: length 4 is not a multiple of 3 /);
  });
});

describe('the predictor–correctors’ predictors: explicit Heun for heun-implicit, explicit Euler for implicit-euler-pc', () => {
  // The oscillator u'' = −ω² u (u = d − L along the spring's axis), from u = A at rest, one step
  // with one corrector sweep. In y = (u, u'/ω), with z = hω and J the rotation (J² = −I):
  // - heun-implicit: predictor (I + zJ − z²/2) y₀, trapezoid y₀ + (z/2) J (y₀ + y_p), so
  //   y₁ = (I + zJ − z²/2 − (z³/4) J) y₀: u₁ = A (1 − z²/2), u₁'/ω = −A z (1 − z²/4);
  // - implicit-euler-pc: predictor (I + zJ) y₀, corrector y₀ + z J y_p, so y₁ = (I + zJ − z²) y₀:
  //   u₁ = A (1 − z²), u₁'/ω = −A z.
  // The other predictor changes u₁' by A z³ ω/4 (Euler for Heun) or A z³ ω/2 (Heun for Euler):
  // 3.1e-4 or 6.3e-4 m/s here.
  const z = 0.1;
  test.each([
    ['heun-implicit', 1 - z ** 2 / 2, -z * (1 - z ** 2 / 4)],
    ['implicit-euler-pc', 1 - z ** 2, -z],
  ] as const)("%s, one corrector sweep: u₁/A = %f, u₁'/(ωA) = %f", async (integrator, position, speed) => {
    const { A, L, axis, omega } = OSCILLATOR;
    const simulation = new CpuMultistepSimulation(oscillatorModel(), {
      integrator,
      dt: z / omega,
      maxCorrectorIterations: 1,
    });
    simulation.step(1);
    const { positions, velocities } = await simulation.readState();
    for (let c = 0; c < 3; c++) {
      // 1e-13: a few float64 roundings of numbers of order 1 (1e-16 each), far below 3.1e-4.
      expect(Math.abs(positions[3 + c]! - (L + A * position) * axis[c]!)).toBeLessThan(1e-13);
      expect(Math.abs(velocities[3 + c]! - A * speed * omega * axis[c]!)).toBeLessThan(1e-13);
    }
  });
});

describe('advance(): a chunk of exactly 0.05 s is kept', () => {
  test('chunks of 50 ms neither double (< 50 ms) nor halve (> 200 ms): one step each', async () => {
    const { done } = await advanceUnderClock(4, 0, (_, clock) => clock + 50);
    expect(done).toEqual([1, 2, 3, 4]);
  });
});

describe('model validation: messages of non-array lists', () => {
  const base = { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0], masses: [1, 1, 1, 1], springPairs: [], springStiffness: 1, springRestLengths: [] }; // prettier-ignore

  test('colliders given as an object are refused, saying they must be an array', () => {
    expect(() => createModel({ ...base, colliders: {} } as never)).toThrow(
      /^colliders: must be an array of colliders, got /,
    );
  });

  test('a bending stiffness given as a string is refused, even one of the hinge count’s length', () => {
    // Two triangles on the edge 1–2: one hinge. '5' has length 1, the hinge count.
    const description = { ...base, triangles: [0, 1, 2, 2, 1, 3], bending: { stiffness: '5' } };
    expect(() => createModel(description as never)).toThrow(
      /^bending\.stiffness: must be a number or an array of numbers \(one per hinge\), got /,
    );
  });
});

describe('detectSelfPairs refuses a grid it cannot hash', () => {
  test.each([{ cellSize: 0 }, { cellSize: Infinity }, { tableSize: 1.5 }, { tableSize: 0 }])(
    '%o',
    (options) => {
      const model = buildCloth({ nx: 3, ny: 3, spacing: 0.1 });
      const self = resolveSelfCollision({ thickness: 0.01 }, model.triangleIndices, model.particlePositions, model.springStiffness); // prettier-ignore
      const reach = new Float64Array(model.particleCount).fill(0.005);
      expect(() => detectSelfPairs(self, model.particlePositions, reach, options)).toThrow(
        /^detectSelfPairs: cell size .* and table size .* must be finite and > 0/,
      );
    },
  );
});

describe('trianglesIntersect: a corner touching the other triangle’s inside', () => {
  test('t’s corner (0.2, 0.2, 0) lies inside u (z = 0), its other corners above: they touch', () => {
    // d₁ = (1, 0, 1) exactly: t is not wholly on one side of u's plane.
    const u: [number, number, number][] = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]; // prettier-ignore
    const t: [number, number, number][] = [[0.2, 0.2, 1], [0.2, 0.2, 0], [0.5, 0.1, 1]]; // prettier-ignore
    expect(trianglesIntersect(t, u)).toBe(true);
    expect(trianglesIntersect(u, t)).toBe(true);
    // Lifted by 1 mm, it does not.
    const lifted = t.map(([x, y, z]) => [x, y, z + 1e-3] as [number, number, number]);
    expect(trianglesIntersect(lifted, u)).toBe(false);
  });
});

describe('turbulent wind: a triangle’s force does not depend on which corner comes first', () => {
  test('the force on (a, b, c) equals that on (b, c, a) and (c, a, b): the wind is read at the centroid', () => {
    // Turbulence of 2 m/s on waves of 1 m; the corners' y differ by 0.3–0.7 m, so any point other
    // than the centroid reads another wind.
    const wind = resolveWind({ velocity: [1, 0, 0], turbulence: 2, turbulenceWavelength: 1 });
    const x = [0, 0.1, 0, 0.5, 0.4, 0.2, 0.1, 0.8, 0.4];
    const v = new Array<number>(9).fill(0);
    const force = (a: number, b: number, c: number): number[] => {
      const out = [0, 0, 0];
      triangleAeroForce(wind, x, v, a, b, c, 0.3, out, 0);
      return out;
    };
    const f = force(0, 1, 2);
    expect(Math.hypot(...f)).toBeGreaterThan(1e-4); // ½ ρ A |u|² ≈ 1e-3 N: not a zero force
    for (const g of [force(1, 2, 0), force(2, 0, 1)]) {
      // 1e-12 relative: the same sums in another order, rounded in their last bits.
      for (let d = 0; d < 3; d++) expect(Math.abs(g[d]! - f[d]!)).toBeLessThan(1e-12 * Math.hypot(...f));
    }
  });
});
