/**
 * The WebGPU path in Node (Dawn through the `webgpu` package; SwiftShader when no GPU answers):
 * the global order of the Runge–Kutta schemes on the GPU, on the file's device (the shared one of
 * the Node GPU suites, test/helpers/node-device-suite.ts, which also checks the error capture).
 *
 * The GPU-vs-CPU float32 comparisons of every explicit and multistep scheme, on the spring and the
 * 16 × 16 cloth and with Rayleigh damping, run in headless Chromium (test/gpu-browser.test.ts:
 * the same cases, tolerances and WGSL, on the same SwiftShader); in Node every one of these schemes
 * is held to the CPU on an 8 × 5 cloth with Rayleigh damping by test/gpu-kernels-quick.test.ts.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { describe, expect, test } from 'vitest';
import { createModel, createSimulation } from '../src/index.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);

/**
 * Global order of the Runge–Kutta schemes on WebGPU (float32), measured, not assumed: the
 * undamped oscillator (ω = 2π rad/s, amplitude 0.1 m, one period) with N, 2N and 4N steps, error
 * = |(x − x(T), v/ω − v(T)/ω)| at t = T against the analytic solution. The orders are written
 * here from the literature (Euler 1; midpoint, Heun, Ralston 2; RK4 4). N keeps the smallest
 * error (≥ 3e-6 m) well above float32 round-off over 4N steps (≲ 1e-6 m here); ± 0.15.
 */
describe('global order on WebGPU (float32), undamped oscillator', () => {
  const omega = 2 * Math.PI;
  const amplitude = 0.1;
  const cases = [
    ['explicit-euler', 1, 400],
    ['rk2', 2, 50],
    ['heun', 2, 50],
    ['ralston', 2, 50],
    ['rk4', 4, 10],
  ] as const;
  test.each(cases)('%s: order %i', async (integrator, expectedOrder, baseSteps) => {
    const device = node.runner();
    const errors: number[] = [];
    for (const steps of [baseSteps, 2 * baseSteps, 4 * baseSteps]) {
      const model = createModel({
        positions: [0, 0, 0, 1 + amplitude, 0, 0],
        masses: [1, 1],
        fixed: [0],
        springPairs: [0, 1],
        springStiffness: omega * omega,
        springRestLengths: [1],
        gravity: [0, 0, 0],
      });
      const simulation = await createSimulation(model, {
        backend: 'webgpu',
        device,
        integrator,
        dt: 1 / steps,
      });
      simulation.step(steps);
      const { positions, velocities } = await simulation.readState();
      simulation.destroy();
      errors.push(Math.hypot(positions[3]! - (1 + amplitude), velocities[3]! / omega));
    }
    const orders = [Math.log2(errors[0]! / errors[1]!), Math.log2(errors[1]! / errors[2]!)];
    for (const order of orders) expect(Math.abs(order - expectedOrder)).toBeLessThanOrEqual(0.15);
  });
});
