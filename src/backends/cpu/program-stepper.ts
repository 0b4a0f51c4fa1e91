/**
 * An adaptive program (src/integrators/adaptive-programs.ts) as the CPU stepper the step-size
 * controller drives: `attempt(h)` runs the program's attempt and returns its error norm,
 * `accept()` makes the candidate the state.
 */
import type { Program } from '../../integrators/program.ts';
import type { Model } from '../../model/model.ts';
import { emptyNewtonStats, type NewtonStats } from '../../integrators/adaptive-options.ts';
import { emptyStats } from '../../integrators/implicit-options.ts';
import {
  recordNewtonAttempt,
  type AdaptiveStepper,
  type AttemptOutcome,
  type ImplicitTotals,
  type StatePair,
} from '../common/stepper.ts';
import { CpuExecutor } from './executor.ts';
import type { ResolvedCollider } from '../../model/colliders.ts';

export class CpuProgramStepper implements AdaptiveStepper {
  readonly estimateOrder: number;
  /** Newton statistics (implicit programs; zeros otherwise). */
  readonly newton: NewtonStats = emptyNewtonStats();
  private readonly executor: CpuExecutor;
  /** `first` has run for the current state. */
  private firstValid = false;
  private totals: ImplicitTotals = { ...emptyStats(), estimatorIterations: 0 };
  /** h of the last attempt: `accept` runs with it (a projection's friction moves x by h Δv). */
  private attempted = 0;

  constructor(
    model: Model,
    initial: StatePair,
    private readonly program: Program,
    precision: 'f64' | 'f32',
  ) {
    this.estimateOrder = program.adaptive!.estimateOrder;
    this.executor = new CpuExecutor(model, program, precision);
    this.executor.vector('x').set(initial.positions);
    this.executor.vector('v').set(initial.velocities);
  }

  /** A kinematic collider's pose and velocity (ColliderSink, src/backends/common/collider-poses.ts). */
  writeCollider(k: number, pose: ResolvedCollider, up: readonly number[], uq: readonly number[]): void {
    this.executor.contacts?.setCollider(k, pose, up, uq);
  }

  /** EditableStepper (src/simulation/adaptive-edits.ts): xyz of `indices` into the vector `name`. */
  writeVector(name: string, indices: Uint32Array, xyz: Float64Array): void {
    const to = this.executor.vector(name);
    indices.forEach((i, k) => to.set(xyz.subarray(3 * k, 3 * k + 3), 3 * i));
  }

  /** EditableStepper: nothing to upload (the executor reads its model's inverse masses). */
  writeMasses(): void {}

  /** EditableStepper: the state changed, so `first` runs again. */
  invalidate(): void {
    this.firstValid = false;
  }

  /** The accepted state. */
  get current(): StatePair {
    return { positions: this.executor.vector('x'), velocities: this.executor.vector('v') };
  }

  /** e of the last attempt (positions m, velocities m/s). */
  get errorVector(): StatePair {
    return { positions: this.executor.vector('err.x'), velocities: this.executor.vector('err.v') };
  }

  get derivativeEvaluations(): number {
    return this.executor.evaluations;
  }

  attempt(h: number, t: number): AttemptOutcome {
    const adaptive = this.program.adaptive!;
    this.attempted = h;
    if (this.executor.aero) this.executor.aero.origin = t;
    if (!this.firstValid) this.executor.run(adaptive.first, h);
    this.firstValid = true;
    this.executor.run(adaptive.attempt, h);
    const implicit = this.executor.implicit;
    if (implicit) {
      const after = { ...implicit.stats, estimatorIterations: implicit.estimatorIterations };
      const failed = recordNewtonAttempt(this.newton, this.totals, after);
      this.totals = after;
      if (failed) return { kind: 'newton-failed' };
    }
    return { kind: 'estimated', error: this.executor.lastNorm };
  }

  accept(): void {
    this.executor.run(this.program.adaptive!.accept, this.attempted);
    this.firstValid = false;
  }
}
