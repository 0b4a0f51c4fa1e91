/**
 * The WebGPU path in Node (Dawn through the `webgpu` package; SwiftShader when no GPU answers)
 * against the CPU float32 path: every integrator on the spring, RK4 and symplectic Euler on the
 * cloth. One device for the whole file, each case inside its own error scopes.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXPLICIT_INTEGRATOR_NAMES } from '../src/integrators/schemes.ts';
import { GPU_MULTISTEP } from '../src/webgpu/webgpu-multistep-simulation.ts';
import { acquireDevice } from '../src/webgpu/device.ts';
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
