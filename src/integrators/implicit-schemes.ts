/**
 * The coefficients of the implicit integrators, in one place for both backends: each scheme's
 * linear system A = α M + β B + γ K and its right-hand side, one linear form over the spring
 * forces, M, K and B applied to v and a (shaders/implicit-rhs.wgsl, src/backends/cpu/implicit-passes.ts).
 */
import type { ImplicitIntegratorName, ResolvedImplicitOptions } from './implicit-options.ts';

/**
 * Coefficients of the right-hand side, one linear form for every implicit scheme:
 *   b_i = s_f f_i + c_w w_i + m_i (c_v v_i + c_a a_i) − (K (γ_v v + γ_a a))_i − (B (β_v v + β_a a))_i,
 * with f_i = Σ ±F_s + m_i g the total force; b_i = 0 for fixed particles.
 */
export interface RhsCoefficients {
  forceScale: number;
  extraScale: number;
  velocityMass: number;
  accelerationMass: number;
  velocityStiffness: number;
  accelerationStiffness: number;
  velocityDamping: number;
  accelerationDamping: number;
}

export const NO_RHS_TERMS: RhsCoefficients = {
  forceScale: 0,
  extraScale: 0,
  velocityMass: 0,
  accelerationMass: 0,
  velocityStiffness: 0,
  accelerationStiffness: 0,
  velocityDamping: 0,
  accelerationDamping: 0,
};

/** A = α M + β B + γ K. */
export interface SystemCoefficients {
  mass: number;
  damping: number;
  stiffness: number;
}

/**
 * The right-hand side b of each scheme's linear system (spec/sofa-ode-solvers.md §2–4,
 * spec/caribou-backward-euler.md; the derivations are on the CPU steps in
 * src/integrators/implicit-programs.ts):
 * - implicit-euler: b = h (f − ((h + r_k) K + r_m M) v);
 * - backward-euler: G(a) = f − M (r_m v + a) − r_k K v;
 * - newmark: f − r_m M v − h(1−γ) r_m M a − K((h + r_k) v + h(h(½ − β) + r_k(1 − γ)) a) − h(1 − γ) B a;
 * - variational-symplectic-implicit: f + (2/h) p + K res.
 */
export function rhsCoefficients(
  integrator: ImplicitIntegratorName,
  h: number,
  rm: number,
  rk: number,
  o: ResolvedImplicitOptions,
): RhsCoefficients {
  const none = NO_RHS_TERMS;
  switch (integrator) {
    case 'implicit-euler':
      return { ...none, forceScale: h, velocityMass: -h * rm, velocityStiffness: h * (h + rk) };
    case 'backward-euler':
      return { ...none, forceScale: 1, velocityMass: -rm, accelerationMass: -1, velocityStiffness: rk };
    case 'newmark': {
      const { newmarkGamma: g, newmarkBeta: b } = o;
      return {
        ...none,
        forceScale: 1,
        velocityMass: -rm,
        accelerationMass: -h * rm * (1 - g),
        velocityStiffness: h + rk,
        accelerationStiffness: h * (h * (0.5 - b) + rk * (1 - g)),
        accelerationDamping: h * (1 - g),
      };
    }
    case 'variational-symplectic-implicit':
      // f + (2/h) p + K res − A (h/2) v, A = (4/h² + 4 r_m/h) M + (1 + 4 r_k/h) K (below): the
      // right-hand side of δ = res − (h/2) v (implicit-programs.ts).
      return { ...none, forceScale: 1, extraScale: 2 / h, accelerationStiffness: -1, velocityMass: -(2 / h + 2 * rm), velocityStiffness: h / 2 + 2 * rk }; // prettier-ignore
  }
}

/**
 * A = α M + β B + γ K of each scheme: (1 + h r_m) M + h B + h (h + r_k) K for implicit and
 * backward Euler, (1 + hγ r_m) M + hγ B + (h²β + hγ r_k) K for Newmark, and
 * (4/h² + 4 r_m/h) M + (1 + 4 r_k/h) K for the variational scheme (spring damping explicit).
 */
export function systemCoefficients(
  integrator: ImplicitIntegratorName,
  h: number,
  rm: number,
  rk: number,
  o: ResolvedImplicitOptions,
): SystemCoefficients {
  switch (integrator) {
    case 'implicit-euler':
    case 'backward-euler':
      return { mass: 1 + h * rm, damping: h, stiffness: h * (h + rk) };
    case 'newmark':
      return {
        mass: 1 + h * o.newmarkGamma * rm,
        damping: h * o.newmarkGamma,
        stiffness: h * h * o.newmarkBeta + h * o.newmarkGamma * rk,
      };
    case 'variational-symplectic-implicit':
      return { mass: 4 / (h * h) + (4 * rm) / h, damping: 0, stiffness: 1 + (4 * rk) / h };
  }
}
