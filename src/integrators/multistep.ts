/**
 * The fixed-step multistep and predictor–corrector integrators: records of the catalog. Their
 * weights are {@link ADAMS_WEIGHTS}; `startupSteps` is the number of RK4 steps taken before the
 * first multistep step (one fewer than the history the scheme reads). Contacts
 * (src/integrators/contact-programs.ts): where x₊ reads the step's end velocity v₊
 * (`readsEndVelocity`) the projection runs before F(y₊) is pushed and `drift` is v₊'s weight in
 * x₊ (x₊ = x + h (… + drift · v₊): Adams–Moulton 5/12, the trapezoid ½, implicit Euler 1); where
 * it reads only the history (Adams–Bashforth, drift 0) the projection runs after the push and
 * restarts the velocity history of the particles it acts on (contact-programs.ts).
 */
export { ADAMS_WEIGHTS } from './tableaux.ts';

/** spec/integration-methods-lecture-de.md. */
export const MULTISTEP_INTEGRATORS = {
  'adams-bashforth-2': {
    drift: 0,
    readsEndVelocity: false,
    order: 2,
    startupSteps: 1,
    summary:
      'y₊ = y + h (3/2 F_n − 1/2 F_{n−1}); one evaluation per step; the first step by RK4. Weakly unstable on an undamped oscillator (amplitude grows as O(h³ω⁴ t)).',
  },
  'adams-bashforth-3': {
    drift: 0,
    readsEndVelocity: false,
    order: 3,
    startupSteps: 2,
    summary:
      'y₊ = y + h (23 F_n − 16 F_{n−1} + 5 F_{n−2})/12; one evaluation per step; the first two steps by RK4.',
  },
  'adams-moulton-pc': {
    drift: 5 / 12,
    readsEndVelocity: true,
    order: 3,
    startupSteps: 2,
    summary:
      'Predictor–corrector P(EC)^m E: AB3 predictor, 2-step Adams–Moulton corrector y₊ = y + h (5 F₊ + 8 F_n − F_{n−1})/12 (order 3) iterated m times (default 1: PECE) or to the tolerance; the first two steps by RK4.',
  },
  'heun-implicit': {
    drift: 0.5,
    readsEndVelocity: true,
    order: 2,
    startupSteps: 0,
    summary:
      'Implicit Heun (trapezoidal rule) y₊ = y + h (F(y) + F(y₊))/2 by fixed-point iteration from the explicit-Heun predictor; converges for h ω < 2 roughly; iterations and non-convergence reported.',
  },
  'implicit-euler-pc': {
    drift: 1,
    readsEndVelocity: true,
    order: 1,
    startupSteps: 0,
    summary:
      'Implicit Euler y₊ = y + h F(y₊) by fixed-point iteration (predictor explicit Euler, corrector y⁽ᵏ⁺¹⁾ = y + h F(y⁽ᵏ⁾)); converges for h ω < 1 roughly, so it gives none of implicit Euler’s stiff stability.',
  },
} as const satisfies Record<string, { drift: number; readsEndVelocity: boolean; order: number; startupSteps: number; summary: string }>; // prettier-ignore

/** The multistep and predictor–corrector integrators (family `multistep`). */
export type MultistepIntegratorName = keyof typeof MULTISTEP_INTEGRATORS;
export const MULTISTEP_INTEGRATOR_NAMES = Object.keys(MULTISTEP_INTEGRATORS) as MultistepIntegratorName[];

/** RK4 steps before the first multistep step, per integrator. */
export const STARTUP_STEPS = Object.fromEntries(
  MULTISTEP_INTEGRATOR_NAMES.map((name) => [name, MULTISTEP_INTEGRATORS[name].startupSteps]),
) as Record<MultistepIntegratorName, number>;
