/**
 * Step doubling of the seven explicit schemes: the estimate's order, measured, not assumed.
 *
 * From the exact oscillator state at t₀ = 0.1 s one attempt is made with h, h/2, h/4, h/8. With ε
 * the true error of the propagated two half steps (against the closed form) and e = y₁ − y½ the
 * estimate, a scheme of order p (as a one-step map) must give
 *   |e| = O(h^(p+1))                 (slope p + 1 ± 0.15; for the Euler-type schemes, 2),
 *   |e − (2^p − 1) ε| = o(|e|)       (the estimate is asymptotically exact: ratio → 1, slope ≥ p + 1.7),
 * and, with `extrapolate`, the Richardson value has local error O(h^(p+2)).
 * Then whole runs: the controller holds each step's estimate below the tolerance, the result
 * matches the closed form, and the step adapts to the scheme's order.
 */
import { describe, expect, test } from 'vitest';
import { logSlope, oscillatorError, oscillatorModel } from './helpers/adaptive-problems.ts';
import { type ExplicitIntegratorName } from '../src/index.ts';
import {
  type ErrorTolerances,
  STEP_DOUBLING_ORDER,
  CpuProgramStepper,
  stepDoublingProgram,
  EXPLICIT_INTEGRATOR_NAMES,
  AdaptiveSimulation,
} from '../src/internal.ts';

const T0 = 0.1;
/** Max norm of e in absolute units. */
const RAW: ErrorTolerances = {
  relative: 0,
  absolutePosition: 1,
  absoluteVelocity: 1,
  positionWeight: 1,
  velocityWeight: 1,
  norm: 'max',
};

/** Euclidean norm of the 6 components of particle 1 (position m, velocity m/s). */
function norm6(x: ArrayLike<number>, v: ArrayLike<number>): number {
  return Math.hypot(x[3]!, x[4]!, x[5]!, v[3]!, v[4]!, v[5]!);
}

interface Measured {
  estimate: number;
  /** |e − (2^p − 1) ε| */
  mismatch: number;
  /** |ε| of the propagated value. */
  actual: number;
}

function attempt(scheme: ExplicitIntegratorName, h: number, extrapolate: boolean): Measured {
  const model = oscillatorModel(T0);
  const p = STEP_DOUBLING_ORDER[scheme];
  const stepper = new CpuProgramStepper(
    model,
    { positions: model.particlePositions, velocities: model.particleVelocities },
    stepDoublingProgram(scheme, 0, RAW, extrapolate),
    'f64',
  );
  stepper.attempt(h);
  const e = stepper.errorVector;
  stepper.accept();
  const { positions: x, velocities: v } = stepper.current;
  // ε = y_propagated − y(t₀ + h), per component.
  const exact = oscillatorModel(T0 + h);
  const ex = x.map((xi, k) => xi - exact.particlePositions[k]!);
  const ev = v.map((vi, k) => vi - exact.particleVelocities[k]!);
  const scale = 2 ** p - 1;
  return {
    estimate: norm6(e.positions, e.velocities),
    mismatch: norm6(
      e.positions.map((ek, k) => ek - scale * ex[k]!),
      e.velocities.map((ek, k) => ek - scale * ev[k]!),
    ),
    actual: norm6(ex, ev),
  };
}

const BASE_STEP: Record<ExplicitIntegratorName, number> = {
  'explicit-euler': 0.01,
  'symplectic-euler': 0.01,
  'variational-symplectic': 0.01,
  'central-difference': 0.01,
  rk2: 0.02,
  heun: 0.02,
  ralston: 0.02,
  rk4: 0.04,
};

const table: Record<string, string | number>[] = [];

describe('step-doubling estimate order (one step from the exact oscillator state)', () => {
  test.each(EXPLICIT_INTEGRATOR_NAMES.map((s) => [s, STEP_DOUBLING_ORDER[s] + 1] as const))(
    '%s: estimate O(h^%i), asymptotically (2^p − 1) × the true error',
    (scheme, estimateOrder) => {
      const hs = [1, 2, 4, 8].map((d) => BASE_STEP[scheme] / d);
      const m = hs.map((h) => attempt(scheme, h, false));
      const slope = logSlope(
        hs,
        m.map((r) => r.estimate),
      );
      const mismatchSlope = logSlope(
        hs,
        m.map((r) => r.mismatch),
      );
      const ratio = m.at(-1)!.mismatch / m.at(-1)!.estimate;
      table.push({
        scheme,
        p: estimateOrder - 1,
        '|e|(h)': m[0]!.estimate.toExponential(2),
        'slope |e|': slope.toFixed(3),
        'slope |e − (2^p−1)ε|': mismatchSlope.toFixed(3),
        '|e − (2^p−1)ε|/|e| at h/8': ratio.toExponential(2),
      });
      expect(Math.abs(slope - estimateOrder)).toBeLessThan(0.15);
      expect(mismatchSlope).toBeGreaterThan(estimateOrder + 0.7);
      expect(ratio).toBeLessThan(0.1);
    },
  );

  test.each([['heun', 4] as const, ['explicit-euler', 3] as const])(
    '%s with Richardson extrapolation: local error O(h^%i)',
    (scheme, localOrder) => {
      const hs = [1, 2, 4, 8].map((d) => BASE_STEP[scheme] / d);
      const errors = hs.map((h) => attempt(scheme, h, true).actual);
      const plain = hs.map((h) => attempt(scheme, h, false).actual);
      const slope = logSlope(hs, errors);
      table.push({ scheme: `${scheme} + extrapolation`, 'local slope': slope.toFixed(3) });
      expect(Math.abs(slope - localOrder)).toBeLessThan(0.2);
      expect(errors.at(-1)!).toBeLessThan(plain.at(-1)! / 10);
    },
  );

  test('table', () => {
    console.log('Step doubling on the oscillator (one attempt from t = 0.1 s):');
    console.table(table);
  });
});

describe('step-doubling runs', () => {
  test.each([
    ['explicit-euler', 1e-4],
    ['symplectic-euler', 1e-4],
    ['heun', 1e-6],
    ['rk4', 1e-8],
  ] as const)(
    '%s at accuracy %s over 1.25 periods: within 4·steps·tol of the closed form',
    async (scheme, tol) => {
      const simulation = new AdaptiveSimulation(oscillatorModel(), {
        integrator: 'step-doubling',
        scheme,
        accuracy: tol,
        absoluteTolerance: tol,
      });
      await simulation.advanceTo(1.25);
      const state = await simulation.readState();
      const stats = simulation.readStats();
      const { position } = oscillatorError(state.positions, state.velocities, 1.25);
      // Per-step control of a low-order scheme: the global error is ~ steps × tol.
      expect(position).toBeLessThan(Math.max(10, stats.acceptedSteps) * 4 * tol);
      expect(stats.lastErrorEstimate).toBeLessThanOrEqual(1);
      expect(stats.accuracyMet).toBe(true);
    },
  );

  test('higher order takes fewer steps at the same accuracy; extrapolation cuts the error', async () => {
    const steps: Record<string, number> = {};
    for (const scheme of ['explicit-euler', 'heun', 'rk4'] as const) {
      const simulation = new AdaptiveSimulation(oscillatorModel(), {
        integrator: 'step-doubling',
        scheme,
        accuracy: 1e-6,
        absoluteTolerance: 1e-6,
      });
      await simulation.advanceTo(1.25);
      steps[scheme] = simulation.readStats().acceptedSteps;
    }
    expect(steps['explicit-euler']!).toBeGreaterThan(5 * steps['heun']!);
    expect(steps['heun']!).toBeGreaterThan(3 * steps['rk4']!);

    const run = async (extrapolate: boolean): Promise<number> => {
      const simulation = new AdaptiveSimulation(oscillatorModel(), {
        integrator: 'step-doubling',
        scheme: 'heun',
        accuracy: 1e-6,
        absoluteTolerance: 1e-6,
        extrapolate,
      });
      await simulation.advanceTo(1.25);
      const state = await simulation.readState();
      return oscillatorError(state.positions, state.velocities, 1.25).position;
    };
    expect(await run(true)).toBeLessThan((await run(false)) / 10);
  });
});
