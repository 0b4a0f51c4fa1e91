/**
 * Kinematic colliders on WebGPU (Node, SwiftShader): a particle on a plane moving up rides on it
 * (analytic, float32), and a small cloth draped on a sphere that moves matches the CPU reference
 * in float32 storage (implicit Euler with PCG, symplectic Euler).
 */
import { expect, test } from 'vitest';
import { createModel, createSimulation, type Model, type Simulation } from '../src/index.ts';
import { colliderDistance } from '../src/internal.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { clothOnSphere, THICKNESS } from './helpers/cloth-on-sphere.ts';

const node = useNodeDevice((device) => device);

test.each([
  ['implicit-euler', 1 / 60],
  ['symplectic-euler', 1 / 240],
] as const)(
  '%s on the GPU: a particle on a plane moving up at 0.5 m/s rides on it at the thickness',
  async (integrator, dt) => {
    const model = createModel({ positions: [0, THICKNESS, 0], masses: [0.1], springPairs: [], springStiffness: 0, colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }] }); // prettier-ignore
    const sim = await createSimulation(model, { integrator, dt, backend: 'webgpu', device: node.runner() });
    try {
      const calls = 20;
      for (let c = 1; c <= calls; c++) {
        sim.setColliderPose!(0, { point: [0, 0.5 * 2 * c * dt, 0] });
        sim.step(2);
      }
      const { positions, velocities } = await sim.readState();
      const t = 2 * calls * dt;
      // float32: the pose advanced by h u per step on the GPU (40 roundings of ~1e-8 m).
      expect(Math.abs(positions[1]! - (0.5 * t + THICKNESS))).toBeLessThan(2e-6);
      expect(Math.abs(velocities[1]! - 0.5)).toBeLessThan(1e-5);
    } finally {
      sim.destroy();
    }
  },
  60_000,
);

/** The sphere's path: up at 0.3 m/s and along x at 0.2 m/s, from under the cloth (1 cm above its surface). */
const spherePath = (t: number) => ({ center: [0.2 * t, 0.3 * t, 0] as [number, number, number] });

async function run(sim: Simulation, from: number, to: number) {
  for (let c = from + 1; c <= to; c++) {
    sim.setColliderPose!(0, spherePath(c * sim.dt));
    sim.step(1);
  }
  return sim.readState();
}

/**
 * The comparison is made while the contacts' discrete decisions (constrained or free, released,
 * stuck or sliding) agree: one decided differently in float32 on the two backends moves a
 * particle by ~1e-3 m at once (measured: implicit Euler 4.9e-6 m at 0.17 s, 2.5e-3 m at 0.2 s; the
 * same happens over a static sphere), after which only the physics is checked.
 */
test.each([
  ['implicit-euler', 1 / 60, 'pcg', 0.15, 1e-5],
  ['symplectic-euler', 1 / 600, undefined, 0.6, 2e-5],
] as const)(
  '%s: a 10² cloth lifted by a moving sphere, GPU vs CPU f32',
  async (integrator, dt, solver, compareAt, tolerance) => {
    const model: Model = clothOnSphere(10, 0.32);
    const [compared, steps] = [Math.round(compareAt / dt), Math.round(0.6 / dt)];
    const options = { integrator, dt, ...(solver ? { solver } : {}) } as const;
    const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device: node.runner() });
    const cpu = await createSimulation(model, { ...options, precision: 'f32' });
    try {
      const [a, b] = [await run(gpu, 0, compared), await run(cpu, 0, compared)];
      const diff = Math.max(...a.positions.map((x, k) => Math.abs(x - b.positions[k]!)));
      expectClose(a.positions, b.positions, tolerance, `${integrator}: positions GPU vs CPU f32 at ${compareAt} s (m)`); // prettier-ignore
      const end = await run(gpu, compared, steps);
      const sphere = { ...model.colliders[0]!, p: spherePath(steps * dt).center as [number, number, number] };
      let closest = Infinity;
      let rise = Infinity;
      for (let i = 0; i < model.particleCount; i++) {
        const x = [end.positions[3 * i]!, end.positions[3 * i + 1]!, end.positions[3 * i + 2]!] as const;
        closest = Math.min(closest, colliderDistance(sphere, x).distance);
        rise = Math.min(rise, end.positions[3 * i + 1]! - model.particlePositions[3 * i + 1]!);
      }
      console.log(`${integrator}: cloth on a moving sphere, GPU vs CPU f32 max |Δx| ${diff.toExponential(2)} m at ${compareAt} s; at 0.6 s closest ${closest.toExponential(3)} m from the surface, lowest particle rose ${rise.toFixed(3)} m`); // prettier-ignore
      // The sphere rose 0.18 m: the cloth's centre rode up on it; nothing is inside (thickness kept to 2 mm).
      expect(end.positions[3 * 55 + 1]! - model.particlePositions[3 * 55 + 1]!).toBeGreaterThan(0.15);
      expect(closest).toBeGreaterThan(THICKNESS - 2e-3);
    } finally {
      gpu.destroy();
      cpu.destroy();
    }
  },
  120_000,
);
