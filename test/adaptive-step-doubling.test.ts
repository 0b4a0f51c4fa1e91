/**
 * Step doubling of the eight explicit schemes: the estimate's order, measured, not assumed.
 *
 * Problem: the oscillator of helpers/adaptive-problems.ts with Rayleigh mass damping r_m = 1 /s
 * (so that central-difference, whose centred r_m term is its only difference from symplectic
 * Euler as a map, is not a copy of it), solved here in closed form (below).
 *
 * From the exact state at t₀ = 0.1 s one attempt is made with h, h/2, h/4, h/8. With ε the true
 * error of the propagated two half steps (against the closed form) and e = y₁ − y½ the estimate, a
 * scheme of order p (as a one-step map) must give
 *   |e| = O(h^(p+1))                 (slope p + 1 ± 0.15; for the Euler-type schemes, 2),
 *   |e − (2^p − 1) ε| = o(|e|)       (the estimate is asymptotically exact: ratio → 1, slope ≥ p + 1.7),
 * and, with `extrapolate`, the Richardson value has local error O(h^(p+2)).
 * Then whole runs, each at an accuracy at which the scheme is globally accurate: the state stays
 * within a stated fraction of the motion's amplitude of the closed form (damped oscillator) or of
 * a reference written here (a nonlinear 3-D spring with damping and gravity, classic RK4 at
 * h = 1e-5 s), the state moved as far as the solution says, and the step adapts to the order.
 */
import { describe, expect, test } from 'vitest';
import { buildSpring3d } from './helpers/adaptive-gpu-cases.ts';
import {
  logSlope,
  OSCILLATOR,
  oscillatorError,
  oscillatorModel,
  springMass,
} from './helpers/adaptive-problems.ts';
import { type ExplicitIntegratorName, type Model } from '../src/index.ts';
import {
  type ErrorTolerances,
  STEP_DOUBLING_ORDER,
  CpuProgramStepper,
  stepDoublingProgram,
  EXPLICIT_INTEGRATOR_NAMES,
  AdaptiveSimulation,
} from '../src/internal.ts';

const T0 = 0.1;

/** Rayleigh mass damping of the oscillator, 1/s: decays the amplitude by e^(−r_m t/2). */
const RAYLEIGH_MASS = 1;

/**
 * The oscillator with Rayleigh damping (force −r_m m v): along the axis u, with d = L + s,
 * s'' = −ω² s − r_m s', s(0) = A, s'(0) = 0, underdamped: s(t) = e^(−r_m t/2) (A cos ω_d t +
 * B sin ω_d t), ω_d = √(ω² − r_m²/4), B = r_m A / (2 ω_d).
 */
function dampedState(t: number): { positions: number[]; velocities: number[] } {
  const { L, A, axis, omega } = OSCILLATOR;
  const r = RAYLEIGH_MASS;
  const wd = Math.sqrt(omega * omega - (r * r) / 4);
  const B = (r * A) / (2 * wd);
  const decay = Math.exp((-r * t) / 2);
  const s = decay * (A * Math.cos(wd * t) + B * Math.sin(wd * t));
  const ds = (-r / 2) * s + decay * wd * (B * Math.cos(wd * t) - A * Math.sin(wd * t));
  return { positions: axis.map((c) => (L + s) * c), velocities: axis.map((c) => ds * c) };
}

/** The damped oscillator's model started from its exact state at t0 (particle 0 fixed at the origin). */
function dampedModel(t0: number): Model {
  const { m, k, L } = OSCILLATOR;
  const { positions, velocities } = dampedState(t0);
  return springMass({ position: positions, velocity: velocities, m, k, L });
}

/** |Δx| and |Δv| of particle 1 between a state (both particles, xyz) and a 3-vector pair. */
function distance(
  positions: ArrayLike<number>,
  velocities: ArrayLike<number>,
  x: ArrayLike<number>,
  v: ArrayLike<number>,
): { position: number; velocity: number } {
  return {
    position: Math.hypot(...[0, 1, 2].map((c) => positions[3 + c]! - x[c]!)),
    velocity: Math.hypot(...[0, 1, 2].map((c) => velocities[3 + c]! - v[c]!)),
  };
}
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
  const model = dampedModel(T0);
  const p = STEP_DOUBLING_ORDER[scheme];
  const stepper = new CpuProgramStepper(
    model,
    { positions: model.particlePositions, velocities: model.particleVelocities },
    stepDoublingProgram(scheme, RAYLEIGH_MASS, RAW, extrapolate),
    'f64',
  );
  stepper.attempt(h, 0);
  const e = stepper.errorVector;
  stepper.accept();
  const { positions: x, velocities: v } = stepper.current;
  // ε = y_propagated − y(t₀ + h), per component.
  const exact = dampedModel(T0 + h);
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

describe('step-doubling estimate order (one step from the exact damped-oscillator state)', () => {
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
    console.log(`Step doubling on the oscillator, r_m = ${RAYLEIGH_MASS} /s (one attempt from t = 0.1 s):`);
    console.table(table);
  });
});

/**
 * A damped-oscillator run of each scheme: its accuracy, and the allowed error at every quarter
 * period as a fraction of the motion's scale (A = 0.2 m for x, A ω = 1.26 m/s for v; the run
 * moves 0.189 m and changes v by 0.67 m/s). Step doubling controls each step's error only; the
 * global error of a scheme of order p grows like tol^(p/(p+1)) (measured: ×100 in tol is ×10 in
 * error for the Euler-type schemes), so each accuracy is where that global error is ≲ 1 %.
 */
const DAMPED_RUNS: { scheme: ExplicitIntegratorName; accuracy: number; fraction: number }[] = [
  // Measured 0.45 % (x) and 0.49 % (v) of the scale; allowed 1 % (≈ 2×).
  { scheme: 'explicit-euler', accuracy: 1e-6, fraction: 0.01 },
  // Measured 0.30 % / 0.24 %; allowed 0.6 %.
  { scheme: 'symplectic-euler', accuracy: 1e-5, fraction: 0.006 },
  // The same map as symplectic Euler by definition (p = M v): checks that the name reaches it. 0.6 %.
  { scheme: 'variational-symplectic', accuracy: 1e-5, fraction: 0.006 },
  // Centred r_m term (differs from symplectic Euler); measured 0.29 % / 0.27 %; allowed 0.6 %.
  { scheme: 'central-difference', accuracy: 1e-5, fraction: 0.006 },
  // Measured 0.022 % / 0.018 %; allowed 0.05 %. (rk2 and Ralston give the same numbers on a linear
  // problem, one stability polynomial: they run on the nonlinear spring below.)
  { scheme: 'heun', accuracy: 1e-6, fraction: 5e-4 },
  // Measured 1.4e-7 / 1.1e-7 of the scale; allowed 4e-7.
  { scheme: 'rk4', accuracy: 1e-8, fraction: 4e-7 },
];

/**
 * The GPU cases' nonlinear 3-D spring (helpers/adaptive-gpu-cases.ts, buildSpring3d: k = 2000 N/m,
 * c = 0.2 N·s/m, L = 1 m, m = 0.5 kg, gravity −9.81 m/s² along y), its right-hand side written
 * here from the physics: y' = (v, (−(k (l − L) + c v·n) n)/m + g), n = x/l.
 */
const SPRING3D = { k: 2000, c: 0.2, L: 1, m: 0.5, g: -9.81 };
const SPRING3D_START = [0.2, -1.05, 0.1, 0.6, 0.2, -0.4];
/** Checkpoints, s: every 0.05 s (half a period, ω = 63 rad/s) to 0.3 s. */
const SPRING3D_TIMES = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3];

function spring3dDerivative(y: readonly number[]): number[] {
  const { k, c, L, m, g } = SPRING3D;
  const l = Math.hypot(y[0]!, y[1]!, y[2]!);
  const n = [y[0]! / l, y[1]! / l, y[2]! / l];
  const tension = -(k * (l - L) + c * (y[3]! * n[0]! + y[4]! * n[1]! + y[5]! * n[2]!));
  return [y[3]!, y[4]!, y[5]!, (tension * n[0]!) / m, (tension * n[1]!) / m + g, (tension * n[2]!) / m];
}

/** Classic RK4 in float64 with step h, the state (x, v) at each checkpoint. */
function spring3dReference(h: number): number[][] {
  let y = [...SPRING3D_START];
  let t = 0;
  return SPRING3D_TIMES.map((target) => {
    for (let n = Math.round((target - t) / h); n > 0; n--) {
      const k1 = spring3dDerivative(y);
      const k2 = spring3dDerivative(y.map((v, j) => v + (h / 2) * k1[j]!));
      const k3 = spring3dDerivative(y.map((v, j) => v + (h / 2) * k2[j]!));
      const k4 = spring3dDerivative(y.map((v, j) => v + h * k3[j]!));
      y = y.map((v, j) => v + (h / 6) * (k1[j]! + 2 * k2[j]! + 2 * k3[j]! + k4[j]!));
    }
    t = target;
    return y;
  });
}

/**
 * Spring3d runs: accuracy and the allowed error at every checkpoint as a fraction of the motion's
 * scale (the largest |x(t) − x(0)|, 0.208 m, and |v(t) − v(0)|, 0.956 m/s, over the checkpoints).
 * The GPU cases run these schemes at 1e-3 … 1e-2, where the global error is 20–100 % of the
 * motion (rk2 at 1e-2: v off by 100 %); here each runs at an accuracy where it is ≲ 1 %.
 */
const SPRING3D_RUNS: {
  integrator: 'rk45' | 'step-doubling';
  scheme?: ExplicitIntegratorName;
  extrapolate?: boolean;
  accuracy: number;
  fraction: number;
}[] = [
  // Measured 0.88 % (x) and 0.35 % (v) of the scale; allowed 2 %.
  { integrator: 'rk45', accuracy: 1e-3, fraction: 0.02 },
  // Measured 0.52 % / 1.15 %; allowed 2.5 %.
  { integrator: 'step-doubling', scheme: 'explicit-euler', accuracy: 1e-6, fraction: 0.025 },
  // Measured 0.66 % / 0.43 %; allowed 1.5 %.
  { integrator: 'step-doubling', scheme: 'symplectic-euler', accuracy: 1e-4, fraction: 0.015 },
  // r_m = 0: the same map as symplectic Euler; measured 0.66 % / 0.43 %; allowed 1.5 %.
  { integrator: 'step-doubling', scheme: 'central-difference', accuracy: 1e-4, fraction: 0.015 },
  // Measured 0.0035 % / 0.32 % (the velocity error dominates); allowed 0.7 %.
  { integrator: 'step-doubling', scheme: 'rk2', accuracy: 1e-6, fraction: 0.007 },
  { integrator: 'step-doubling', scheme: 'heun', accuracy: 1e-6, fraction: 0.007 },
  { integrator: 'step-doubling', scheme: 'ralston', accuracy: 1e-6, fraction: 0.007 },
  // Richardson value propagated (order 3): measured 0.034 % / 0.031 %; allowed 0.08 %.
  { integrator: 'step-doubling', scheme: 'heun', extrapolate: true, accuracy: 1e-4, fraction: 8e-4 },
  // Measured 7.6e-6 / 0.20 %; allowed 0.5 %.
  { integrator: 'step-doubling', scheme: 'rk4', accuracy: 1e-4, fraction: 0.005 },
];

describe('step-doubling runs', () => {
  test.each(DAMPED_RUNS.map((r) => [r.scheme, r.accuracy, r.fraction, r] as const))(
    '%s at accuracy %s, damped oscillator to 1.25 s: within %s of the motion of the closed form at every quarter period',
    async (scheme, accuracy, fraction) => {
      const { A, omega } = OSCILLATOR;
      const simulation = new AdaptiveSimulation(dampedModel(0), {
        integrator: 'step-doubling',
        scheme,
        accuracy,
        absoluteTolerance: accuracy,
        rayleighMass: RAYLEIGH_MASS,
      });
      let state = await simulation.readState();
      for (const t of [0.25, 0.5, 0.75, 1, 1.25]) {
        await simulation.advanceTo(t);
        state = await simulation.readState();
        const exact = dampedState(t);
        const error = distance(state.positions, state.velocities, exact.positions, exact.velocities);
        expect(error.position, `|x − x(t)| at t = ${t} s, m`).toBeLessThanOrEqual(fraction * A);
        expect(error.velocity, `|v − v(t)| at t = ${t} s, m/s`).toBeLessThanOrEqual(fraction * A * omega);
      }
      // It moved as the closed form says (0.189 m and 0.67 m/s from the start), to the same fraction.
      const [start, end] = [dampedState(0), dampedState(1.25)];
      const moved = distance(state.positions, state.velocities, start.positions, start.velocities);
      const expected = distance([0, 0, 0, ...end.positions], [0, 0, 0, ...end.velocities], start.positions, start.velocities); // prettier-ignore
      expect(expected.position).toBeGreaterThan(0.18);
      expect(expected.velocity).toBeGreaterThan(0.6);
      expect(Math.abs(moved.position - expected.position), 'displacement, m').toBeLessThanOrEqual(
        fraction * A,
      );
      expect(Math.abs(moved.velocity - expected.velocity), 'velocity change, m/s').toBeLessThanOrEqual(
        fraction * A * omega,
      );
      const stats = simulation.readStats();
      expect(stats.lastErrorEstimate).toBeLessThanOrEqual(1);
      expect(stats.accuracyMet).toBe(true);
    },
  );

  test('the spring3d reference is converged: RK4 at h = 1e-5 s and 2e-5 s agree to 1e-10', () => {
    // RK4's error ∝ h⁴: halving h changes it by 15/16 of itself, so the difference bounds the error.
    const [fine, coarse] = [spring3dReference(1e-5), spring3dReference(2e-5)];
    fine.forEach((y, q) => y.forEach((v, j) => expect(Math.abs(v - coarse[q]![j]!)).toBeLessThan(1e-10)));
  });

  test('the spring3d model is the one the reference integrates', () => {
    const model = buildSpring3d();
    expect([model.springStiffness[0], model.springDamping[0], model.springRestLength[0]]).toEqual([
      SPRING3D.k,
      SPRING3D.c,
      SPRING3D.L,
    ]);
    expect([model.particleMass[1], ...model.gravity]).toEqual([SPRING3D.m, 0, SPRING3D.g, 0]);
    expect([...model.particlePositions.slice(3), ...model.particleVelocities.slice(3)]).toEqual(
      SPRING3D_START,
    );
    expect([...model.particlePositions.slice(0, 3), model.particleFixed[0]]).toEqual([0, 0, 0, 1]);
  });

  const reference = spring3dReference(1e-5);
  const excursion = (offset: number): number =>
    Math.max(
      ...reference.map((y) =>
        Math.hypot(...[0, 1, 2].map((c) => y[offset + c]! - SPRING3D_START[offset + c]!)),
      ),
    );
  test.each(
    SPRING3D_RUNS.map(
      (r) =>
        [
          r.integrator === 'rk45'
            ? 'rk45'
            : `step-doubling(${r.scheme}${r.extrapolate ? ', extrapolated' : ''})`,
          r.accuracy,
          r.fraction,
          r,
        ] as const,
    ),
  )(
    '%s at accuracy %s, nonlinear 3-D spring to 0.3 s: within %s of the motion of the reference at every checkpoint',
    async (_name, accuracy, fraction, { integrator, scheme, extrapolate }) => {
      const [X, V] = [excursion(0), excursion(3)];
      expect(X).toBeGreaterThan(0.2);
      expect(V).toBeGreaterThan(0.9);
      const simulation = new AdaptiveSimulation(buildSpring3d(), {
        integrator,
        accuracy,
        ...(scheme === undefined ? {} : { scheme }),
        ...(extrapolate === undefined ? {} : { extrapolate }),
      });
      let state = await simulation.readState();
      for (const [q, t] of SPRING3D_TIMES.entries()) {
        await simulation.advanceTo(t);
        state = await simulation.readState();
        const y = reference[q]!;
        const error = distance(state.positions, state.velocities, y.slice(0, 3), y.slice(3));
        expect(error.position, `|x − x_ref| at t = ${t} s, m`).toBeLessThanOrEqual(fraction * X);
        expect(error.velocity, `|v − v_ref| at t = ${t} s, m/s`).toBeLessThanOrEqual(fraction * V);
      }
      // It moved as the reference says (0.188 m and 0.956 m/s from the start), to the same fraction.
      const end = reference.at(-1)!;
      const start = SPRING3D_START;
      const moved = distance(state.positions, state.velocities, start.slice(0, 3), start.slice(3));
      const expected = distance([0, 0, 0, ...end.slice(0, 3)], [0, 0, 0, ...end.slice(3)], start.slice(0, 3), start.slice(3)); // prettier-ignore
      expect(Math.abs(moved.position - expected.position), 'displacement, m').toBeLessThanOrEqual(
        fraction * X,
      );
      expect(Math.abs(moved.velocity - expected.velocity), 'velocity change, m/s').toBeLessThanOrEqual(
        fraction * V,
      );
      expect(simulation.readStats().accuracyMet).toBe(true);
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
