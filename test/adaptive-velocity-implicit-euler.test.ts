/**
 * velocity-implicit-euler (spec/drake-velocity-implicit-euler.md) against closed forms, and against
 * rk45 on Drake's two stiff test systems (systems/analysis/test_utilities, implicit_integrator_test.h).
 *
 * - Error estimate: one attempt from the exact oscillator state; ε* = x̄ − x̃ must be O(h²)
 *   (Drake eq. 22) and ε* − ε = O(h³) (eq. 23), ε = x̃ − x(t + h) the true error.
 * - Stiff spring–damper (k = 1e10, b = 1e8, m = 2; Drake's settings: accuracy 1e-6, maxStep 0.1,
 *   minStep 1e-6, no throw): the answer at t = 2 s within Drake's xtol = 1e-6, vtol = 1e-4; at
 *   t = 0.01 s (x ≈ 0.37 m) the global error of this first-order method under per-step control is
 *   ~2.6e-4 m and falls like √accuracy. The velocity's initial layer (v jumps from 0.1 to −100 m/s
 *   within 1/|λ₁| = 2e-8 s) cannot be resolved at minStep: those few steps are counted as minStep
 *   violations, as asked, not hidden. rk45 needs hundreds of times more steps, each below the
 *   stability bound of its tableau on the negative real axis (computed here from the coefficients).
 * - Stiff double spring (k₁ = 750, k₂ = 1e10): within Drake's tolerances (2e-2 m, 0.12 m/s) of the
 *   exact modal solution at t = 1 s with Drake's accuracy 1e-5; rk45's steps are held at the
 *   imaginary-axis stability limit whatever the accuracy (Kinnmark–Gray bound h ω ≤ s − 1 = 5 for
 *   6 stages) while velocity-implicit-euler's follow the accuracy.
 * - Jacobian reuse vs no reuse vs full Newton on a falling cloth, and the fall-back to smaller steps
 *   when Newton diverges at a too-large first step.
 */
import { describe, expect, test } from 'vitest';
import {
  doubleSpringModel,
  doubleSpringSolution,
  logSlope,
  oscillatorModel,
  springDamperModel,
  springDamperRates,
  springDamperSolution,
} from './helpers/adaptive-problems.ts';
import { type AdaptiveStats, buildCloth } from '../src/index.ts';
import {
  resolveAdaptiveOptions,
  VelocityImplicitEulerStepper,
  RUNGE_KUTTA_TABLEAUX,
  AdaptiveSimulation,
} from '../src/internal.ts';

const report: Record<string, Record<string, string | number | boolean>> = {};
function record(name: string, stats: AdaptiveStats, extra: Record<string, string | number> = {}): void {
  report[name] = {
    accepted: stats.acceptedSteps,
    rejected: stats.rejectedSteps,
    'shrinks (error)': stats.shrinksFromErrorControl,
    'shrinks (Newton)': stats.shrinksFromNewtonFailure,
    'h min': stats.smallestStep.toExponential(2),
    'h max': stats.largestStep.toExponential(2),
    'minStep violations': stats.minStepViolations,
    'a(x,v) evals': stats.derivativeEvaluations,
    'Newton its': stats.newton.iterations,
    'Jacobian evals': stats.newton.jacobianEvaluations,
    factorizations: stats.newton.factorizations,
    'failed solves': stats.newton.failedSolves,
    ...extra,
  };
}

describe('error estimate (one step from the exact oscillator state at t = 0.1 s)', () => {
  test('ε* = x̄ − x̃ is O(h²) and ε* − ε is O(h³)', () => {
    const t0 = 0.1;
    const hs = [0.02, 0.01, 0.005, 0.0025];
    const estimates: number[] = [];
    const mismatches: number[] = [];
    for (const h of hs) {
      const model = oscillatorModel(t0);
      const options = resolveAdaptiveOptions({
        integrator: 'velocity-implicit-euler',
        accuracy: 1e-12,
        absoluteTolerance: 1e-12,
        linearTolerance: 1e-14,
      });
      const stepper = new VelocityImplicitEulerStepper(
        model,
        { positions: model.particlePositions, velocities: model.particleVelocities },
        options,
        (n) => new Float64Array(n),
      );
      expect(stepper.attempt(h).kind).toBe('estimated');
      const e = stepper.errorVector;
      stepper.accept();
      const exact = oscillatorModel(t0 + h);
      let estimate = 0;
      let mismatch = 0;
      for (let k = 3; k < 6; k++) {
        const ex = stepper.current.positions[k]! - exact.particlePositions[k]!;
        const ev = stepper.current.velocities[k]! - exact.particleVelocities[k]!;
        estimate += e.positions[k]! ** 2 + e.velocities[k]! ** 2;
        mismatch += (e.positions[k]! - ex) ** 2 + (e.velocities[k]! - ev) ** 2;
      }
      estimates.push(Math.sqrt(estimate));
      mismatches.push(Math.sqrt(mismatch));
    }
    const slope = logSlope(hs, estimates);
    const mismatchSlope = logSlope(hs, mismatches);
    console.log(
      `velocity-implicit-euler estimate: |ε*| slope ${slope.toFixed(3)}, |ε* − ε| slope ${mismatchSlope.toFixed(3)}`,
    );
    expect(Math.abs(slope - 2)).toBeLessThan(0.1);
    expect(Math.abs(mismatchSlope - 3)).toBeLessThan(0.15);
  });
});

/** Largest r with |R(−x)| ≤ 1 on (0, r] for the propagated (5th-order) Cash–Karp solution. */
function realStabilityBound(): number {
  const { a, b: b5 } = RUNGE_KUTTA_TABLEAUX['cash-karp'];
  const R = (z: number): number => {
    // Stage values for y' = z y, y₀ = 1: Y_i = 1 + z Σ a_ij Y_j.
    const Y: number[] = [];
    for (let i = 0; i < 6; i++) Y.push(1 + z * a[i]!.reduce((s, aij, j) => s + aij * Y[j]!, 0));
    return 1 + z * b5.reduce((s, b, i) => s + b * Y[i]!, 0);
  };
  let x = 0;
  while (Math.abs(R(-(x + 1e-3))) <= 1) x += 1e-3;
  return x;
}

describe("Drake's stiff spring–damper (k = 1e10, b = 1e8, m = 2)", () => {
  const drake = {
    integrator: 'velocity-implicit-euler',
    accuracy: 1e-6,
    absoluteTolerance: 1e-6,
    maxStep: 0.1,
    minStep: 1e-6,
  } as const;

  test('velocity-implicit-euler reaches the closed form (Drake: t = 2 s, xtol 1e-6, vtol 1e-4)', async () => {
    const simulation = new AdaptiveSimulation(springDamperModel(), drake);
    const checkpoints: string[] = [];
    let stepsTo002 = 0;
    for (const t of [1e-5, 0.01, 0.02, 2]) {
      await simulation.advanceTo(t);
      const state = await simulation.readState();
      expect(state.time).toBe(t);
      const exact = springDamperSolution(t);
      const dx = state.positions[3]! - 1 - exact.x;
      const dv = state.velocities[3]! - exact.v;
      checkpoints.push(
        `t ${t}: x ${exact.x.toPrecision(4)} m, error ${dx.toExponential(2)} m, ${dv.toExponential(2)} m/s`,
      );
      if (t === 1e-5) {
        // The initial velocity layer is over; it took the only minStep violations.
        expect(simulation.readStats().minStepViolations).toBeGreaterThan(0);
        expect(simulation.readStats().minStepViolations).toBeLessThanOrEqual(5);
      }
      if (t === 0.01) expect(Math.abs(dx)).toBeLessThan(5e-4);
      if (t === 0.02) stepsTo002 = simulation.readStats().acceptedSteps;
      if (t === 2) {
        expect(Math.abs(dx)).toBeLessThanOrEqual(1e-6);
        expect(Math.abs(dv)).toBeLessThanOrEqual(1e-4);
      }
    }
    console.log(`velocity-implicit-euler, stiff spring–damper:\n  ${checkpoints.join('\n  ')}`);
    const stats = simulation.readStats();
    record('spring–damper, velocity-implicit-euler to 2 s', stats, { 'steps to 0.02 s': stepsTo002 });
    // Linear system: one Jacobian for the whole run (reuse), and Newton converges in at most two
    // iterations per solve (the second confirms a zero update; once at rest the first is zero):
    // 3 solves per attempt.
    expect(stats.newton.jacobianEvaluations).toBe(1);
    expect(stats.newton.failedSolves).toBe(0);
    expect(stats.shrinksFromNewtonFailure).toBe(0);
    expect(stats.newton.iterations).toBeLessThanOrEqual(6 * (stats.acceptedSteps + stats.rejectedSteps));
    expect(stats.newton.iterations).toBeGreaterThan(5 * stats.acceptedSteps);
    expect(stats.largestStep).toBe(0.1);
    expect(stats.minStepViolations).toBeLessThanOrEqual(5);
    expect(stats.accuracyMet).toBe(false); // the violations of the initial layer stay reported
    expect(stats.acceptedSteps).toBeLessThan(5000);
  });

  test('the global error at t = 0.01 s falls like √accuracy (first order, per-step control)', async () => {
    const errors: number[] = [];
    const accuracies = [1e-5, 1e-7];
    for (const accuracy of accuracies) {
      const simulation = new AdaptiveSimulation(springDamperModel(), {
        ...drake,
        accuracy,
        absoluteTolerance: accuracy,
      });
      await simulation.advanceTo(0.01);
      const state = await simulation.readState();
      errors.push(Math.abs(state.positions[3]! - 1 - springDamperSolution(0.01).x));
    }
    const slope = logSlope(accuracies, errors);
    expect(slope).toBeGreaterThan(0.4);
    expect(slope).toBeLessThan(0.6);
  });

  test('rk45 needs hundreds of times more steps, each below its stability bound', async () => {
    const vie = new AdaptiveSimulation(springDamperModel(), drake);
    await vie.advanceTo(0.02);
    const rk45 = new AdaptiveSimulation(springDamperModel(), {
      ...drake,
      integrator: 'rk45',
      minStep: 1e-12,
    });
    await rk45.advanceTo(0.02);
    const stats = rk45.readStats();
    const state = await rk45.readState();
    const exact = springDamperSolution(0.02);
    record('spring–damper, rk45 to 0.02 s', stats);
    const bound = realStabilityBound();
    const fastRate = -springDamperRates().fast;
    expect(Math.abs(state.positions[3]! - 1 - exact.x)).toBeLessThan(1e-6);
    expect(stats.acceptedSteps).toBeGreaterThan(100 * vie.readStats().acceptedSteps);
    expect(stats.largestStep * fastRate).toBeLessThan(2 * bound);
    console.log(
      `rk45 largest step × |λ₁| = ${(stats.largestStep * fastRate).toFixed(2)}; Cash–Karp real stability bound ${bound.toFixed(2)}`,
    );
  });
});

describe("Drake's stiff double spring (k₁ = 750, k₂ = 1e10, m = 1)", () => {
  const k2 = 1e10;
  // Drake's accuracy is an absolute bound on the max norm of the error: the same here.
  const tolerances = (accuracy: number) =>
    ({ accuracy: 1e-12, absoluteTolerance: accuracy, errorNorm: 'max', maxStep: 0.1 }) as const;

  test('velocity-implicit-euler within Drake’s tolerances at t = 1 s; its steps follow the accuracy, rk45’s the stiffness', async () => {
    const steps: Record<string, number[]> = { 'velocity-implicit-euler': [], rk45: [] };
    const exact = doubleSpringSolution(k2, 1);
    for (const accuracy of [1e-4, 1e-5]) {
      for (const integrator of ['velocity-implicit-euler', 'rk45'] as const) {
        const simulation = new AdaptiveSimulation(doubleSpringModel(k2), {
          integrator,
          ...tolerances(accuracy),
          initialStep: integrator === 'rk45' ? 1e-6 : 0.1,
        });
        await simulation.advanceTo(1);
        const state = await simulation.readState();
        const stats = simulation.readStats();
        steps[integrator]!.push(stats.acceptedSteps);
        const dx = [state.positions[3]! - 1 - exact.x[0], state.positions[6]! - 2 - exact.x[1]];
        const dv = [state.velocities[3]! - exact.v[0], state.velocities[6]! - exact.v[1]];
        record(`double spring, ${integrator}, accuracy ${accuracy}`, stats, {
          'x error': Math.max(...dx.map(Math.abs)).toExponential(2),
          'v error': Math.max(...dv.map(Math.abs)).toExponential(2),
        });
        if (integrator === 'velocity-implicit-euler') {
          if (accuracy === 1e-5) {
            dx.forEach((d) => expect(Math.abs(d)).toBeLessThan(1e-2)); // Drake: 2e-2
            dv.forEach((d) => expect(Math.abs(d)).toBeLessThan(0.1)); // Drake: 0.12
          }
          expect(stats.newton.jacobianEvaluations).toBe(1);
          expect(stats.newton.failedSolves).toBe(0);
          expect(stats.accuracyMet).toBe(true);
        } else {
          // Imaginary-axis stability of a 6-stage explicit scheme: h ω ≤ 5 at best.
          expect(stats.largestStep * exact.stiffOmega).toBeLessThanOrEqual(5);
          dx.forEach((d) => expect(Math.abs(d)).toBeLessThan(1e-3));
        }
      }
    }
    const [vieLoose, vieTight] = steps['velocity-implicit-euler'] as [number, number];
    const [rkLoose, rkTight] = steps.rk45 as [number, number];
    expect(vieTight / vieLoose).toBeGreaterThan(2); // steps ∝ accuracy^(−1/2)
    expect(rkTight / rkLoose).toBeLessThan(1.25); // stability-bound: the accuracy barely matters
    expect(rkTight).toBeGreaterThan(20 * vieTight);
    expect(rkLoose).toBeGreaterThan(50 * vieLoose);
  });
});

describe('Newton on a falling cloth (6 × 6, nonlinear)', () => {
  const cloth = () => buildCloth({ nx: 6, ny: 6 });

  test('reuse, no reuse and full Newton agree; full Newton evaluates a Jacobian every iteration', async () => {
    const results: Record<string, { stats: AdaptiveStats; positions: Float64Array }> = {};
    for (const mode of ['reuse', 'no reuse', 'full Newton'] as const) {
      const simulation = new AdaptiveSimulation(cloth(), {
        integrator: 'velocity-implicit-euler',
        accuracy: 1e-4,
        reuseJacobian: mode !== 'no reuse',
        fullNewton: mode === 'full Newton',
      });
      await simulation.advanceTo(0.3);
      const stats = simulation.readStats();
      results[mode] = { stats, positions: (await simulation.readState()).positions };
      record(`cloth, ${mode}`, stats);
    }
    const reuse = results.reuse!.stats.newton;
    const noReuse = results['no reuse']!.stats.newton;
    const full = results['full Newton']!.stats.newton;
    expect(full.jacobianEvaluations).toBe(full.iterations);
    expect(full.factorizations).toBe(full.iterations);
    // Without reuse, one Jacobian per Newton solve: at least three per accepted step.
    expect(noReuse.jacobianEvaluations).toBeGreaterThanOrEqual(3 * results['no reuse']!.stats.acceptedSteps);
    expect(reuse.jacobianEvaluations).toBeLessThan(noReuse.jacobianEvaluations / 5);
    expect(full.iterations).toBeLessThan(reuse.iterations);
    for (const other of ['no reuse', 'full Newton'] as const) {
      let worst = 0;
      results[other]!.positions.forEach(
        (x, k) => (worst = Math.max(worst, Math.abs(x - results.reuse!.positions[k]!))),
      );
      expect(worst).toBeLessThan(1e-3);
    }
  });

  test('a too-large first step makes Newton fail: the step shrinks and the run goes on', async () => {
    const simulation = new AdaptiveSimulation(cloth(), {
      integrator: 'velocity-implicit-euler',
      accuracy: 1e-3,
      initialStep: 0.5,
      maxStep: 0.5,
    });
    await simulation.advanceTo(0.5);
    const stats = simulation.readStats();
    record('cloth, first step 0.5 s', stats);
    expect(stats.shrinksFromNewtonFailure).toBeGreaterThan(0);
    expect(stats.newton.failedSolves).toBeGreaterThan(0);
    expect(stats.accuracyMet).toBe(true);
    const reference = new AdaptiveSimulation(cloth(), {
      integrator: 'rk45',
      accuracy: 1e-9,
      absoluteTolerance: 1e-9,
    });
    await reference.advanceTo(0.5);
    const expected = (await reference.readState()).positions;
    let worst = 0;
    (await simulation.readState()).positions.forEach(
      (x, k) => (worst = Math.max(worst, Math.abs(x - expected[k]!))),
    );
    console.log(
      `cloth after 0.5 s, velocity-implicit-euler (accuracy 1e-3) vs rk45 (1e-9): ${worst.toExponential(2)} m`,
    );
    expect(worst).toBeLessThan(0.05);
  });

  test('statistics', () => {
    console.log('velocity-implicit-euler and rk45 statistics:');
    console.table(report);
  });
});
