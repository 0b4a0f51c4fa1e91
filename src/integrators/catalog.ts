import { IMPLICIT_INTEGRATORS } from './implicit-options.ts';
import { EXPLICIT_INTEGRATORS } from './schemes.ts';

/** Every integrator Weft offers, with its order and a summary (README.md lists them). */
export const INTEGRATORS = { ...EXPLICIT_INTEGRATORS, ...IMPLICIT_INTEGRATORS };
export type IntegratorName = keyof typeof INTEGRATORS;
export const INTEGRATOR_NAMES = Object.keys(INTEGRATORS) as IntegratorName[];
