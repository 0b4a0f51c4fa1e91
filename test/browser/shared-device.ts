/**
 * One device shared by a harness page's calls (requested on the first: pipelines compile once per
 * device, ~0.5 s on SwiftShader), with its uncaptured-error listener; the parts every
 * shared-device harness page exposes (adapter, provokeValidationErrors, release).
 */
import { provokeValidationErrors, watchUncapturedErrors } from '../helpers/gpu-cases.ts';
import type { SharedDeviceHarness } from './harness-api.ts';
import { requestDevice } from './request-device.ts';

export function sharedDevice<R>(
  label: string,
  makeRunner: (device: GPUDevice, uncaptured: string[]) => R,
): { runner: () => Promise<R>; common: SharedDeviceHarness } {
  let shared: Promise<{ adapter: string; device: GPUDevice; runner: R }> | undefined;
  const get = () =>
    (shared ??= requestDevice(label).then(({ adapter, device }) => ({
      adapter,
      device,
      runner: makeRunner(device, watchUncapturedErrors(device)),
    })));
  return {
    runner: async () => (await get()).runner,
    common: {
      async adapter() {
        return (await get()).adapter;
      },
      async provokeValidationErrors() {
        const { device } = await requestDevice(`${label}.provoke`);
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
    },
  };
}
