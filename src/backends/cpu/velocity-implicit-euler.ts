/**
 * Velocity-implicit Euler with error control, after Drake's VelocityImplicitEulerIntegrator
 * (spec/drake-velocity-implicit-euler.md). For the mass-spring system N(q) = I, so eq. (3–4) are
 *   v₊ = v + h a(x + h v₊, v₊),  x₊ = x + h v₊,
 * and Newton runs on v₊ alone: with the residual (eq. 9, multiplied by M)
 *   R(v₊) = v₊ − v − h a(x + h v₊, v₊),
 *   ∂R/∂v₊ = I − h M⁻¹(−h K − B) + h r_m I,   i.e.  ((1 + h r_m) M + h B + h² K) Δv = −M R,
 * solved matrix-free by the existing PCG (src/backends/cpu/linear-solver.ts) over the spring Jacobian
 * blocks of src/backends/cpu/implicit-passes.ts (K = −∂f/∂x, B = −∂f/∂v, as the implicit integrators use).
 *
 * Forces besides the springs' (src/model): dihedral hinges (their force in a, their Gauss–Newton K
 * and B in the iteration matrix, as the implicit integrators have them: bending.ts), and wind
 * (aero.ts: its force in a at the step's end time t + h, its Jacobian left out of the matrix as
 * the implicit integrators leave it, so Newton converges linearly where the drag is strong). A
 * strain limit's sweeps (strain-limit.ts, src/integrators/strain-programs.ts) follow each accepted
 * step, with its h, as rk45's do. Self-collision (self-contact.ts): each attempt lists the pairs
 * within reach of its h from the accepted state; their repulsion joins a (activated by d < r at the
 * iterate) and their K, B the iteration matrix (a Jacobian of another list is stale: a new list
 * means a fresh Jacobian); the fail-safe ends each accepted step, after the sweeps. Colliders
 * (contacts.ts) as rk45's: each accepted step is projected onto them, friction's Δv taken back from
 * x with the accepted map's drift ¾ (adaptive-programs.ts), so the attempts and their error
 * estimate are the unconstrained flight's (inside the Newton solve, contacts found by the full
 * and the half steps differed, and a cloth's first contacts drove the step to 1e-9 s).
 *
 * Error estimate: one step h first (it is the likeliest to fail, and its Jacobian is reused by
 * the others), then two steps h/2; the half steps are propagated and e = x̄ⁿ⁺¹ − x̃ⁿ⁺¹ is the
 * estimate, O(h²) (Drake eq. 22), so the controller uses the exponent 1/2.
 *
 * Newton convergence (Drake CheckNewtonConvergence, after Hairer & Wanner II §IV.8), with ‖·‖ the
 * tolerance-scaled error norm of the state change (h Δv, Δv) (errorControl 'drake': max_i w_i |Δ_i|
 * / accuracy, so the test is Drake's η ‖Δ‖ ≤ κ · accuracy in the weighted max norm of
 * CalcStateChangeNorm, which Drake's TODO names in place of the 2-norm it takes): converged when
 * the update is zero to rounding, or from the second iteration on when η ‖Δ_k‖ ≤ κ with
 * θ = ‖Δ_k‖/‖Δ_{k−1}‖, η = θ/(1 − θ)
 * (IV.8.10); diverged when θ ≥ 1 or anything is non-finite; abandoned early when
 * θ^(k_max − k)/(1 − θ) ‖Δ_k‖ > κ, i.e. it cannot converge within the iterations left (IV.8.11).
 *
 * Matrix freshness (after Drake ImplicitIntegrator::MaybeFreshenMatrices), per Newton solve: with
 * reuse, trial 1 uses the last Jacobian (from an earlier step or the large step) with the current
 * h; if Newton fails, trial 2 re-evaluates the Jacobian at the current iterate (unless it was
 * evaluated during this step already); then the attempt fails and the controller shrinks the step.
 * Without reuse every solve evaluates a fresh Jacobian and has one trial. "Full Newton"
 * re-evaluates the Jacobian and re-forms the matrix at every iteration (one trial).
 */
import { solverStorage, solveLinear, type SolverWorkspace } from './linear-solver.ts';
import { springStates, type SpringStates } from './implicit-passes.ts';
import type { RealArray } from './passes.ts';
import type { Model } from '../../model/model.ts';
import type { ResolvedCollider } from '../../model/colliders.ts';
import { unitRoundoff, type AdaptiveStepper, type AttemptOutcome } from '../common/stepper.ts';
import { differenceNorm, errorNorm, type StatePair } from './error-norm.ts';
import {
  emptyNewtonStats,
  type NewtonStats,
  type ResolvedAdaptiveOptions,
} from '../../integrators/adaptive-options.ts';
import { derivative } from './passes.ts';
import { CpuAero } from './aero.ts';
import { CpuBending } from './bending.ts';
import { CpuContacts } from './contacts.ts';
import { VELOCITY_IMPLICIT_DRIFT } from '../../integrators/adaptive-programs.ts';
import { CpuSelfContact } from './self-contact.ts';
import { strainCorrection } from './strain-limit.ts';

export type VelocityImplicitEulerOptions = Pick<
  ResolvedAdaptiveOptions,
  | 'rayleighMass'
  | 'tolerances'
  | 'maxNewtonIterations'
  | 'reuseJacobian'
  | 'fullNewton'
  | 'newtonKappa'
  | 'linearTolerance'
  | 'linearMaxIterations'
  | 'preconditioner'
  | 'jacobian'
>;

/**
 * |Δ_i| ≤ 10 ε max(1, |y_i|) everywhere: the update is zero to rounding (Drake IsUpdateZero, ε
 * double's machine epsilon). ε is the storage's: float32 storage rounds y to 2⁻²⁴ |y|, and its
 * Newton updates at an equilibrium are that round-off, which no θ test can see converge.
 */
const ZERO_UPDATE_EPSILONS = 10;

export class VelocityImplicitEulerStepper implements AdaptiveStepper {
  readonly estimateOrder = 2;
  readonly newton: NewtonStats = emptyNewtonStats();
  current: StatePair;
  /** e = y₁ − y½ (large step minus half steps) of the last attempt. */
  readonly errorVector: StatePair;
  private candidate: StatePair;
  /** x̄ⁿ⁺¹, the large step. */
  private readonly full: StatePair;
  /** x̃*, after the first half step. */
  private readonly middle: StatePair;
  private readonly guess: RealArray;
  private readonly acceleration: RealArray;
  private readonly rhs: RealArray;
  private readonly delta: RealArray;
  private readonly deltaPositions: RealArray;
  private readonly springForce: RealArray;
  /** K and B blocks at the linearisation point (force and direction too, as springStates writes them). */
  private readonly jacobianStates: SpringStates;
  private readonly work: SolverWorkspace;
  private evaluations = 0;
  private hasJacobian = false;
  /** The Jacobian was evaluated during the current attempt. */
  private jacobianFresh = false;
  /** h of the current iteration matrix (always the h of the solve; kept to count formations). */
  private iterationStep: number | null = null;
  /** Work of the large step counts as error estimation too (Drake). */
  private inLargeStep = false;
  /** 10 ε of the storage ({@link ZERO_UPDATE_EPSILONS}; ε = 2u). */
  private readonly zeroUpdate: number;
  /** The hinges' forces at the iterate (the Jacobian's are jacobianStates.bending); null: no bending. */
  private readonly hinges: CpuBending | null;
  /** The wind's forces; null: no wind. */
  private readonly aero: CpuAero | null;
  /** Self-collision's pair list and forces at the iterate (the Jacobian's: jacobianStates.selfContact). */
  private readonly self: CpuSelfContact | null;
  /** The colliders; null: none. */
  private readonly contacts: CpuContacts | null;
  /** The strain limit's correction Δ of a sweep. */
  private readonly strainStep: RealArray | null;
  /** h of the current attempt. */
  private attempted = 0;

  constructor(
    private readonly model: Model,
    initial: StatePair,
    private readonly options: VelocityImplicitEulerOptions,
    real: (length: number) => RealArray,
  ) {
    const n3 = 3 * model.particleCount;
    this.zeroUpdate = ZERO_UPDATE_EPSILONS * 2 * unitRoundoff(real);
    const pair = (): StatePair => ({ positions: real(n3), velocities: real(n3) });
    this.current = pair();
    this.current.positions.set(initial.positions);
    this.current.velocities.set(initial.velocities);
    this.candidate = pair();
    this.full = pair();
    this.middle = pair();
    this.errorVector = pair();
    [this.guess, this.acceleration, this.rhs, this.delta, this.deltaPositions] = Array.from(
      { length: 5 },
      () => real(n3),
    ) as [RealArray, RealArray, RealArray, RealArray, RealArray];
    this.springForce = real(3 * model.springCount);
    ({ states: this.jacobianStates, work: this.work } = solverStorage(model, real));
    this.hinges = model.bending ? new CpuBending(model, real) : null;
    this.aero = model.wind ? new CpuAero(model) : null;
    this.contacts = model.colliders.length > 0 ? new CpuContacts(model) : null;
    this.self = model.selfCollision ? new CpuSelfContact(model, real) : null;
    this.jacobianStates.selfContact = model.selfCollision ? new CpuSelfContact(model, real) : null;
    this.strainStep = model.strainLimit ? real(n3) : null;
  }

  /** A kinematic collider's pose and velocity (ColliderSink, src/backends/common/collider-poses.ts). */
  writeCollider(k: number, pose: ResolvedCollider, up: readonly number[], uq: readonly number[]): void {
    this.contacts?.setCollider(k, pose, up, uq);
  }

  /** EditableStepper (src/simulation/adaptive-edits.ts): xyz of `indices` into the state's 'x' or 'v'. */
  writeVector(name: string, indices: Uint32Array, xyz: Float64Array): void {
    const to = name === 'x' ? this.current.positions : name === 'v' ? this.current.velocities : null;
    if (!to) throw new Error(`VelocityImplicitEulerStepper.writeVector: no vector '${name}'`);
    indices.forEach((i, k) => to.set(xyz.subarray(3 * k, 3 * k + 3), 3 * i));
  }

  /** EditableStepper: nothing to upload (every pass reads the model's inverse masses). */
  writeMasses(): void {}

  /** EditableStepper: the state jumped (a teleport, a pin): the next attempt evaluates a fresh Jacobian. */
  invalidate(): void {
    this.hasJacobian = false;
  }

  get derivativeEvaluations(): number {
    return this.evaluations;
  }

  attempt(h: number, t: number): AttemptOutcome {
    const { current, full, middle, candidate } = this;
    this.attempted = h;
    this.jacobianFresh = false;
    if (this.self) {
      this.self.detect(current.positions, current.velocities, h);
      this.jacobianStates.selfContact!.sharePairs(this.self);
      this.hasJacobian = false;
    }
    // The large step, guessed from the current velocity.
    this.inLargeStep = true;
    this.guess.set(current.velocities);
    const large = this.implicitStep(current, h, full, t);
    this.inLargeStep = false;
    if (!large) return { kind: 'newton-failed' };
    // First half step, guessed at the mean of v_n and v̄ⁿ⁺¹ (the velocity midway).
    for (let k = 0; k < this.guess.length; k++)
      this.guess[k] = 0.5 * (current.velocities[k]! + full.velocities[k]!);
    if (!this.implicitStep(current, h / 2, middle, t)) return { kind: 'newton-failed' };
    // Second half step ends where the large one did: guessed from v̄ⁿ⁺¹.
    this.guess.set(full.velocities);
    if (!this.implicitStep(middle, h / 2, candidate, t + h / 2)) return { kind: 'newton-failed' };
    const error = differenceNorm(
      this.model,
      full,
      candidate,
      current,
      this.options.tolerances,
      this.errorVector,
    );
    return { kind: 'estimated', error };
  }

  accept(): void {
    [this.current, this.candidate] = [this.candidate, this.current];
    const { positions: x, velocities: v } = this.current;
    const limit = this.model.strainLimit;
    // Provot's sweeps, Δ = strainCorrection(x), x ← x + Δ, v ← v + Δ / h (strain-programs.ts).
    for (let sweep = 0; limit && sweep < limit.iterations; sweep++) {
      const [dx, h] = [this.strainStep!, this.attempted];
      strainCorrection(this.model, x, limit.maxStretch, dx);
      for (let k = 0; k < x.length; k++) [x[k], v[k]] = [x[k]! + dx[k]!, v[k]! + dx[k]! / h];
    }
    this.contacts?.move(this.attempted);
    this.contacts?.project(x, v, VELOCITY_IMPLICIT_DRIFT * this.attempted);
    this.self?.failSafe(x, v);
  }

  /** One implicit Euler step from `start` (at time t) over h into `out`, Newton from the velocity `guess`. */
  private implicitStep(start: StatePair, h: number, out: StatePair, t: number): boolean {
    const o = this.options;
    const trials = o.fullNewton || !o.reuseJacobian ? 1 : 2;
    for (let trial = 1; trial <= trials; trial++) {
      out.velocities.set(this.guess);
      for (let k = 0; k < out.positions.length; k++)
        out.positions[k] = start.positions[k]! + h * out.velocities[k]!;
      if (!o.fullNewton && !this.freshen(trial, out, h)) return false;
      if (this.newtonSolve(start, h, out, t + h)) return true;
      this.newton.failedSolves++;
    }
    return false;
  }

  /**
   * Drake's MaybeFreshenMatrices, matrix-free: false when nothing fresher is left to try. Drake's
   * trial 1 may keep an iteration matrix factored for another h, because refactoring a dense
   * matrix is costly; here the matrix for the current h costs nothing to form (new coefficients),
   * so trial 1 always uses the current h with the stored Jacobian, and Drake's trials 2 (new
   * matrix) and 3 (new Jacobian) become one: trial 2 re-evaluates the Jacobian unless it was
   * evaluated during this step already.
   */
  private freshen(trial: number, at: StatePair, h: number): boolean {
    if (!this.options.reuseJacobian || !this.hasJacobian) {
      this.evaluateJacobian(at);
      this.formIterationMatrix(h);
      return true;
    }
    if (trial === 1) {
      if (this.iterationStep !== h) this.formIterationMatrix(h);
      return true;
    }
    if (trial === 2 && !this.jacobianFresh) {
      this.evaluateJacobian(at);
      this.formIterationMatrix(h);
      return true;
    }
    return false;
  }

  private evaluateJacobian(at: StatePair): void {
    springStates(
      this.model,
      at.positions,
      at.velocities,
      this.options.jacobian === 'exact',
      this.jacobianStates,
    );
    this.hasJacobian = true;
    this.jacobianFresh = true;
    this.newton.jacobianEvaluations++;
    if (this.inLargeStep) this.newton.errorEstimatorJacobianEvaluations++;
  }

  /** The iteration matrix (1 + h r_m) M + h B + h² K: matrix-free, so only its h is recorded. */
  private formIterationMatrix(h: number): void {
    this.iterationStep = h;
    this.newton.factorizations++;
    if (this.inLargeStep) this.newton.errorEstimatorFactorizations++;
  }

  /** a(x, v) at time t into `a`: springs (and Rayleigh mass damping), hinges, wind. */
  private evaluate(x: RealArray, v: RealArray, t: number, a: RealArray): void {
    derivative(this.model, x, v, this.options.rayleighMass, this.springForce, a);
    this.hinges?.states(x, v, true);
    this.hinges?.gather(a, true);
    this.self?.states(x, v, false, true);
    this.self?.gather(a, true);
    if (this.aero) {
      this.aero.origin = t; // no windClock here: the wind's time is the origin
      this.aero.apply(x, v, a, 1, true, 0, 0);
    }
    this.evaluations++;
  }

  /** Newton iterations on v₊ (in `out`, which holds the starting iterate), a at time t. True when converged. */
  private newtonSolve(start: StatePair, h: number, out: StatePair, t: number): boolean {
    const { model, options: o, newton, acceleration: a, rhs, delta, deltaPositions } = this;
    const { positions: x, velocities: v } = out;
    const { positions: x0, velocities: v0 } = start;
    let lastNorm = NaN;
    for (let iteration = 0; iteration < o.maxNewtonIterations; iteration++) {
      if (o.fullNewton) {
        this.evaluateJacobian(out);
        this.formIterationMatrix(h);
      }
      this.evaluate(x, v, t, a);
      // −M R = −M (v₊ − v − h a(x + h v₊, v₊)), zero on fixed particles.
      for (let i = 0; i < model.particleCount; i++) {
        const m = model.particleInvMass[i] === 0 ? 0 : model.particleMass[i]!;
        for (let k = 3 * i; k < 3 * i + 3; k++) rhs[k] = -m * (v[k]! - v0[k]! - h * a[k]!);
      }
      const result = solveLinear(
        model,
        this.jacobianStates,
        { mass: 1 + h * o.rayleighMass, damping: h, stiffness: h * h },
        {
          solver: 'pcg',
          preconditioner: o.preconditioner,
          maxIterations: o.linearMaxIterations,
          tolerance: o.linearTolerance,
        },
        rhs,
        delta,
        this.work,
      );
      newton.iterations++;
      if (this.inLargeStep) newton.errorEstimatorIterations++;
      newton.linearSolves++;
      newton.linearIterations += result.iterations;
      newton.maxLinearIterations = Math.max(newton.maxLinearIterations, result.iterations);
      newton.lastLinearResidual = result.relativeResidual;
      newton.maxLinearResidual = Math.max(newton.maxLinearResidual, result.relativeResidual);
      if (!result.converged) newton.unconvergedLinearSolves++;
      if (result.breakdown) {
        // Not positive definite (an exact Jacobian under compression): no usable direction.
        newton.divergences++;
        return false;
      }
      let zero = true;
      for (let k = 0; k < v.length; k++) {
        const d = delta[k]!;
        v[k] = v[k]! + d;
        x[k] = x0[k]! + h * v[k]!;
        deltaPositions[k] = h * d;
        if (Math.abs(d) > this.zeroUpdate * Math.max(1, Math.abs(v[k]!))) zero = false;
      }
      const norm = errorNorm(
        model,
        { positions: deltaPositions, velocities: delta },
        start,
        out,
        o.tolerances,
      );
      if (!Number.isFinite(norm)) {
        newton.divergences++;
        return false;
      }
      if (zero) return true;
      if (iteration > 0) {
        const theta = norm / lastNorm;
        if (!(theta < 1)) {
          newton.divergences++;
          return false;
        }
        const eta = theta / (1 - theta);
        if (eta * norm <= o.newtonKappa) return true;
        const left = o.maxNewtonIterations - 1 - iteration;
        if ((Math.pow(theta, left) / (1 - theta)) * norm > o.newtonKappa) return false;
      }
      lastNorm = norm;
    }
    return false;
  }
}
