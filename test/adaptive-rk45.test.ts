/**
 * rk45 (Cash–Karp), the error norm, the step controller and the options of AdaptiveSimulation.
 *
 * - Tableau: every row of a sums to its c, and b⁴ / b⁵ satisfy the order conditions of order 4 / 5
 *   (Butcher's rooted-tree conditions, evaluated here from the coefficients). The lecture's printed
 *   a₆₃ = −575/13824 violates the row sum; +575/13824 is used.
 * - Error norm: hand-computed values of the weighted RMS and max norms.
 * - Free fall: RK45 integrates a quadratic trajectory exactly, and lands on each target time.
 * - Local orders: one fixed step from the exact oscillator state; the step error falls as h⁶ and the
 *   estimate y⁵ − y⁴ as h⁵ over two halvings (catches a weight of b or b̂ off by 0.1 %).
 * - Tolerance proportionality: on the oscillator, the global error after 1.3 periods scales like
 *   the tolerance (5th-order solution, error-per-step control: e ∝ h⁵ ∝ tol).
 * - minStep: on the stiff spring–damper with Drake's minStep (1e-6 s) rk45 cannot keep the
 *   accuracy (its stability needs h ≲ 7e-8 s): violations are counted, then the blow-up is a
 *   WeftStepSizeError, not a silent wrong answer.
 */
import { describe, expect, test } from 'vitest';
import {
  logSlope,
  OSCILLATOR,
  oscillatorError,
  oscillatorModel,
  springDamperModel,
} from './helpers/adaptive-problems.ts';
import { expectClose } from './helpers/expect-close.ts';
import {
  WeftDivergenceError,
  WeftStepSizeError,
  type AdaptiveOptions,
  WeftInputError,
  createModel,
} from '../src/index.ts';
import {
  AdaptiveSimulation,
  errorNorm,
  type ErrorTolerances,
  RUNGE_KUTTA_TABLEAUX,
} from '../src/internal.ts';

describe('Cash–Karp tableau', () => {
  const { a, bEmbedded: b4, b: b5, c } = RUNGE_KUTTA_TABLEAUX['cash-karp'];
  const s = 6;
  const A = (i: number, j: number): number => (j < i ? (a[i]![j] ?? 0) : 0);
  /** (A v)_i */
  const times = (v: number[]): number[] =>
    Array.from({ length: s }, (_, i) => v.reduce((sum, vj, j) => sum + A(i, j) * vj, 0));
  const pow = (k: number): number[] => c.map((ci) => ci ** k);
  const mul = (u: number[], v: number[]): number[] => u.map((ui, i) => ui * v[i]!);
  const dotB = (b: readonly number[], v: number[]): number => b.reduce((sum, bi, i) => sum + bi * v[i]!, 0);

  test('each row of a sums to c (a₆₃ = +575/13824; the lecture prints −575/13824)', () => {
    for (let i = 0; i < s; i++) expect(a[i]!.reduce((sum, x) => sum + x, 0)).toBeCloseTo(c[i]!, 15);
    const printed = [...a[5]!];
    printed[2] = -575 / 13824;
    expect(Math.abs(printed.reduce((sum, x) => sum + x, 0) - 7 / 8)).toBeGreaterThan(0.08);
  });

  // Butcher's order conditions, Σ b Φ(tree) = 1/γ(tree), trees up to order 5.
  const one = Array<number>(s).fill(1);
  const ac = times(pow(1));
  const conditions: [string, number[], number][] = [
    ['1', one, 1],
    ['c', pow(1), 1 / 2],
    ['c²', pow(2), 1 / 3],
    ['Ac', ac, 1 / 6],
    ['c³', pow(3), 1 / 4],
    ['c·Ac', mul(pow(1), ac), 1 / 8],
    ['Ac²', times(pow(2)), 1 / 12],
    ['AAc', times(ac), 1 / 24],
    ['c⁴', pow(4), 1 / 5],
    ['c²·Ac', mul(pow(2), ac), 1 / 10],
    ['c·Ac²', mul(pow(1), times(pow(2))), 1 / 15],
    ['c·AAc', mul(pow(1), times(ac)), 1 / 30],
    ['(Ac)²', mul(ac, ac), 1 / 20],
    ['Ac³', times(pow(3)), 1 / 20],
    ['A(c·Ac)', times(mul(pow(1), ac)), 1 / 40],
    ['AAc²', times(times(pow(2))), 1 / 60],
    ['AAAc', times(times(ac)), 1 / 120],
  ];
  test.each(conditions.map(([name, phi, value], i) => [name, i < 8 ? 4 : 5, phi, value] as const))(
    'condition %s (order %i)',
    (_name, order, phi, value) => {
      expect(dotB(b5, phi)).toBeCloseTo(value, 14);
      if (order <= 4) expect(dotB(b4, phi)).toBeCloseTo(value, 14);
    },
  );
  test('b⁴ is only of order 4: it misses Σ b c⁴ = 1/5', () => {
    expect(Math.abs(dotB(b4, pow(4)) - 1 / 5)).toBeGreaterThan(1e-4);
  });
});

describe('error norm', () => {
  // Particle 0 fixed (left out), particle 1 free.
  const model = createModel({
    positions: [0, 0, 0, 1, 2, 3],
    masses: [1, 1],
    fixed: [0],
    springPairs: [0, 1],
    springStiffness: 1,
  });
  const pair = (x: number[], v: number[]): { positions: Float64Array; velocities: Float64Array } => ({
    positions: Float64Array.from(x),
    velocities: Float64Array.from(v),
  });
  const start = pair([9, 9, 9, 1, -2, 0], [9, 9, 9, 0, 4, -1]);
  const end = pair([9, 9, 9, 2, -1, 0], [9, 9, 9, 1, 2, -3]);
  const error = pair([100, 100, 100, 0.1, -0.2, 0.3], [100, 100, 100, 0.4, 0, -0.5]);
  const tol: ErrorTolerances = {
    relative: 0.1,
    absolutePosition: 0.5,
    absoluteVelocity: 1,
    positionWeight: 2,
    velocityWeight: 0.5,
    norm: 'rms',
  };
  // sc = a + r max(|y|, |ŷ|): positions 0.7, 0.7, 0.5; velocities 1.1, 1.4, 1.3.
  const scaled = [
    (2 * 0.1) / 0.7,
    (2 * -0.2) / 0.7,
    (2 * 0.3) / 0.5,
    (0.5 * 0.4) / 1.1,
    0,
    (0.5 * -0.5) / 1.3,
  ];

  test('weighted RMS over the free particles (Hairer sc_i = atol + rtol·max(|y_i|, |ŷ_i|))', () => {
    const expected = Math.sqrt(scaled.reduce((s, e) => s + e * e, 0) / 6);
    expect(errorNorm(model, error, start, end, tol)).toBeCloseTo(expected, 15);
  });
  test('weighted max norm', () => {
    const expected = Math.max(...scaled.map(Math.abs));
    expect(errorNorm(model, error, start, end, { ...tol, norm: 'max' })).toBeCloseTo(expected, 15);
  });
  test('NaN anywhere gives NaN (a rejection), in both norms', () => {
    const bad = pair([0, 0, 0, 0, NaN, 0], [0, 0, 0, 0, 0, 0]);
    expect(errorNorm(model, bad, start, end, tol)).toBeNaN();
    expect(errorNorm(model, bad, start, end, { ...tol, norm: 'max' })).toBeNaN();
  });
});

describe('rk45 integration', () => {
  test('free fall is exact (quadratic trajectory) and lands on every target time', async () => {
    const g: [number, number, number] = [0.5, -9.81, 0.25];
    const model = createModel({
      positions: [0, 1, 0, 3, 4, 5],
      velocities: [1, 2, -1, 0, 0, 0],
      masses: [1, 1],
      springPairs: [0, 1],
      springStiffness: 0,
      gravity: g,
    });
    const simulation = new AdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-8, maxStep: 0.05 });
    const targets = [1 / 60, 2 / 60, 0.1, 0.37, 0.37, 1.25];
    for (const t of targets) {
      await simulation.advanceTo(t);
      const state = await simulation.readState();
      expect(state.time).toBe(t);
      const expected = [0, 1, 0, 3, 4, 5].map((x0, k) => {
        const v0 = [1, 2, -1, 0, 0, 0][k]!;
        return x0 + v0 * t + 0.5 * g[k % 3]! * t * t;
      });
      expectClose(state.positions, expected, { absolute: 1e-12, relative: 1e-12 }, `positions at t = ${t}`);
    }
    const stats = simulation.readStats();
    expect(stats.largestStep).toBeLessThanOrEqual(0.05);
    expect(stats.rejectedSteps).toBe(0);
  });

  test('the global error scales with the tolerance (oscillator, 1.3 periods)', async () => {
    const tolerances = [1e-5, 1e-7, 1e-9, 1e-11];
    const errors: number[] = [];
    const velocityErrors: number[] = [];
    const steps: number[] = [];
    // The closed form moves particle 1 by 0.262 m and changes its speed by 1.195 m/s in 1.3 s.
    const start = oscillatorModel();
    const motion = oscillatorError(start.particlePositions, start.particleVelocities, 1.3);
    expect(motion.position).toBeGreaterThan(0.26);
    expect(motion.velocity).toBeGreaterThan(1.19);
    for (const accuracy of tolerances) {
      const simulation = new AdaptiveSimulation(oscillatorModel(), {
        integrator: 'rk45',
        accuracy,
        absoluteTolerance: accuracy,
      });
      await simulation.advanceTo(1.3);
      const state = await simulation.readState();
      const error = oscillatorError(state.positions, state.velocities, 1.3);
      errors.push(error.position);
      velocityErrors.push(error.velocity);
      steps.push(simulation.readStats().acceptedSteps);
      // It moved as the closed form says: |x − x(0)| and |v − v(0)| within 5 tol (resp. 5 ω tol) of it.
      const moved = Math.hypot(...[3, 4, 5].map((k) => state.positions[k]! - start.particlePositions[k]!));
      const sped = Math.hypot(...[3, 4, 5].map((k) => state.velocities[k]! - start.particleVelocities[k]!));
      expect(Math.abs(moved - motion.position)).toBeLessThan(5 * accuracy);
      expect(Math.abs(sped - motion.velocity)).toBeLessThan(5 * OSCILLATOR.omega * accuracy);
    }
    console.log(
      'rk45 on the oscillator (t = 1.3 s):',
      tolerances.map((tol, i) => `tol ${tol}: error ${errors[i]!.toExponential(2)} m, ${steps[i]} steps`),
    );
    // Each error is within a few tolerances (|x| ≈ 1.2 m, so sc ≈ 2.2 tol; measured 1.17–1.33 tol),
    // and e ∝ tol.
    errors.forEach((e, i) => expect(e).toBeLessThan(5 * tolerances[i]!));
    // Velocity errors are ω × position errors for an oscillator (measured 2.4–3.7 ω tol): allowed 5 ω tol.
    velocityErrors.forEach((e, i) => expect(e).toBeLessThan(5 * OSCILLATOR.omega * tolerances[i]!));
    const slope = logSlope(tolerances, errors);
    expect(slope).toBeGreaterThan(0.85);
    expect(slope).toBeLessThan(1.15);
    // Steps grow like tol^(−1/5): ×100 in tolerance is ×100^(1/5) ≈ 2.5 in steps.
    const stepSlope = logSlope(tolerances, steps);
    expect(stepSlope).toBeGreaterThan(-0.3);
    expect(stepSlope).toBeLessThan(-0.15);
  });

  test('stiff spring–damper at Drake’s minStep: violations are reported, then the blow-up throws', async () => {
    const simulation = new AdaptiveSimulation(springDamperModel(), {
      integrator: 'rk45',
      accuracy: 1e-6,
      absoluteTolerance: 1e-6,
      minStep: 1e-6,
      maxStep: 0.1,
    });
    let thrown: unknown;
    await simulation.advanceTo(0.01).catch((e: unknown) => (thrown = e));
    expect(thrown).toBeInstanceOf(WeftStepSizeError);
    expect((thrown as WeftStepSizeError).reason).toBe('non-finite');
    const stats = simulation.readStats();
    expect(stats.minStepViolations).toBeGreaterThan(0);
    expect(stats.accuracyMet).toBe(false);
    // Every accepted step was a minStep (21 of them, measured), each one a violation. The last
    // accepted state is finite but a blow-up — rk45 at h λ ≈ −50 grows each step (measured
    // |x| ≈ 1.7e146 m after 21 steps; the closed form is ≈ 1 m from the rest length) — so
    // readState() reports it (energy watchdog) instead of returning it.
    expect(stats.minStepViolations).toBe(stats.acceptedSteps);
    expect(stats.acceptedSteps).toBeGreaterThan(10);
    const read = simulation.readState().catch((e: unknown) => e);
    const error = (await read) as WeftDivergenceError;
    expect(error).toBeInstanceOf(WeftDivergenceError);
    expect(error.particle).toBe(-1); // finite: the energy bound, not NaN
    expect(error.step).toBe(stats.acceptedSteps);
    expect(error.energy!.value).toBeGreaterThan(1e100);
  });

  test("onMinStep: 'throw' stops at the first step that cannot meet the accuracy", async () => {
    const simulation = new AdaptiveSimulation(springDamperModel(), {
      integrator: 'rk45',
      minStep: 1e-6,
      onMinStep: 'throw',
    });
    const thrown = await simulation.advanceTo(0.01).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(WeftStepSizeError);
    expect((thrown as WeftStepSizeError).reason).toBe('accuracy');
    expect(simulation.readStats().minStepViolations).toBe(0);
  });

  test('progress is reported and ends at the target', async () => {
    const simulation = new AdaptiveSimulation(oscillatorModel(), { integrator: 'rk45' });
    const seen: number[] = [];
    await simulation.advanceTo(0.5, (t, target) => {
      expect(target).toBe(0.5);
      seen.push(t);
    });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)).toBe(0.5);
    expect(seen).toEqual([...seen].sort((p, q) => p - q));
  });
});

describe('rk45 local orders (one fixed step from the exact oscillator state)', () => {
  // One step h (minStep = maxStep = initialStep = h) from the closed form at t₀ = 0.1 s (v, a ≠ 0:
  // no Taylor term vanishes). Cash–Karp's propagated y⁵ has local error O(h⁶) and its estimate
  // e = y⁵ − y⁴ is O(h⁵); errorControl 'drake' with accuracy 0.1 and velocityWeight 0 makes
  // 0.1 · lastErrorEstimate = max_i |e_x,i|. A weight off by 0.1 % in b or b̂ leaves an O(h) term that
  // dominates at these steps (Σ b ≠ 1 or Σ b̂ ≠ 1): the slopes fall towards 1.
  test('the step error scales as h⁶, the error estimate as h⁵', async () => {
    const t0 = 0.1;
    const steps = [1 / 40, 1 / 80, 1 / 160];
    const errors: number[] = [];
    const estimates: number[] = [];
    for (const h of steps) {
      const simulation = new AdaptiveSimulation(oscillatorModel(t0), {
        integrator: 'rk45',
        errorControl: 'drake',
        accuracy: 0.1,
        velocityWeight: 0,
        minStep: h,
        maxStep: h,
        initialStep: h,
      });
      await simulation.advanceTo(h);
      const state = await simulation.readState();
      const stats = simulation.readStats();
      expect(stats.acceptedSteps + stats.rejectedSteps).toBe(1);
      errors.push(oscillatorError(state.positions, state.velocities, t0 + h).position);
      estimates.push(0.1 * stats.lastErrorEstimate);
    }
    console.log('rk45 one step:', steps.map((h, i) => `h ${h}: error ${errors[i]!.toExponential(2)}, estimate ${estimates[i]!.toExponential(2)}`)); // prettier-ignore
    // Asymptotic slopes 6 and 5; the next Taylor terms shift them by O(h ω) ≲ 0.16 here: ±0.3.
    const errorSlope = logSlope(steps, errors);
    expect(errorSlope).toBeGreaterThan(5.7);
    expect(errorSlope).toBeLessThan(6.3);
    const estimateSlope = logSlope(steps, estimates);
    expect(estimateSlope).toBeGreaterThan(4.7);
    expect(estimateSlope).toBeLessThan(5.3);
  });
});

describe('options', () => {
  const bad: [string, Partial<AdaptiveOptions>][] = [
    ['integrator', { integrator: 'rk23' as never }],
    ['accuracy', { accuracy: 0 }],
    ['accuracy', { accuracy: NaN }],
    ['absoluteTolerance', { absoluteTolerance: -1 }],
    ['velocityAbsoluteTolerance', { velocityAbsoluteTolerance: 0 }],
    ['positionWeight', { positionWeight: -1 }],
    ['errorNorm', { errorNorm: 'l1' as never }],
    ['minStep', { minStep: 0 }],
    ['maxStep', { minStep: 1e-3, maxStep: 1e-4 }],
    ['initialStep', { maxStep: 0.01, initialStep: 0.1 }],
    ['safetyFactor', { safetyFactor: 1.5 }],
    ['growthLimit', { growthLimit: 1 }],
    ['shrinkLimit', { shrinkLimit: 1 }],
    ['onMinStep', { onMinStep: 'ignore' as never }],
    ['rayleighMass', { rayleighMass: -1 }],
    ['precision', { precision: 'f16' as never }],
    ['scheme', { scheme: 'heun' }],
    ['maxNewtonIterations', { integrator: 'velocity-implicit-euler', maxNewtonIterations: 0 }],
    ['linearTolerance', { integrator: 'velocity-implicit-euler', linearTolerance: 2 }],
    ['fullNewton', { integrator: 'velocity-implicit-euler', fullNewton: 'yes' as never }],
  ];
  test.each(bad.map(([field, options]) => [field, JSON.stringify(options), options] as const))(
    'a bad %s (%s) is a WeftInputError naming it',
    (field, _text, options) => {
      const make = (): AdaptiveSimulation =>
        new AdaptiveSimulation(oscillatorModel(), { integrator: 'rk45', ...options });
      expect(make).toThrow(WeftInputError);
      try {
        make();
      } catch (e) {
        expect((e as WeftInputError).field).toBe(field);
      }
    },
  );
  test('integrator is required', () => {
    expect(() => new AdaptiveSimulation(oscillatorModel(), {} as AdaptiveOptions)).toThrow(/integrator/);
  });
  test('advanceTo rejects a time in the past', async () => {
    const simulation = new AdaptiveSimulation(oscillatorModel(), { integrator: 'rk45' });
    await simulation.advanceTo(0.1);
    await expect(simulation.advanceTo(0.05)).rejects.toThrow(WeftInputError);
  });
});
