/**
 * The implicit ops of the CPU executor (src/integrators/program.ts): `jacobians`, `rhs`, `solve`,
 * `measure` and `newton`, over the passes of implicit-passes.ts and the solvers of
 * linear-solver.ts, which mirror the WGSL kernels pass for pass. Keeps the solver statistics.
 */
import { emptyStats, type SolverStats } from '../../integrators/implicit-options.ts';
import { coefficientAt, type NewtonQuantity, type Op } from '../../integrators/program.ts';
import type { ResolvedImplicitOptions } from '../../integrators/implicit-options.ts';
import type { Model } from '../../model/model.ts';
import { unitRoundoff, type RealArray } from '../common/stepper.ts';
import {
  assembleRhs,
  systemProduct,
  dot,
  springStates,
  type SpringStates,
  type SystemCoefficients,
} from './implicit-passes.ts';
import { solverStorage, solveLinear, type SolverWorkspace } from './linear-solver.ts';
import type { CpuContacts } from './contacts.ts';
import { RELEASE_NOW_FRACTION } from '../../model/colliders.ts';
import { resumedIterations } from '../../integrators/contact-programs.ts';
import type { CpuSelfContact } from './self-contact.ts';

type ImplicitOp = Extract<
  Op,
  {
    op:
      | 'jacobians'
      | 'rhs'
      | 'solve'
      | 'measure'
      | 'newton'
      | 'contacts'
      | 'contactForces'
      | 'contactFilter'
      | 'contactFriction';
  }
>;

export class CpuImplicitOps {
  readonly stats: SolverStats = emptyStats();
  /** Newton iterations in loops counted as the error estimator's. */
  estimatorIterations = 0;
  readonly states: SpringStates;
  private readonly work: SolverWorkspace;
  /** The squared norms of the current Newton loop's quantities. */
  private readonly measured: Record<NewtonQuantity, number> = {
    residual: 0,
    correction: 0,
    total: 0,
    start: 0,
    change: Infinity,
  };
  /** ‖R₁‖², the residual after the first Newton iteration (caribou). */
  private firstResidual2 = 0;
  /** The unit round-off u of the storage (caribou's round-off floor): 2⁻²⁴ float32, 2⁻⁵³ float64. */
  private readonly unitRoundoff: number;
  /** The system of the last solve (for its contact forces). */
  private lastSystem: SystemCoefficients | null = null;
  /** The last solve's reference ‖·‖² (a resumed solve measures against it). */
  private lastReference = 0;

  constructor(
    private readonly model: Model,
    private readonly options: ResolvedImplicitOptions,
    private readonly real: (length: number) => RealArray,
    private readonly vector: (name: string) => RealArray,
    private readonly run: (ops: readonly Op[]) => void,
    private readonly contacts: CpuContacts | null = null,
    selfContact: CpuSelfContact | null = null,
  ) {
    ({ states: this.states, work: this.work } = solverStorage(model, real, options.solver === 'multigrid'));
    this.unitRoundoff = unitRoundoff(real);
    this.states.selfContact = selfContact;
  }

  /**
   * Rebuilds the multigrid hierarchy from the model's fixed flags now (after a particle it held as
   * free was pinned: a V-cycle would otherwise prolong a correction onto it).
   */
  rebuildMultigrid(): void {
    const rebuilt = solverStorage(this.model, this.real, true).work.multigrid;
    if (this.work.multigrid && rebuilt) this.work.multigrid = rebuilt;
  }

  apply(op: ImplicitOp, h: number): void {
    const v = this.vector;
    switch (op.op) {
      case 'jacobians':
        return springStates(this.model, v(op.x), v(op.v), this.options.jacobian === 'exact', this.states);
      case 'rhs':
        return assembleRhs(this.model, this.states, op.coefficients(h), v(op.v), v(op.a), v(op.extra), v(op.to));
      case 'solve':
        return this.solve(v(op.rhs), v(op.to), op.system(h), op.resume === true);
      case 'measure':
        for (const [quantity, name] of Object.entries(op.quantities)) {
          const u = v(name);
          this.measured[quantity as NewtonQuantity] = dot(u, u);
        }
        return;
      case 'newton':
        return this.newton(op, h);
      case 'contacts':
        if (op.detect) this.contacts!.detect(v(op.x), v(op.v), h, op.stick === true);
        this.contacts!.constrain(v(op.base), coefficientAt(op.scale, h), v(op.x));
        this.work.constraints = this.contacts;
        return;
      case 'contactFilter':
        return this.contacts!.filter(v(op.vector), v(op.from ?? op.vector));
      case 'contactForces': {
        const [c, impulse] = [coefficientAt(op.scale, h), coefficientAt(op.impulse, h)];
        return this.contactForces(v(op.solution), v(op.rhs), v(op.base), v(op.x), c, impulse, op.friction, op.release === true); // prettier-ignore
      }
      case 'contactFriction':
        return this.contacts!.friction(v(op.solution), v(op.base), v(op.x), coefficientAt(op.scale, h), coefficientAt(op.impulse, h)); // prettier-ignore
    }
  } // prettier-ignore

  /** The last constrained solve's constraint forces (A Δv − b): releases and friction (contacts.ts). */
  private contactForces(
    solution: RealArray,
    b: RealArray,
    base: RealArray,
    x: RealArray,
    c: number,
    impulse: number,
    friction: boolean,
    release: boolean,
  ): void {
    if (!this.work.constraints || !this.lastSystem) return;
    const q = this.work.product;
    systemProduct(this.model, this.states, this.lastSystem, solution, q);
    this.contacts!.respond(q, b, solution, base, x, c, impulse, friction, release ? { margin: RELEASE_NOW_FRACTION, residual: this.work.residual } : undefined); // prettier-ignore
    // Released at once: the resumed solve runs with the contacts left.
    if (!release) this.work.constraints = null;
  }

  /** A solve, or with `resume` the last one continued from x to its reference (program.ts). */
  private solve(b: RealArray, x: RealArray, system: SystemCoefficients, resume: boolean): void {
    this.lastSystem = system;
    const reference = resume ? this.lastReference : undefined;
    const options = resume ? { ...this.options, maxIterations: resumedIterations(this.options.maxIterations) } : this.options; // prettier-ignore
    const result = solveLinear(this.model, this.states, system, options, b, x, this.work, reference);
    this.lastReference = result.reference;
    // A resumed solve with nothing to do (no contact released) is no solve.
    if (resume && result.iterations === 0 && result.converged) return;
    const s = this.stats;
    s.linearSolves++;
    s.linearIterations += result.iterations;
    s.maxLinearIterations = Math.max(s.maxLinearIterations, result.iterations);
    s.lastResidual = result.relativeResidual;
    s.maxResidual = Math.max(s.maxResidual, result.relativeResidual);
    if (!result.converged) s.unconvergedSolves++;
  }

  /** begin; for i = 0, 1, …: residual, check, update (program.ts `newton`). */
  private newton(op: Extract<Op, { op: 'newton' }>, h: number): void {
    this.measured.change = Infinity;
    this.run(op.begin);
    let iteration = 0;
    let outcome: 'go' | 'converged' | 'unconverged';
    for (;;) {
      this.run(op.residual);
      outcome = op.criterion === 'caribou' ? this.caribou(iteration, (op.stepFraction ?? 1) * h) : this.variational(iteration); // prettier-ignore
      if (outcome !== 'go') break;
      this.run(op.update);
      iteration++;
    }
    this.stats.newtonIterations += iteration;
    if (op.estimator) this.estimatorIterations += iteration;
    this.stats.converged = outcome === 'converged';
    if (outcome !== 'converged') this.stats.unconvergedSteps++;
  }

  /**
   * spec/caribou-backward-euler.md: squared norms against squared tolerances; and the round-off
   * floor (program.ts NewtonCriterion), (h² ‖δa‖)² ≤ u² ‖x₀‖², for the loop's step h.
   */
  private caribou(i: number, h: number): 'go' | 'converged' | 'unconverged' {
    const o = this.options;
    const { residual: r2, correction: c2, total: t2, start: x2 } = this.measured;
    const [tc, tr, ta] = [o.correctionTolerance, o.residualTolerance, o.absoluteResidualTolerance];
    if (i === 0) {
      if (ta > 0 && r2 <= ta * ta) return 'converged';
    } else {
      if (i === 1) this.firstResidual2 = r2;
      if (Number.isNaN(r2) || Number.isNaN(c2) || t2 <= 0) return 'unconverged'; // Caribou: ‖U‖² < ε
      if (tc > 0 && c2 < tc * tc * t2) return 'converged';
      if (tr > 0 && r2 < tr * tr * this.firstResidual2) return 'converged';
      if (ta > 0 && r2 < ta * ta) return 'converged';
      if (h ** 4 * c2 <= this.unitRoundoff ** 2 * x2) return 'converged';
    }
    return i >= o.newtonIterations ? 'unconverged' : 'go';
  }

  /** SOFA: while ((i < max and ‖Δq‖/‖q₀‖ > newtonError) or i = 0). */
  private variational(i: number): 'go' | 'converged' | 'unconverged' {
    const o = this.options;
    const { start, change } = this.measured;
    const error = start > 0 ? Math.sqrt(change / start) : Math.sqrt(change);
    if ((i < o.newtonIterations && error > o.newtonError) || i === 0) return 'go';
    return error <= o.newtonError ? 'converged' : 'unconverged';
  }
}
