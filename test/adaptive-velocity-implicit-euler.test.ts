/**
 * velocity-implicit-euler (spec/drake-velocity-implicit-euler.md) against closed forms, with Drake's
 * error control (errorControl 'drake', the default here: max_i |e_i| ≤ accuracy, Drake's step-size
 * rules), on Drake's own tests of its implicit integrators (implicit_integrator_test.h, run for
 * VelocityImplicitEulerIntegrator by velocity_implicit_euler_integrator_test.cc; settings and
 * closed forms in test/helpers/drake-spring-mass.ts), each held to the bound Drake enforces.
 *
 * - Error estimate: one attempt from the exact oscillator state; ε* = x̄ − x̃ must be O(h²)
 *   (Drake eq. 22) and ε* − ε = O(h³) (eq. 23), ε = x̃ − x(t + h) the true error; and Drake's
 *   ErrorEstimationTest bounds on single fixed steps.
 * - Spring–mass (k = 300, m = 2): SpringMassStepTest (|x(1) − x_true| ≤ 5e-3 m at accuracy 5e-5;
 *   with Weft's former meaning of the accuracy, Hairer's sc = a + r |y| in the RMS norm, it lands
 *   at 9.2e-3) and SpringMassStepAccuracyEffectsTest.
 * - Stiff spring–damper (k = 1e10, b = 1e8, m = 2): SpringMassDamperStiffTest at t = 2 s; the
 *   velocity's initial layer (v jumps from 0.1 to −100 m/s within 1/|λ₁| = 2e-8 s) is below
 *   Drake's minimum step 1e-5 s: those steps are accepted at the minimum and counted as
 *   violations, as Drake (no throw) does. The global error at t = 0.01 s falls like √accuracy;
 *   rk45 needs hundreds of times more steps, each below the stability bound of its tableau on the
 *   negative real axis (computed here from the coefficients).
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
  springDamperRates,
} from './helpers/adaptive-problems.ts';
import {
  ACCURACY_EFFECTS,
  drakeSpringModel,
  ERROR_ESTIMATION,
  errorEstimationStep,
  runDrake,
  SPRING_MASS_DAMPER_STIFF,
  SPRING_MASS_STEP,
  springMassDamperSolution,
  springMassSolution,
} from './helpers/drake-spring-mass.ts';
import { type AdaptiveStats, buildCloth } from '../src/index.ts';
import { shortOrLong } from './helpers/long-run.ts';
import {
  resolveAdaptiveOptions,
  VelocityImplicitEulerStepper,
  RUNGE_KUTTA_TABLEAUX,
  AdaptiveSimulation,
} from '../src/internal.ts';

/** Set by vitest.mutate.config.ts: Stryker's run, where the two slow rk45 comparisons are skipped. */
const MUTATION_RUN = process.env['WEFT_MUTATION'] === '1';

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
        linearTolerance: 1e-14,
      });
      const stepper = new VelocityImplicitEulerStepper(
        model,
        { positions: model.particlePositions, velocities: model.particleVelocities },
        options,
        (n) => new Float64Array(n),
      );
      expect(stepper.attempt(h, 0).kind).toBe('estimated');
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

  const { initialConditions, steps } = ERROR_ESTIMATION;
  test.each(steps.flatMap(({ h, atol }) => initialConditions.map(([x0, v0]) => [h, x0, v0, atol] as const)))(
    "Drake's ErrorEstimationTest: one step h = %s from x₀ = %s m, v₀ = %s m/s, error and |error − estimate| ≤ %s",
    async (h, x0, v0, atol) => {
      const { error, estimate, steps: attempts } = await errorEstimationStep(x0, v0, h);
      expect(attempts).toBe(1);
      // implicit_integrator_test.h ErrorEstimationTest: EXPECT_LE(err, atol[j]), EXPECT_LE(|err − est|, atol[j]).
      expect(error).toBeLessThanOrEqual(atol);
      expect(Math.abs(error - estimate)).toBeLessThanOrEqual(atol);
    },
  );
});

describe("Drake's spring–mass (k = 300 N/m, m = 2 kg)", () => {
  const { k, x0, v0, tEnd, positionBound, options } = SPRING_MASS_STEP;

  test.each([true, false])(
    'SpringMassStepTest, reuseJacobian %s: |x(1) − x_true| ≤ 5e-3 m',
    async (reuse) => {
      const run = await runDrake(drakeSpringModel(k, x0, v0), { ...options, reuseJacobian: reuse }, tEnd);
      const exact = springMassSolution(k, x0, v0, tEnd);
      record(`spring–mass step, reuse ${reuse}`, run.stats, {
        'x error': (run.x - exact.x).toExponential(2),
      });
      expect(run.time).toBe(tEnd);
      // implicit_integrator_test.h SpringMassStepTest: EXPECT_NEAR(x_final_true, x_final, 5e-3).
      expect(Math.abs(run.x - exact.x)).toBeLessThanOrEqual(positionBound);
      expect(run.stats.accuracyMet).toBe(true);
      expect(run.stats.shrinksFromErrorControl).toBeGreaterThan(0); // Drake: error control must "fail" at first
    },
  );

  test('SpringMassStepAccuracyEffectsTest: the looser accuracy (clamped to 0.5) gives the larger error', async () => {
    const e = ACCURACY_EFFECTS;
    const exact = springMassSolution(e.k, e.x0, e.v0, e.tEnd);
    const errors: number[] = [];
    for (const accuracy of e.accuracies) {
      const run = await runDrake(drakeSpringModel(e.k, e.x0, e.v0), { ...e.options, accuracy }, e.tEnd);
      errors.push(Math.abs(run.x - exact.x));
    }
    // implicit_integrator_test.h SpringMassStepAccuracyEffectsTest: EXPECT_GT(loose error, tight error).
    expect(errors[1]).toBeGreaterThan(errors[0]!);
    // Drake's accuracy in use (VelocityImplicitEulerIntegrator::DoInitialize, kLoosestAccuracy 0.5).
    expect(new AdaptiveSimulation(drakeSpringModel(k, x0, v0), { ...e.options, accuracy: 0.9 }).options.accuracy).toBe(0.5); // prettier-ignore
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
  const { k, b, x0, v0, tEnd, xtol, vtol, options } = SPRING_MASS_DAMPER_STIFF;
  const model = () => drakeSpringModel(k, x0, v0, b);

  test.each([true, false])(
    'SpringMassDamperStiffTest, reuseJacobian %s: the closed form at t = 2 s',
    async (reuse) => {
      const run = await runDrake(model(), { ...options, reuseJacobian: reuse }, tEnd);
      const exact = springMassDamperSolution(k, b, x0, v0, tEnd);
      record(`spring–damper to 2 s, reuse ${reuse}`, run.stats);
      // implicit_integrator_test.h SpringMassDamperStiffTest: ttol = 1e2 ε, xtol = 1e-6, vtol = 100 xtol.
      expect(Math.abs(run.time - tEnd)).toBeLessThanOrEqual(100 * Number.EPSILON);
      expect(Math.abs(run.x - exact.x)).toBeLessThanOrEqual(xtol);
      expect(Math.abs(run.v - exact.v)).toBeLessThanOrEqual(vtol);
      // Same test: EXPECT_LT(get_smallest_adapted_step_size_taken(), large_h_) — error control was used.
      expect(run.stats.smallestStep).toBeLessThan(options.maxStep);
      const stats = run.stats;
      expect(stats.newton.failedSolves).toBe(0);
      expect(stats.shrinksFromNewtonFailure).toBe(0);
      // Linear system: with reuse, one Jacobian for the whole run; without, one per Newton solve.
      if (reuse) expect(stats.newton.jacobianEvaluations).toBe(1);
      else expect(stats.newton.jacobianEvaluations).toBeGreaterThanOrEqual(3 * stats.acceptedSteps);
      expect(stats.largestStep).toBe(options.maxStep);
      // The initial layer is below minStep: accepted there and reported (Drake: no throw).
      expect(stats.minStepViolations).toBeGreaterThan(0);
      expect(stats.accuracyMet).toBe(false);
    },
  );

  test('the global error at t = 0.01 s falls like √accuracy (first order, per-step control)', async () => {
    const errors: number[] = [];
    const accuracies = [1e-5, 1e-7];
    for (const accuracy of accuracies) {
      // minStep 1e-9 s: the steps follow the accuracy, not Drake's floor of 1e-5 s.
      const run = await runDrake(model(), { ...options, accuracy, minStep: 1e-9 }, 0.01);
      errors.push(Math.abs(run.x - springMassDamperSolution(k, b, x0, v0, 0.01).x));
    }
    const slope = logSlope(accuracies, errors);
    expect(slope).toBeGreaterThan(0.4);
    expect(slope).toBeLessThan(0.6);
  });

  // Seconds here, minutes under Stryker's instrumentation: left out of the mutation test set.
  test.skipIf(MUTATION_RUN)(
    'rk45 needs hundreds of times more steps, each below its stability bound',
    async () => {
      // To 2 ms (npm run test:long: 20 ms): rk45's step is held at its stability bound from the
      // first microseconds on, ~3e4 steps by 2 ms (~3e5 by 20 ms).
      const end = shortOrLong(0.002, 0.02);
      const vie = await runDrake(model(), options, end);
      // Hairer's control for rk45, asked for the same absolute accuracy in the max norm.
      const rk45 = await runDrake(
        model(),
        { ...options, integrator: 'rk45', accuracy: 1e-12, absoluteTolerance: options.accuracy, errorNorm: 'max', minStep: 1e-12 }, // prettier-ignore
        end,
      );
      record(`spring–damper, rk45 to ${end} s`, rk45.stats);
      const bound = realStabilityBound();
      const fastRate = -springDamperRates().fast;
      console.log(`spring–damper to ${end} s: rk45 ${rk45.stats.acceptedSteps} steps, velocity-implicit-euler ${vie.stats.acceptedSteps}`); // prettier-ignore
      expect(rk45.time).toBe(end);
      expect(Math.abs(rk45.x - springMassDamperSolution(k, b, x0, v0, end).x)).toBeLessThan(1e-6);
      expect(rk45.stats.acceptedSteps).toBeGreaterThan(100 * vie.stats.acceptedSteps);
      expect(rk45.stats.largestStep * fastRate).toBeLessThan(2 * bound);
      console.log(
        `rk45 largest step × |λ₁| = ${(rk45.stats.largestStep * fastRate).toFixed(2)}; Cash–Karp real stability bound ${bound.toFixed(2)}`,
      );
    },
  );
});

describe("Drake's stiff double spring (k₁ = 750, k₂ = 1e10, m = 1)", () => {
  const k2 = 1e10;
  // Drake's accuracy is an absolute bound on the max norm of the error: velocity-implicit-euler's
  // default (errorControl 'drake'); rk45 (Hairer's control) is asked for the same.
  const tolerances = (integrator: 'velocity-implicit-euler' | 'rk45', accuracy: number) =>
    integrator === 'rk45'
      ? ({ accuracy: 1e-12, absoluteTolerance: accuracy, errorNorm: 'max', maxStep: 0.1 } as const)
      : ({ accuracy, maxStep: 0.1 } as const);

  // 10 s here, minutes under Stryker's instrumentation: left out of the mutation test set.
  test.skipIf(MUTATION_RUN)(
    'velocity-implicit-euler within Drake’s tolerances at t = 1 s; its steps follow the accuracy, rk45’s the stiffness',
    async () => {
      // The step counts are compared over [0, rkEnd]: 0.5 s under npm test (rk45 ~1e5 steps a
      // run), Drake's 1 s under npm run test:long (~2.3e5). velocity-implicit-euler's run goes on
      // to t = 1 s, where it is held to Drake's tolerances.
      const rkEnd = shortOrLong(0.5, 1);
      const steps: Record<string, number[]> = { 'velocity-implicit-euler': [], rk45: [] };
      for (const accuracy of [1e-4, 1e-5]) {
        for (const integrator of ['velocity-implicit-euler', 'rk45'] as const) {
          const end = integrator === 'rk45' ? rkEnd : 1;
          const exact = doubleSpringSolution(k2, end);
          const simulation = new AdaptiveSimulation(doubleSpringModel(k2), {
            integrator,
            ...tolerances(integrator, accuracy),
            initialStep: integrator === 'rk45' ? 1e-6 : 0.1,
          });
          await simulation.advanceTo(rkEnd);
          steps[integrator]!.push(simulation.readStats().acceptedSteps);
          await simulation.advanceTo(end);
          expect(simulation.time).toBe(end);
          const state = await simulation.readState();
          const stats = simulation.readStats();
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
      console.log(`double spring, accepted steps to ${rkEnd} s: ${JSON.stringify(steps)}`);
      const [vieLoose, vieTight] = steps['velocity-implicit-euler'] as [number, number];
      const [rkLoose, rkTight] = steps.rk45 as [number, number];
      expect(vieTight / vieLoose).toBeGreaterThan(2); // steps ∝ accuracy^(−1/2)
      expect(rkTight / rkLoose).toBeLessThan(1.25); // stability-bound: the accuracy barely matters
      expect(rkTight).toBeGreaterThan(20 * vieTight);
      expect(rkLoose).toBeGreaterThan(50 * vieLoose);
    },
  );
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
    // Fresh Jacobians never need more Newton iterations per attempt than reused ones (here both
    // take the fewest the convergence-rate test allows, two per solve, three solves per attempt).
    const perAttempt = (mode: 'reuse' | 'full Newton') =>
      results[mode]!.stats.newton.iterations /
      (results[mode]!.stats.acceptedSteps + results[mode]!.stats.rejectedSteps);
    expect(perAttempt('full Newton')).toBeLessThanOrEqual(perAttempt('reuse'));
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
