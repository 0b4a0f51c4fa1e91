import type { SelfContactStats } from '../model/self-collision.ts';

/** The implicit integrators (spec/sofa-ode-solvers.md, spec/caribou-backward-euler.md, spec/README.md errata). */
export const IMPLICIT_INTEGRATORS = {
  'implicit-euler': {
    order: 1,
    summary:
      'Baraff–Witkin linearised implicit Euler: ((1 + h r_m) M + h B + h (h + r_k) K) Δv = h (f − ((h + r_k) K + r_m M) v), x₊ = x + h v₊. Stable at large steps; damps.',
  },
  'backward-euler': {
    order: 1,
    summary:
      'Backward Euler by Newton–Raphson on the acceleration (Caribou): v = v₀ + h a, x = x₀ + h v, J = (1 + h r_m) M + h B + h (h + r_k) K, correction / relative / absolute residual criteria.',
  },
  newmark: {
    order: 2,
    summary:
      'Newmark (γ = ½, β = ¼ by default: trapezoidal, unconditionally stable for linear problems, no numerical damping), one linear solve per step linearised at x_k (SOFA).',
  },
  'variational-symplectic-implicit': {
    order: 2,
    summary:
      'Implicit variational symplectic (α = ½, SOFA): Newton on the midpoint increment, (4/h² + 4 r_m/h) M + (1 + 4 r_k/h) K; momentum p₊ = M v₊ + (h/2) f(x + h v₊/2). Conserves the Hamiltonian of undamped systems; spring damping is explicit in it (as in SOFA), so stiff damped cloths need small steps.',
  },
} as const satisfies Record<string, { order: number; summary: string }>;

/** The integrators that solve a linear system per step or Newton iteration (family `implicit`). */
export type ImplicitIntegratorName = keyof typeof IMPLICIT_INTEGRATORS;
export const IMPLICIT_INTEGRATOR_NAMES = Object.keys(IMPLICIT_INTEGRATORS) as ImplicitIntegratorName[];

export function isImplicit(name: string): name is ImplicitIntegratorName {
  return Object.hasOwn(IMPLICIT_INTEGRATORS, name);
}

/** Linear solver of the implicit integrators. */
export type LinearSolverName = 'cg' | 'pcg' | 'jacobi' | 'multigrid';

/**
 * Options of the implicit integrators; every one has a default. Units are SI.
 */
export interface ImplicitOptions {
  /**
   * Linear solver: 'cg' (conjugate gradient), 'pcg' (CG preconditioned by the diagonal),
   * 'jacobi' (block-Jacobi iteration; converges only where the matrix is diagonally dominant
   * enough), 'multigrid' (CG preconditioned by an aggregation-multigrid V-cycle: iterations
   * nearly independent of the cloth's size), or 'auto' (the default): 'multigrid' from
   * `AUTO_MULTIGRID_PARTICLES` (4,096) particles, else 'pcg'. All are matrix-free over the
   * per-particle spring lists, and filtered: fixed particles' components are projected out, not
   * given huge masses.
   */
  solver?: LinearSolverName | 'auto';
  /** Preconditioner of 'pcg' (and the diagonal of 'jacobi'): 3×3 blocks or scalars. Default 'block'. */
  preconditioner?: 'block' | 'scalar';
  /**
   * Start each linear solve from the last solution of the same solve — for single-solve schemes
   * the previous step's, a good guess when the motion is smooth — instead of 0 (r₀ = b − A x₀).
   * Default false.
   */
  warmStart?: boolean;
  /** Most linear-solver iterations per solve. Default 200. */
  maxIterations?: number;
  /**
   * Relative residual ‖b − A x‖ / ‖b‖ at which a linear solve stops. Default 1e-5. The WebGPU path
   * computes in float32, where relative residuals below about 1e-6 are not reachable: it uses
   * max(tolerance, 1e-6) and reports the residual it reached.
   */
  tolerance?: number;
  /**
   * Spring stiffness Jacobian: 'clamped' drops the geometric term of compressed springs
   * (Choi & Ko 2002), which keeps K positive semi-definite and the system SPD, so CG is safe;
   * 'exact' keeps it (may be indefinite: CG then reports a breakdown). Default 'clamped'.
   */
  jacobian?: 'clamped' | 'exact';
  /** Most Newton iterations per step (backward-euler, variational-symplectic-implicit). Default 10. */
  newtonIterations?: number;
  /**
   * backward-euler: stop when ‖δa‖ ≤ tol ‖Σ δa‖ (correction). Default 1e-4; ≤ 0 disables.
   * (Caribou's default is 1e-5 with a direct solver in float64; Weft's iterative solves stop at a
   * relative residual of `tolerance`, 1e-5, and in float32, so corrections stall near 1e-5.)
   */
  correctionTolerance?: number;
  /** backward-euler: stop when ‖R‖ ≤ tol ‖R₁‖, R₁ the residual after the first iteration. Default 1e-4; ≤ 0 disables. */
  residualTolerance?: number;
  /** backward-euler: stop when ‖R‖ ≤ tol (also: no Newton step when the initial residual is below it). Default 1e-15; ≤ 0 disables. */
  absoluteResidualTolerance?: number;
  /** variational-symplectic-implicit: stop when ‖q_i − q_{i−1}‖ / ‖q₀‖ ≤ newtonError. Default 1e-5. */
  newtonError?: number;
  /** Newmark γ. Default 0.5. */
  newmarkGamma?: number;
  /** Newmark β. Default 0.25. */
  newmarkBeta?: number;
  /**
   * Static friction inside the solve (implicit Euler, Newmark, backward Euler with colliders): a
   * contact starts each step sticking — held in all three directions, moving with the surface
   * (Baraff & Witkin 1998 §5.3) — and slides, with Coulomb friction after the solve, only where
   * its constraint force leaves the friction cone |f_t| ≤ μ λ (the solve then resumes without
   * its tangential constraint). false: every contact slides, friction only after the solve.
   * Default true.
   */
  staticFriction?: boolean;
}

export type ResolvedImplicitOptions = Required<Omit<ImplicitOptions, 'solver'>> & {
  solver: LinearSolverName;
};

/**
 * From how many particles solver 'auto' is 'multigrid': where it wins. Implicit Euler at dt = 1/60
 * on issue 10's cloth, CG iterations multigrid / pcg: 11 / 93 at 32², 14 / 194 at 64²; a V-cycle
 * costs ~8 products on the CPU (~6 on WebGPU, in dispatches), so at 32² the two tie and from 64²
 * (4,096 particles) multigrid is about 2× faster, growing with N (README, Multigrid).
 */
export const AUTO_MULTIGRID_PARTICLES = 4096;

/** Statistics of the implicit solves since the simulation was created. */
export interface SolverStats {
  /** Steps taken. */
  steps: number;
  /** Linear solves done. */
  linearSolves: number;
  /** Linear-solver iterations, in all solves. */
  linearIterations: number;
  /** Most iterations one solve took. */
  maxLinearIterations: number;
  /** Relative residual ‖b − A x‖/‖b‖ of the last solve. */
  lastResidual: number;
  /** Largest relative residual any solve ended with. */
  maxResidual: number;
  /** Solves that stopped at maxIterations (or broke down) above the tolerance. */
  unconvergedSolves: number;
  /** Newton iterations, in all steps (0 for single-solve schemes). */
  newtonIterations: number;
  /** Steps whose Newton loop ended without meeting its criteria (backward-euler, variational-symplectic-implicit). */
  unconvergedSteps: number;
  /** Whether the last step's Newton loop converged (always true for single-solve schemes). */
  converged: boolean;
  /** What self-collision did in the last step (models with `selfCollision` only). */
  selfContact?: SelfContactStats;
}

export function emptyStats(): SolverStats {
  return {
    steps: 0,
    linearSolves: 0,
    linearIterations: 0,
    maxLinearIterations: 0,
    lastResidual: 0,
    maxResidual: 0,
    unconvergedSolves: 0,
    newtonIterations: 0,
    unconvergedSteps: 0,
    converged: true,
  };
}
