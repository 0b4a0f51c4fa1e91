/**
 * Drake's step-size control (errorControl 'drake'): IntegratorBase::CalcAdjustedStepSize and
 * StepOnceErrorControlledAtMost as IntegrateWithMultipleStepsToTime drives them
 * (drake/systems/analysis/integrator_base.cc, integrator_base.h), with the error norm of
 * CalcStateChangeNorm: the weighted max norm of the estimate, compared with the accuracy, which
 * the stepper hands over already divided by the accuracy (tolerances r = 0, a = accuracy, 'max').
 */
import type { AdaptiveStats, ResolvedAdaptiveOptions } from '../integrators/adaptive-options.ts';
import type { AttemptOutcome } from '../backends/common/stepper.ts';
import { WeftStepSizeError } from '../core/errors.ts';
import type { ControllerOptions } from './controller.ts';

/** Drake's hysteresis in CalcAdjustedStepSize ("magic numbers come from Simbody"). */
const HYSTERESIS_LOW = 0.9;
const HYSTERESIS_HIGH = 1.2;

/** The limits {@link drakeAdjustedStep} applies, s where they are steps. */
export interface DrakeStepLimits extends ControllerOptions {
  maxStep: number;
  /** Drake's working minimum h_work(t) = max(minStep, 10⁻¹⁴, 10⁻¹⁴ |t|) (get_working_minimum_step_size). */
  workingMinimum: number;
}

/** What {@link drakeAdjustedStep} decides about a step h. */
export interface DrakeAdjustment {
  accepted: boolean;
  /** The step to try next (after a rejection) or the ideal next step (after an acceptance), s. */
  next: number;
  /** Drake's at_minimum_step_size after the decision. */
  atMinimum: boolean;
  /** Error control wanted a step below the working minimum (ValidateSmallerStepSize throws here). */
  belowMinimum: boolean;
}

/**
 * Drake IntegratorBase::CalcAdjustedStepSize (systems/analysis/integrator_base.cc), with the
 * error in units of the accuracy, e = ‖err‖∞ / accuracy (Drake compares ‖err‖∞ with the accuracy):
 *   h' = safety · h · e^(−1/q); growth limit · h when e = 0; e not finite: rejected, h' = shrink · h
 *   (here no less than the working minimum);
 *   a growth below 1.2 h is not taken (h' = h), and a growth clears `atMinimum`;
 *   a shrink when `atMinimum`: accepted with h' = h;
 *   a shrink when e ≤ 1 is not taken (h' = h); otherwise h' ≤ 0.9 h;
 *   h' ∈ [shrink · h, growth · h], h' ≤ maxStep, then h' ≥ the working minimum (reaching it sets
 *   `atMinimum`, and rejects h when h' < h);
 *   accepted iff h' ≥ h.
 */
export function drakeAdjustedStep(
  error: number,
  h: number,
  estimateOrder: number,
  limits: DrakeStepLimits,
  atMinimum: boolean,
): DrakeAdjustment {
  // Drake returns shrink · h here unclamped; Weft keeps to minStep (and throws there).
  if (!Number.isFinite(error))
    return {
      accepted: false,
      next: Math.max(limits.shrinkLimit * h, limits.workingMinimum),
      atMinimum,
      belowMinimum: false,
    };
  let next =
    error === 0 ? limits.growthLimit * h : limits.safetyFactor * h * Math.pow(error, -1 / estimateOrder);
  let minimum = atMinimum;
  if (next > h) {
    minimum = false;
    if (next < HYSTERESIS_HIGH * h) next = h;
  }
  if (next < h && minimum) return { accepted: true, next: h, atMinimum: true, belowMinimum: false };
  if (next < h) next = error <= 1 ? h : Math.min(next, HYSTERESIS_LOW * h);
  next = Math.max(Math.min(next, limits.growthLimit * h), limits.shrinkLimit * h);
  next = Math.min(next, limits.maxStep);
  const belowMinimum = next < limits.workingMinimum && next < h;
  next = Math.max(next, limits.workingMinimum);
  if (next === limits.workingMinimum) {
    minimum = true;
    if (next < h) return { accepted: false, next, atMinimum: true, belowMinimum };
  }
  return { accepted: next >= h, next, atMinimum: minimum, belowMinimum };
}

/** Drake get_working_minimum_step_size: max(minStep, 10⁻¹⁴, 10⁻¹⁴ |t|), s. */
export function workingMinimumStep(minStep: number, time: number): number {
  return Math.max(minStep, 1e-14, 1e-14 * Math.abs(time));
}

/** A stepper as {@link drakeStep} drives it (CPU or GPU). */
export interface DrakeStepper {
  readonly estimateOrder: number;
  attempt(h: number, t: number): AttemptOutcome | Promise<AttemptOutcome>;
}

/** The step {@link drakeStep} accepted (the stepper's candidate, not yet made the state). */
export interface DrakeStep {
  /** s. */
  h: number;
  /** ‖e‖∞ / accuracy; above 1 only at the working minimum. */
  error: number;
  /** Shortened to reach the target ("artificially limited"): the ideal step stays as it was. */
  limited: boolean;
  /** Drake's ideal next step, s (to be kept unless `limited`). */
  next: number;
}

/**
 * One step from t towards `target` as Drake's IntegrateNoFurtherThanTime →
 * StepOnceErrorControlledAtMost, with h_max = min(target − t, maxStep) as
 * IntegrateWithMultipleStepsToTime asks: the ideal step is tried, replaced by h_max when
 * h_max < 0.95 × it (limited) or < 1.001 × it (no sliver left). A Newton failure halves it
 * (newtonFailureShrink, Drake's subdivision factor) down to the working minimum, where it throws
 * (Drake would go on below it with explicit Euler steps); with onMinStep 'throw', a step below the
 * working minimum throws at once (ValidateSmallerStepSize). The error then decides, by
 * {@link drakeAdjustedStep}; rejections are counted in `stats` as they happen.
 */
export async function drakeStep(
  stepper: DrakeStepper,
  o: ResolvedAdaptiveOptions,
  t: number,
  ideal: number,
  target: number,
  stats: Pick<AdaptiveStats, 'shrinksFromErrorControl' | 'shrinksFromNewtonFailure' | 'rejectedSteps'>,
): Promise<DrakeStep> {
  const hMax = Math.min(target - t, o.maxStep);
  const limits = { ...o, workingMinimum: workingMinimumStep(o.minStep, t) };
  const minimum = limits.workingMinimum;
  let h = ideal;
  let atMinimum = false;
  for (;;) {
    let limited = false;
    if (hMax < 0.95 * h) [h, limited] = [hMax, true];
    else if (hMax < 1.001 * h) h = hMax;
    h = Math.min(h, o.maxStep);
    let outcome = await stepper.attempt(h, t);
    while (outcome.kind === 'newton-failed') {
      const halved = h * o.newtonFailureShrink;
      if (h <= minimum || (halved < minimum && o.onMinStep === 'throw'))
        throw new WeftStepSizeError(t, h, 'newton-failed');
      h = Math.max(minimum, halved);
      stats.shrinksFromNewtonFailure++;
      stats.rejectedSteps++;
      outcome = await stepper.attempt(h, t);
    }
    const error = outcome.error;
    if (!Number.isFinite(error) && h <= minimum) throw new WeftStepSizeError(t, h, 'non-finite');
    const decision = drakeAdjustedStep(error, h, stepper.estimateOrder, limits, atMinimum);
    if (decision.belowMinimum && o.onMinStep === 'throw') throw new WeftStepSizeError(t, h, 'accuracy');
    if (decision.accepted) return { h, error, limited, next: decision.next };
    atMinimum = decision.atMinimum;
    stats.shrinksFromErrorControl++;
    stats.rejectedSteps++;
    h = decision.next;
  }
}
