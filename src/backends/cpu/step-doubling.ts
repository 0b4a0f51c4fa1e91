/**
 * Step doubling ("Automatic step-size", spec/ode-lecture-mass-spring-cloth.md) for any of the
 * seven explicit integrators, through the very passes CpuSimulation runs (planStep,
 * rungeKuttaStage, symplecticUpdate of src/backends/cpu/passes.ts), so a GPU port reuses their kernels.
 *
 * One step h gives y₁, two steps h/2 give y½. For a scheme of order p (as a one-step map,
 * {@link STEP_DOUBLING_ORDER}) the local errors are C h^(p+1) and 2 C (h/2)^(p+1), so
 *   e = y₁ − y½ = (2^p − 1) · (error of y½) + O(h^(p+2)) = O(h^(p+1)),
 * which is the estimate (estimate order q = p + 1; for the Euler-type schemes e is O(h²) and equals
 * the error of y½ to leading order). y½ is propagated; with `extrapolate`, the Richardson value
 * y½ + (y½ − y₁)/(2^p − 1), of order p + 1, is propagated instead and e (now an over-estimate) is
 * still what the controller sees.
 *
 * Cost per attempt: the evaluation at y_n is shared by the full and the first half step, so an
 * s-stage scheme costs 3s − 1 evaluations (Euler 2, Heun 5, RK4 11).
 */

import { rungeKuttaStage, symplecticUpdate, type RealArray, type RungeKuttaBuffers } from './passes.ts';
import {
  planStep,
  rungeKuttaStages,
  STEP_DOUBLING_ORDER,
  type ExplicitIntegratorName,
  type StepPlan,
} from '../../integrators/schemes.ts';
import type { Model } from '../../model/model.ts';
import type { AdaptiveStepper, AttemptOutcome } from '../common/stepper.ts';
import { differenceNorm, type ErrorTolerances, type StatePair } from './error-norm.ts';
import { derivative } from './stage-passes.ts';

export class StepDoublingStepper implements AdaptiveStepper {
  readonly estimateOrder: number;
  /** p, the order of the doubled scheme. */
  readonly order: number;
  current: StatePair;
  /** e = y₁ − y½ (large step minus half steps) of the last attempt. */
  readonly errorVector: StatePair;
  private candidate: StatePair;
  /** y₁, the one-step result. */
  private readonly full: StatePair;
  private readonly shared: Omit<RungeKuttaBuffers, 'positions' | 'velocities'>;
  /** a(y_n), shared by the full and the first half step. */
  private readonly startAcceleration: RealArray;
  private readonly springForce: RealArray;
  private evaluations = 0;
  /** `startAcceleration` belongs to `current` until the next accept. */
  private startValid = false;

  constructor(
    private readonly model: Model,
    initial: StatePair,
    private readonly scheme: ExplicitIntegratorName,
    private readonly rayleighMass: number,
    private readonly tolerances: ErrorTolerances,
    private readonly extrapolate: boolean,
    real: (length: number) => RealArray,
  ) {
    this.order = STEP_DOUBLING_ORDER[scheme];
    this.estimateOrder = this.order + 1;
    const n3 = 3 * model.particleCount;
    const pair = (): StatePair => ({ positions: real(n3), velocities: real(n3) });
    this.current = pair();
    this.current.positions.set(initial.positions);
    this.current.velocities.set(initial.velocities);
    this.candidate = pair();
    this.full = pair();
    this.errorVector = pair();
    this.shared = {
      stagePositions: real(n3),
      stageVelocities: real(n3),
      accelerations: real(n3),
      sumPositions: real(n3),
      sumVelocities: real(n3),
    };
    this.startAcceleration = real(n3);
    this.springForce = real(3 * model.springCount);
  }

  get derivativeEvaluations(): number {
    return this.evaluations;
  }

  attempt(h: number): AttemptOutcome {
    const { current, candidate, full } = this;
    const fullPlan = planStep(this.scheme, h, this.rayleighMass);
    const halfPlan = planStep(this.scheme, h / 2, this.rayleighMass);
    // Both plans apply the same r_m inside a (0 for central-difference), so a(y_n) is shared, and
    // kept for retries from the same state.
    if (!this.startValid) {
      this.evaluate(current.positions, current.velocities, fullPlan.rayleighMass, this.startAcceleration);
      this.startValid = true;
    }

    full.positions.set(current.positions);
    full.velocities.set(current.velocities);
    this.step(fullPlan, h, { ...this.shared, ...full }, true);

    const half = { ...this.shared, ...candidate };
    candidate.positions.set(current.positions);
    candidate.velocities.set(current.velocities);
    this.step(halfPlan, h / 2, half, true);
    this.step(halfPlan, h / 2, half, false);

    const error = differenceNorm(this.model, full, candidate, current, this.tolerances, this.errorVector);
    if (this.extrapolate) {
      // y½ + (y½ − y₁)/(2^p − 1), with difference = y₁ − y½.
      const scale = 1 / (2 ** this.order - 1);
      for (let k = 0; k < candidate.positions.length; k++) {
        candidate.positions[k] = candidate.positions[k]! - scale * this.errorVector.positions[k]!;
        candidate.velocities[k] = candidate.velocities[k]! - scale * this.errorVector.velocities[k]!;
      }
    }
    return { kind: 'estimated', error };
  }

  accept(): void {
    [this.current, this.candidate] = [this.candidate, this.current];
    this.startValid = false;
  }

  /** One step of the scheme on `b`, as CpuSimulation.step does; the first evaluation may be a(y_n). */
  private step(plan: StepPlan, h: number, b: RungeKuttaBuffers, fromStart: boolean): void {
    const count = this.model.particleCount;
    const first = (): void => {
      if (fromStart) b.accelerations.set(this.startAcceleration);
      else this.evaluate(b.positions, b.velocities, plan.rayleighMass, b.accelerations);
    };
    if (plan.kind === 'symplectic') {
      first();
      symplecticUpdate(
        count,
        b.positions,
        b.velocities,
        b.accelerations,
        h,
        plan.velocityScale,
        plan.accelerationScale,
      );
      return;
    }
    for (const stage of rungeKuttaStages(plan, h)) {
      if (stage.isFirst) first();
      else this.evaluate(b.stagePositions, b.stageVelocities, plan.rayleighMass, b.accelerations);
      rungeKuttaStage(count, b, stage);
    }
  }

  private evaluate(x: RealArray, v: RealArray, rayleighMass: number, out: RealArray): void {
    derivative(this.model, x, v, rayleighMass, this.springForce, out);
    this.evaluations++;
  }
}
