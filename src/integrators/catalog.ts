import { ADAPTIVE_INTEGRATORS } from './adaptive.ts';
import { MULTISTEP_INTEGRATORS } from './multistep.ts';
import { IMPLICIT_INTEGRATORS } from './implicit-options.ts';
import { EXPLICIT_INTEGRATORS } from './schemes.ts';

/**
 * Every integrator Weft offers, with its order and a summary (README.md lists them). The
 * adaptive ones (rk45, step-doubling, velocity-implicit-euler) integrate to a time with an
 * error-controlled step: createAdaptiveSimulation(), CLI `--t-end`.
 */
export const INTEGRATORS = {
  ...EXPLICIT_INTEGRATORS,
  ...IMPLICIT_INTEGRATORS,
  ...MULTISTEP_INTEGRATORS,
  ...ADAPTIVE_INTEGRATORS,
};
export type IntegratorName = keyof typeof INTEGRATORS;
export const INTEGRATOR_NAMES = Object.keys(INTEGRATORS) as IntegratorName[];

/** The integrators that take fixed steps (createSimulation, `step(n)`). */
export type FixedStepIntegratorName = Exclude<IntegratorName, keyof typeof ADAPTIVE_INTEGRATORS>;

export const FIXED_STEP_INTEGRATOR_NAMES = INTEGRATOR_NAMES.filter(
  (name) => !(name in ADAPTIVE_INTEGRATORS),
) as FixedStepIntegratorName[];

export function isAdaptive(name: string): name is keyof typeof ADAPTIVE_INTEGRATORS {
  return name in ADAPTIVE_INTEGRATORS;
}

export function isMultistep(name: string): name is keyof typeof MULTISTEP_INTEGRATORS {
  return name in MULTISTEP_INTEGRATORS;
}
