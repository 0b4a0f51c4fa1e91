/**
 * Browser side of test/gpu-adaptive-browser.test.ts: served by Vite from adaptive-harness.html,
 * it exposes `window.weftAdaptiveHarness` (see harness-api.ts). The cases share one device per
 * page, each inside its own error scopes with the device's uncaptured-error listener watched;
 * `release()` destroys it.
 */
import { adaptiveRunner } from '../helpers/adaptive-gpu-cases.ts';
import { sharedDevice } from './shared-device.ts';

const shared = sharedDevice('weft-adaptive-harness', adaptiveRunner);

window.weftAdaptiveHarness = {
  ...shared.common,
  run: async (c) => (await shared.runner()).run(c),
  badInput: async (c) => (await shared.runner()).badInput(c),
};
