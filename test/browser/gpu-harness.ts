/**
 * Browser side of test/gpu-browser.test.ts: served by Vite from gpu-harness.html, it exposes
 * `window.weftHarness` (see harness-api.ts). Each call owns its device and destroys it.
 */
import { describeAdapterInfo } from '../../src/webgpu/device.ts';
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

/** An adapter from navigator.gpu and a device of its own; throws, loudly, when there is none. */
async function requestDevice(): Promise<{ adapter: string; device: GPUDevice }> {
  if (!navigator.gpu) {
    throw new Error(
      'navigator.gpu is missing: this Chromium has WebGPU off (launch flags: --enable-unsafe-webgpu, ' +
        '--use-webgpu-adapter=swiftshader; the page must be a secure context such as http://127.0.0.1)',
    );
  }
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) {
    throw new Error(
      'navigator.gpu.requestAdapter() returned null: no WebGPU adapter (SwiftShader expected here)',
    );
  }
  const device = await adapter.requestDevice({ label: 'weft-harness' });
  return { adapter: describeAdapterInfo(adapter.info), device };
}

/** Runs `run` on a fresh device inside error scopes, then destroys the device. */
async function onFreshDevice<T>(
  run: (device: GPUDevice) => Promise<T>,
): Promise<{ adapter: string; value: T; errors: string[] }> {
  const { adapter, device } = await requestDevice();
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
    const { device } = await requestDevice();
    try {
      return await provokeValidationErrors(device);
    } finally {
      device.destroy();
    }
  },
};

window.weftHarness = harness;
