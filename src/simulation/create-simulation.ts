import {
  CpuImplicitSimulation,
  CpuMultistepSimulation,
  CpuSimulation,
} from '../backends/cpu/cpu-simulation.ts';
import { describeName, WeftInputError } from '../core/errors.ts';
import { requireFeatureSupport } from '../integrators/feature-support.ts';
import {
  INTEGRATOR_NAMES,
  INTEGRATORS,
  isAdaptive,
  isMultistep,
  type FixedStepIntegratorName,
} from '../integrators/catalog.ts';
import { isImplicit, type ImplicitOptions } from '../integrators/implicit-options.ts';
import type { Model } from '../model/model.ts';
import { validateOptions } from '../integrators/options.ts';
import type { AdaptiveOptions } from '../integrators/adaptive-options.ts';
import { createAdaptiveSimulation, type AdaptiveBackendOptions } from './create-adaptive-simulation.ts';
import type { AdaptiveSimulation } from './adaptive-simulation.ts';
import type { GpuSimulation, Simulation } from '../backends/common/simulation-types.ts';
import { WebGpuImplicitSimulation } from '../backends/webgpu/webgpu-implicit-simulation.ts';
import { WebGpuSimulation } from '../backends/webgpu/webgpu-simulation.ts';

/** Options of a fixed-step simulation. Units are SI; each has a default unless marked required. */
export interface FixedStepSimulationOptions extends ImplicitOptions {
  /** 'cpu' (the reference, default) or 'webgpu'. */
  backend?: 'cpu' | 'webgpu';
  /** Required: one of {@link INTEGRATOR_NAMES}. */
  integrator: FixedStepIntegratorName;
  /** Required: the step h, s; finite and > 0. */
  dt: number;
  /** Rayleigh mass damping r_m (force −r_m M v), 1/s. Default 0. */
  rayleighMass?: number;
  /** Rayleigh stiffness damping r_k (force −r_k K v), s. Default 0; implicit integrators only. */
  rayleighStiffness?: number;
  /** CPU storage precision, 'f64' (default) or 'f32'. The WebGPU path is always f32. */
  precision?: 'f64' | 'f32';
  /** WebGPU: a device of the caller's, borrowed and never destroyed. Default: Weft requests one. */
  device?: GPUDevice;
  /** WebGPU: threads per workgroup. Default 64. */
  workgroupSize?: number;
  /** WebGPU: steps encoded per command buffer. Default 64 (explicit), 4 (implicit). */
  stepsPerSubmit?: number;
  /** WebGPU: time each kernel with timestamp queries; read with readProfile(). Default false. */
  profile?: boolean;
  /** Multistep predictor–correctors: corrector tolerance (see MultistepOptions). Default 1e-10. */
  correctorTolerance?: number;
  /** Multistep predictor–correctors: most corrector iterations per step (see MultistepOptions). */
  maxCorrectorIterations?: number;
  /** Implicit WebGPU: read convergence back every k linear-solver iterations in advance() (default 8); 0 never. step() never does. */
  checkEvery?: number;
}

/**
 * Options of {@link createSimulation}: a fixed-step integrator with its `dt`, or an adaptive one
 * with its accuracy (README, "Options", lists every option with its unit, default and range).
 */
export type SimulationOptions = FixedStepSimulationOptions | (AdaptiveOptions & AdaptiveBackendOptions);

/**
 * Creates a simulation of `model` on the CPU reference path (default) or on WebGPU, for any
 * integrator: fixed-step ones step by `dt` (`step`, `advance`, `advanceTo` on their grid), adaptive
 * ones choose their steps (`advance`, `advanceTo`). Every option is validated first; a bad one is a
 * {@link WeftInputError} naming it.
 */
export async function createSimulation(
  model: Model,
  options: FixedStepSimulationOptions & { backend: 'webgpu' },
): Promise<GpuSimulation>;
export async function createSimulation(
  model: Model,
  options: AdaptiveOptions & AdaptiveBackendOptions,
): Promise<AdaptiveSimulation>;
export async function createSimulation(model: Model, options: SimulationOptions): Promise<Simulation>;
export async function createSimulation(model: Model, options: SimulationOptions): Promise<Simulation> {
  if (typeof options !== 'object' || options === null)
    throw new WeftInputError('options', `required: at least { integrator, dt } (got ${String(options)})`);
  const backend = options.backend ?? 'cpu';
  if (backend !== 'cpu' && backend !== 'webgpu') {
    throw new WeftInputError('backend', `must be 'cpu' or 'webgpu', got '${String(backend)}'`);
  }
  const integrator = options.integrator;
  if (typeof integrator !== 'string' || !Object.hasOwn(INTEGRATORS, integrator)) {
    throw new WeftInputError(
      'integrator',
      `unknown integrator ${describeName(integrator)} (known: ${INTEGRATOR_NAMES.join(', ')})`,
    );
  }
  requireFeatureSupport(model, integrator);
  if (isAdaptive(integrator))
    return createAdaptiveSimulation(model, options as AdaptiveOptions & AdaptiveBackendOptions);
  return createFixedStep(model, options as FixedStepSimulationOptions, integrator, backend);
}

async function createFixedStep(
  model: Model,
  options: FixedStepSimulationOptions,
  integrator: FixedStepIntegratorName,
  backend: 'cpu' | 'webgpu',
): Promise<Simulation> {
  validateOptions(options, integrator, backend);
  if (isMultistep(integrator)) {
    return backend === 'webgpu'
      ? WebGpuSimulation.create(model, { ...options, integrator })
      : new CpuMultistepSimulation(model, { ...options, integrator });
  }
  if (isImplicit(integrator)) {
    return backend === 'cpu'
      ? new CpuImplicitSimulation(model, { ...options, integrator })
      : WebGpuImplicitSimulation.create(model, { ...options, integrator });
  }
  const explicit = { ...options, integrator };
  return backend === 'cpu' ? new CpuSimulation(model, explicit) : WebGpuSimulation.create(model, explicit);
}
