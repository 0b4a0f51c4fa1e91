/**
 * The programs of the implicit integrators (spec/sofa-ode-solvers.md §2–4,
 * spec/caribou-backward-euler.md): spring Jacobians, a right-hand side, a linear solve and
 * combinations, with Newton loops for backward Euler and the variational scheme. Their
 * coefficients are those of src/integrators/implicit-schemes.ts; both backends run them unchanged.
 *
 * Vector names every implicit program shares (the kernel-level tests read them by these names):
 * `a` (Newmark's a_k, Newton's a, or the variational increment res), `p` (momenta), `b`
 * (right-hand side), `s` (solution).
 */
import type { ImplicitIntegratorName, ResolvedImplicitOptions } from './implicit-options.ts';
import { NO_RHS_TERMS, rhsCoefficients, systemCoefficients } from './implicit-schemes.ts';
import type { Op, Program } from './program.ts';

const jacobians: Op = { op: 'jacobians', x: 'x', v: 'v' };

/**
 * ((1 + h r_m) M + h B + h (h + r_k) K) Δv = h (f − ((h + r_k) K + r_m M) v),
 * v₊ = v + Δv, x₊ = x + h v₊ (Baraff & Witkin 1998; SOFA EulerImplicitSolver).
 */
const implicitEuler = (rhs: Op, solve: Op): Op[] => [
  jacobians,
  rhs,
  solve,
  { op: 'combine', outputs: [{ to: 'v', terms: [[1, 'v'], [1, 's']] }, { to: 'x', terms: [[1, 'x'], [(h) => h, 'v'], [(h) => h, 's']] }] },
]; // prettier-ignore

/**
 * Newmark linearised at x_k (SOFA NewmarkImplicitSolver): A a₊ = b (implicit-schemes.ts), then
 * x₊ = x + h v + h² ((½ − β) a_k + β a₊), v₊ = v + h ((1 − γ) a_k + γ a₊), a_k ← a₊.
 */
function newmark(rhs: Extract<Op, { op: 'rhs' }>, solve: Op, o: ResolvedImplicitOptions): Op[] {
  const { newmarkGamma: g, newmarkBeta: b } = o;
  // The wind (no Jacobian in A) at the predicted end state x + h v + ½ h² a_k, v + h a_k and time
  // t_n + h: within O(h³) and O(h²) of (x₊, v₊), so a₊ keeps O(h²) and the scheme its second order
  // (taken at (x, v, t_n) it is first order: measured 1.03).
  const windAt = { x: [[1, 'x'], [(h: number) => h, 'v'], [(h: number) => (h * h) / 2, 'a']], v: [[1, 'v'], [(h: number) => h, 'a']] } as const; // prettier-ignore
  return [
    jacobians,
    { ...rhs, stage: 1, windAt },
    solve,
    { op: 'combine', outputs: [
      { to: 'x', terms: [[1, 'x'], [(h) => h, 'v'], [(h) => h * h * (0.5 - b), 'a'], [(h) => h * h * b, 's']] },
      { to: 'v', terms: [[1, 'v'], [(h) => h * (1 - g), 'a'], [(h) => h * g, 's']] },
    ] },
    { op: 'combine', outputs: [{ to: 'a', terms: [[1, 's']] }] },
  ]; // prettier-ignore
}

/**
 * Backward Euler by Newton on a (Caribou): v = v₀ + h a, x = x₀ + h v, G(a) = the right-hand
 * side, J δa = G, a ← a + δa; stops by the 'caribou' criterion.
 */
const backwardEuler = (rhs: Op, solve: Op): Op[] => [
  {
    op: 'newton',
    criterion: 'caribou',
    begin: [
      { op: 'combine', outputs: [{ to: 'x0', terms: [[1, 'x']] }, { to: 'v0', terms: [[1, 'v']] }] },
      { op: 'combine', outputs: [{ to: 'a', terms: [] }, { to: 'x', terms: [[1, 'x'], [(h) => h, 'v']] }] },
    ],
    residual: [jacobians, rhs, { op: 'measure', quantities: { residual: 'b' } }],
    update: [
      solve,
      { op: 'combine', outputs: [{ to: 'a', terms: [[1, 'a'], [1, 's']] }] },
      { op: 'combine', outputs: [{ to: 'v', terms: [[1, 'v0'], [(h) => h, 'a']] }, { to: 'x', terms: [[1, 'x0'], [(h) => h, 'v0'], [(h) => h * h, 'a']] }] },
      { op: 'measure', quantities: { correction: 's', total: 'a', start: 'x0' } },
    ],
  },
]; // prettier-ignore

/**
 * Implicit variational symplectic, α = ½ (SOFA VariationalSymplecticSolver): Newton on the
 * midpoint increment res (`a`), q_i = q₀ + res_i, A res_{i+1} = f(q_i, v) + (2/h) p + K res_i;
 * then v₊ = 2 res/h, p₊ = (h/2) f(q₀ + res, v₊) + M v₊, x₊ = q₀ + 2 res.
 * The solve's unknown is res's departure from the step's start velocity, δ = res − (h/2) v
 * (A δ = the right-hand side − A (h/2) v: implicit-schemes.ts), so a pinned particle, whose row
 * the solve filters (δ = 0), moves at the velocity it holds, res = (h/2) v, as in every other
 * scheme (a kinematic target's; with res itself filtered to 0 it stood still through a call).
 */
const variational = (rhs: Op, solve: Op): Op[] => [
  {
    op: 'newton',
    criterion: 'variational',
    begin: [
      { op: 'combine', outputs: [{ to: 'x0', terms: [[1, 'x']] }, { to: 'a', terms: [] }] },
      { op: 'measure', quantities: { start: 'x0' } },
    ],
    residual: [],
    update: [
      jacobians,
      rhs,
      solve,
      { op: 'combine', outputs: [{ to: 'd', terms: [[(h) => h / 2, 'v'], [1, 's'], [-1, 'a']] }] },
      { op: 'measure', quantities: { change: 'd' } },
      { op: 'combine', outputs: [{ to: 'a', terms: [[(h) => h / 2, 'v'], [1, 's']] }, { to: 'x', terms: [[1, 'x0'], [(h) => h / 2, 'v'], [1, 's']] }] },
    ],
  },
  { op: 'combine', outputs: [{ to: 'v', terms: [[(h) => 2 / h, 'a']] }, { to: 'x', terms: [[1, 'x0'], [1, 'a']] }] },
  jacobians,
  { op: 'rhs', to: 'p', v: 'v', a: 'a', extra: 'p', coefficients: (h) => ({ ...NO_RHS_TERMS, forceScale: h / 2, velocityMass: 1 }) },
  { op: 'combine', outputs: [{ to: 'x', terms: [[1, 'x0'], [2, 'a']] }] },
]; // prettier-ignore

/**
 * The program of an implicit integrator. Setup: Newmark's a₀ = M⁻¹ f(x₀, v₀) (no Rayleigh term,
 * spec/README.md); the variational scheme's p₀ = M v₀.
 */
export function implicitProgram(
  integrator: ImplicitIntegratorName,
  rayleighMass: number,
  rayleighStiffness: number,
  options: ResolvedImplicitOptions,
): Program {
  const [rm, rk, o] = [rayleighMass, rayleighStiffness, options];
  const rhs: Extract<Op, { op: 'rhs' }> = { op: 'rhs', to: 'b', v: 'v', a: 'a', extra: 'p', coefficients: (h) => rhsCoefficients(integrator, h, rm, rk, o) }; // prettier-ignore
  const momenta: Op = { op: 'rhs', to: 'p', v: 'v', a: 'a', extra: 'p', coefficients: () => ({ ...NO_RHS_TERMS, velocityMass: 1 }) }; // prettier-ignore
  const solve: Op = {
    op: 'solve',
    rhs: 'b',
    to: 's',
    system: (h) => systemCoefficients(integrator, h, rm, rk, o),
  };
  const steps: Record<ImplicitIntegratorName, () => Op[]> = {
    'implicit-euler': () => implicitEuler(rhs, solve),
    // Newton's iterate is the step's end state: its force at t_n + h.
    'backward-euler': () => backwardEuler({ ...rhs, stage: 1 }, solve),
    newmark: () => newmark(rhs, solve, o),
    'variational-symplectic-implicit': () => variational(rhs, solve),
  };
  const setups: Partial<Record<ImplicitIntegratorName, Op[]>> = {
    newmark: [{ op: 'eval', x: 'x', v: 'v', a: 'a', rayleighMass: 0 }],
    'variational-symplectic-implicit': [jacobians, momenta],
  };
  return {
    rings: {},
    setup: setups[integrator] ?? [],
    startupSteps: 0,
    startup: [],
    step: steps[integrator](),
    implicit: o,
    ...(integrator === 'variational-symplectic-implicit' ? { momenta: 'p' } : {}),
  };
}
