import { CpuSimulation, type CpuSimulationOptions } from './cpu/cpu-simulation.ts';
import { WeftInputError } from './errors.ts';
import type { Model } from './model/model.ts';
import type { Simulation } from './simulation-types.ts';
import { WebGpuSimulation, type WebGpuSimulationOptions } from './webgpu/webgpu-simulation.ts';

/** Options of {@link createSimulation}: the integration options plus the backend's own. */
export type SimulationOptions =
  ({ backend?: 'cpu' } & CpuSimulationOptions) | ({ backend: 'webgpu' } & WebGpuSimulationOptions);

/**
 * Creates a simulation of `model` on the CPU reference path (default) or on WebGPU. Every option
 * is validated first; a bad one is a {@link WeftInputError} naming it.
 */
export async function createSimulation(model: Model, options: SimulationOptions): Promise<Simulation> {
  const backend = options.backend ?? 'cpu';
  if (backend === 'cpu') return new CpuSimulation(model, options as CpuSimulationOptions);
  if (backend === 'webgpu') {
    const precision = (options as { precision?: string }).precision;
    if (precision !== undefined && precision !== 'f32') {
      throw new WeftInputError(
        'precision',
        `the webgpu backend computes in f32 (WGSL has no f64), got '${precision}'`,
      );
    }
    return WebGpuSimulation.create(model, options as WebGpuSimulationOptions);
  }
  throw new WeftInputError('backend', `must be 'cpu' or 'webgpu', got '${String(backend)}'`);
}
