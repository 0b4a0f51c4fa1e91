/**
 * The options of the fixed-step WebGPU simulations, and the scheme's program they select
 * (checked before a device is requested).
 */
import { WeftInputError } from '../../core/errors.ts';
import type { MultistepIntegratorName, MultistepOptions } from '../../integrators/adaptive-options.ts';
import {
  isImplicit,
  type ImplicitIntegratorName,
  type ImplicitOptions,
  type ResolvedImplicitOptions,
} from '../../integrators/implicit-options.ts';
import { implicitProgram } from '../../integrators/implicit-programs.ts';
import { isMultistep } from '../../integrators/catalog.ts';
import {
  resolveImplicitOptions,
  resolveMultistepOptions,
  resolveStepOptions,
  validateIntegrationOptions,
} from '../../integrators/options.ts';
import type { Program } from '../../integrators/program.ts';
import { explicitProgram, multistepProgram } from '../../integrators/programs.ts';
import type { ExplicitIntegratorName, IntegrationOptions } from '../../integrators/schemes.ts';

/** The multistep integrators the GPU runs: all of them. */
export const GPU_MULTISTEP = [
  'adams-bashforth-2',
  'adams-bashforth-3',
  'adams-moulton-pc',
  'heun-implicit',
  'implicit-euler-pc',
] as const;

export type GpuIntegratorName = ExplicitIntegratorName | MultistepIntegratorName | ImplicitIntegratorName;

/** Options of the WebGPU path. */
export interface WebGpuSimulationOptions extends Omit<IntegrationOptions, 'integrator'>, ImplicitOptions {
  integrator: GpuIntegratorName;
  rayleighStiffness?: number;
  /** A device of the caller's (borrowed, never destroyed). Default: Weft requests one. */
  device?: GPUDevice;
  /** Threads per workgroup of every kernel. Default 64; at most the device's limit. */
  workgroupSize?: number;
  /** Steps encoded into one command buffer before it is submitted. Default 64 (implicit: 4). */
  stepsPerSubmit?: number;
  /** Time each kernel with timestamp queries (a pass per dispatch); read with readProfile(). */
  profile?: boolean;
  correctorTolerance?: number;
  maxCorrectorIterations?: number;
  /**
   * Implicit: convergence checks by readback in {@link WebGpuSimulation.advance}. k > 0 (default
   * 8) submits and reads the solver's state back every k linear-solver iterations and after each
   * Newton check, and skips what is no longer needed — fewer dispatches at the price of round
   * trips; 0 never waits on the GPU inside a step (the real-time mode, which `step()` always
   * uses). Both give bit-identical results.
   */
  checkEvery?: number;
}

/** The scheme's program and step, options checked (before a device is requested). */
export function programOf(
  options: WebGpuSimulationOptions,
  particleCount: number,
): {
  program: Program;
  dt: number;
  implicit?: ResolvedImplicitOptions;
} {
  if (isImplicit(options.integrator)) {
    const { dt, rayleighMass, rayleighStiffness } = resolveStepOptions(options);
    const implicit = resolveImplicitOptions(options.integrator, options, particleCount);
    return { program: implicitProgram(options.integrator, rayleighMass, rayleighStiffness, implicit), dt, implicit }; // prettier-ignore
  }
  if (!isMultistep(options.integrator)) {
    const valid = validateIntegrationOptions(options as IntegrationOptions);
    return { program: explicitProgram(valid.integrator, valid.rayleighMass), dt: valid.dt };
  }
  const name = options.integrator;
  const o = resolveMultistepOptions({ ...options, precision: 'f32' } as MultistepOptions);
  return {
    program: multistepProgram(name, o.rayleighMass, o.correctorTolerance, o.maxCorrectorIterations),
    dt: o.dt,
  };
}

export function integerAtLeast(field: string, value: number | undefined, fallback: number, min = 1): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min)
    throw new WeftInputError(field, `must be an integer ≥ ${min}, got ${v}`);
  return v;
}
