/**
 * One particle's height step by step under the implicit schemes' contacts (test/contact-release.test.ts,
 * test/contact-held-above.test.ts): implicit Euler on the CPU (float64) and WebGPU, Newmark and
 * backward Euler on the CPU (the contact programs are the same on both backends), CG to 1e-6.
 */
import { createSimulation, type Model } from '../../src/index.ts';
import { BACKENDS } from './node-device-suite.ts';

/** The (integrator, backend) pairs, those of the backends this run has. */
export const PARTICLE_CASES = (
  [
    ['implicit-euler', 'cpu'],
    ['implicit-euler', 'webgpu'],
    ['newmark', 'cpu'],
    ['backward-euler', 'cpu'],
  ] as const
).filter(([, backend]) => BACKENDS.includes(backend));

/** Particle 0's y after each of `steps` steps of 1/60 s, and its final vertical velocity. */
export async function particleHeights(
  model: Model,
  [integrator, backend]: readonly ['implicit-euler' | 'newmark' | 'backward-euler', 'cpu' | 'webgpu'],
  steps: number,
  device: () => GPUDevice,
): Promise<{ heights: number[]; velocity: number }> {
  const sim = await createSimulation(model, {
    integrator,
    dt: 1 / 60,
    solver: 'cg',
    tolerance: 1e-6,
    ...(backend === 'webgpu' ? { backend, device: device() } : { backend }),
  });
  try {
    const heights: number[] = [];
    for (let step = 0; step < steps; step++) {
      sim.step(1);
      heights.push((await sim.readState()).positions[1]!);
    }
    return { heights, velocity: (await sim.readState()).velocities[1]! };
  } finally {
    sim.destroy();
  }
}
