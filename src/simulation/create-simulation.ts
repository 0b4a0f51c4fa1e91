import { CpuImplicitSimulation } from '../backends/cpu/cpu-implicit-simulation.ts';
import { CpuSimulation } from '../backends/cpu/cpu-simulation.ts';
import { WeftInputError } from '../core/errors.ts';
import { CpuMultistepSimulation } from '../backends/cpu/cpu-simulation.ts';
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
import type { GpuSimulation, Simulation } from '../backends/common/simulation-types.ts';
import { WebGpuImplicitSimulation } from '../backends/webgpu/webgpu-implicit-simulation.ts';
import { WebGpuSimulation } from '../backends/webgpu/webgpu-simulation.ts';

/** Options of {@link createSimulation}. Units are SI; each has a default unless marked required. */
export interface SimulationOptions extends ImplicitOptions {
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
  /** Multistep predictor–correctors: corrector tolerance (see MultistepOptions). Default 1e-10. */
  correctorTolerance?: number;
  /** Multistep predictor–correctors: most corrector iterations per step (see MultistepOptions). */
  maxCorrectorIterations?: number;
  /** Implicit WebGPU: read convergence back every k linear-solver iterations in advance() (default 8); 0 never. step() never does. */
  checkEvery?: number;
}

/**
 * Creates a simulation of `model` on the CPU reference path (default) or on WebGPU. Every option
 * is validated first; a bad one is a {@link WeftInputError} naming it.
 */
export async function createSimulation(
  model: Model,
  options: SimulationOptions & { backend: 'webgpu' },
): Promise<GpuSimulation>;
export async function createSimulation(model: Model, options: SimulationOptions): Promise<Simulation>;
export async function createSimulation(model: Model, options: SimulationOptions): Promise<Simulation> {
  const backend = options.backend ?? 'cpu';
  if (backend !== 'cpu' && backend !== 'webgpu') {
    throw new WeftInputError('backend', `must be 'cpu' or 'webgpu', got '${String(backend)}'`);
  }
  const integrator = options.integrator;
  if (!(integrator in INTEGRATORS)) {
    throw new WeftInputError(
      'integrator',
      `unknown integrator '${String(integrator)}' (known: ${INTEGRATOR_NAMES.join(', ')})`,
    );
  }
  if (isAdaptive(integrator)) {
    throw new WeftInputError(
      'integrator',
      `'${integrator}' chooses its own steps: use createAdaptiveSimulation() (CLI: --t-end instead of --steps)`,
    );
  }
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
