/**
 * Option `profile` (src/backends/webgpu/profiler.ts): GPU time per kernel from timestamp queries,
 * a compute pass per dispatch. Checked in Node (Dawn; SwiftShader has 'timestamp-query'): every
 * dispatch encoded is timed under its kernel's label, the times are positive, and profiling
 * changes nothing that is computed (the state equals the unprofiled run's bit for bit).
 */
import { describe, expect, test } from 'vitest';
import {
  buildCloth,
  createSimulation,
  findAdapter,
  WeftInputError,
  type SimulationOptions,
} from '../src/index.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);

async function profiled(options: SimulationOptions, steps: number, profile: boolean) {
  const simulation = await createSimulation(buildCloth({ nx: 8, ny: 8 }), { ...options, backend: "webgpu", device: node.runner(), profile } as SimulationOptions); // prettier-ignore
  try {
    await simulation.advance(steps);
    const state = await simulation.readState();
    const gpu = simulation as unknown as { readProfile(): Promise<{ kernel: string; dispatches: number; milliseconds: number }[]>; dispatchesEncoded: number }; // prettier-ignore
    return { state, profile: profile ? await gpu.readProfile() : [], dispatches: gpu.dispatchesEncoded };
  } finally {
    simulation.destroy();
  }
}

describe('profile: GPU time per kernel', () => {
  const cases: [string, SimulationOptions, string[]][] = [
    ['symplectic Euler', { integrator: 'symplectic-euler', dt: 1 / 600 }, ['forces', 'gather', 'combine']],
    ['implicit Euler, pcg, advance() with checkpoints', { integrator: 'implicit-euler', dt: 1 / 60, solver: 'pcg' }, ['springJacobians', 'systemProduct', 'cgStep', 'solverScalars']], // prettier-ignore
  ];
  for (const [name, options, kernels] of cases)
    test(`${name}: every dispatch timed under its kernel; the state is the unprofiled run's`, async () => {
      const plain = await profiled(options, 6, false);
      const timed = await profiled(options, 6, true);
      expect(Array.from(timed.state.positions)).toEqual(Array.from(plain.state.positions));
      const names = timed.profile.map((k) => k.kernel);
      for (const kernel of kernels) expect(names).toContain(kernel);
      const dispatches = timed.profile.reduce((sum, k) => sum + k.dispatches, 0);
      expect(dispatches).toBe(timed.dispatches);
      expect(dispatches).toBeGreaterThan(6 * kernels.length - 1);
      for (const k of timed.profile) expect(k.milliseconds).toBeGreaterThanOrEqual(0);
      expect(timed.profile.reduce((sum, k) => sum + k.milliseconds, 0)).toBeGreaterThan(0);
      // Sorted, the slowest first.
      expect(timed.profile.map((k) => k.milliseconds)).toEqual([...timed.profile.map((k) => k.milliseconds)].sort((a, b) => b - a)); // prettier-ignore
    }, 120_000);

  test('readProfile() without profile, and profile on a device without timestamps, name `profile`', async () => {
    const simulation = await createSimulation(buildCloth({ nx: 4, ny: 4 }), { integrator: 'symplectic-euler', dt: 1e-3, backend: 'webgpu', device: node.runner() }); // prettier-ignore
    const gpu = simulation as unknown as { readProfile(): Promise<unknown> };
    await expect(gpu.readProfile()).rejects.toThrow(WeftInputError);
    await expect(gpu.readProfile()).rejects.toThrow(/profile: is off/);
    simulation.destroy();
    const { adapter } = await findAdapter();
    const bare = await adapter.requestDevice();
    try {
      expect(bare.features.has('timestamp-query')).toBe(false);
      const made = createSimulation(buildCloth({ nx: 4, ny: 4 }), { integrator: 'symplectic-euler', dt: 1e-3, backend: 'webgpu', device: bare, profile: true } as SimulationOptions); // prettier-ignore
      await expect(made).rejects.toThrow(/profile: needs a device with the 'timestamp-query' feature/);
    } finally {
      bare.destroy();
    }
  }, 60_000);
});
