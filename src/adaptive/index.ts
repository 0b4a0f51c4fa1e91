/** The adaptive-step, multistep and predictor–corrector integrators (CPU). */
export { AdaptiveSimulation, type TimeProgressCallback } from './adaptive-simulation.ts';
export { CpuMultistepSimulation } from './multistep.ts';
export {
  ADAPTIVE_INTEGRATORS,
  ADAPTIVE_INTEGRATOR_NAMES,
  MULTISTEP_INTEGRATORS,
  MULTISTEP_INTEGRATOR_NAMES,
  STEP_DOUBLING_ORDER,
  resolveAdaptiveOptions,
  type AdaptiveIntegratorName,
  type AdaptiveOptions,
  type AdaptiveStats,
  type MultistepIntegratorName,
  type MultistepOptions,
  type MultistepStats,
  type NewtonStats,
  type ResolvedAdaptiveOptions,
} from './options.ts';
export { errorNorm, differenceNorm, type ErrorTolerances, type StatePair } from './error-norm.ts';
export { derivative, stageCombination } from './stage-passes.ts';
export { stepFactor, startingStep, type AdaptiveStepper, type AttemptOutcome } from './controller.ts';
export { CashKarpStepper } from './rk45.ts';
export { StepDoublingStepper } from './step-doubling.ts';
export {
  VelocityImplicitEulerStepper,
  type VelocityImplicitEulerOptions,
} from './velocity-implicit-euler.ts';
