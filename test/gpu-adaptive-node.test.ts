/**
 * The adaptive integrators on WebGPU in Node (Dawn through the `webgpu` package, SwiftShader when
 * no GPU answers) against the CPU float32 path and a reference solution computed in the test
 * (RK4 with small steps, test/helpers/mass-spring-reference.ts): the suite of
 * test/helpers/adaptive-gpu-checks.ts, on one device for the whole file, each case inside its own
 * error scopes; and Drake's spring–mass tests with their bounds (test/helpers/drake-gpu-checks.ts).
 *
 * Cases: every case of ADAPTIVE_CASES runs in headless Chromium (test/gpu-adaptive-browser.test.ts),
 * whose WebGPU is the same SwiftShader running the same WGSL; here in Node, a representative subset
 * (NODE_CASES: rk45 and velocity-implicit-euler on both scenes, step doubling of rk2 on the cloth),
 * each held to the same bounds, plus the statistics and bad-input checks and Drake's tests.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { ADAPTIVE_CASES, adaptiveRunner, type AdaptiveCase } from './helpers/adaptive-gpu-cases.ts';
import { describeAdaptiveSuite } from './helpers/adaptive-gpu-checks.ts';
import { describeDrakeGpuSuite, drakeGpuRunner } from './helpers/drake-gpu-checks.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device, uncaptured) => ({
  adaptive: adaptiveRunner(device, uncaptured),
  drake: drakeGpuRunner(device, uncaptured),
}));

/** The Node subset of ADAPTIVE_CASES (the browser suite runs them all). */
const NODE_CASES: readonly AdaptiveCase[] = ADAPTIVE_CASES.filter(
  (c) =>
    c.integrator === 'rk45' ||
    c.integrator === 'velocity-implicit-euler' ||
    (c.scene === 'cloth8' && c.scheme === 'rk2' && !c.extrapolate),
);

describeAdaptiveSuite(
  () => node.runner().adaptive,
  () => `Node: ${node.adapter()}`,
  NODE_CASES,
);
describeDrakeGpuSuite(() => node.runner().drake);
