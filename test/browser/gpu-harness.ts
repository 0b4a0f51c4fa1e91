/**
 * Browser side of test/gpu-browser.test.ts: served by Vite from gpu-harness.html, it exposes
 * `window.weftHarness` (see harness-api.ts). Each call owns its device and destroys it.
 */
import { requestDevice } from './request-device.ts';
import {
  compareGpuWithCpu,
  gpuPositions,
  provokeValidationErrors,
  watchUncapturedErrors,
  withErrorScopes,
  type DeterminismResult,
  type GpuCase,
  type GpuCaseResult,
} from '../helpers/gpu-cases.ts';
import type { WeftHarness } from './harness-api.ts';

/** Runs `run` on a fresh device inside error scopes, then destroys the device. */
async function onFreshDevice<T>(
  run: (device: GPUDevice) => Promise<T>,
): Promise<{ adapter: string; value: T; errors: string[] }> {
  const { adapter, device } = await requestDevice('weft-harness');
  const uncaptured = watchUncapturedErrors(device);
  try {
    const { value, errors } = await withErrorScopes(device, () => run(device));
    await device.queue.onSubmittedWorkDone();
    return { adapter, value, errors: [...errors, ...uncaptured] };
  } finally {
    device.destroy();
  }
}

const harness: WeftHarness = {
  async runCase(c: GpuCase): Promise<GpuCaseResult> {
    const { adapter, value, errors } = await onFreshDevice((device) => compareGpuWithCpu(device, c));
    return { adapter, ...value, errors };
  },
  async runDeterminism(c: GpuCase): Promise<DeterminismResult> {
    const { adapter, value, errors } = await onFreshDevice(async (device) => {
      const first = await gpuPositions(device, c);
      const second = await gpuPositions(device, c);
      return { first, second };
    });
    return { adapter, ...value, errors };
  },
  async provokeValidationErrors(): Promise<{ scoped: string[]; uncaptured: string[] }> {
    const { device } = await requestDevice('weft-harness');
    try {
      return await provokeValidationErrors(device);
    } finally {
      device.destroy();
    }
  },
};

window.weftHarness = harness;
