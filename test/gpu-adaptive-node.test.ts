/**
 * The adaptive integrators on WebGPU in Node (Dawn through the `webgpu` package, SwiftShader when
 * no GPU answers) against the CPU float32 path and a reference solution computed in the test
 * (RK4 with small steps, test/helpers/mass-spring-reference.ts): the suite of
 * test/helpers/adaptive-gpu-checks.ts, on one device for the whole file, each case inside its own
 * error scopes; and Drake's spring–mass tests with their bounds (test/helpers/drake-gpu-checks.ts).
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { adaptiveRunner } from './helpers/adaptive-gpu-cases.ts';
import { describeAdaptiveSuite } from './helpers/adaptive-gpu-checks.ts';
import { describeDrakeGpuSuite, drakeGpuRunner } from './helpers/drake-gpu-checks.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device, uncaptured) => ({
  adaptive: adaptiveRunner(device, uncaptured),
  drake: drakeGpuRunner(device, uncaptured),
}));

describeAdaptiveSuite(
  () => node.runner().adaptive,
  () => `Node: ${node.adapter()}`,
);
describeDrakeGpuSuite(() => node.runner().drake);
