/**
 * Matrix-free linear solvers of the CPU reference, the same iterations as
 * shaders/linear-solver.wgsl: filtered (fixed particles projected out), zero initial guess.
 */
import type { Model } from '../../model/model.ts';
import type { ResolvedImplicitOptions } from '../../integrators/implicit-options.ts';
import {
  applyPreconditioner,
  diagonalInverse,
  dot,
  symmetric,
  systemProduct,
  type SpringStates,
  type SystemCoefficients,
} from './implicit-passes.ts';
import type { RealArray } from './passes.ts';
import { buildMultigridHierarchy } from '../../model/multigrid-hierarchy.ts';
import { CpuMultigrid } from './multigrid.ts';
import { CpuBending } from './bending.ts';

export interface LinearSolveResult {
  iterations: number;
  /** ‖b − A x‖ / ‖b‖ as tracked by the iteration (0 when b = 0). */
  relativeResidual: number;
  converged: boolean;
  /** CG met p·Ap ≤ 0: the matrix is not positive definite (e.g. an exact Jacobian under compression). */
  breakdown: boolean;
  /** The squared norm the residual is measured against (‖b‖², or ‖S (b − A x₀)‖² when constrained). */
  reference: number;
}

export interface SolverWorkspace {
  residual: RealArray;
  direction: RealArray;
  product: RealArray;
  preconditioned: RealArray;
  inverseDiagonal: RealArray;
  /** The multigrid preconditioner ('multigrid' solves only). */
  multigrid?: CpuMultigrid;
  /**
   * Contact constraints of the next solve (contacts.ts): x₀ = z and every residual, preconditioned
   * residual and product filtered (Baraff & Witkin 1998 §5.3); null when there are none.
   */
  constraints?: Constraints | null;
}

/** What a constrained solve needs of the contacts: x₀ = z, and u ← S u. */
export interface Constraints {
  start(x: RealArray): void;
  filter(u: RealArray): void;
  /** Per particle 1 where constrained, and its contact normal [3n] (contacts.ts). */
  readonly active: ArrayLike<number>;
  readonly normal: ArrayLike<number>;
  /** Per particle 1 where held in all three directions (static friction). */
  readonly sticking: ArrayLike<number>;
}

/** The solver's and the spring states' storage for `model`, in the given precision. */
export function solverStorage(
  model: Model,
  real: (length: number) => RealArray,
  multigrid = false,
): { states: SpringStates; work: SolverWorkspace } {
  const n3 = 3 * model.particleCount;
  const s = model.springCount;
  return {
    states: { force: real(3 * s), jacobian: real(6 * s), direction: real(3 * s), bending: model.bending ? new CpuBending(model, real) : null }, // prettier-ignore
    work: {
      residual: real(n3),
      direction: real(n3),
      product: real(n3),
      preconditioned: real(n3),
      inverseDiagonal: real(6 * model.particleCount),
      ...(multigrid ? { multigrid: new CpuMultigrid(model, buildMultigridHierarchy(model), real) } : {}),
    },
  };
}

/**
 * Solves A x = b. CG: Hestenes–Stiefel with z = P⁻¹ r, P the identity ('cg'), the diagonal
 * blocks ('pcg') or one multigrid V-cycle ('multigrid', multigrid.ts); Jacobi: x ← x + D⁻¹ (b − A x),
 * its residual measured before each update.
 */
export function solveLinear(
  model: Model,
  states: SpringStates,
  system: SystemCoefficients,
  options: Pick<ResolvedImplicitOptions, 'solver' | 'preconditioner' | 'maxIterations' | 'tolerance'> & {
    warmStart?: boolean;
  },
  b: RealArray,
  x: RealArray,
  work: SolverWorkspace,
  resumeReference?: number,
): LinearSolveResult {
  const { residual: r, direction: p, product: q, preconditioned: z, inverseDiagonal, multigrid } = work;
  const usesDiagonal = options.solver === 'pcg' || options.solver === 'jacobi';
  if (usesDiagonal)
    diagonalInverse(model, states, system, options.preconditioner === 'block', inverseDiagonal);
  if (options.solver === 'multigrid') {
    if (!multigrid) throw new Error("a 'multigrid' solve needs a workspace made with multigrid");
    // Resumed too: contacts released or sliding since change the penalty P. Here only the
    // preconditioner reads it; on WebGPU CG's product does too (implicit-ops.ts multigridSolve).
    multigrid.assemble(states, system, work.constraints ?? null);
  }
  const S = work.constraints ?? null;
  const precondition = (from: RealArray, to: RealArray): void => {
    if (multigrid && options.solver === 'multigrid') multigrid.precondition(from, to);
    else applyPreconditioner(model, inverseDiagonal, usesDiagonal, from, to);
    S?.filter(to);
  };
  // Resumed (contacts released after a solve: program.ts `solve`): from x as it is, against the
  // reference of the solve it resumes.
  const resumed = resumeReference !== undefined;
  if (S && !resumed) S.start(x);
  else if (!S && !options.warmStart && !resumed) x.fill(0);
  // The reference of the relative residual: ‖b‖, or ‖S (b − A x₀)‖ when constrained (below).
  let bb = resumeReference ?? dot(b, b);
  const done = (rr: number, iterations = 0) => ({ iterations, relativeResidual: bb > 0 ? Math.sqrt(rr / bb) : 0, converged: true, breakdown: false, reference: bb }); // prettier-ignore
  if (bb === 0 && !S) return done(0);

  if (options.solver === 'jacobi') return jacobiSolve(model, states, system, options.maxIterations, bb, options.tolerance, b, x, work, resumed); // prettier-ignore

  // r₀ = S (b − A x₀) (x₀ = 0: r₀ = b); resumed, the residual the resumed solve ended with, the
  // released contacts' −λ n added back (contacts.ts `respond`).
  if (resumed) {
    // r as the resumed solve left it (filtered there but at the released contacts)
  } else if (S || options.warmStart) {
    systemProduct(model, states, system, x, q);
    for (let j = 0; j < r.length; j++) r[j] = b[j]! - q[j]!;
    S?.filter(r);
  } else r.set(b);
  let rr = dot(r, r);
  if (S && !resumed) bb = rr; // constrained: relative to the first filtered residual (as the GPU's cg-init)
  // Resumed: done at once within the resumed solve's tolerance, else against the larger of its
  // reference and r₀·r₀ (its reference may be 0: all of its residual filtered).
  if (rr === 0 || (resumed && rr <= options.tolerance * options.tolerance * bb)) return done(rr);
  if (resumed) bb = Math.max(bb, rr);
  const tolerance2 = options.tolerance * options.tolerance * bb;
  precondition(r, z);
  p.set(z);
  let rz = dot(r, z);
  for (let k = 1; k <= options.maxIterations; k++) {
    systemProduct(model, states, system, p, q);
    S?.filter(q);
    const pq = dot(p, q);
    if (!(pq > 0))
      return { iterations: k - 1, relativeResidual: Math.sqrt(rr / bb), converged: false, breakdown: true, reference: bb }; // prettier-ignore
    const alpha = rz / pq;
    for (let j = 0; j < x.length; j++) {
      x[j] = x[j]! + alpha * p[j]!;
      r[j] = r[j]! - alpha * q[j]!;
    }
    precondition(r, z);
    const rzNext = dot(r, z);
    rr = dot(r, r);
    if (rr <= tolerance2) return done(rr, k);
    const beta = rzNext / rz;
    rz = rzNext;
    for (let j = 0; j < p.length; j++) p[j] = z[j]! + beta * p[j]!;
  }
  return {
    iterations: options.maxIterations,
    relativeResidual: Math.sqrt(rr / bb),
    converged: false,
    breakdown: false,
    reference: bb,
  };
}

/**
 * On a particle constrained along n, block Jacobi's step solves D_i's restriction to the tangent
 * plane, not S D_i⁻¹ S: z = D⁻¹ r − (D⁻¹ n) (n·D⁻¹ r) / (n·D⁻¹ n) (r tangential; then n·z = 0),
 * the inverse of D_i on {n·z = 0} (its Schur complement form). `z` holds D⁻¹ r on entry.
 */
function tangentSolve(S: Constraints, inverse: RealArray, z: RealArray): void {
  for (let i = 0; i < S.active.length; i++) {
    if (S.active[i] !== 1) continue;
    const k = 3 * i;
    const n = [S.normal[k]!, S.normal[k + 1]!, S.normal[k + 2]!] as const;
    const w = symmetric(inverse, 6 * i, n[0], n[1], n[2]);
    const nw = n[0] * w[0] + n[1] * w[1] + n[2] * w[2];
    if (!(nw > 0)) continue;
    const scale = (n[0] * z[k]! + n[1] * z[k + 1]! + n[2] * z[k + 2]!) / nw;
    for (let d = 0; d < 3; d++) z[k + d] = z[k + d]! - scale * w[d]!;
  }
}

/** Block Jacobi x ← x + D⁻¹ (b − A x), its residual measured before each update (D⁻¹ in `work`). */
function jacobiSolve(
  model: Model,
  states: SpringStates,
  system: SystemCoefficients,
  maxIterations: number,
  reference: number,
  tolerance: number,
  b: RealArray,
  x: RealArray,
  work: SolverWorkspace,
  resumed: boolean,
): LinearSolveResult {
  const { residual: r, product: q, preconditioned: z, inverseDiagonal } = work;
  const S = work.constraints ?? null;
  let [bb, rr] = [reference, reference];
  for (let k = 1; k <= maxIterations; k++) {
    systemProduct(model, states, system, x, q);
    for (let j = 0; j < r.length; j++) r[j] = b[j]! - q[j]!;
    S?.filter(r);
    rr = dot(r, r);
    if (k === 1 && S && !resumed) bb = rr;
    if (k === 1 && resumed && rr <= tolerance * tolerance * bb) return { iterations: 0, relativeResidual: bb > 0 ? Math.sqrt(rr / bb) : 0, converged: true, breakdown: false, reference: bb }; // prettier-ignore
    if (k === 1 && resumed) bb = Math.max(bb, rr);
    const tolerance2 = tolerance * tolerance * bb;
    if (!Number.isFinite(rr)) break; // NaN or Inf cannot recover: unconverged, as on the GPU
    applyPreconditioner(model, inverseDiagonal, true, r, z);
    if (S) tangentSolve(S, inverseDiagonal, z);
    S?.filter(z);
    for (let j = 0; j < x.length; j++) x[j] = x[j]! + z[j]!;
    if (rr <= tolerance2) return { iterations: k, relativeResidual: Math.sqrt(rr / bb), converged: true, breakdown: false, reference: bb }; // prettier-ignore
  }
  return {
    iterations: maxIterations,
    relativeResidual: Math.sqrt(rr / bb),
    converged: false,
    breakdown: false,
    reference: bb,
  };
}
