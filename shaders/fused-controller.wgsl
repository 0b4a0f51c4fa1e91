// Fused adaptive integration (shaders/fused-adaptive.wgsl): the step-size controller, run by
// thread 0. CPU mirrors: src/simulation/adaptive-simulation.ts stepTowards (Hairer's),
// src/simulation/drake-controller.ts (Drake's IntegratorBase), controller.ts stepFactor.

// (hi, lo) + h in two floats (Knuth's two-sum, then renormalised).
fn addTime(hi: f32, lo: f32, h: f32) -> vec2<f32> {
  let s = hi + h;
  let b = s - hi;
  let low = ((hi - (s - b)) + (h - b)) + lo;
  let top = s + low;
  return vec2<f32>(top, low - (top - s));
}

// target − t, s (a large number when there is no target).
fn remaining() -> f32 {
  if (control.bounded == 0u) {
    return 3.0e38;
  }
  return (control.targetHi - control.timeHi) + (control.targetLo - control.timeLo);
}

// A step in [minStep, maxStep]; a NaN, infinite or non-positive one is minStep.
fn clampStep(h: f32) -> f32 {
  if (isFinite(h) && h > 0.0) {
    return min(settings.maxStep, max(settings.minStep, h));
  }
  return settings.minStep;
}

// Hairer: clamp(safety · e^(−1/q), shrink, growth), ≤ 1 after a rejection (controller.ts stepFactor).
fn stepFactor(error: f32, finite: bool, afterRejection: bool) -> f32 {
  var factor = settings.shrinkLimit;
  if (finite && error == 0.0) {
    factor = settings.growthLimit;
  } else if (finite) {
    factor = settings.safetyFactor * pow(error, -1.0 / settings.estimateOrder);
  }
  factor = min(settings.growthLimit, max(settings.shrinkLimit, factor));
  return select(factor, min(factor, 1.0), afterRejection);
}

fn halt(reason: u32) {
  control.status = reason;
  control.haltStep = control.h;
}

// An accepted step: t advanced (or set to the target), the statistics, DONE when the batch's ask is met.
fn recordAccepted(error: f32, shortened: bool, landed: bool) {
  let h = control.h;
  if (landed) {
    control.timeHi = control.targetHi;
    control.timeLo = control.targetLo;
  } else {
    let t = addTime(control.timeHi, control.timeLo, h);
    control.timeHi = t.x;
    control.timeLo = t.y;
  }
  control.acceptedSteps += 1u;
  if (!shortened) {
    control.smallestStep = min(control.smallestStep, h);
  }
  control.largestStep = max(control.largestStep, h);
  control.lastErrorEstimate = error;
  control.maxErrorEstimate = max(control.maxErrorEstimate, error);
  if (control.stepsLeft > 0u) {
    control.stepsLeft -= 1u;
    if (control.stepsLeft == 0u) {
      control.status = DONE;
    }
  }
  if (landed) {
    control.status = DONE;
  }
}

// The step of the next attempt; false when the batch is over.
fn beginAttempt() -> bool {
  if (control.status != RUNNING) {
    return false;
  }
  control.attempts += 1u;
  if (drakeControl == 1u) {
    // drake-controller.ts drakeStep: h_max = min(target − t, maxStep), the ideal step limited.
    if (control.phase == DRAKE_NEW) {
      control.hMax = min(remaining(), settings.maxStep);
      control.workingMinimum = max(max(settings.minStep, 1e-14), 1e-14 * abs(control.timeHi));
      control.h = control.proposal;
      control.atMinimum = 0u;
      control.phase = DRAKE_RETRY;
    }
    if (control.phase == DRAKE_RETRY) {
      var h = control.h;
      control.clipped = 0u;
      if (control.hMax < 0.95 * h) {
        h = control.hMax;
        control.clipped = 1u;
      } else if (control.hMax < 1.001 * h) {
        h = control.hMax;
      }
      control.h = min(h, settings.maxStep);
    }
    return true;
  }
  // adaptive-simulation.ts stepTowards.
  let planned = min(control.proposal, settings.maxStep);
  let left = remaining();
  let clipped = planned >= left;
  let h = select(planned, left, clipped);
  control.planned = planned;
  control.h = h;
  control.clipped = select(0u, 1u, clipped);
  // A step too small to change t is as small as a step can be.
  control.atMinimum = select(0u, 1u, h <= settings.minStep || (!clipped && h <= 1.1e-16 * abs(control.timeHi)));
  return true;
}

// Hairer's decision after an attempt (stepTowards); true: accepted.
fn decideHairer(newtonFailed: bool, error: f32, finite: bool) -> bool {
  let h = control.h;
  let atMinimum = control.atMinimum == 1u;
  if (newtonFailed) {
    if (atMinimum) {
      halt(HALT_NEWTON);
      return false;
    }
    control.shrinksFromNewtonFailure += 1u;
    control.rejectedSteps += 1u;
    control.proposal = clampStep(h * settings.newtonFailureShrink);
    control.lastRejected = 1u;
    return false;
  }
  if (!(finite && error <= 1.0)) {
    if (atMinimum) {
      if (!finite) {
        halt(HALT_NON_FINITE);
        return false;
      }
      if (settings.onMinStepThrow == 1u) {
        halt(HALT_ACCURACY);
        return false;
      }
      control.minStepViolations += 1u;
      control.accuracyMissed = 1u;
    } else {
      control.shrinksFromErrorControl += 1u;
      control.rejectedSteps += 1u;
      control.proposal = clampStep(h * stepFactor(error, finite, true));
      control.lastRejected = 1u;
      return false;
    }
  }
  let clipped = control.clipped == 1u;
  let next = h * stepFactor(error, true, control.lastRejected == 1u);
  // A step shortened to land on the target says nothing against the step planned before it.
  control.proposal = clampStep(select(next, max(next, control.planned), clipped));
  control.lastRejected = 0u;
  recordAccepted(error, clipped, clipped);
  return true;
}

// Drake's CalcAdjustedStepSize (drake-controller.ts drakeAdjustedStep): (accepted, next step,
// at the minimum, below the minimum).
struct DrakeAdjustment {
  accepted: bool,
  next: f32,
  atMinimum: bool,
  belowMinimum: bool,
}

fn drakeAdjusted(error: f32, finite: bool, h: f32, atMinimumBefore: bool) -> DrakeAdjustment {
  let minimum = control.workingMinimum;
  if (!finite) {
    return DrakeAdjustment(false, max(settings.shrinkLimit * h, minimum), atMinimumBefore, false);
  }
  var next = select(settings.safetyFactor * h * pow(error, -1.0 / settings.estimateOrder), settings.growthLimit * h, error == 0.0);
  var atMinimum = atMinimumBefore;
  if (next > h) {
    atMinimum = false;
    if (next < 1.2 * h) {
      next = h;
    }
  }
  if (next < h && atMinimum) {
    return DrakeAdjustment(true, h, true, false);
  }
  if (next < h) {
    next = select(min(next, 0.9 * h), h, error <= 1.0);
  }
  next = max(min(next, settings.growthLimit * h), settings.shrinkLimit * h);
  next = min(next, settings.maxStep);
  let belowMinimum = next < minimum && next < h;
  next = max(next, minimum);
  if (next == minimum) {
    atMinimum = true;
    if (next < h) {
      return DrakeAdjustment(false, next, true, belowMinimum);
    }
  }
  return DrakeAdjustment(next >= h, next, atMinimum, belowMinimum);
}

// Drake's decision after an attempt (drakeStep, stepDrake); true: accepted.
fn decideDrake(newtonFailed: bool, error: f32, finite: bool) -> bool {
  let h = control.h;
  let minimum = control.workingMinimum;
  if (newtonFailed) {
    let halved = h * settings.newtonFailureShrink;
    if (h <= minimum || (halved < minimum && settings.onMinStepThrow == 1u)) {
      halt(HALT_NEWTON);
      return false;
    }
    control.h = max(minimum, halved);
    control.shrinksFromNewtonFailure += 1u;
    control.rejectedSteps += 1u;
    control.phase = DRAKE_RETRY_NEWTON;
    return false;
  }
  if (!finite && h <= minimum) {
    halt(HALT_NON_FINITE);
    return false;
  }
  let decision = drakeAdjusted(error, finite, h, control.atMinimum == 1u);
  if (decision.belowMinimum && settings.onMinStepThrow == 1u) {
    halt(HALT_ACCURACY);
    return false;
  }
  if (!decision.accepted) {
    control.atMinimum = select(0u, 1u, decision.atMinimum);
    control.shrinksFromErrorControl += 1u;
    control.rejectedSteps += 1u;
    control.h = decision.next;
    control.phase = DRAKE_RETRY;
    return false;
  }
  if (!(error <= 1.0)) {
    control.minStepViolations += 1u;
    control.accuracyMissed = 1u;
  }
  let limited = control.clipped == 1u;
  if (!limited) {
    control.proposal = decision.next;
  }
  control.phase = DRAKE_NEW;
  recordAccepted(error, limited, control.bounded == 1u && h == remaining());
  return true;
}
