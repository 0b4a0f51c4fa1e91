/**
 * Browser side of test/gpu-adaptive-browser.test.ts: served by Vite from adaptive-harness.html, it
 * exposes `window.weftAdaptiveHarness` (see harness-api.ts). The cases share one device per page
 * (pipelines compile once per device), each inside its own error scopes with the device's
 * uncaptured-error listener watched; `release()` destroys it.
 */
import { requestDevice } from './request-device.ts';
import { adaptiveRunner, type AdaptiveRunner } from '../helpers/adaptive-gpu-cases.ts';
import { provokeValidationErrors, watchUncapturedErrors } from '../helpers/gpu-cases.ts';
import type { WeftAdaptiveHarness } from './harness-api.ts';

interface Shared {
  adapter: string;
  device: GPUDevice;
  runner: AdaptiveRunner;
}

let shared: Promise<Shared> | undefined;

function sharedDevice(): Promise<Shared> {
  shared ??= requestDevice('weft-adaptive-harness').then(({ adapter, device }) => ({
    adapter,
    device,
    runner: adaptiveRunner(device, watchUncapturedErrors(device)),
  }));
  return shared;
}

const harness: WeftAdaptiveHarness = {
  async adapter() {
    return (await sharedDevice()).adapter;
  },
  async run(c) {
    return (await sharedDevice()).runner.run(c);
  },
  async badInput(c) {
    return (await sharedDevice()).runner.badInput(c);
  },
  async provokeValidationErrors() {
    const { device } = await requestDevice('weft-adaptive-harness.provoke');
    try {
      return await provokeValidationErrors(device);
    } finally {
      device.destroy();
    }
  },
  async release() {
    const current = shared;
    shared = undefined;
    if (current) (await current).device.destroy();
  },
};

window.weftAdaptiveHarness = harness;
