/**
 * Browser side of test/gpu-implicit-browser.test.ts: served by Vite from implicit-harness.html,
 * it exposes `window.weftImplicitHarness` (see harness-api.ts). The cases share one device per
 * page (pipelines compile once per device, ~0.5 s on SwiftShader), each inside its own error
 * scopes with the device's uncaptured-error listener watched; `release()` destroys it.
 */
import { deviceRunner } from '../helpers/implicit-cases.ts';
import { sharedDevice } from './shared-device.ts';

const shared = sharedDevice('weft-implicit-harness', deviceRunner);

window.weftImplicitHarness = {
  ...shared.common,
  kernel: async (c) => (await shared.runner()).kernel(c),
  integrator: async (c) => (await shared.runner()).integrator(c),
  cgSequence: async (c) => (await shared.runner()).cgSequence(c),
  determinism: async (c) => (await shared.runner()).determinism(c),
  midpoint: async () => (await shared.runner()).midpoint(),
};
