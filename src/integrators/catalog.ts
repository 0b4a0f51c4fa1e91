import { ADAPTIVE_INTEGRATORS } from './adaptive.ts';
import { MULTISTEP_INTEGRATORS } from './multistep.ts';
import { IMPLICIT_INTEGRATORS } from './implicit-options.ts';
import { EXPLICIT_INTEGRATORS } from './schemes.ts';

/**
 * How an integrator steps: `explicit` (one-step, force evaluations only), `implicit` (linear
 * solves, Newton), `multistep` (a history of derivatives; predictor–correctors), `adaptive`
 * (error-controlled steps: `advanceTo`).
 */
export type IntegratorFamily = 'explicit' | 'implicit' | 'multistep' | 'adaptive';

function family<F extends IntegratorFamily, R extends Record<string, object>>(
  name: F,
  records: R,
): { [K in keyof R]: R[K] & { readonly family: F } } {
  return Object.fromEntries(
    Object.entries(records).map(([key, record]) => [key, { ...record, family: name }]),
  ) as { [K in keyof R]: R[K] & { readonly family: F } };
}

/**
 * Every integrator Weft offers, with its order and a summary (README.md lists them). The
 * adaptive ones (rk45, step-doubling, velocity-implicit-euler) integrate to a time with an
 * error-controlled step: createAdaptiveSimulation(), CLI `--t-end`.
 */
export const INTEGRATORS = {
  ...family('explicit', EXPLICIT_INTEGRATORS),
  ...family('implicit', IMPLICIT_INTEGRATORS),
  ...family('multistep', MULTISTEP_INTEGRATORS),
  ...family('adaptive', ADAPTIVE_INTEGRATORS),
};
/** The name of any integrator in {@link INTEGRATORS}, e.g. `'implicit-euler'`. */
export type IntegratorName = keyof typeof INTEGRATORS;
/** The names of {@link INTEGRATORS}, in the README's order. */
export const INTEGRATOR_NAMES = Object.keys(INTEGRATORS) as IntegratorName[];

/** The integrators that take fixed steps (createSimulation, `step(n)`). */
export type FixedStepIntegratorName = Exclude<IntegratorName, keyof typeof ADAPTIVE_INTEGRATORS>;

export const FIXED_STEP_INTEGRATOR_NAMES = INTEGRATOR_NAMES.filter(
  (name) => !(name in ADAPTIVE_INTEGRATORS),
) as FixedStepIntegratorName[];

export function isAdaptive(name: string): name is keyof typeof ADAPTIVE_INTEGRATORS {
  return Object.hasOwn(ADAPTIVE_INTEGRATORS, name);
}

export function isMultistep(name: string): name is keyof typeof MULTISTEP_INTEGRATORS {
  return Object.hasOwn(MULTISTEP_INTEGRATORS, name);
}
