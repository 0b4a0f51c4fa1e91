/**
 * Fixed-step multistep and predictor–corrector integrators (spec/integration-methods-lecture-de.md,
 * "Mehrschrittverfahren" and "Prädiktor-Korrektor-Methode"), on y = (x, v), F(y) = (v, a(x, v)).
 * Each step is the stage-combination pass of stage-passes.ts with Adams coefficients over a short
 * history of stored derivatives, plus one force evaluation (two or more with a corrector).
 */
import { rungeKuttaStages } from './cpu-simulation.ts';
import { rungeKuttaStage, type RealArray, type RungeKuttaBuffers } from './passes.ts';
import { WeftInputError } from '../../core/errors.ts';
import type { SolverStats } from '../../integrators/implicit-options.ts';
import { planStep } from '../../integrators/schemes.ts';
import { ADAMS_WEIGHTS, STARTUP_STEPS } from '../../integrators/multistep.ts';
import { resolveMultistepOptions } from '../../integrators/options.ts';
import type { Model } from '../../model/model.ts';
import type { SimulationState } from '../common/simulation-types.ts';
import { requireFiniteState, advanceInChunks, requireStepCount } from '../common/state-check.ts';
import { errorNorm, type ErrorTolerances, type StatePair } from './error-norm.ts';
import {
  MULTISTEP_INTEGRATOR_NAMES,
  MULTISTEP_INTEGRATORS,
  type MultistepIntegratorName,
  type MultistepOptions,
  type MultistepStats,
} from '../../integrators/adaptive-options.ts';
import { derivative, stageCombination } from './stage-passes.ts';

const { bashforth2: AB2, bashforth3: AB3, moulton3: AM3 } = ADAMS_WEIGHTS;

/** Derivatives kept: the AB3 predictor needs F_n, F_{n−1}, F_{n−2}. */
const HISTORY = 3;

/**
 * Fixed-step multistep integrators on the CPU (float64, or float32 storage). Same surface as
 * {@link Simulation} except that `integrator` is one of {@link MULTISTEP_INTEGRATOR_NAMES} (the
 * catalog {@link MULTISTEP_INTEGRATORS} has the orders and summaries).
 *
 * Orders (global, measured in test/adaptive-multistep.test.ts): adams-bashforth-2 2,
 * adams-bashforth-3 3, adams-moulton-pc 3 (AB3 predictor, AM order-3 corrector; PECE keeps the
 * corrector's order since the predictor's is not lower), heun-implicit 2, implicit-euler-pc 1.
 * Stability: the Adams–Bashforth methods are only conditionally stable (AB2 is weakly unstable on
 * an undamped oscillator at every h); the fixed-point corrector of heun-implicit and
 * implicit-euler-pc converges only for h‖∂F/∂y‖ ≲ 1, i.e. h ω ≲ 1, so they are no use on stiff
 * systems (there, use velocity-implicit-euler or the Newton/CG integrators).
 */
export class CpuMultistepSimulation {
  readonly backend = 'cpu';
  readonly integrator: MultistepIntegratorName;
  readonly dt: number;
  readonly model: Model;
  readonly description: string;
  private readonly rayleighMass: number;
  private readonly tolerances: ErrorTolerances;
  private readonly maxCorrectorIterations: number;
  private steps = 0;
  private readonly state: StatePair;
  /** Ring of stored derivatives: velocity[j] = v_{n−j}, acceleration[j] = a(x_{n−j}, v_{n−j}) (j = 0 newest). */
  private velocityHistory: RealArray[];
  private accelerationHistory: RealArray[];
  private readonly iterate: StatePair;
  private readonly previousIterate: StatePair;
  private readonly correction: StatePair;
  private readonly iterateAcceleration: RealArray;
  private readonly predictorAcceleration: RealArray;
  private readonly rk: RungeKuttaBuffers;
  private readonly springForce: RealArray;
  private readonly stats: MultistepStats = {
    steps: 0,
    startupSteps: 0,
    derivativeEvaluations: 0,
    correctorIterations: 0,
    maxCorrectorIterationsInStep: 0,
    unconvergedSteps: 0,
    converged: true,
    lastCorrection: 0,
  };

  constructor(model: Model, options: MultistepOptions) {
    if (!MULTISTEP_INTEGRATOR_NAMES.includes(options.integrator))
      throw new WeftInputError(
        'integrator',
        `unknown multistep integrator '${String(options.integrator)}' (known: ${MULTISTEP_INTEGRATOR_NAMES.join(', ')})`,
      );
    const {
      dt,
      rayleighMass,
      precision,
      correctorTolerance: tolerance,
      maxCorrectorIterations: cap,
    } = resolveMultistepOptions(options);

    this.model = model;
    this.integrator = options.integrator;
    this.dt = dt;
    this.rayleighMass = rayleighMass;
    this.maxCorrectorIterations = cap;
    this.tolerances = {
      relative: tolerance,
      absolutePosition: tolerance,
      absoluteVelocity: tolerance,
      positionWeight: 1,
      velocityWeight: 1,
      norm: 'max',
    };
    this.description = `CPU (TypeScript, ${precision === 'f64' ? 'float64' : 'float32 storage'}), ${this.integrator} (order ${MULTISTEP_INTEGRATORS[this.integrator].order})`;
    const real = (length: number): RealArray =>
      precision === 'f64' ? new Float64Array(length) : new Float32Array(length);
    const n3 = 3 * model.particleCount;
    const pair = (): StatePair => ({ positions: real(n3), velocities: real(n3) });
    this.state = pair();
    this.state.positions.set(model.particlePositions);
    this.state.velocities.set(model.particleVelocities);
    this.velocityHistory = Array.from({ length: HISTORY }, () => real(n3));
    this.accelerationHistory = Array.from({ length: HISTORY }, () => real(n3));
    this.iterate = pair();
    this.previousIterate = pair();
    this.correction = pair();
    this.iterateAcceleration = real(n3);
    this.predictorAcceleration = real(n3);
    this.springForce = real(3 * model.springCount);
    this.rk = {
      positions: this.state.positions,
      velocities: this.state.velocities,
      stagePositions: real(n3),
      stageVelocities: real(n3),
      accelerations: real(n3),
      sumPositions: real(n3),
      sumVelocities: real(n3),
    };
    // F(y₀) opens the history.
    this.pushDerivative();
  }

  get stepCount(): number {
    return this.steps;
  }

  step(steps = 1): void {
    requireStepCount(steps);
    for (let n = 0; n < steps; n++) {
      if (this.steps < STARTUP_STEPS[this.integrator]) this.rk4Step();
      else
        switch (this.integrator) {
          case 'adams-bashforth-2':
            this.adamsBashforth(AB2);
            break;
          case 'adams-bashforth-3':
            this.adamsBashforth(AB3);
            break;
          case 'adams-moulton-pc':
            this.adamsMoulton();
            break;
          case 'heun-implicit':
            this.fixedPoint('heun');
            break;
          case 'implicit-euler-pc':
            this.fixedPoint('euler');
            break;
        }
      this.steps++;
      this.stats.steps++;
    }
  }

  /** a(x, v) into `out`, counted. */
  private evaluate(positions: RealArray, velocities: RealArray, out: RealArray): void {
    derivative(this.model, positions, velocities, this.rayleighMass, this.springForce, out);
    this.stats.derivativeEvaluations++;
  }

  /** Stores F(y_n) of the current state as the newest history entry (rotating the ring). */
  private pushDerivative(known?: RealArray): void {
    const v = this.velocityHistory.pop()!;
    const a = this.accelerationHistory.pop()!;
    v.set(this.state.velocities);
    if (known) a.set(known);
    else this.evaluate(this.state.positions, this.state.velocities, a);
    this.velocityHistory.unshift(v);
    this.accelerationHistory.unshift(a);
  }

  /** Starter: one classic RK4 step by the passes CpuSimulation runs (its first stage reuses F_n). */
  private rk4Step(): void {
    const plan = planStep('rk4', this.dt, this.rayleighMass);
    for (const stage of rungeKuttaStages(plan, this.dt)) {
      if (stage.isFirst) this.rk.accelerations.set(this.accelerationHistory[0]!);
      else this.evaluate(this.rk.stagePositions, this.rk.stageVelocities, this.rk.accelerations);
      rungeKuttaStage(this.model.particleCount, this.rk, stage);
    }
    this.stats.startupSteps++;
    this.pushDerivative();
  }

  /** y₊ = y_n + h Σ β_j F_{n−j}, then F(y₊) for the history. */
  private adamsBashforth(weights: readonly number[]): void {
    const { state } = this;
    stageCombination(
      state,
      this.dt,
      weights,
      this.velocityHistory,
      this.accelerationHistory,
      state.positions,
      state.velocities,
    );
    this.pushDerivative();
  }

  /**
   * P(EC)^m E: y⁽⁰⁾ = AB3 predictor; F(y⁽ᵏ⁾); y⁽ᵏ⁺¹⁾ = y_n + h (5/12 F(y⁽ᵏ⁾) + 8/12 F_n − 1/12 F_{n−1});
   * m = maxCorrectorIterations (stopping early once the correction is below the tolerance when
   * m > 1); the final E stores F(y₊) for the next step.
   */
  private adamsMoulton(): void {
    const { state, iterate } = this;
    stageCombination(
      state,
      this.dt,
      AB3,
      this.velocityHistory,
      this.accelerationHistory,
      iterate.positions,
      iterate.velocities,
    );
    const velocityTerms = [iterate.velocities, this.velocityHistory[0]!, this.velocityHistory[1]!];
    const accelerationTerms = [
      this.iterateAcceleration,
      this.accelerationHistory[0]!,
      this.accelerationHistory[1]!,
    ];
    this.correct((into) => {
      this.evaluate(iterate.positions, iterate.velocities, this.iterateAcceleration);
      // velocityTerms[0] is iterate.velocities, read before `into` (previousIterate…) is written.
      stageCombination(
        state,
        this.dt,
        AM3,
        velocityTerms,
        accelerationTerms,
        into.positions,
        into.velocities,
      );
    }, this.maxCorrectorIterations > 1);
    state.positions.set(iterate.positions);
    state.velocities.set(iterate.velocities);
    this.pushDerivative();
  }

  /**
   * Implicit Euler y₊ = y + h F(y₊) or implicit Heun y₊ = y + h (F(y) + F(y₊))/2 by fixed-point
   * iteration (the lecture's Prädiktor–Korrektor): predictor explicit Euler resp. explicit Heun,
   * corrector y⁽ᵏ⁺¹⁾ = y + h F(y⁽ᵏ⁾) resp. y + h (F(y) + F(y⁽ᵏ⁾))/2, until the tolerance or the cap.
   */
  private fixedPoint(kind: 'euler' | 'heun'): void {
    const { state, iterate, dt: h } = this;
    const vn = this.velocityHistory[0]!;
    const an = this.accelerationHistory[0]!;
    // Predictor: explicit Euler y + h F_n, or explicit Heun y + h (F_n + F(y + h F_n))/2.
    stageCombination(state, h, [1], [vn], [an], iterate.positions, iterate.velocities);
    if (kind === 'heun') {
      this.evaluate(iterate.positions, iterate.velocities, this.predictorAcceleration);
      // Read iterate.velocities as a term while writing into previousIterate, then copy back.
      const p = this.previousIterate;
      stageCombination(
        state,
        h,
        [0.5, 0.5],
        [vn, iterate.velocities],
        [an, this.predictorAcceleration],
        p.positions,
        p.velocities,
      );
      iterate.positions.set(p.positions);
      iterate.velocities.set(p.velocities);
    }
    // Weights of F(y⁽ᵏ⁾) and F_n.
    const weights = kind === 'euler' ? [1, 0] : [0.5, 0.5];
    const velocityTerms = [iterate.velocities, vn];
    const accelerationTerms = [this.iterateAcceleration, an];
    this.correct((into) => {
      this.evaluate(iterate.positions, iterate.velocities, this.iterateAcceleration);
      stageCombination(state, h, weights, velocityTerms, accelerationTerms, into.positions, into.velocities);
    }, true);
    state.positions.set(iterate.positions);
    state.velocities.set(iterate.velocities);
    this.pushDerivative();
  }

  /**
   * Runs corrector sweeps on `iterate`: each writes the next iterate into a second buffer, then the
   * two swap; the scaled max-norm of the change is checked against 1 when `check`.
   */
  private correct(sweep: (into: StatePair) => void, check: boolean): void {
    const s = this.stats;
    let converged = !check;
    let iterations = 0;
    let change = 0;
    for (let k = 0; k < this.maxCorrectorIterations; k++) {
      const next = this.previousIterate;
      sweep(next);
      iterations++;
      for (let i = 0; i < next.positions.length; i++) {
        this.correction.positions[i] = next.positions[i]! - this.iterate.positions[i]!;
        this.correction.velocities[i] = next.velocities[i]! - this.iterate.velocities[i]!;
      }
      this.iterate.positions.set(next.positions);
      this.iterate.velocities.set(next.velocities);
      change = errorNorm(this.model, this.correction, this.state, this.iterate, this.tolerances);
      if (check && change <= 1) {
        converged = true;
        break;
      }
    }
    s.correctorIterations += iterations;
    s.maxCorrectorIterationsInStep = Math.max(s.maxCorrectorIterationsInStep, iterations);
    s.lastCorrection = change;
    s.converged = converged;
    if (!converged) s.unconvergedSteps++;
  }

  advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    return advanceInChunks((n) => this.step(n), steps, onProgress);
  }

  finished(): Promise<void> {
    return Promise.resolve();
  }

  async readState(): Promise<SimulationState> {
    return requireFiniteState({
      step: this.steps,
      time: this.steps * this.dt,
      positions: Float64Array.from(this.state.positions),
      velocities: Float64Array.from(this.state.velocities),
    });
  }

  /** The corrector statistics. */
  readMultistepStats(): MultistepStats {
    return { ...this.stats };
  }

  /**
   * The statistics in the implicit integrators' shape ({@link SolverStats}), for code that prints
   * those: `newtonIterations` holds the corrector (fixed-point) iterations; no linear solves.
   */
  readSolverStats(): Promise<SolverStats> {
    const s = this.stats;
    return Promise.resolve({
      steps: s.steps,
      linearSolves: 0,
      linearIterations: 0,
      maxLinearIterations: 0,
      lastResidual: 0,
      maxResidual: 0,
      unconvergedSolves: 0,
      newtonIterations: s.correctorIterations,
      unconvergedSteps: s.unconvergedSteps,
      converged: s.converged,
    });
  }

  destroy(): void {}
}
