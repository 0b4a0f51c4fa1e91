/**
 * Block Jacobi inside a constrained solve (src/backends/cpu/linear-solver.ts tangentSolve,
 * shaders/jacobi-update.wgsl): on a particle held by a contact along n, its step must solve the
 * diagonal block restricted to the tangent plane, z = D⁻¹ r − (D⁻¹ n)(n·D⁻¹ r)/(n·D⁻¹ n), not
 * S D⁻¹ S. The scene: one particle resting on a frictionless floor, on a stretched spring to an
 * anchor below the floor and to the side (pulling it down and along), so that its block
 * D = α m I + γ k ŝ ŝᵀ couples the normal to the plane. Its system is that one block: the tangent
 * solve is exact after one update, so every solve ends at its second iteration (the residual is
 * measured before each update), where S D⁻¹ S needs more (measured: up to 9 iterations a solve
 * on the CPU at 1e-10, 8 on WebGPU at 1e-5); and the particle stays on the floor and slides as
 * under CG (the solve's exact answer, on the same backend).
 */
import { expect, test } from 'vitest';
import { createModel, createSimulation } from '../src/index.ts';
import { BACKENDS, useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const THICKNESS = 0.01;

const model = createModel({
  positions: [0, THICKNESS, 0, 0.8, -0.4, 0.3],
  masses: [0.01, 1],
  fixed: [1],
  springPairs: [0, 1],
  springStiffness: 50,
  springRestLengths: [0.5],
  colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0, thickness: THICKNESS }],
});

test.each(BACKENDS)('%s: a constrained Jacobi solve of one particle ends at its second iteration, and slides as CG does', async (backend) => {
  const run = async (solver: 'jacobi' | 'cg') => {
    const device = backend === 'webgpu' ? { device: node.runner() } : {};
    // float64 solves to 1e-10; float32 (WebGPU) to 1e-5, its round-off floor being ~1e-7.
    const sim = await createSimulation(model, { integrator: 'implicit-euler', dt: 1 / 60, solver, tolerance: backend === 'cpu' ? 1e-10 : 1e-5, maxIterations: 20, backend, ...device }); // prettier-ignore
    try {
      sim.step(10);
      return { state: await sim.readState(), stats: (await sim.readSolverStats())! };
    } finally {
      sim.destroy();
    }
  };
  const [jacobi, cg] = [await run('jacobi'), await run('cg')];
  expect(jacobi.stats.unconvergedSolves).toBe(0);
  expect(jacobi.stats.maxLinearIterations).toBeLessThanOrEqual(2);
  const [x, y, z] = jacobi.state.positions;
  // On the floor's contact surface (f64: to 1e-12 m; f32: to 1e-7 m), having slid towards the anchor.
  expect(Math.abs(y! - THICKNESS)).toBeLessThan(backend === 'cpu' ? 1e-12 : 1e-7);
  expect(Math.hypot(x!, z!)).toBeGreaterThan(0.01);
  // Where CG puts it: both solves reach the same constrained solution (to their tolerances).
  for (let k = 0; k < 3; k++) expect(Math.abs(jacobi.state.positions[k]! - cg.state.positions[k]!)).toBeLessThan(backend === 'cpu' ? 1e-9 : 1e-5); // prettier-ignore
}); // prettier-ignore
