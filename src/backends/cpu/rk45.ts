/**
 * Embedded Runge–Kutta 4(5) with the Cash–Karp coefficients (spec/ode-lecture-mass-spring-cloth.md,
 * "Runge Kutta: ode45"; Cash & Karp, ACM TOMS 16, 1990).
 *
 * The tableau and the lecture's a₆₃ erratum: src/integrators/tableaux.ts.
 *
 * Propagated solution: the 5th-order one, y⁵ (local extrapolation, as Numerical Recipes' rkck);
 * error estimate e = y⁵ − y⁴ = h Σ (b⁵_j − b⁴_j) k_j, which is O(h⁵) (the local error of y⁴), so
 * the controller uses the exponent 1/5.
 */
import type { Model } from '../../model/model.ts';
import { RUNGE_KUTTA_TABLEAUX } from '../../integrators/tableaux.ts';
import type { RealArray } from './passes.ts';
import type { AdaptiveStepper, AttemptOutcome } from '../common/stepper.ts';
import { errorNorm, type ErrorTolerances, type StatePair } from './error-norm.ts';
import { derivative, stageCombination } from './stage-passes.ts';

const CASH_KARP = RUNGE_KUTTA_TABLEAUX['cash-karp'];
/** b⁵ − b⁴: e = y⁵ − y⁴ = h Σ (b⁵_j − b⁴_j) k_j. */
const ERROR_WEIGHTS = CASH_KARP.b.map((b, j) => b - CASH_KARP.bEmbedded[j]!);

/**
 * Cash–Karp RK45 steps on the state (x, v), F(y) = (v, a(x, v)). Per attempt: 6 evaluations of a
 * (5 when retrying from the same state: k₁ = F(y_n) is kept), 5 stage combinations, the
 * solution and error combinations, and the error norm.
 */
export class CashKarpStepper implements AdaptiveStepper {
  readonly estimateOrder = 5;
  current: StatePair;
  readonly errorVector: StatePair;
  private candidate: StatePair;
  private evaluations = 0;
  /** kx_j: the velocity of stage j (stage 1's is `current.velocities`). */
  private readonly stageVelocities: RealArray[];
  /** kv_j = a(X_j, V_j). */
  private readonly stageAccelerations: RealArray[];
  private readonly stagePositions: RealArray;
  private readonly springForce: RealArray;
  /** k₁ belongs to `current` until the next accept. */
  private firstStageValid = false;

  constructor(
    private readonly model: Model,
    initial: StatePair,
    private readonly rayleighMass: number,
    private readonly tolerances: ErrorTolerances,
    real: (length: number) => RealArray,
  ) {
    const n3 = 3 * model.particleCount;
    this.current = { positions: real(n3), velocities: real(n3) };
    this.current.positions.set(initial.positions);
    this.current.velocities.set(initial.velocities);
    this.candidate = { positions: real(n3), velocities: real(n3) };
    this.stageVelocities = Array.from({ length: 6 }, () => real(n3));
    this.stageAccelerations = Array.from({ length: 6 }, () => real(n3));
    this.stagePositions = real(n3);
    this.errorVector = { positions: real(n3), velocities: real(n3) };
    this.springForce = real(3 * model.springCount);
  }

  get derivativeEvaluations(): number {
    return this.evaluations;
  }

  attempt(h: number): AttemptOutcome {
    const { model, current, candidate, stageAccelerations: kv } = this;
    // Stage 1's velocity term is the current velocity itself.
    const kx = [current.velocities, ...this.stageVelocities.slice(1)];
    if (!this.firstStageValid) {
      derivative(model, current.positions, current.velocities, this.rayleighMass, this.springForce, kv[0]!);
      this.evaluations++;
      this.firstStageValid = true;
    }
    for (let i = 1; i < 6; i++) {
      // X_i = x + h Σ a_ij V_j, V_i = v + h Σ a_ij a_j; V_i is stored as kx_i directly.
      stageCombination(current, h, CASH_KARP.a[i]!, kx, kv, this.stagePositions, kx[i]!);
      derivative(model, this.stagePositions, kx[i]!, this.rayleighMass, this.springForce, kv[i]!);
      this.evaluations++;
    }
    stageCombination(current, h, CASH_KARP.b, kx, kv, candidate.positions, candidate.velocities);
    stageCombination(null, h, ERROR_WEIGHTS, kx, kv, this.errorVector.positions, this.errorVector.velocities);
    return {
      kind: 'estimated',
      error: errorNorm(model, this.errorVector, current, candidate, this.tolerances),
    };
  }

  accept(): void {
    [this.current, this.candidate] = [this.candidate, this.current];
    this.firstStageValid = false;
  }
}
