/**
 * Models at the edges of what a simulation is given (issue 11). A model without springs falls
 * freely under gravity with every implicit integrator and solver on both backends — it used to
 * print WebGPU validation errors and stay put on WebGPU (its empty spring buffers were smaller than
 * one element) — against the closed forms of one step from rest: implicit and backward Euler
 * x₁ = x₀ + g h² (v₁ = g h), Newmark (γ = ½, β = ¼) x₁ = x₀ + ½ g h².
 */
import { expect, test } from 'vitest';
import { createModel, createSimulation } from '../src/index.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device, uncaptured) => ({ device, uncaptured }));
const free = createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 2], springPairs: [], springStiffness: 0 }); // prettier-ignore
const [g, h] = [-9.81, 0.1];

test.each([
  ['implicit-euler', g * h * h],
  ['backward-euler', g * h * h],
  ['newmark', 0.5 * g * h * h],
] as const)('%s: a model without springs falls by its closed form on both backends, every solver', async (integrator, drop) => {
  for (const backend of ['cpu', 'webgpu'] as const)
    for (const solver of ['pcg', 'multigrid', 'jacobi'] as const) {
      const device = backend === 'webgpu' ? { device: node.runner().device } : {};
      // A springless model's system matrix is M, diagonal: every solver solves it in one iteration.
      // A cap of 4 (not the default 200) keeps step() on WebGPU from encoding 200 unrolled ones.
      const simulation = await createSimulation(free, { integrator, dt: h, backend, solver, maxIterations: 4, ...device }); // prettier-ignore
      simulation.step();
      const { positions } = await simulation.readState();
      simulation.destroy();
      // float32 round-off of a 0.1 m drop: 1e-7 m (f32 has 24 bits; a few operations).
      [1, 4].forEach((k) => expect(Math.abs(positions[k]! - drop), `${backend} ${solver} y`).toBeLessThan(1e-7));
      [0, 2, 3, 5].forEach((k) => expect(positions[k]).toBe(free.particlePositions[k]));
    }
  expect(node.runner().uncaptured).toEqual([]);
}); // prettier-ignore

test.each([
  [{ integrator: 'implicit-euler', maxIterations: 1e12 }, /^maxIterations: must be at most 100000 on WebGPU/],
  [{ integrator: 'backward-euler', maxIterations: 90_000, newtonIterations: 20 }, /^maxIterations: × \(newtonIterations \+ 1\) must be at most 1000000 on WebGPU/],
] as const)('an iteration cap WebGPU cannot encode is refused, naming it (%#)', async (options, message) => {
  const created = createSimulation(free, { ...options, dt: h, backend: 'webgpu', device: node.runner().device });
  await expect(created).rejects.toThrow(message);
}); // prettier-ignore

test.each([
  [{ positions: [0, 0, 0, 1e39, 0, 0] }, /^particles\.positions\[3\]: 1e\+39 is outside float32's range on WebGPU/],
  [{ masses: [1, 1e-40] }, /^particles\.masses\[1\]: 1e-40 is outside float32's range/],
  [{ springStiffness: 5e38 }, /^springs\.stiffness\[0\]: 5e\+38 is outside float32's range/],
] as const)('a value float32 cannot hold is an input error on WebGPU, and runs on the CPU (%#)', async (change, message) => {
  const model = createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], springPairs: [0, 1], springStiffness: 10, ...change }); // prettier-ignore
  for (const integrator of ['rk4', 'implicit-euler', 'rk45'] as const) {
    const options = integrator === 'rk45' ? { integrator, accuracy: 1e-3 } : { integrator, dt: 1e-3 };
    await expect(createSimulation(model, { ...options, backend: 'webgpu', device: node.runner().device })).rejects.toThrow(message); // prettier-ignore
  }
  const cpu = await createSimulation(model, { integrator: 'implicit-euler', dt: 1e-3 });
  cpu.destroy();
}); // prettier-ignore

test.each([
  [{ integrator: 'implicit-euler', dt: 0.01, rayleighMass: 1e39 }, /^rayleighMass: 1e\+39 is outside float32's range on WebGPU/],
  [{ integrator: 'rk4', dt: 1e-3, rayleighMass: 1e-45 }, /^rayleighMass: 1e-45 is outside float32's range on WebGPU/],
  [{ integrator: 'rk45', accuracy: 1e-3, minStep: 1e-40 }, /^minStep: 1e-40 is outside float32's range on WebGPU/],
] as const)('an option float32 cannot hold is an input error on WebGPU, before any step (%#)', async (options, message) => {
  await expect(createSimulation(free, { ...options, backend: 'webgpu', device: node.runner().device })).rejects.toThrow(message); // prettier-ignore
}); // prettier-ignore
