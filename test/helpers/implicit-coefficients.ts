/**
 * The implicit schemes' linear systems and right-hand sides, written here from the sources — not
 * imported from src/ — so that the kernel tests check Weft's coefficients against an independent
 * statement of them (spec/sofa-ode-solvers.md §2–4, spec/caribou-backward-euler.md). With
 * K = −∂f/∂x, B = −∂f/∂v (positive), r_m, r_k Rayleigh damping, Newmark γ, β:
 *   implicit Euler:  ((1 + h r_m) M + h B + h (h + r_k) K) Δv = h f − h r_m M v − h (h + r_k) K v
 *   backward Euler:  the same matrix; G(a) = f − M (r_m v + a) − r_k K v
 *   Newmark:         ((1 + hγ r_m) M + hγ B + (h²β + hγ r_k) K) a₊ = f − r_m M v − h(1−γ) r_m M a
 *                      − K ((h + r_k) v + h (h(½ − β) + r_k (1 − γ)) a) − h(1 − γ) B a
 *   variational:     ((4/h² + 4 r_m/h) M + (1 + 4 r_k/h) K) res = f + (2/h) p + K res, solved
 *                      for δ = res − (h/2) v: A δ = f + (2/h) p + K res − (2/h + 2 r_m) M v
 *                      − (h/2 + 2 r_k) K v (A (h/2) v moved to the right)
 * as b = s_f f + c_w w + M (c_v v + c_a a) − K (γ_v v + γ_a a) − B (β_v v + β_a a) and
 * A = α M + β B + γ K (the forms the kernels take).
 */
import type { ImplicitIntegratorName } from '../../src/index.ts';

export interface Scheme {
  h: number;
  rm: number;
  rk: number;
  gamma: number;
  beta: number;
}

export function expectedSystem(integrator: ImplicitIntegratorName, s: Scheme): { mass: number; damping: number; stiffness: number } {
  const { h, rm, rk, gamma, beta } = s;
  switch (integrator) {
    case 'implicit-euler':
    case 'backward-euler':
      return { mass: 1 + h * rm, damping: h, stiffness: h * h + h * rk };
    case 'newmark':
      return { mass: 1 + h * gamma * rm, damping: h * gamma, stiffness: h * h * beta + h * gamma * rk };
    case 'variational-symplectic-implicit':
      return { mass: 4 / (h * h) + (4 * rm) / h, damping: 0, stiffness: 1 + (4 * rk) / h };
  }
} // prettier-ignore

export function expectedRhs(integrator: ImplicitIntegratorName, s: Scheme) {
  const { h, rm, rk, gamma, beta } = s;
  const zero = { forceScale: 0, extraScale: 0, velocityMass: 0, accelerationMass: 0, velocityStiffness: 0, accelerationStiffness: 0, velocityDamping: 0, accelerationDamping: 0 }; // prettier-ignore
  switch (integrator) {
    case 'implicit-euler':
      return { ...zero, forceScale: h, velocityMass: -h * rm, velocityStiffness: h * h + h * rk };
    case 'backward-euler':
      return { ...zero, forceScale: 1, velocityMass: -rm, accelerationMass: -1, velocityStiffness: rk };
    case 'newmark':
      return { ...zero, forceScale: 1, velocityMass: -rm, accelerationMass: -h * (1 - gamma) * rm, velocityStiffness: h + rk, accelerationStiffness: h * h * (0.5 - beta) + h * rk * (1 - gamma), accelerationDamping: h * (1 - gamma) }; // prettier-ignore
    case 'variational-symplectic-implicit':
      return { ...zero, forceScale: 1, extraScale: 2 / h, accelerationStiffness: -1, velocityMass: -(2 / h + 2 * rm), velocityStiffness: h / 2 + 2 * rk }; // prettier-ignore
  }
}
