/**
 * Adams–Bashforth 2/3 and the Adams–Moulton PECE predictor–corrector on WebGPU (Node, Dawn) against
 * the CPU float32 path (src/backends/cpu/cpu-simulation.ts), including the RK4 start-up steps, inside error
 * scopes; and the fixed-point predictor–correctors, whose corrector stops on the GPU.
 */
import { beforeAll, expect, test } from 'vitest';
import { buildCloth, createModel, createSimulation, type Model } from '../src/index.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

// The suite's device (in the full run, the worker's shared one: pipelines compiled by the other
// GPU suites stay cached).
const node = useNodeDevice((device) => device);
let device: GPUDevice;
let model: Model;

beforeAll(() => {
  device = node.runner();
  model = buildCloth({ nx: 8, ny: 8, damping: 0.5 });
});

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

/**
 * The fixed-point predictor–correctors on WebGPU: the corrector's sweeps are dispatched
 * indirectly and stop on the GPU once the change is within the tolerance (no readback inside a
 * step). Against the CPU float32 path: the same state (as above) and the same corrector statistics
 * — sweeps per step may differ by one where a change lies within float32 noise of the tolerance
 * (measured: equal totals at 1e-5; at 1e-6, the float32 floor, even the CPU's f32 path fails to
 * converge on 2 of 20 steps), and non-convergence must be reported the same way (h ω = 1.5).
 */
test.each([
  ['heun-implicit', {}],
  ['implicit-euler-pc', {}],
  ['adams-moulton-pc', { maxCorrectorIterations: 3 }],
] as const)('%s %o: GPU matches CPU f32, corrector statistics too', async (integrator, extra) => {
  device.pushErrorScope('validation');
  const options = { integrator, dt: 1e-3, correctorTolerance: 1e-5, ...extra };
  const cpu = await createSimulation(model, { ...options, precision: 'f32' });
  const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device });
  cpu.step(20);
  gpu.step(20);
  const [a, b] = [await cpu.readState(), await gpu.readState()];
  const [sa, sb] = [(await cpu.readSolverStats())!, (await gpu.readSolverStats())!];
  expect(await device.popErrorScope()).toBeNull();
  expectClose(b.positions, a.positions, 2e-6, `${integrator} positions`);
  expectClose(b.velocities, a.velocities, 4e-4, `${integrator} velocities`);
  expect(Math.abs(a.positions[1]! - model.particlePositions[1]!)).toBeGreaterThan(1e-4);
  // At least one sweep per step after the RK4 starter (AM: 2 steps), and the same count on both.
  expect(sa.newtonIterations).toBeGreaterThanOrEqual(18);
  expect(sb.newtonIterations).toBe(sa.newtonIterations);
  expect([sb.unconvergedSteps, sb.converged]).toEqual([sa.unconvergedSteps, sa.converged]);
  cpu.destroy();
  gpu.destroy();
});

test('a corrector that cannot converge is reported on WebGPU as on the CPU', async () => {
  // A 1-D spring, ω = 2π rad/s, h ω = 1.5: implicit Euler's fixed point contracts by h ω > 1 per sweep.
  const spring = createModel({
    positions: [0, 0, 0, 1.1, 0, 0],
    masses: [1, 1],
    fixed: [0],
    springPairs: [0, 1],
    springStiffness: 4 * Math.PI ** 2,
    springRestLengths: [1],
    gravity: [0, 0, 0],
  });
  const options = {
    integrator: 'implicit-euler-pc',
    dt: 1.5 / (2 * Math.PI),
    maxCorrectorIterations: 20,
  } as const;
  const gpu = await createSimulation(spring, { ...options, backend: 'webgpu', device });
  gpu.step(3);
  const stats = (await gpu.readSolverStats())!;
  expect(stats.unconvergedSteps).toBe(3);
  expect(stats.converged).toBe(false);
  expect(stats.newtonIterations).toBe(60);
  gpu.destroy();
});

test('the default corrector tolerance is one float32 can meet (1e-5 there, 1e-10 in float64)', async () => {
  // At 1e-10 every float32 step would end unconverged after maxCorrectorIterations sweeps.
  for (const where of [{ precision: 'f32' as const }, { backend: 'webgpu' as const, device }]) {
    const simulation = await createSimulation(model, { integrator: 'heun-implicit', dt: 1e-3, ...where });
    simulation.step(20);
    const stats = (await simulation.readSolverStats())!;
    expect([stats.unconvergedSteps, stats.converged]).toEqual([0, true]);
    expect(stats.newtonIterations).toBeLessThan(20 * 5);
    simulation.destroy();
  }
  const f64 = await createSimulation(model, { integrator: 'heun-implicit', dt: 1e-3 });
  f64.step(20);
  // float64 meets 1e-10, with more sweeps than float32's 1e-5.
  expect((await f64.readSolverStats())!.unconvergedSteps).toBe(0);
});
