/**
 * Dihedral bending on WebGPU (Node, SwiftShader; src/backends/webgpu/bending-ops.ts and
 * shaders/bending-*.wgsl) against the CPU reference in float32 storage on the same scenes: a bumpy
 * sheet's force after one explicit step, and a clamped strip (with and without damping) under
 * symplectic Euler and implicit Euler with each linear solver — the hinge pass, the gathers, the
 * rhs terms, the product with CG's reduction and the diagonal all enter those.
 */
import { expect, test } from 'vitest';
import {
  buildCloth,
  createModel,
  createSimulation,
  withBending,
  withColliders,
  type Bending,
  type Model,
} from '../src/index.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);

/** A 6 × 6 free sheet bumped out of plane (a fixed pseudo-random pattern), flat at rest, no gravity. */
function bumpy(): Model {
  const flat = buildCloth({ nx: 6, ny: 6, spacing: 0.1, pins: 'none', gravity: [0, 0, 0], bendStiffness: 0 });
  const bump = (k: number) => 0.02 * Math.sin(1.7 * k + 0.3 * k * k);
  return createModel({ positions: flat.particlePositions.map((x, k) => x + bump(k)), masses: flat.particleMass, springPairs: [], springStiffness: 0, triangles: flat.triangleIndices, gravity: [0, 0, 0], bending: { stiffness: 0.05, restAngles: 'flat' } }); // prettier-ignore
}

test('one symplectic Euler step of a bumpy sheet: the bending force on the GPU is the CPU’s (float32)', async () => {
  const model = bumpy();
  const h = 1e-3;
  const gpu = await createSimulation(model, { integrator: 'symplectic-euler', dt: h, backend: 'webgpu', device: node.runner() }); // prettier-ignore
  const cpu = await createSimulation(model, { integrator: 'symplectic-euler', dt: h });
  try {
    gpu.step(1);
    cpu.step(1);
    const [a, b] = [(await gpu.readState()).velocities, (await cpu.readState()).velocities];
    const scale = Math.max(...b.map(Math.abs));
    expect(scale).toBeGreaterThan(1e-3);
    const diff = Math.max(...a.map((v, k) => Math.abs(v - b[k]!)));
    console.log(
      `bumpy sheet: max |Δv| GPU vs CPU f64 ${diff.toExponential(2)} m/s of max |v| ${scale.toExponential(2)}`,
    );
    expectClose(a, b, 1e-4 * scale, 'velocities after one step, GPU vs CPU f64 (m/s)');
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}, 60_000);

/** A 8 × 3 strip (5 cm cells, 4 g particles) clamped by two columns, no bend springs, bending on. */
function strip(bending: Bending): Model {
  const nx = 8;
  const pins = [0, 1, nx, nx + 1, 2 * nx, 2 * nx + 1];
  return withBending(
    buildCloth({ nx, ny: 3, spacing: 0.05, particleMass: 0.004, bendStiffness: 0, pins }),
    bending,
  );
}

test.each([
  ['symplectic-euler', 1e-4, undefined, 0, 0.1, 1e-5],
  // Explicit damping is stiff: d c Σ|∇θ|² / m ≈ 4e4 1/s at 0.002 J·s on these 4 g particles.
  ['symplectic-euler', 1e-4, undefined, 0.0002, 0.1, 1e-5],
  ['implicit-euler', 1 / 60, 'pcg', 0, 1, 1e-4],
  ['implicit-euler', 1 / 60, 'pcg', 0.002, 1, 1e-4],
  // Plain CG with bending (the same product with the hinges as pcg's, without the hinge diagonal):
  // test/helpers/wgsl-quick-cases.ts's 'implicit-euler cg bending' (test/gpu-kernels-quick.test.ts).
  ['implicit-euler', 1 / 60, 'multigrid', 0, 1, 1e-4],
  ['backward-euler', 1 / 60, 'pcg', 0, 0.5, 1e-4],
  ['newmark', 1 / 60, 'pcg', 0, 0.5, 1e-4],
  ['variational-symplectic-implicit', 1 / 60, 'pcg', 0, 0.5, 1e-4],
] as const)(
  '%s (dt %s, solver %s, bending damping %s J·s): a clamped strip, GPU vs CPU f32 over %s s',
  async (integrator, dt, solver, damping, seconds, tolerance) => {
    const model = strip({ stiffness: 0.05, damping });
    const options = { integrator, dt, ...(solver ? { solver, tolerance: 1e-6 } : {}) } as const;
    const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device: node.runner() });
    const cpu = await createSimulation(model, { ...options, precision: 'f32' });
    try {
      const steps = Math.round(seconds / dt);
      // Implicit steps through advance(), which skips what is left of a converged loop (step()
      // encodes every Newton and CG iteration up to the caps; the same result:
      // test/gpu-cg-dispatches.test.ts): backward Euler 52 → 31 s, variational 38 → 19 s (loaded).
      if (solver) await gpu.advance(steps);
      else gpu.step(steps);
      cpu.step(steps);
      const [a, b] = [await gpu.readState(), await cpu.readState()];
      const diff = Math.max(...a.positions.map((x, k) => Math.abs(x - b.positions[k]!)));
      const tip = a.positions[3 * 7 + 1]!;
      const stats = solver ? await gpu.readSolverStats() : null;
      console.log(`${integrator} ${solver ?? ''} d=${damping}: strip GPU vs CPU f32 max |Δx| ${diff.toExponential(2)} m; tip y ${tip.toFixed(4)} m; GPU iterations ${stats?.linearIterations ?? '-'} (CPU ${(await cpu.readSolverStats())?.linearIterations ?? '-'})`); // prettier-ignore
      expect(tip).toBeLessThan(-0.005); // it sagged
      if (stats) expect(stats.unconvergedSolves).toBe(0);
      expectClose(a.positions, b.positions, tolerance, `${integrator}: strip positions GPU vs CPU f32 (m)`);
    } finally {
      gpu.destroy();
      cpu.destroy();
    }
  },
  180_000,
);

test('implicit Euler (pcg) with the strip resting on a floor: contact forces A Δv − b with bending, GPU vs CPU f32', async () => {
  const floor = { shape: 'plane', point: [0, -0.05, 0], normal: [0, 1, 0] } as const;
  const model = withColliders(strip({ stiffness: 0.05 }), [floor]);
  const options = { integrator: 'implicit-euler', dt: 1 / 60, solver: 'pcg', tolerance: 1e-6 } as const;
  const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device: node.runner() });
  const cpu = await createSimulation(model, { ...options, precision: 'f32' });
  try {
    await gpu.advance(60);
    cpu.step(60);
    const [a, b] = [await gpu.readState(), await cpu.readState()];
    const diff = Math.max(...a.positions.map((x, k) => Math.abs(x - b.positions[k]!)));
    console.log(`strip on a floor: GPU vs CPU f32 max |Δx| ${diff.toExponential(2)} m; tip y ${a.positions[3 * 7 + 1]!.toFixed(4)} m`); // prettier-ignore
    expect(Math.abs(a.positions[3 * 7 + 1]! + 0.045)).toBeLessThan(1e-4); // on the floor, 5 mm thick
    expectClose(a.positions, b.positions, 1e-4, 'strip on a floor: positions GPU vs CPU f32 (m)');
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}, 180_000);
