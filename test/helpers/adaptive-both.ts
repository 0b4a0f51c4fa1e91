/** The same adaptive run on WebGPU and on the CPU in float32 storage, for the GPU-vs-CPU tests. No vitest here. */
import {
  createAdaptiveSimulation,
  type AdaptiveOptions,
  type Model,
  type SimulationState,
} from '../../src/index.ts';

/** What {@link runBoth} returns: both end states, the GPU simulation's description, both step counts. */
export interface BothRuns {
  gpu: SimulationState;
  cpu: SimulationState;
  description: string;
  steps: [number, number];
}

/** Runs `model` to `tEnd` with `options` on `device` (WebGPU) and on the CPU (f32 storage). */
export async function runBoth(device: GPUDevice, model: Model, options: AdaptiveOptions, tEnd: number): Promise<BothRuns> {
  const gpu = await createAdaptiveSimulation(model, { ...options, backend: 'webgpu', device });
  const cpu = await createAdaptiveSimulation(model, { ...options, precision: 'f32' });
  try {
    await gpu.advanceTo(tEnd);
    await cpu.advanceTo(tEnd);
    const [g, c] = [await gpu.readState(), await cpu.readState()];
    return { gpu: g, cpu: c, description: gpu.description, steps: [gpu.stepCount, cpu.stepCount] };
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
} // prettier-ignore
