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
  systemProduct,
  type SpringStates,
  type SystemCoefficients,
} from './implicit-passes.ts';
import type { RealArray } from './passes.ts';

export interface LinearSolveResult {
  iterations: number;
  /** ‖b − A x‖ / ‖b‖ as tracked by the iteration (0 when b = 0). */
  relativeResidual: number;
  converged: boolean;
  /** CG met p·Ap ≤ 0: the matrix is not positive definite (e.g. an exact Jacobian under compression). */
  breakdown: boolean;
}

export interface SolverWorkspace {
  residual: RealArray;
  direction: RealArray;
  product: RealArray;
  preconditioned: RealArray;
  inverseDiagonal: RealArray;
}

/** The solver's and the spring states' storage for `model`, in the given precision. */
export function solverStorage(
  model: Model,
  real: (length: number) => RealArray,
): { states: SpringStates; work: SolverWorkspace } {
  const n3 = 3 * model.particleCount;
  const s = model.springCount;
  return {
    states: { force: real(3 * s), jacobian: real(6 * s), direction: real(3 * s) },
    work: {
      residual: real(n3),
      direction: real(n3),
      product: real(n3),
      preconditioned: real(n3),
      inverseDiagonal: real(6 * model.particleCount),
    },
  };
}

/**
 * Solves A x = b. CG: Hestenes–Stiefel with z = P⁻¹ r; Jacobi: x ← x + D⁻¹ (b − A x), its
 * residual measured before each update.
 */
export function solveLinear(
  model: Model,
  states: SpringStates,
  system: SystemCoefficients,
  options: Pick<ResolvedImplicitOptions, 'solver' | 'preconditioner' | 'maxIterations' | 'tolerance'>,
  b: RealArray,
  x: RealArray,
  work: SolverWorkspace,
): LinearSolveResult {
  const { residual: r, direction: p, product: q, preconditioned: z, inverseDiagonal } = work;
  const usesDiagonal = options.solver !== 'cg';
  if (usesDiagonal)
    diagonalInverse(model, states, system, options.preconditioner === 'block', inverseDiagonal);
  x.fill(0);
  const bb = dot(b, b);
  const tolerance2 = options.tolerance * options.tolerance * bb;
  if (bb === 0) return { iterations: 0, relativeResidual: 0, converged: true, breakdown: false };

  if (options.solver === 'jacobi') {
    let rr = bb;
    for (let k = 1; k <= options.maxIterations; k++) {
      systemProduct(model, states, system, x, q);
      for (let j = 0; j < r.length; j++) r[j] = b[j]! - q[j]!;
      rr = dot(r, r);
      applyPreconditioner(model, inverseDiagonal, true, r, z);
      for (let j = 0; j < x.length; j++) x[j] = x[j]! + z[j]!;
      if (rr <= tolerance2)
        return { iterations: k, relativeResidual: Math.sqrt(rr / bb), converged: true, breakdown: false };
    }
    return {
      iterations: options.maxIterations,
      relativeResidual: Math.sqrt(rr / bb),
      converged: false,
      breakdown: false,
    };
  }

  r.set(b);
  applyPreconditioner(model, inverseDiagonal, usesDiagonal, r, z);
  p.set(z);
  let rz = dot(r, z);
  let rr = bb;
  for (let k = 1; k <= options.maxIterations; k++) {
    systemProduct(model, states, system, p, q);
    const pq = dot(p, q);
    if (!(pq > 0))
      return { iterations: k - 1, relativeResidual: Math.sqrt(rr / bb), converged: false, breakdown: true };
    const alpha = rz / pq;
    for (let j = 0; j < x.length; j++) {
      x[j] = x[j]! + alpha * p[j]!;
      r[j] = r[j]! - alpha * q[j]!;
    }
    applyPreconditioner(model, inverseDiagonal, usesDiagonal, r, z);
    const rzNext = dot(r, z);
    rr = dot(r, r);
    if (rr <= tolerance2)
      return { iterations: k, relativeResidual: Math.sqrt(rr / bb), converged: true, breakdown: false };
    const beta = rzNext / rz;
    rz = rzNext;
    for (let j = 0; j < p.length; j++) p[j] = z[j]! + beta * p[j]!;
  }
  return {
    iterations: options.maxIterations,
    relativeResidual: Math.sqrt(rr / bb),
    converged: false,
    breakdown: false,
  };
}
