/**
 * Drake's step-size control (errorControl 'drake', src/simulation/drake-controller.ts) rule by
 * rule, each expected value worked out by hand from drake/systems/analysis/integrator_base.cc:
 * CalcAdjustedStepSize (safety 0.9, growth ≤ 5, shrink ≥ 0.1, hysteresis 0.9 and 1.2, the working
 * minimum), StepOnceErrorControlledAtMost (the step tried, "artificially limited" steps, Newton
 * failures halving it) and get_working_minimum_step_size. The error is in units of the accuracy.
 */
import { describe, expect, test } from 'vitest';
import { WeftStepSizeError } from '../src/index.ts';
import {
  drakeAdjustedStep,
  drakeStep,
  resolveAdaptiveOptions,
  workingMinimumStep,
  type AttemptOutcome,
} from '../src/internal.ts';

const h = 0.01;
const limits = { safetyFactor: 0.9, growthLimit: 5, shrinkLimit: 0.1, maxStep: 1, workingMinimum: 1e-6 };

describe('CalcAdjustedStepSize', () => {
  // [what, error, h, limits, atMinimum in] → [accepted, next, atMinimum out, belowMinimum]
  test.each([
    ['zero error grows by the limit', 0, h, limits, false, [true, 5 * h, false, false]],
    ['growth ≥ 1.2×: 0.9 h / √0.25 = 1.8 h', 0.25, h, limits, false, [true, 1.8 * h, false, false]],
    ['growth < 1.2× is not taken: 0.9 h / √0.64 = 1.125 h', 0.64, h, limits, false, [true, h, false, false]],
    ['e ≤ 1 never shrinks: 0.9 h / √0.9 = 0.949 h', 0.9, h, limits, false, [true, h, false, false]],
    ['rejected: 0.9 h / √4 = 0.45 h', 4, h, limits, false, [false, 0.45 * h, false, false]],
    ['shrink limit: 0.9 h / √1e4 = 0.009 h → 0.1 h', 1e4, h, limits, false, [false, 0.1 * h, false, false]],
    ['a shrink is at least 0.9×: 1 · h / √1.21 = 0.909 h → 0.9 h', 1.21, h, { ...limits, safetyFactor: 1 }, false, [false, 0.9 * h, false, false]],
    ['at the minimum a shrink is impossible: accepted', 4, h, limits, true, [true, h, true, false]],
    ['a growth leaves the minimum', 0.25, h, limits, true, [true, 1.8 * h, false, false]],
    ['maxStep caps a growth', 0, h, { ...limits, maxStep: 0.02 }, false, [true, 0.02, false, false]],
    ['below the working minimum: retried there', 100, 2e-6, limits, false, [false, 1e-6, true, true]],
    ['at the working minimum: accepted with its error', 100, 1e-6, limits, false, [true, 1e-6, true, true]],
    ['not finite: rejected, 0.1 h', NaN, h, limits, false, [false, 0.1 * h, false, false]],
  ] as const)('%s', (_what, error, step, lim, atMinimum, [accepted, next, minimum, below]) => {
    const d = drakeAdjustedStep(error, step, 2, lim, atMinimum);
    expect(d.accepted).toBe(accepted);
    expect(d.next).toBeCloseTo(next, 15);
    expect(d.atMinimum).toBe(minimum);
    expect(d.belowMinimum).toBe(below);
  }); // prettier-ignore

  test('working minimum: max(minStep, 1e-14, 1e-14 |t|)', () => {
    expect(workingMinimumStep(1e-10, 1)).toBe(1e-10);
    expect(workingMinimumStep(1e-20, 0)).toBe(1e-14);
    expect(workingMinimumStep(1e-10, 1e6)).toBe(1e-8);
  });
});

describe('StepOnceErrorControlledAtMost', () => {
  const options = resolveAdaptiveOptions({ integrator: 'velocity-implicit-euler', maxStep: 1 });
  /** A stepper whose error estimate is (h / 0.01)² accuracies (order 2), Newton failing above `fails` s. */
  const stepper = (fails = Infinity) => {
    const tried: number[] = [];
    return {
      tried,
      estimateOrder: 2,
      attempt: (step: number): AttemptOutcome => {
        tried.push(step);
        return step > fails ? { kind: 'newton-failed' } : { kind: 'estimated', error: (step / 0.01) ** 2 };
      },
    };
  };
  const stats = () => ({ shrinksFromErrorControl: 0, shrinksFromNewtonFailure: 0, rejectedSteps: 0 });

  test('the ideal step; e = 1 is accepted and kept (0.9 h / √1 < h)', async () => {
    const s = stepper();
    expect(await drakeStep(s, options, 0, h, 10, stats())).toEqual({ h, error: 1, limited: false, next: h });
  });

  test('rejected at e = 4: retried at 0.9 · 2h / √4 = 0.9 h, accepted (e = 0.81), kept', async () => {
    const s = stepper();
    const counts = stats();
    const step = await drakeStep(s, options, 0, 2 * h, 10, counts);
    expect(s.tried).toEqual([2 * h, 0.9 * h]);
    expect(step.h).toBeCloseTo(0.9 * h, 15);
    expect(step.next).toBeCloseTo((0.9 * 0.9 * h) / 0.9, 15); // 0.9 · 0.9 h / √0.81 = 0.9 h: growth < 1.2× not taken
    expect(counts).toEqual({ shrinksFromErrorControl: 1, shrinksFromNewtonFailure: 0, rejectedSteps: 1 });
  });

  test('a target closer than 0.95 × the ideal step limits it (the ideal step is then kept)', async () => {
    const step = await drakeStep(stepper(), options, 0, h, 0.004, stats());
    expect(step).toMatchObject({ h: 0.004, limited: true });
  });

  test('a target within 1.001 × the ideal step is reached in one step, not limited', async () => {
    const step = await drakeStep(stepper(), options, 0, h / 2, 0.0050025, stats());
    expect(step).toMatchObject({ h: 0.0050025, limited: false });
  });

  test('Newton failures halve the step (Drake subdivision_factor_ 0.5)', async () => {
    const s = stepper(0.003);
    const counts = stats();
    const step = await drakeStep(s, options, 0, h, 10, counts);
    expect(s.tried).toEqual([h, h / 2, h / 4]);
    expect(step.h).toBe(h / 4);
    expect(counts).toEqual({ shrinksFromErrorControl: 0, shrinksFromNewtonFailure: 2, rejectedSteps: 2 });
  });

  test("onMinStep 'throw': a step below minStep throws at once (ValidateSmallerStepSize)", async () => {
    const strict = resolveAdaptiveOptions({ integrator: 'velocity-implicit-euler', minStep: 0.02, onMinStep: 'throw' }); // prettier-ignore
    // e = 25 at 0.05 s: 0.9 · 0.05 / 5 = 0.009 s < minStep.
    await expect(drakeStep(stepper(), strict, 0, 0.05, 10, stats())).rejects.toThrow(WeftStepSizeError);
  });
});
