/**
 * Nothing is returned from a simulation that can no longer compute (issue 11): every call after
 * destroy() throws WeftDestroyedError, on both backends and for each family (explicit, implicit,
 * multistep, adaptive); a borrowed GPUDevice destroyed by its owner makes readState() throw
 * WeftDeviceLostError with the device's reason, where it used to return zeros as a state.
 */
import { describe, expect, test } from 'vitest';
import {
  acquireDevice,
  buildCloth,
  createSimulation,
  WeftDestroyedError,
  WeftDeviceLostError,
  type Simulation,
} from '../src/index.ts';
import { BACKENDS, MUTATION_RUN, useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const cloth = buildCloth({ nx: 4, ny: 4, spacing: 0.1, particleMass: 0.01, structuralStiffness: 100, shearStiffness: 50, bendStiffness: 10, damping: 0.01 }); // prettier-ignore
const FAMILIES = [
  ['explicit', { integrator: 'rk4', dt: 1e-3 }],
  // maxIterations 48 (the default 200), the unknowns' count: step() on WebGPU encodes every CG
  // iteration up to the cap; the in-flight test below asserts its solves converged under it.
  ['implicit', { integrator: 'implicit-euler', dt: 1e-2, maxIterations: 48 }],
  ['multistep', { integrator: 'adams-bashforth-2', dt: 1e-3 }],
  ['adaptive', { integrator: 'rk45', accuracy: 1e-3 }],
] as const;

async function expectDestroyed(simulation: Simulation): Promise<void> {
  simulation.destroy();
  simulation.destroy(); // twice is harmless
  expect(() => simulation.step()).toThrow(WeftDestroyedError);
  expect(() => simulation.step()).toThrow(/step\(\): the simulation was destroyed/);
  await expect(simulation.readState()).rejects.toThrow(WeftDestroyedError);
  await expect(simulation.advance(1)).rejects.toThrow(WeftDestroyedError);
  await expect(simulation.readSolverStats()).rejects.toThrow(WeftDestroyedError);
  await expect(simulation.finished()).rejects.toThrow(WeftDestroyedError);
  // Each names the call.
  await expect(simulation.readState()).rejects.toThrow(/^readState\(\): the simulation was destroyed/);
  await expect(simulation.advance(1)).rejects.toThrow(/^advance\(\): the simulation was destroyed/);
  await expect(simulation.readSolverStats()).rejects.toThrow(
    /^readSolverStats\(\): the simulation was destroyed/,
  );
  await expect(simulation.finished()).rejects.toThrow(/^finished\(\): the simulation was destroyed/);
  // Attachments (test/attachments.test.ts) too, before any validation of their arguments.
  expect(() => simulation.setParticles({ indices: [0], positions: [0, 0, 0] })).toThrow(WeftDestroyedError);
  expect(() => simulation.pin([0])).toThrow(/pin\(\): the simulation was destroyed/);
  expect(() => simulation.release([0])).toThrow(WeftDestroyedError);
  expect(() => simulation.setTargets([0], [0, 0, 0])).toThrow(WeftDestroyedError);
}

describe.each(BACKENDS)('%s: after destroy()', (backend) => {
  test.each(FAMILIES)('%s: every call throws WeftDestroyedError', async (_, options) => {
    const device = backend === 'webgpu' ? { device: node.runner() } : {};
    const simulation = await createSimulation(cloth, { ...options, backend, ...device });
    await simulation.advance(2);
    const state = await simulation.readState();
    expect(state.step).toBe(2);
    await expectDestroyed(simulation);
  });
});

test.skipIf(MUTATION_RUN).each(FAMILIES)(
  '%s on a borrowed device its owner destroyed: readState() throws WeftDeviceLostError, not zeros',
  async (_, options) => {
    const { device } = await acquireDevice();
    const simulation = await createSimulation(cloth, { ...options, backend: 'webgpu', device });
    await simulation.advance(2);
    const before = await simulation.readState();
    expect(Math.max(...before.positions.map(Math.abs))).toBeGreaterThan(0.1); // a real state first
    device.destroy();
    await expect(simulation.readState()).rejects.toThrow(WeftDeviceLostError);
    await expect(simulation.readState()).rejects.toThrow(/reason 'destroyed'/);
    await expect(simulation.advance(1)).rejects.toThrow(WeftDeviceLostError);
    simulation.destroy();
  },
);

test.skipIf(MUTATION_RUN).each(FAMILIES.slice(0, 3))(
  '%s on WebGPU: readState() is the state when it was called, whatever step() does while it is in flight (as on the CPU)',
  async (_, options) => {
    const [gpu, cpu] = [
      await createSimulation(cloth, { ...options, backend: 'webgpu', device: node.runner() }),
      await createSimulation(cloth, options),
    ];
    for (const simulation of [gpu, cpu]) simulation.step(5);
    const [reading, reference] = [gpu.readState(), cpu.readState()];
    gpu.step(5);
    const [state, expected] = [await reading, await reference];
    expect(state.step).toBe(5);
    // float32 against float64 after 5 steps of a 4² cloth: agreement to 1e-5 m (round-off).
    state.positions.forEach((x, k) => expect(Math.abs(x - expected.positions[k]!)).toBeLessThan(1e-5));
    expect((await gpu.readState()).step).toBe(10);
    const solver = await gpu.readSolverStats();
    console.log(
      `${options.integrator}: most CG iterations in a solve on WebGPU ${solver?.maxLinearIterations}`,
    );
    expect(solver?.unconvergedSolves ?? 0).toBe(0);
    gpu.destroy();
    cpu.destroy();
  },
);
