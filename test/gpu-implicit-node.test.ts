/**
 * The implicit integrators on WebGPU in Node (Dawn through the `webgpu` package, SwiftShader when
 * no GPU answers) against the CPU reference: the suite of test/helpers/implicit-checks.ts at its
 * 'plumbing' coverage (every kernel and integrator once; the full matrix, the CG energy-norm
 * sequences, the determinism runs and the midpoint check run in test/gpu-implicit-browser.test.ts,
 * the same WGSL on the same SwiftShader), on one device for the whole file, each case inside its
 * own error scopes.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { deviceRunner } from './helpers/implicit-cases.ts';
import { describeImplicitSuite } from './helpers/implicit-checks.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice(deviceRunner);

describeImplicitSuite(node.runner, () => `Node: ${node.adapter()}`, 'plumbing');
