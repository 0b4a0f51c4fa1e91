/**
 * The adaptive integrators' GPU test suite, declared once and run by
 * test/gpu-adaptive-browser.test.ts (headless Chromium) and test/gpu-adaptive-node.test.ts (Dawn in
 * Node), each with its own {@link AdaptiveRunner}: the tolerances with the reasons for them, the
 * assertions, and a table of the step counts and largest differences measured, printed after the
 * suite.
 */
import { afterAll, describe, expect, test } from 'vitest';
import {
  ADAPTIVE_CASES,
  adaptiveCaseLabel,
  BAD_INPUT_CASES,
  buildAdaptiveScene,
  REFERENCE_ACCURACY,
  TIGHT_NEWTON,
  type AdaptiveCase,
  type AdaptiveResult,
  type AdaptiveRun,
  type AdaptiveRunner,
} from './adaptive-gpu-cases.ts';
import { expectClose, maxAbsError } from './expect-close.ts';
import { formatTable } from './implicit-checks.ts';

/** A bound on positions (m) and one on velocities (m/s). */
export interface Tolerances {
  positions: number;
  velocities: number;
}

/**
 * What the error control allows one step, per component: accuracy · (1 + max|y|), in m for
 * positions and m/s for velocities (the cases leave the absolute tolerances at their default,
 * the accuracy, and the estimate's RMS over the components must be ≤ 1; velocity-implicit-euler's
 * default, errorControl 'drake', asks max_i |e_i| ≤ accuracy, within it). max|y| is taken over
 * the reference's final state.
 */
export function stepBudget(c: AdaptiveCase, scale: AdaptiveResult['scale']): Tolerances {
  return { positions: c.accuracy * (1 + scale.positions), velocities: c.accuracy * (1 + scale.velocities) };
}

/**
 * Allowed |GPU − CPU f32|, in step budgets, when both took the same steps (equal accepted and
 * rejected counts) of an explicit scheme: the same arithmetic rounded differently (the GPU in
 * float32 throughout, the CPU in float64 between float32 stores), i.e. rounding noise, far below
 * one step's budget and of the size of the CPU's own float32-vs-float64 difference (the table's
 * noise columns). Measured ≤ 0.034 of a budget (explicit Euler on the cloth, velocities, after
 * 200 steps; the other schemes ≤ 0.012), identical in Node's Dawn and in Chromium (both
 * SwiftShader); allowed 0.2.
 */
const SAME_STEPS = 0.2;

/**
 * Allowed |GPU − CPU f32| of velocity-implicit-euler, in step budgets, when both took the same
 * steps. The two paths solve the same backward-Euler equations, but stop their Newton iterations
 * by different tests: the GPU by backward-Euler criteria (correction and residual 1e-4, relative),
 * the CPU by Drake's convergence-rate test η ‖Δ‖∞ ≤ κ · accuracy (κ = 0.05, errorControl 'drake')
 * with Jacobians reused, which allows one component of a solve to be off by up to κ budgets
 * (with the RMS-scaled test of errorControl 'hairer', √(6 n) κ: 0.96 on the cloth). Measured
 * ≤ 2.2e-3 of a budget (cloth, velocities; 0.23 with 'hairer'); the GPU is within 7.2e-4 of a
 * budget of a CPU run with tight Newton solves ({@link TIGHT_NEWTON}), which is held to
 * {@link SAME_STEPS}. Allowed 1.
 */
const NEWTON_TRUNCATION = 1;

/**
 * Allowed |GPU − CPU f32|, in budgets per accepted step, when the two paths did not take the same
 * steps: an estimate within rounding (or, for velocity-implicit-euler, Newton truncation) of 1
 * flipped, so one path rejected a step the other accepted, and from there on the two step
 * sequences and their local errors differ; each run's local errors are bounded by a budget per
 * step. Not met by the cases here (all counts equal, see the table); on a longer cloth run of
 * velocity-implicit-euler (0.2 s, 14 steps, 3 rejections on the GPU and 4 on the CPU) measured
 * 0.09 per step; allowed 0.25.
 */
const DIFFERENT_STEPS_PER_STEP = 0.25;

/**
 * Allowed |final state − exact| per accepted step, in budgets, for GPU and CPU alike. The global
 * error is not controlled (see AdaptiveSimulation): each step adds a local error of up to a
 * budget, which the oscillations carry on and may amplify, and first-order estimates
 * (explicit Euler, velocity-implicit Euler: e ≈ the half steps' own error) are only
 * asymptotically exact. Measured ≤ 1.6 per step (step-doubling(heun), spring, velocities);
 * allowed 4. "Exact": CPU float64 rk45 at accuracy 1e-10.
 */
const GLOBAL_PER_STEP = 4;

/** Counts of the controller: accepted steps differ by at most one (see adaptive-gpu-cases.ts, ACCURACY). */
const ACCEPTED_APART = 1;

/**
 * Rejected steps may differ by a flip's worth: the flip itself and the rejection a different
 * next step may or may not meet, and velocity-implicit-euler's Newton failures, which follow
 * different tests on the two paths. Allowed: 2, or a fifth of the CPU's if more.
 */
function rejectedApart(cpuRejected: number): number {
  return Math.max(2, Math.ceil(cpuRejected / 5));
}

/** The final state is at least this many same-steps tolerances from the initial one. */
const MOTION = 5;

/** Fewest accepted steps a case must take to say anything about the controller. */
const MIN_ACCEPTED = 5;

interface Row {
  case: string;
  accepted: string;
  rejected: string;
  x: number;
  v: number;
  allowedX: number;
  allowedV: number;
  budgetX: number;
  budgetV: number;
  /** velocity-implicit-euler: GPU vs the CPU with tight Newton solves; NaN otherwise. */
  tightX: number;
  tightV: number;
  noiseX: number;
  noiseV: number;
  globalX: number;
  globalV: number;
  /** max over x, v of the GPU's global error over accepted steps × budget. */
  globalPerStep: number;
  gpuMs: number;
  cpuMs: number;
}

const e2 = (x: number): string => (Number.isFinite(x) ? x.toExponential(2) : String(x));

/** Fails on any GPU error the run collected. */
function expectNoGpuErrors(label: string, errors: readonly string[]): void {
  expect(errors, `${label}: GPU errors (validation, internal, out-of-memory, uncaptured)`).toEqual([]);
}

function sameSteps(gpu: AdaptiveRun, cpu: AdaptiveRun): boolean {
  return (
    gpu.stats.acceptedSteps === cpu.stats.acceptedSteps && gpu.stats.rejectedSteps === cpu.stats.rejectedSteps
  );
}

/**
 * The allowed |GPU − `other`| of a case's final state, m and m/s: `other` is a CPU f32 run of the
 * same options (`newton` true for velocity-implicit-euler's default Newton tests) or one whose
 * Newton solves are tight.
 */
export function comparisonTolerance(
  c: AdaptiveCase,
  result: AdaptiveResult,
  other: AdaptiveRun,
  newton: boolean,
): Tolerances {
  const budget = stepBudget(c, result.scale);
  const factor = !sameSteps(result.gpu, other)
    ? DIFFERENT_STEPS_PER_STEP * Math.max(result.gpu.stats.acceptedSteps, other.stats.acceptedSteps)
    : newton
      ? NEWTON_TRUNCATION
      : SAME_STEPS;
  return { positions: factor * budget.positions, velocities: factor * budget.velocities };
}

function checkRun(label: string, c: AdaptiveCase, run: AdaptiveRun): void {
  // advanceTo clips the last step so as to land on t_end exactly, in float64, on both backends.
  expect(run.time, `${label}: simulated time after advanceTo(${c.tEnd})`).toBe(c.tEnd);
  expect(run.stateTime, `${label}: readState().time`).toBe(c.tEnd);
  expect(run.stats.accuracyMet, `${label}: every accepted step met the accuracy`).toBe(1);
  expect(run.stats.minStepViolations, `${label}: steps accepted at minStep above the accuracy`).toBe(0);
  expect(run.stats.maxErrorEstimate, `${label}: largest scaled error estimate accepted`).toBeLessThanOrEqual(
    1,
  );
  expect(run.stats.acceptedSteps, `${label}: accepted steps`).toBeGreaterThanOrEqual(MIN_ACCEPTED);
}

/**
 * Declares the whole suite: every case of {@link ADAPTIVE_CASES} against the CPU float32 path and
 * the exact solution, and every bad input. `runner()` is called inside each test (after the file's
 * beforeAll made the device or page); `title` names the platform in the printed table.
 */
export function describeAdaptiveSuite(runner: () => AdaptiveRunner, title: () => string): void {
  const rows: Row[] = [];

  afterAll(() => {
    if (!rows.length) return;
    console.log(
      formatTable(
        `Adaptive integrators, GPU (${title()}) vs CPU float32 storage: steps accepted and rejected GPU/CPU; ` +
          `max |Δ| of the final state, m and m/s, and allowed; /budget: max |Δ| over accuracy·(1 + max|y|); ` +
          `tight: GPU vs CPU f32 with Newton κ = ${TIGHT_NEWTON.newtonKappa} (velocity-implicit-euler); noise: CPU f32 vs CPU f64; ` +
          `global: GPU vs CPU f64 rk45 at ${REFERENCE_ACCURACY}, and its largest over accepted steps × budget`,
        [
          'case',
          'accepted',
          'rejected',
          'max|Δx|',
          'allowed',
          '/budget',
          'max|Δv|',
          'allowed',
          '/budget',
          'tight x',
          'tight v',
          'noise x',
          'noise v',
          'global x',
          'global v',
          '/N·budget',
          'GPU ms',
          'CPU ms',
        ],
        rows.map((r) => [
          r.case,
          r.accepted,
          r.rejected,
          e2(r.x),
          e2(r.allowedX),
          e2(r.x / r.budgetX),
          e2(r.v),
          e2(r.allowedV),
          e2(r.v / r.budgetV),
          Number.isNaN(r.tightX) ? '-' : e2(r.tightX),
          Number.isNaN(r.tightV) ? '-' : e2(r.tightV),
          e2(r.noiseX),
          e2(r.noiseV),
          e2(r.globalX),
          e2(r.globalV),
          r.globalPerStep.toFixed(2),
          r.gpuMs.toFixed(0),
          r.cpuMs.toFixed(0),
        ]),
      ),
    );
  });

  describe('GPU vs CPU float32: advanceTo(t_end) with the same options', () => {
    test.each(ADAPTIVE_CASES.map((c) => [adaptiveCaseLabel(c), c] as const))('%s', async (label, c) => {
      const result = await runner().run(c);
      expectNoGpuErrors(label, result.errors);
      const { gpu, cpu, cpu64, exact, tightNewton } = result;
      const implicit = c.integrator === 'velocity-implicit-euler';
      if (implicit && !tightNewton) throw new Error(`${label}: no tight-Newton CPU run`);
      const allowed = comparisonTolerance(c, result, cpu, implicit);
      const budget = stepBudget(c, result.scale);
      const distance = (a: AdaptiveRun, b: AdaptiveRun) => ({
        positions: maxAbsError(a.positions, b.positions).error,
        velocities: maxAbsError(a.velocities, b.velocities).error,
      });
      const [difference, noise, global] = [distance(gpu, cpu), distance(cpu, cpu64), distance(gpu, exact)];
      const tight = tightNewton ? distance(gpu, tightNewton) : undefined;
      rows.push({
        case: label,
        accepted: `${gpu.stats.acceptedSteps}/${cpu.stats.acceptedSteps}`,
        rejected: `${gpu.stats.rejectedSteps}/${cpu.stats.rejectedSteps}`,
        x: difference.positions,
        v: difference.velocities,
        allowedX: allowed.positions,
        allowedV: allowed.velocities,
        budgetX: budget.positions,
        budgetV: budget.velocities,
        tightX: tight?.positions ?? NaN,
        tightV: tight?.velocities ?? NaN,
        noiseX: noise.positions,
        noiseV: noise.velocities,
        globalX: global.positions,
        globalV: global.velocities,
        globalPerStep:
          Math.max(global.positions / budget.positions, global.velocities / budget.velocities) /
          gpu.stats.acceptedSteps,
        gpuMs: gpu.milliseconds,
        cpuMs: cpu.milliseconds,
      });

      checkRun(`${label} (GPU)`, c, gpu);
      checkRun(`${label} (CPU f32)`, c, cpu);
      expect(
        Math.abs(gpu.stats.acceptedSteps - cpu.stats.acceptedSteps),
        `${label}: accepted steps GPU ${gpu.stats.acceptedSteps}, CPU ${cpu.stats.acceptedSteps}`,
      ).toBeLessThanOrEqual(ACCEPTED_APART);
      expect(
        Math.abs(gpu.stats.rejectedSteps - cpu.stats.rejectedSteps),
        `${label}: rejected steps GPU ${gpu.stats.rejectedSteps}, CPU ${cpu.stats.rejectedSteps}`,
      ).toBeLessThanOrEqual(rejectedApart(cpu.stats.rejectedSteps));

      const compare = (other: AdaptiveRun, what: string, tolerance: Tolerances): void => {
        const how = sameSteps(gpu, other) ? 'same steps' : 'different steps';
        expectClose(
          gpu.positions,
          other.positions,
          tolerance.positions,
          `${label}: GPU vs ${what} positions (m; ${how})`,
        );
        expectClose(
          gpu.velocities,
          other.velocities,
          tolerance.velocities,
          `${label}: GPU vs ${what} velocities (m/s; ${how})`,
        );
      };
      compare(cpu, 'CPU f32', allowed);
      if (tightNewton) {
        checkRun(`${label} (CPU f32, tight Newton)`, c, tightNewton);
        compare(
          tightNewton,
          'CPU f32 with tight Newton solves',
          comparisonTolerance(c, result, tightNewton, false),
        );
      }
      // Both against the solution itself: the comparisons above cannot see an error both share.
      for (const [name, run] of [
        ['GPU', gpu],
        ['CPU f32', cpu],
      ] as const) {
        const steps = run.stats.acceptedSteps;
        expectClose(
          run.positions,
          exact.positions,
          GLOBAL_PER_STEP * steps * budget.positions,
          `${label}: ${name} vs exact positions (m), ${steps} steps`,
        );
        expectClose(
          run.velocities,
          exact.velocities,
          GLOBAL_PER_STEP * steps * budget.velocities,
          `${label}: ${name} vs exact velocities (m/s), ${steps} steps`,
        );
      }
      // And the state moved, by far more than the rounding-level tolerance: a comparison of two
      // frozen states would prove nothing.
      const initial = buildAdaptiveScene(c.scene);
      expect(
        maxAbsError(exact.positions, initial.particlePositions).error,
        `${label}: largest displacement from the initial state (m)`,
      ).toBeGreaterThan(MOTION * SAME_STEPS * budget.positions);
      expect(
        maxAbsError(exact.velocities, initial.particleVelocities).error,
        `${label}: largest change of velocity (m/s)`,
      ).toBeGreaterThan(MOTION * SAME_STEPS * budget.velocities);
    });
  });

  // AdaptiveStats.newton is documented as velocity-implicit-euler's Newton statistics (zeros for
  // the explicit schemes), and the CLI prints them and readSolverStats() as `stats.adaptive` and
  // `stats.solver`. On the GPU every attempt runs three Newton solves (the step-doubling program
  // of backward Euler), whose totals the stepper reads back once per attempt.
  describe('statistics', () => {
    test('velocity-implicit-euler on the GPU reports its Newton iterations and linear solves', async () => {
      const c: AdaptiveCase = {
        scene: 'spring',
        integrator: 'velocity-implicit-euler',
        accuracy: 1e-2,
        tEnd: 0.01,
        linearMaxIterations: 25,
      };
      const label = adaptiveCaseLabel(c);
      const { gpu, cpu, errors } = await runner().run(c);
      expectNoGpuErrors(label, errors);
      expect(cpu.stats.newtonIterations, `${label}: CPU f32 readStats().newton.iterations`).toBeGreaterThan(
        0,
      );
      const reported = {
        'readStats().newton.iterations > 0': gpu.stats.newtonIterations > 0,
        'readStats().newton.linearSolves > 0': gpu.stats.linearSolves > 0,
        'readSolverStats().newtonIterations > 0': gpu.stats.solverNewtonIterations > 0,
      };
      expect(
        reported,
        `${label}: GPU Newton statistics (${gpu.stats.acceptedSteps} steps, ${gpu.stats.derivativeEvaluations} force evaluations)`,
      ).toEqual({
        'readStats().newton.iterations > 0': true,
        'readStats().newton.linearSolves > 0': true,
        'readSolverStats().newtonIterations > 0': true,
      });
    });
  });

  describe('bad input on the GPU: a WeftInputError naming the field, no GPU error', () => {
    test.each(BAD_INPUT_CASES.map((c) => [c.label, c] as const))('%s', async (label, c) => {
      const result = await runner().badInput(c);
      expectNoGpuErrors(label, result.errors);
      expect(result.threw, `${label}: threw`).toBe(1);
      expect(
        { name: result.name, inputError: result.inputError, field: result.field },
        `${label}: ${result.message}`,
      ).toEqual({ name: 'WeftInputError', inputError: 1, field: c.field });
      expect(result.message.startsWith(`${c.field}: `), result.message).toBe(true);
    });
  });
}
