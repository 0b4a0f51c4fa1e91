/**
 * A kernel the device refuses fails createSimulation, never a later step (Node, SwiftShader): a
 * borrowed device whose pipeline of one kernel is made invalid (an entry point it lacks, as a
 * driver's compiler or a limit would refuse it). The kernels chosen run only in a step, not in the
 * set-up; before every block was compiled at creation, such a simulation was created, its steps
 * submitted invalid command buffers (Dawn printed them; nothing threw), and readState() returned
 * the unchanged state as if it were the stepped one.
 */
import { expect, test } from 'vitest';
import { buildCloth, createSimulation, WeftError } from '../src/index.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const cloth = buildCloth({ nx: 4, ny: 4, spacing: 0.1, particleMass: 0.01, structuralStiffness: 100, shearStiffness: 50, bendStiffness: 10, damping: 0.01 }); // prettier-ignore

/** `device`, except that the pipelines labelled `label` get an entry point their module lacks. */
function refusing(device: GPUDevice, label: string): GPUDevice {
  return new Proxy(device, {
    get(target, key) {
      if (key === 'createComputePipeline')
        return (descriptor: GPUComputePipelineDescriptor) =>
          target.createComputePipeline(
            descriptor.label === label ? { ...descriptor, compute: { ...descriptor.compute, entryPoint: 'missingEntryPoint' } } : descriptor, // prettier-ignore
          );
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

test.each([
  ['symplectic-euler', 'Weft.programCombine', { integrator: 'symplectic-euler', dt: 1e-3 }],
  ['implicit-euler', 'Weft.cgStep', { integrator: 'implicit-euler', dt: 1e-2 }],
  ['rk45 (per op)', 'Weft.programCombine', { integrator: 'rk45', accuracy: 1e-3, fused: false }],
  ['rk45 (fused)', 'Weft.fusedAdaptive', { integrator: 'rk45', accuracy: 1e-3, fused: true }],
] as const)(
  '%s on a device that refuses %s: createSimulation throws (code gpu-setup), naming the error',
  async (_, label, options) => {
    const device = refusing(node.runner(), label);
    const created = createSimulation(cloth, { ...options, backend: 'webgpu', device });
    const error = await created.then(
      (simulation) => simulation,
      (e: unknown) => e,
    );
    if (!(error instanceof WeftError)) {
      // What it did before: a simulation whose steps do nothing.
      const simulation = error as Awaited<typeof created>;
      const before = (await simulation.readState()).positions.slice();
      await simulation.advance(3);
      const after = (await simulation.readState()).positions;
      simulation.destroy();
      expect.fail(
        `created; 3 steps moved the cloth by ${Math.max(...after.map((x, k) => Math.abs(x - before[k]!)))} m`,
      );
    }
    expect((error as WeftError).code).toBe('gpu-setup');
    expect((error as WeftError).message).toMatch(/missingEntryPoint|entry point/i);
  },
  60_000,
);
