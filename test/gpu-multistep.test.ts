/**
 * Adams–Bashforth 2/3 and the Adams–Moulton PECE predictor–corrector on WebGPU (Node, Dawn) against
 * the CPU float32 path (src/backends/cpu/cpu-simulation.ts), including the RK4 start-up steps, inside error
 * scopes; and the fixed-point predictor–correctors refused on WebGPU with the field named.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildCloth, createSimulation, WeftInputError, type Model } from '../src/index.ts';
import { acquireDevice } from '../src/backends/webgpu/device.ts';
import { expectClose } from './helpers/expect-close.ts';

let device: GPUDevice;
let model: Model;

beforeAll(async () => {
  ({ device } = await acquireDevice());
  model = buildCloth({ nx: 8, ny: 8, damping: 0.5 });
});
afterAll(() => device.destroy());

// 50 steps of 1 ms on an 8×8 cloth. Tolerances: float32 rounding of the same passes in another
// order (GPU fused multiply-adds), as for the explicit integrators (test/gpu-node.test.ts); measured
// 1.8e-7 m and 4.0e-5 m/s.
test.each(['adams-bashforth-2', 'adams-bashforth-3', 'adams-moulton-pc'] as const)(
  '%s: GPU matches CPU f32 after 50 steps',
  async (integrator) => {
    device.pushErrorScope('validation');
    const cpu = await createSimulation(model, { integrator, dt: 1e-3, precision: 'f32' });
    const gpu = await createSimulation(model, { integrator, dt: 1e-3, backend: 'webgpu', device });
    cpu.step(50);
    gpu.step(50);
    const [a, b] = [await cpu.readState(), await gpu.readState()];
    expect(await device.popErrorScope()).toBeNull();
    expect(b.step).toBe(50);
    expectClose(b.positions, a.positions, 2e-6, `${integrator} positions`);
    expectClose(b.velocities, a.velocities, 4e-4, `${integrator} velocities`);
    // The cloth moved: comparing two frozen states would prove nothing.
    expect(Math.abs(a.positions[1]! - model.particlePositions[1]!)).toBeGreaterThan(1e-3);
    cpu.destroy();
    gpu.destroy();
  },
);

test.each(['heun-implicit', 'implicit-euler-pc'] as const)(
  '%s is refused on WebGPU, naming the backend',
  async (integrator) => {
    const attempt = createSimulation(model, { integrator, dt: 1e-3, backend: 'webgpu', device });
    await expect(attempt).rejects.toThrow(WeftInputError);
    await expect(attempt).rejects.toMatchObject({ field: 'backend' });
  },
);

test('iterated Adams–Moulton is refused on WebGPU, naming maxCorrectorIterations', async () => {
  const attempt = createSimulation(model, {
    integrator: 'adams-moulton-pc',
    dt: 1e-3,
    backend: 'webgpu',
    device,
    maxCorrectorIterations: 3,
  });
  await expect(attempt).rejects.toMatchObject({ field: 'maxCorrectorIterations' });
});
