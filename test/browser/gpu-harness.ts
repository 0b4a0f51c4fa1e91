/**
 * Browser side of test/gpu-browser.test.ts: served by Vite from gpu-harness.html, it exposes
 * `window.weftHarness` (see harness-api.ts). The cases share one device per page (requested on the
 * first: SwiftShader compiles each pipeline once per device, seconds a pipeline family, so a device
 * per case compiled every kernel again for every case), each inside its own error scopes with the
 * device's uncaptured-error listener watched; `release()` destroys it.
 */
import { sharedDevice } from './shared-device.ts';
import {
  compareGpuWithCpu,
  gpuPositions,
  withErrorScopes,
  type DeterminismResult,
  type GpuCase,
  type GpuCaseResult,
} from '../helpers/gpu-cases.ts';
import type { WeftHarness } from './harness-api.ts';

const shared = sharedDevice('weft-harness', (device, uncaptured) => ({ device, uncaptured }));

/** Runs `run` on the page's device inside error scopes, with the uncaptured errors it raised. */
async function onSharedDevice<T>(
  run: (device: GPUDevice) => Promise<T>,
): Promise<{ adapter: string; value: T; errors: string[] }> {
  const { device, uncaptured } = await shared.runner();
  const before = uncaptured.length;
  const { value, errors } = await withErrorScopes(device, () => run(device));
  await device.queue.onSubmittedWorkDone();
  return { adapter: await shared.common.adapter(), value, errors: [...errors, ...uncaptured.slice(before)] };
}

const harness: WeftHarness = {
  async runCase(c: GpuCase): Promise<GpuCaseResult> {
    const { adapter, value, errors } = await onSharedDevice((device) => compareGpuWithCpu(device, c));
    return { adapter, ...value, errors };
  },
  async runDeterminism(c: GpuCase): Promise<DeterminismResult> {
    const { adapter, value, errors } = await onSharedDevice(async (device) => {
      const first = await gpuPositions(device, c);
      const second = await gpuPositions(device, c);
      return { first, second };
    });
    return { adapter, ...value, errors };
  },
  provokeValidationErrors: () => shared.common.provokeValidationErrors(),
  release: () => shared.common.release(),
};

window.weftHarness = harness;
