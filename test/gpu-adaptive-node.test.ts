/**
 * The adaptive integrators on WebGPU in Node (Dawn through the `webgpu` package, SwiftShader when
 * no GPU answers) against the CPU float32 path and the exact solution: the suite of
 * test/helpers/adaptive-gpu-checks.ts, on one device for the whole file, each case inside its own
 * error scopes.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { adaptiveRunner } from './helpers/adaptive-gpu-cases.ts';
import { describeAdaptiveSuite } from './helpers/adaptive-gpu-checks.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice(adaptiveRunner);

describeAdaptiveSuite(node.runner, () => `Node: ${node.adapter()}`);
