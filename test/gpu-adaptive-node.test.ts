/**
 * The adaptive integrators on WebGPU in Node (Dawn through the `webgpu` package, SwiftShader when
 * no GPU answers) against the CPU float32 path and the exact solution: the suite of
 * test/helpers/adaptive-gpu-checks.ts, on one device for the whole file, each case inside its own
 * error scopes.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { acquireDevice } from '../src/webgpu/device.ts';
import { adaptiveRunner, type AdaptiveRunner } from './helpers/adaptive-gpu-cases.ts';
import { describeAdaptiveSuite } from './helpers/adaptive-gpu-checks.ts';
import { provokeValidationErrors, watchUncapturedErrors } from './helpers/gpu-cases.ts';

let device: GPUDevice | undefined;
let adapter = '';
let uncaptured: string[] = [];
let runner: AdaptiveRunner | undefined;

beforeAll(async () => {
  const acquired = await acquireDevice();
  device = acquired.device;
  adapter = acquired.adapterName;
  uncaptured = watchUncapturedErrors(device);
  runner = adaptiveRunner(device, uncaptured);
});

afterAll(() => {
  device?.destroy();
});

test('the error capture sees validation errors, scoped and uncaptured', async () => {
  if (!device) throw new Error('no GPU device (beforeAll failed)');
  const before = uncaptured.length;
  const seen = await provokeValidationErrors(device);
  expect(seen.scoped).toEqual([expect.stringContaining('validation: ')]);
  expect(seen.uncaptured).toEqual([expect.stringContaining('uncaptured: ')]);
  // The file-wide listener saw it too; it was on purpose.
  uncaptured.splice(before);
});

describeAdaptiveSuite(
  () => {
    if (!runner) throw new Error('no GPU device (beforeAll failed)');
    return runner;
  },
  () => `Node: ${adapter}`,
);
