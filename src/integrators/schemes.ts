import { RUNGE_KUTTA_TABLEAUX, type ButcherTableau, type TableauName } from './tableaux.ts';

/**
 * The explicit integrators, each a record: its global order of accuracy (measured in
 * test/cpu-convergence.test.ts), its order as a one-step map from a collocated state (what step
 * doubling measures, {@link STEP_DOUBLING_ORDER}), its `drift` (x₊ = x + h v + drift · h² a under a
 * constant acceleration a: 1 where x₊ = x + h v₊, 0 where x₊ = x + h v, ½ for a scheme exact on
 * it — the share of a velocity change within the step that its positions carry, which contacts'
 * friction takes back: src/integrators/contact-programs.ts), and, for the Runge–Kutta ones, the
 * tableau it runs. Formulas: spec/sofa-ode-solvers.md and spec/integration-methods-lecture-de.md, with the
 * errata of spec/README.md. Adding a Runge–Kutta scheme whose stage i + 1 reads only stage i is
 * adding a tableau and a record here: both backends run it (README, "Adding an integrator").
 */
export const EXPLICIT_INTEGRATORS = {
  'explicit-euler': {
    drift: 0,
    order: 1,
    mapOrder: 1,
    tableau: 'explicit-euler',
    summary:
      'x₊ = x + h v, v₊ = v + h a(x, v). Unstable on an undamped oscillator at every h (amplitude grows).',
  },
  'symplectic-euler': {
    drift: 1,
    order: 1,
    mapOrder: 1,
    tableau: null,
    summary:
      'v₊ = v + h a(x, v), x₊ = x + h v₊ (SOFA EulerExplicit default). Stable for h ω < 2; energy bounded.',
  },
  rk2: {
    drift: 0.5,
    order: 2,
    mapOrder: 2,
    tableau: 'rk2',
    summary: 'Midpoint: a state at t + h/2 from an Euler half step, then the full step with its derivative.',
  },
  heun: {
    drift: 0.5,
    order: 2,
    mapOrder: 2,
    tableau: 'heun',
    summary: 'Heun: k₁ = F(y), k₂ = F(y + h k₁), y₊ = y + h (k₁ + k₂)/2.',
  },
  ralston: {
    drift: 0.5,
    order: 2,
    mapOrder: 2,
    tableau: 'ralston',
    summary:
      'Ralston’s second-order Runge–Kutta (1962): k₂ = F(y + ⅔ h k₁), y₊ = y + h (¼ k₁ + ¾ k₂); the two-stage scheme with the smallest error bound.',
  },
  rk4: {
    drift: 0.5,
    order: 4,
    mapOrder: 4,
    tableau: 'rk4',
    summary: 'Classic fourth-order Runge–Kutta, weights 1/6, 1/3, 1/3, 1/6.',
  },
  'central-difference': {
    drift: 1,
    order: 2,
    mapOrder: 1,
    tableau: null,
    summary:
      'Leapfrog (SOFA CentralDifference): v lives at half steps; r_m treated by the centred formula. Order 2 when the initial velocity is v(−h/2), 1 from a collocated start.',
  },
  'variational-symplectic': {
    drift: 1,
    order: 1,
    mapOrder: 1,
    tableau: null,
    summary:
      'Explicit variational symplectic (SOFA): v₊ = (p + h (f − r_m M v))/M, p₊ = M v₊, x₊ = x + h v₊; with p = M v this is symplectic Euler.',
  },
} as const satisfies Record<
  string,
  { drift: number; order: number; mapOrder: number; tableau: TableauName | null; summary: string }
>;

/** The explicit one-step integrators (family `explicit` of {@link INTEGRATORS}). */
export type ExplicitIntegratorName = keyof typeof EXPLICIT_INTEGRATORS;
export const EXPLICIT_INTEGRATOR_NAMES = Object.keys(EXPLICIT_INTEGRATORS) as ExplicitIntegratorName[];

/**
 * Order p of one step of each explicit scheme as a map (x, v) → (x₊, v₊) from a collocated state,
 * which is what step doubling measures: its estimate is O(h^(p+1)). central-difference with r_m = 0
 * is symplectic Euler as a map, hence 1 here (its order 2 needs a staggered start, which step
 * doubling does not keep).
 */
export const STEP_DOUBLING_ORDER = Object.fromEntries(
  EXPLICIT_INTEGRATOR_NAMES.map((name) => [name, EXPLICIT_INTEGRATORS[name].mapOrder]),
) as Record<ExplicitIntegratorName, number>;

/** The tableau an explicit integrator runs, or null for the symplectic family. */
export function tableauOf(name: ExplicitIntegratorName): ButcherTableau | null {
  const tableau = EXPLICIT_INTEGRATORS[name].tableau;
  return tableau === null ? null : RUNGE_KUTTA_TABLEAUX[tableau];
}

/** Options shared by every backend. Units are SI. */
export interface IntegrationOptions {
  /** Integrator name, one of {@link EXPLICIT_INTEGRATOR_NAMES}. */
  integrator: ExplicitIntegratorName;
  /** Time step h, s. Must be finite and > 0. */
  dt: number;
  /** Rayleigh mass damping r_m (force −r_m M v), 1/s. Default 0. */
  rayleighMass?: number;
  /**
   * Rayleigh stiffness damping r_k (force −r_k K v), s. Default 0. It needs the stiffness matrix,
   * which only the implicit integrators assemble; explicit integrators reject a non-zero value.
   */
  rayleighStiffness?: number;
}
