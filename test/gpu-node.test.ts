/**
 * The WebGPU path in Node (Dawn through the `webgpu` package; SwiftShader when no GPU answers)
 * against the CPU float32 path: every integrator on the spring, RK4 and symplectic Euler on the
 * cloth. One device for the whole file, each case inside its own error scopes.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createModel, createSimulation, acquireDevice } from '../src/index.ts';
import {
  RAYLEIGH_INTEGRATORS,
  SCENE_TIMING,
  checkGpuAgainstCpu,
  formatErrorTable,
  rayleighCase,
  type ErrorRow,
} from './helpers/gpu-compare.ts';
import {
  compareGpuWithCpu,
  provokeValidationErrors,
  watchUncapturedErrors,
  withErrorScopes,
  type GpuCase,
  type GpuCaseResult,
} from './helpers/gpu-cases.ts';
import { EXPLICIT_INTEGRATOR_NAMES, GPU_MULTISTEP } from '../src/internal.ts';

let device: GPUDevice | undefined;
let adapter = '';
let uncaptured: string[] = [];
const rows: ErrorRow[] = [];

beforeAll(async () => {
  const acquired = await acquireDevice();
  device = acquired.device;
  adapter = acquired.adapterName;
  uncaptured = watchUncapturedErrors(device);
});

afterAll(() => {
  device?.destroy();
  if (rows.length) console.log(formatErrorTable(`GPU (Node: ${adapter}) vs CPU`, rows));
});

async function runCase(c: GpuCase): Promise<GpuCaseResult> {
  if (!device) throw new Error('no GPU device (beforeAll failed)');
  const gpu = device;
  const before = uncaptured.length;
  const { value, errors } = await withErrorScopes(gpu, () => compareGpuWithCpu(gpu, c));
  await gpu.queue.onSubmittedWorkDone();
  return { adapter, ...value, errors: [...errors, ...uncaptured.slice(before)] };
}

test('the error capture sees validation errors, scoped and uncaptured', async () => {
  if (!device) throw new Error('no GPU device (beforeAll failed)');
  const before = uncaptured.length;
  const seen = await provokeValidationErrors(device);
  expect(seen.scoped).toEqual([expect.stringContaining('validation: ')]);
  expect(seen.uncaptured).toEqual([expect.stringContaining('uncaptured: ')]);
  // The file-wide listener saw it too; it was on purpose.
  uncaptured.splice(before);
});

describe('spring', () => {
  test.each([...EXPLICIT_INTEGRATOR_NAMES, ...GPU_MULTISTEP])(
    '%s: GPU matches CPU f32',
    async (integrator) => {
      const c: GpuCase = { scene: 'spring', integrator, ...SCENE_TIMING.spring, rayleighMass: 0 };
      await checkGpuAgainstCpu(c, await runCase(c), rows);
    },
  );
});

describe('cloth16', () => {
  test.each(['rk4', 'symplectic-euler'] as const)('%s: GPU matches CPU f32', async (integrator) => {
    const c: GpuCase = { scene: 'cloth16', integrator, ...SCENE_TIMING.cloth16, rayleighMass: 0 };
    await checkGpuAgainstCpu(c, await runCase(c), rows);
  });
});

describe('spring with Rayleigh mass damping', () => {
  test.each(RAYLEIGH_INTEGRATORS)('%s: GPU matches CPU f32', async (integrator) => {
    const c = rayleighCase(integrator);
    await checkGpuAgainstCpu(c, await runCase(c), rows);
  });
});

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
    if (!device) throw new Error('no GPU device (beforeAll failed)');
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
