/**
 * The adaptive integrators on WebGPU in Node (Dawn through the `webgpu` package, SwiftShader when
 * no GPU answers), on the device of the Node GPU suites, each case inside its own error scopes:
 * bad input (a WeftInputError naming the field, test/helpers/adaptive-gpu-checks.ts) and Drake's
 * spring–mass tests with their bounds (test/helpers/drake-gpu-checks.ts).
 *
 * The GPU-vs-CPU and GPU-vs-reference cases of ADAPTIVE_CASES, and the Newton statistics, run in
 * headless Chromium (test/gpu-adaptive-browser.test.ts: the same src and WGSL on the same
 * SwiftShader). In Node the adaptive GPU paths are held to the CPU by test/gpu-adaptive-fused.test.ts
 * (rk45, step doubling of rk2 and velocity-implicit-euler, fused and per op) and by
 * test/gpu-kernels-quick.test.ts (every adaptive kernel, fused and per attempt).
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { adaptiveRunner } from './helpers/adaptive-gpu-cases.ts';
import { describeAdaptiveBadInput } from './helpers/adaptive-gpu-checks.ts';
import { describeDrakeGpuSuite, drakeGpuRunner } from './helpers/drake-gpu-checks.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device, uncaptured) => ({
  adaptive: adaptiveRunner(device, uncaptured),
  drake: drakeGpuRunner(device, uncaptured),
}));

describeAdaptiveBadInput(() => node.runner().adaptive);
describeDrakeGpuSuite(() => node.runner().drake);
