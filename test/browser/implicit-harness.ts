/**
 * Browser side of test/gpu-implicit-browser.test.ts: served by Vite from implicit-harness.html,
 * it exposes `window.weftImplicitHarness` (see harness-api.ts). The cases share one device per
 * page (pipelines compile once per device, ~0.5 s on SwiftShader), each inside its own error
 * scopes with the device's uncaptured-error listener watched; `release()` destroys it.
 */
import { requestDevice } from './request-device.ts';
import { provokeValidationErrors, watchUncapturedErrors } from '../helpers/gpu-cases.ts';
import { deviceRunner, type ImplicitRunner } from '../helpers/implicit-cases.ts';
import type { WeftImplicitHarness } from './harness-api.ts';

interface Shared {
  adapter: string;
  device: GPUDevice;
  runner: ImplicitRunner;
}

let shared: Promise<Shared> | undefined;

function sharedDevice(): Promise<Shared> {
  shared ??= requestDevice('weft-implicit-harness').then(({ adapter, device }) => ({
    adapter,
    device,
    runner: deviceRunner(device, watchUncapturedErrors(device)),
  }));
  return shared;
}

const harness: WeftImplicitHarness = {
  async adapter() {
    return (await sharedDevice()).adapter;
  },
  async kernel(c) {
    return (await sharedDevice()).runner.kernel(c);
  },
  async integrator(c) {
    return (await sharedDevice()).runner.integrator(c);
  },
  async cgSequence(c) {
    return (await sharedDevice()).runner.cgSequence(c);
  },
  async determinism(c) {
    return (await sharedDevice()).runner.determinism(c);
  },
  async midpoint() {
    return (await sharedDevice()).runner.midpoint();
  },
  async provokeValidationErrors() {
    const { device } = await requestDevice('weft-implicit-harness.provoke');
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

window.weftImplicitHarness = harness;
