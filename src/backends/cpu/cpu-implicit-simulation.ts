import {
  emptyStats,
  type ImplicitIntegratorName,
  type ImplicitOptions,
  type ResolvedImplicitOptions,
  type SolverStats,
} from '../../integrators/implicit-options.ts';
import { resolveImplicitOptions, resolveStepOptions } from '../../integrators/options.ts';
import { rhsCoefficients, systemCoefficients } from '../../integrators/implicit-schemes.ts';
import type { Model } from '../../model/model.ts';
import type { Simulation, SimulationState } from '../common/simulation-types.ts';
import { requireFiniteState, advanceInChunks, requireStepCount, stepsTo } from '../common/state-check.ts';
import {
  assembleRhs,
  dot,
  NO_RHS_TERMS,
  springStates,
  type RhsCoefficients,
  type SpringStates,
  type SystemCoefficients,
} from './implicit-passes.ts';
import { solveLinear, type LinearSolveResult, type SolverWorkspace } from './linear-solver.ts';
import { accelerations, springForces, type RealArray } from './passes.ts';

/** Options of the implicit CPU path. */
export interface CpuImplicitOptions extends ImplicitOptions {
  integrator: ImplicitIntegratorName;
  dt: number;
  rayleighMass?: number;
  rayleighStiffness?: number;
  precision?: 'f64' | 'f32';
}

/**
 * The implicit integrators on the CPU: the reference for the WebGPU kernels, float64 by default.
 * Each step's passes are those of the GPU path (spring states → right-hand side → linear solve
 * → update), so a comparison failing points at one kernel.
 */
export class CpuImplicitSimulation implements Simulation {
  readonly backend = 'cpu';
  readonly integrator: ImplicitIntegratorName;
  readonly dt: number;
  readonly model: Model;
  readonly description: string;
  readonly options: ResolvedImplicitOptions;
  private readonly rayleighMass: number;
  /** This scheme's right-hand side and system A = α M + β B + γ K (src/integrators/implicit-schemes.ts). */
  private readonly rhsCoefficients: RhsCoefficients;
  private readonly system: SystemCoefficients;
  private steps = 0;
  private readonly stats: SolverStats = emptyStats();
  private readonly positions: RealArray;
  private readonly velocities: RealArray;
  /** Newton unknown (a), Newmark a_k, or the variational increment `res`. */
  private readonly accelerations: RealArray;
  private readonly startPositions: RealArray;
  private readonly startVelocities: RealArray;
  /** Variational symplectic momentum p. */
  private readonly momenta: RealArray;
  private readonly rhs: RealArray;
  private readonly solution: RealArray;
  private readonly states: SpringStates;
  private readonly work: SolverWorkspace;

  constructor(model: Model, options: CpuImplicitOptions) {
    const { dt, rayleighMass, rayleighStiffness, precision } = resolveStepOptions(options);
    this.model = model;
    this.integrator = options.integrator;
    this.dt = dt;
    this.rayleighMass = rayleighMass;
    this.options = resolveImplicitOptions(options.integrator, options);
    this.rhsCoefficients = rhsCoefficients(
      this.integrator,
      dt,
      rayleighMass,
      rayleighStiffness,
      this.options,
    );
    this.system = systemCoefficients(this.integrator, dt, rayleighMass, rayleighStiffness, this.options);
    this.description = `CPU (TypeScript, ${precision === 'f64' ? 'float64' : 'float32 storage'}), ${this.options.solver}`;
    const real = (length: number): RealArray =>
      precision === 'f64' ? new Float64Array(length) : new Float32Array(length);
    const n3 = 3 * model.particleCount;
    [
      this.positions,
      this.velocities,
      this.accelerations,
      this.startPositions,
      this.startVelocities,
      this.momenta,
      this.rhs,
      this.solution,
    ] = Array.from({ length: 8 }, () => real(n3)) as [
      RealArray,
      RealArray,
      RealArray,
      RealArray,
      RealArray,
      RealArray,
      RealArray,
      RealArray,
    ];
    this.positions.set(model.particlePositions);
    this.velocities.set(model.particleVelocities);
    this.states = {
      force: real(3 * model.springCount),
      jacobian: real(6 * model.springCount),
      direction: real(3 * model.springCount),
    };
    this.work = {
      residual: real(n3),
      direction: real(n3),
      product: real(n3),
      preconditioned: real(n3),
      inverseDiagonal: real(6 * model.particleCount),
    };
    if (this.integrator === 'newmark') {
      // a₀ = M⁻¹ f(x₀, v₀) (spec/README.md), no Rayleigh term.
      const force = real(3 * model.springCount);
      springForces(model, this.positions, this.velocities, force);
      accelerations(model, force, this.velocities, 0, this.accelerations);
    }
    if (this.integrator === 'variational-symplectic-implicit') {
      // p₀ = M v₀.
      for (let k = 0; k < n3; k++)
        this.momenta[k] = model.particleMass[Math.floor(k / 3)]! * this.velocities[k]!;
    }
  }

  get stepCount(): number {
    return this.steps;
  }

  step(steps = 1): void {
    requireStepCount(steps);
    for (let n = 0; n < steps; n++) {
      switch (this.integrator) {
        case 'implicit-euler':
          this.implicitEulerStep();
          break;
        case 'backward-euler':
          this.backwardEulerStep();
          break;
        case 'newmark':
          this.newmarkStep();
          break;
        case 'variational-symplectic-implicit':
          this.variationalStep();
          break;
      }
      this.stats.steps++;
      this.steps++;
    }
  }

  private evaluate(positions: RealArray, velocities: RealArray): void {
    springStates(this.model, positions, velocities, this.options.jacobian === 'exact', this.states);
  }

  private rightHandSide(
    c: Partial<RhsCoefficients>,
    velocities: RealArray,
    extra: RealArray = this.momenta,
  ): void {
    assembleRhs(
      this.model,
      this.states,
      { ...NO_RHS_TERMS, ...c },
      velocities,
      this.accelerations,
      extra,
      this.rhs,
    );
  }

  private solve(system: SystemCoefficients): LinearSolveResult {
    const result = solveLinear(
      this.model,
      this.states,
      system,
      this.options,
      this.rhs,
      this.solution,
      this.work,
    );
    const s = this.stats;
    s.linearSolves++;
    s.linearIterations += result.iterations;
    s.maxLinearIterations = Math.max(s.maxLinearIterations, result.iterations);
    s.lastResidual = result.relativeResidual;
    s.maxResidual = Math.max(s.maxResidual, result.relativeResidual);
    if (!result.converged) s.unconvergedSolves++;
    return result;
  }

  /** ((1 + h r_m) M + h B + h (h + r_k) K) Δv = h (f − ((h + r_k) K + r_m M) v);  v₊ = v + Δv, x₊ = x + h v₊. */
  private implicitEulerStep(): void {
    const h = this.dt;
    const { positions: x, velocities: v } = this;
    this.evaluate(x, v);
    this.rightHandSide(this.rhsCoefficients, v);
    this.solve(this.system);
    for (let k = 0; k < x.length; k++) {
      v[k] = v[k]! + this.solution[k]!;
      x[k] = x[k]! + h * v[k]!;
    }
    this.stats.converged = true;
  }

  /**
   * Newton–Raphson on a (spec/caribou-backward-euler.md): v = v₀ + h a, x = x₀ + h v,
   * G(a) = f(x, v) − M (r_m v + a) − r_k K v,  J = (1 + h r_m) M + h B + h (h + r_k) K,  J δa = G.
   * Stops when ‖δa‖² < tol_c² ‖Σδa‖², ‖G‖² < tol_r² ‖G₁‖² (G₁ after the first iteration) or
   * ‖G‖² < tol_a² (before any iteration too), or after newtonIterations.
   */
  private backwardEulerStep(): void {
    const h = this.dt;
    const o = this.options;
    const { positions: x, velocities: v, accelerations: a, startPositions: x0, startVelocities: v0 } = this;
    x0.set(x);
    v0.set(v);
    a.fill(0);
    const propagate = (): void => {
      for (let k = 0; k < x.length; k++) {
        v[k] = v0[k]! + h * a[k]!;
        x[k] = x0[k]! + h * v[k]!;
      }
    };
    propagate();
    let correction2 = 0;
    let total2 = 0;
    let firstResidual2 = 0;
    let converged = false;
    let iteration = 0;
    for (;;) {
      this.evaluate(x, v);
      this.rightHandSide(this.rhsCoefficients, v);
      const residual2 = dot(this.rhs, this.rhs);
      if (iteration === 0) {
        if (o.absoluteResidualTolerance > 0 && residual2 <= o.absoluteResidualTolerance ** 2)
          converged = true;
      } else {
        if (iteration === 1) firstResidual2 = residual2;
        if (Number.isNaN(residual2) || Number.isNaN(correction2) || total2 <= 0) break; // Caribou: ‖U‖² < ε
        if (o.correctionTolerance > 0 && correction2 < o.correctionTolerance ** 2 * total2) converged = true;
        else if (o.residualTolerance > 0 && residual2 < o.residualTolerance ** 2 * firstResidual2)
          converged = true;
        else if (o.absoluteResidualTolerance > 0 && residual2 < o.absoluteResidualTolerance ** 2)
          converged = true;
      }
      if (converged || iteration === o.newtonIterations) break;
      this.solve(this.system);
      for (let k = 0; k < a.length; k++) a[k] = a[k]! + this.solution[k]!;
      correction2 = dot(this.solution, this.solution);
      total2 = dot(a, a);
      propagate();
      iteration++;
    }
    this.stats.newtonIterations += iteration;
    this.stats.converged = converged;
    if (!converged) this.stats.unconvergedSteps++;
  }

  /**
   * Newmark, linearised at x_k (spec/sofa-ode-solvers.md §3, SOFA NewmarkImplicitSolver):
   * ((1 + hγ r_m) M + hγ B + (h²β + hγ r_k) K) a₊ = f_k − r_m M v − h(1−γ) r_m M a_k
   *   − K ((h + r_k) v + h (h(½ − β) + r_k (1 − γ)) a_k) − h (1 − γ) B a_k,
   * v₊ = v + h ((1 − γ) a_k + γ a₊),  x₊ = x + h v + h² ((½ − β) a_k + β a₊).
   */
  private newmarkStep(): void {
    const h = this.dt;
    const { newmarkGamma: gamma, newmarkBeta: beta } = this.options;
    const { positions: x, velocities: v, accelerations: a } = this;
    this.evaluate(x, v);
    this.rightHandSide(this.rhsCoefficients, v);
    this.solve(this.system);
    const next = this.solution;
    for (let k = 0; k < x.length; k++) {
      x[k] = x[k]! + h * v[k]! + h * h * ((0.5 - beta) * a[k]! + beta * next[k]!);
      v[k] = v[k]! + h * ((1 - gamma) * a[k]! + gamma * next[k]!);
      a[k] = next[k]!;
    }
    this.stats.converged = true;
  }

  /**
   * Implicit variational symplectic, α = ½ (SOFA VariationalSymplecticSolver): Newton on the
   * midpoint increment res, q_i = q₀ + res_i:
   *   ((4/h² + 4 r_m/h) M + (1 + 4 r_k/h) K(q_i)) res_{i+1} = f(q_i, v) + (2/h) p + K(q_i) res_i   (SOFA: addMBKdx with K factor −1 on ∂f/∂x),
   * while (i < newtonIterations and ‖q_{i+1} − q_i‖/‖q₀‖ > newtonError) or i = 0; then
   * v₊ = 2 res/h, p₊ = (h/2) f(q₀ + res, v₊) + M v₊, x₊ = q₀ + 2 res.
   */
  private variationalStep(): void {
    const h = this.dt;
    const o = this.options;
    const {
      positions: x,
      velocities: v,
      accelerations: res,
      startPositions: q0,
      momenta: p,
      solution,
    } = this;
    q0.set(x);
    res.fill(0);
    const q0Norm2 = dot(q0, q0);
    let error = Infinity;
    let iteration = 0;
    while ((iteration < o.newtonIterations && error > o.newtonError) || iteration === 0) {
      this.evaluate(x, v);
      this.rightHandSide(this.rhsCoefficients, v, p);
      this.solve(this.system);
      let change2 = 0;
      for (let k = 0; k < x.length; k++) {
        change2 += (solution[k]! - res[k]!) ** 2;
        res[k] = solution[k]!;
        x[k] = q0[k]! + res[k]!;
      }
      error = q0Norm2 > 0 ? Math.sqrt(change2 / q0Norm2) : Math.sqrt(change2);
      iteration++;
    }
    for (let k = 0; k < x.length; k++) v[k] = (2 / h) * res[k]!;
    this.evaluate(x, v);
    this.rightHandSide({ forceScale: 1 }, v);
    for (let k = 0; k < x.length; k++) {
      p[k] = (h / 2) * this.rhs[k]! + this.model.particleMass[Math.floor(k / 3)]! * v[k]!;
      x[k] = q0[k]! + 2 * res[k]!;
    }
    const converged = error <= o.newtonError;
    this.stats.newtonIterations += iteration;
    this.stats.converged = converged;
    if (!converged) this.stats.unconvergedSteps++;
  }

  advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    return advanceInChunks((n) => this.step(n), steps, onProgress);
  }

  async advanceTo(t: number, onProgress?: (time: number, target: number) => void): Promise<void> {
    const start = this.stepCount;
    return this.advance(stepsTo(t, start, this.dt), (done) => onProgress?.((start + done) * this.dt, t));
  }

  finished(): Promise<void> {
    return Promise.resolve();
  }

  async readState(): Promise<SimulationState> {
    return requireFiniteState({
      step: this.steps,
      time: this.steps * this.dt,
      positions: Float64Array.from(this.positions),
      velocities: Float64Array.from(this.velocities),
      ...(this.integrator === 'variational-symplectic-implicit'
        ? { momenta: Float64Array.from(this.momenta) }
        : {}),
    });
  }

  readSolverStats(): Promise<SolverStats | null> {
    return Promise.resolve({ ...this.stats });
  }

  destroy(): void {}
}
