/**
 * Tests for the survivors of the eighth random sample of the TypeScript core's mutants (seed 8 at
 * f8098b6, issue 14; reports/mutation/SURVIVORS.md): each pins a behaviour no suite of the mutation
 * set checked, with the expected value stated here, not computed by the code under test.
 */
import { describe, expect, test } from 'vitest';
import { buildCloth, type Model } from '../src/index.ts';
import {
  adaptiveProgram,
  resolveAdaptiveOptions,
  trianglesIntersect,
  VelocityImplicitEulerStepper,
} from '../src/internal.ts';
import { oscillatorModel } from './helpers/adaptive-problems.ts';

type Vec3 = [number, number, number];

function stepper(model: Model, options: Record<string, unknown>): VelocityImplicitEulerStepper {
  const resolved = resolveAdaptiveOptions({ integrator: 'velocity-implicit-euler', ...options });
  const state = { positions: model.particlePositions, velocities: model.particleVelocities };
  return new VelocityImplicitEulerStepper(model, state, resolved, (n) => new Float64Array(n));
}

describe('velocity-implicit-euler with a reused Jacobian: what it counts', () => {
  test('one iteration matrix per change of h: h, then h/2 for both half steps', () => {
    // The oscillator is linear: Newton converges on trial 1 of every solve. An attempt solves the
    // large step (h) and two half steps (h/2): the first Jacobian with the matrix for h, then one
    // new matrix for h/2 kept for the second half step; the next attempt forms h and h/2 again.
    const s = stepper(oscillatorModel(), { accuracy: 1e-6 });
    expect(s.attempt(0.01, 0).kind).toBe('estimated');
    expect(s.newton.jacobianEvaluations).toBe(1);
    expect(s.newton.factorizations).toBe(2);
    expect(s.newton.errorEstimatorFactorizations).toBe(1);
    s.accept();
    expect(s.attempt(0.01, 0).kind).toBe('estimated');
    expect(s.newton.jacobianEvaluations).toBe(1);
    expect(s.newton.factorizations).toBe(4);
  });

  test('a Jacobian evaluated in this attempt is not evaluated again when Newton fails (Drake: nothing fresher)', () => {
    // The 6 × 6 cloth's first step of 0.5 s (adaptive-velocity-implicit-euler.test.ts): Newton
    // diverges on trial 1 with the Jacobian just evaluated at the guess; trial 2 would evaluate it
    // at the same point again, so the attempt fails after one solve and one evaluation.
    const s = stepper(buildCloth({ nx: 6, ny: 6 }), { accuracy: 1e-3 });
    expect(s.attempt(0.5, 0).kind).toBe('newton-failed');
    expect(s.newton.jacobianEvaluations).toBe(1);
    expect(s.newton.failedSolves).toBe(1);
  });
});

describe("contact projection's drift in the adaptive programs", () => {
  const driftOf = (options: Record<string, unknown>): number[] => {
    const o = resolveAdaptiveOptions(options);
    const program = adaptiveProgram(o, { colliders: [{}] });
    const drifts: number[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        const record = node as { op?: string; drift?: number };
        if (record.op === 'project') drifts.push(record.drift!);
        else Object.values(node).forEach(walk);
      }
    };
    walk(program);
    return drifts;
  };

  test('step doubling of explicit Euler without extrapolation carries ¼, with it ½; rk45 ½', () => {
    // Two half steps of explicit Euler under a constant a: x + (h/2) v, then + (h/2)(v + a h/2):
    // x + h v + h² a/4, drift ¼. Richardson with p = 1: 2 x½ − x₁ carries 2 · ¼ − 0 = ½.
    const euler = { integrator: 'step-doubling', scheme: 'explicit-euler' };
    expect(driftOf({ ...euler, extrapolate: false })).toEqual([0.25]);
    expect(driftOf({ ...euler, extrapolate: true })).toEqual([0.5]);
    expect(driftOf({ integrator: 'rk45' })).toEqual([0.5]);
  });
});

describe('trianglesIntersect: a triangle touching the other plane with one corner only', () => {
  // u in z = 0; t in the plane y = 0.25, its corner 0 on z = 0 at x = −0.5 (outside u), its other
  // two corners at z = 1. t meets z = 0 in the point (−0.5, 0.25, 0) only, so they do not touch;
  // moved to x = 0.2 (inside u) that point touches u.
  const u: Vec3[] = [
    [0, 0, 0],
    [1, 0, 0],
    [0, 1, 0],
  ];
  const t = (x0: number): Vec3[] => [
    [x0, 0.25, 0],
    [0.5, 0.25, 1],
    [1.5, 0.25, 1],
  ];

  test('outside u: apart, in both orders', () => {
    expect(trianglesIntersect(t(-0.5), u)).toBe(false);
    expect(trianglesIntersect(u, t(-0.5))).toBe(false);
  });

  test('inside u: touching, in both orders', () => {
    expect(trianglesIntersect(t(0.2), u)).toBe(true);
    expect(trianglesIntersect(u, t(0.2))).toBe(true);
  });
});

describe('trianglesIntersect: coplanar triangles whose edges cross, no corner inside the other', () => {
  test('the hexagram: two equilateral triangles, one turned by 180°, intersect', () => {
    // Corners on the unit circle: each triangle's corners lie outside the other (beyond its
    // edges at distance ½ from the centre), and each edge crosses two of the other's.
    const s = Math.sqrt(3) / 2;
    const t: Vec3[] = [[0, 1, 0], [-s, -0.5, 0], [s, -0.5, 0]]; // prettier-ignore
    const u: Vec3[] = [[0, -1, 0], [s, 0.5, 0], [-s, 0.5, 0]]; // prettier-ignore
    expect(trianglesIntersect(t, u)).toBe(true);
    expect(trianglesIntersect(u, t)).toBe(true);
  });
});
