/**
 * Attachments with rk45 on WebGPU (Node, SwiftShader; the per-op stepper, `fused: false`) against
 * the CPU in float32 storage (test/adaptive-attachments.test.ts checks the CPU against RK4 and
 * closed forms): a kinematic particle driven along targets over each advanceTo, pin and release.
 * The fused kernel keeps its state its own way: it refuses the edits, naming `fused`.
 */
import { expect, test } from 'vitest';
import { createAdaptiveSimulation, createModel, type AdaptiveOptions } from '../src/index.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const G = 9.81;

/** Two particles 0.3 m apart on a spring (k = 40 N/m, 0.1 kg each), the first to be driven. */
const driven = () => createModel({ positions: [0, 0, 0, 0, -0.3, 0], masses: [0.1, 0.1], springPairs: [0, 1], springStiffness: 40, springRestLengths: [0.25] }); // prettier-ignore

async function pair(options: AdaptiveOptions) {
  const gpu = await createAdaptiveSimulation(driven(), { ...options, backend: 'webgpu', device: node.runner(), fused: false }); // prettier-ignore
  const cpu = await createAdaptiveSimulation(driven(), { ...options, precision: 'f32' });
  return [gpu, cpu] as const;
}

test('rk45: a particle driven along targets moves its neighbour on the GPU as on the CPU', async () => {
  const [gpu, cpu] = await pair({ integrator: 'rk45', accuracy: 1e-5 });
  try {
    for (let c = 1; c <= 6; c++) {
      const t = c / 30;
      const at = [0.1 * Math.sin(4 * Math.PI * t), 0, 0.1 * (1 - Math.cos(4 * Math.PI * t))];
      for (const simulation of [gpu, cpu]) {
        simulation.setTargets([0], at);
        await simulation.advanceTo(t);
      }
      const [g, c2] = [await gpu.readState(), await cpu.readState()];
      // On its target at each call's end (float32 rounding of 0.1 m: ~1e-8; measured ≤ 7e-9).
      expectClose(g.positions.subarray(0, 3), at, 1e-7, `driven particle at ${t} s (m)`);
      // float32 rounding over ~10 steps a call, ~0.05 m of motion: ~1e-7 m (measured ≤ 7.5e-8).
      expectClose(g.positions, c2.positions, 1e-6, `positions at ${t} s, GPU vs CPU f32 (m)`);
    }
    const { positions } = await gpu.readState();
    expect(Math.hypot(positions[3]!, positions[4]! + 0.3, positions[5]!)).toBeGreaterThan(0.01); // swung
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}, 60_000);

test('step doubling (heun): pin stops a falling particle, release lets it fall ½ g t² from rest, on the GPU', async () => {
  const model = createModel({ positions: [0, 1, 0], masses: [0.1], springPairs: [], springStiffness: 0 });
  const gpu = await createAdaptiveSimulation(model, { integrator: 'step-doubling', scheme: 'heun', accuracy: 1e-4, backend: 'webgpu', device: node.runner(), fused: false }); // prettier-ignore
  try {
    await gpu.advanceTo(0.2);
    const fallen = (await gpu.readState()).positions[1]!;
    expect(Math.abs(fallen - (1 - 0.5 * G * 0.04))).toBeLessThan(1e-6); // exact but for float32
    gpu.pin([0]);
    await gpu.advanceTo(0.5);
    const pinned = await gpu.readState();
    expect(pinned.positions[1]).toBe(fallen);
    expect(Array.from(pinned.velocities)).toEqual([0, 0, 0]);
    gpu.release([0]);
    await gpu.advanceTo(0.8);
    expect(Math.abs((await gpu.readState()).positions[1]! - (fallen - 0.5 * G * 0.09))).toBeLessThan(1e-6);
  } finally {
    gpu.destroy();
  }
}, 60_000);

test('rk45: particles fixed at creation and released are error-controlled as on the CPU (the rms norm counts them)', async () => {
  // Both particles fixed at creation: the GPU's free-particle count starts at 0; release() must update it.
  const model = createModel({ positions: [0, 0, 0, 0, -0.3, 0], masses: [0.1, 0.1], fixed: [0, 1], springPairs: [0, 1], springStiffness: 40, springRestLengths: [0.25] }); // prettier-ignore
  const options = { integrator: 'rk45', accuracy: 1e-6 } as const;
  const gpu = await createAdaptiveSimulation(model, { ...options, backend: 'webgpu', device: node.runner(), fused: false }); // prettier-ignore
  const cpu = await createAdaptiveSimulation(model, { ...options, precision: 'f32' });
  try {
    for (const simulation of [gpu, cpu]) {
      simulation.release([1]);
      await simulation.advanceTo(0.3);
    }
    // The same controller on the same errors (float32 both): the same steps, give or take one
    // decision within rounding of the tolerance (measured: equal).
    expect(Math.abs(gpu.stepCount - cpu.stepCount)).toBeLessThanOrEqual(1);
    expect(gpu.stepCount).toBeGreaterThan(10); // controlled: a 0 norm would take one step of maxStep
    expectClose((await gpu.readState()).positions, (await cpu.readState()).positions, 1e-5, 'released particle, GPU vs CPU f32 (m)'); // prettier-ignore
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}, 60_000);

test('velocity-implicit Euler on the per-op stepper: pin and release as the CPU’s Drake stepper, ½ g T² + ¼ g h T', async () => {
  // Two half steps of backward Euler at maxStep h carry gravity with drift ¾ (adaptive-attachments.test.ts).
  const h = 1 / 240;
  const model = createModel({ positions: [0, 1, 0], masses: [0.1], springPairs: [], springStiffness: 0 });
  const gpu = await createAdaptiveSimulation(model, { integrator: 'velocity-implicit-euler', accuracy: 1e-3, maxStep: h, backend: 'webgpu', device: node.runner(), fused: false }); // prettier-ignore
  const fall = (T: number) => 0.5 * G * T * T + 0.25 * G * h * T;
  try {
    expect(gpu.description).not.toMatch(/fused/);
    await gpu.advanceTo(0.2);
    const fallen = (await gpu.readState()).positions[1]!;
    expect(Math.abs(fallen - (1 - fall(0.2)))).toBeLessThan(1e-6); // the closed form but for float32
    gpu.pin([0]);
    await gpu.advanceTo(0.3);
    expect((await gpu.readState()).positions[1]).toBe(fallen);
    gpu.release([0]);
    await gpu.advanceTo(0.5);
    expect(Math.abs((await gpu.readState()).positions[1]! - (fallen - fall(0.2)))).toBeLessThan(1e-6);
  } finally {
    gpu.destroy();
  }
}, 60_000);

test('the fused kernel refuses particle edits, naming `fused`', async () => {
  const fused = await createAdaptiveSimulation(driven(), { integrator: 'rk45', accuracy: 1e-3, backend: 'webgpu', device: node.runner() }); // prettier-ignore
  try {
    expect(fused.description).toMatch(/fused/);
    expect(() => fused.pin([0])).toThrow(expect.objectContaining({ name: 'WeftInputError', field: 'fused' }));
    expect(() => fused.setParticles({ indices: [1], velocities: [0, 1, 0] })).toThrow(/fused: false/);
  } finally {
    fused.destroy();
  }
});
