/**
 * Attachments on WebGPU (Dawn in Node; SwiftShader when no GPU answers) against the CPU path with
 * float32 storage: one scenario — teleport, pin, drag along targets, release — on the explicit,
 * multistep and implicit families (multigrid included), each inside error scopes. On the GPU a
 * pinned particle must not move at all and a kinematic one must sit on f32(target) after each call.
 */
import { describe, expect, test } from 'vitest';
import {
  buildCloth,
  createModel,
  createSimulation,
  type FixedStepIntegratorName,
  type Simulation,
} from '../src/index.ts';
import { withErrorScopes } from './helpers/gpu-cases.ts';
import { maxAbsError } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device, uncaptured) => ({ device, uncaptured }));
const cloth = buildCloth({ nx: 6, ny: 6, spacing: 0.1, particleMass: 0.01, structuralStiffness: 100, shearStiffness: 50, bendStiffness: 10, damping: 0.01, orientation: 'vertical' }); // prettier-ignore
const [PINNED, GRABBED] = [14, 27];
const CORNER = 35;

// The implicit cases' solves are capped at about 1.5 times the most iterations one takes (the
// default is 200; measured with SwiftShader: PCG 16 for implicit Euler, 9 for Newmark, multigrid 4
// V-cycles): step() on WebGPU encodes every iteration up to the cap whether it runs or not; every
// GPU solve converged is asserted below, so none reaches it.
const CASES: [FixedStepIntegratorName, number, Record<string, unknown>][] = [
  ['rk4', 1e-3, {}],
  ['symplectic-euler', 1e-3, {}],
  ['adams-bashforth-2', 5e-4, {}],
  ['implicit-euler', 1e-2, { solver: 'pcg', tolerance: 1e-6, maxIterations: 24 }],
  ['implicit-euler', 1e-2, { solver: 'multigrid', tolerance: 1e-6, maxIterations: 6 }],
  ['newmark', 1e-2, { solver: 'pcg', tolerance: 1e-6, maxIterations: 14 }],
  // Its pinned and kinematic particles move at the velocity they hold (res = (h/2) v, δ filtered).
  ['variational-symplectic-implicit', 1e-2, { solver: 'pcg', tolerance: 1e-6, maxIterations: 14 }],
];

interface Checks {
  pinnedMoved: number;
  targetMissed: number;
}

/** The scenario; `advance` for the segments an implicit GPU run reads convergence back in. */
async function scenario(sim: Simulation): Promise<Checks> {
  sim.step(6);
  sim.setParticles({ indices: [3, 4, 20], positions: [0.3, 0.1, 0.05, 0.4, 0.1, 0.05, 0.2, 0.3, -0.1], velocities: [0, 1, 0, 0, 1, 0, 0.5, 0, 0] }); // prettier-ignore
  await sim.advance(6);
  sim.pin([PINNED]);
  const at = (await sim.readState()).positions.slice(3 * PINNED, 3 * PINNED + 3);
  sim.step(5);
  const checks: Checks = { pinnedMoved: 0, targetMissed: 0 };
  const start = cloth.particlePositions.slice(3 * GRABBED, 3 * GRABBED + 3);
  sim.setTargets([GRABBED], start);
  for (let frame = 1; frame <= 3; frame++) {
    const target = [start[0]! + 0.03 * frame, start[1]! + 0.02 * frame, start[2]! + 0.05 * frame];
    sim.setTargets([GRABBED], target);
    if (frame === 2) await sim.advance(4);
    else sim.step(4);
    const x = (await sim.readState()).positions;
    checks.targetMissed = Math.max(checks.targetMissed, maxAbsError(x.slice(3 * GRABBED, 3 * GRABBED + 3), target.map(Math.fround)).error); // prettier-ignore
    checks.pinnedMoved = Math.max(
      checks.pinnedMoved,
      maxAbsError(x.slice(3 * PINNED, 3 * PINNED + 3), at).error,
    );
  }
  sim.release([PINNED, GRABBED, CORNER]);
  sim.step(6);
  return checks;
}

describe.each(CASES)('%s (dt %s, %o): WebGPU against the CPU in float32', (integrator, dt, extra) => {
  test('teleport, pin, drag, release', async () => {
    const { device, uncaptured } = node.runner();
    const options = { integrator, dt, ...extra } as Parameters<typeof createSimulation>[1];
    const cpu = await createSimulation(cloth, { ...options, precision: 'f32' } as typeof options);
    const cpuChecks = await scenario(cpu);
    const before = uncaptured.length;
    const { value, errors } = await withErrorScopes(device, async () => {
      const gpu = await createSimulation(cloth, { ...options, backend: 'webgpu', device } as typeof options);
      const checks = await scenario(gpu);
      const state = await gpu.readState();
      const stats = await gpu.readSolverStats();
      gpu.destroy();
      return { checks, state, stats };
    });
    expect([...errors, ...uncaptured.slice(before)]).toEqual([]);
    expect(cpuChecks).toEqual({ pinnedMoved: 0, targetMissed: 0 });
    expect(value.checks).toEqual({ pinnedMoved: 0, targetMissed: 0 });
    expect(value.stats?.unconvergedSolves ?? 0).toBe(0);
    const expected = await cpu.readState();
    const dx = maxAbsError(value.state.positions, expected.positions);
    const dv = maxAbsError(value.state.velocities, expected.velocities);
    console.log(`${integrator} ${JSON.stringify(extra)}: GPU − CPU(f32) max |Δx| ${dx.error.toExponential(2)} m, |Δv| ${dv.error.toExponential(2)} m/s; most iterations in a solve ${value.stats?.maxLinearIterations}`); // prettier-ignore
    // float32 round-off through ~30 steps (measured with SwiftShader: |Δx| ≤ 1.9e-7 m, |Δv| ≤ 1.3e-5 m/s).
    expect(dx.error).toBeLessThanOrEqual(1e-6);
    expect(dv.error).toBeLessThanOrEqual(1e-4);
  });
});

describe.each(CASES)('%s (dt %s, %o): on WebGPU, teleport then step', (integrator, dt, extra) => {
  test('= a fresh WebGPU simulation created at the teleported state', async () => {
    const { device, uncaptured } = node.runner();
    const options = { integrator, dt, ...extra, backend: 'webgpu', device } as Parameters<
      typeof createSimulation
    >[1];
    const before = uncaptured.length;
    const { value, errors } = await withErrorScopes(device, async () => {
      // advance(): an implicit run skips what is left of its converged loops, ending where step()
      // would (bit-identical: test/gpu-cg-dispatches.test.ts); step() after a teleport is the
      // scenario's above.
      const sim = await createSimulation(cloth, options);
      await sim.advance(5);
      const state = await sim.readState();
      const [indices, positions, velocities] = [[3, 4, 20], [0.3, 0.1, 0.05, 0.4, 0.1, 0.05, 0.2, 0.3, -0.1], [0, 1, 0, 0, 1, 0, 0.5, 0, 0]]; // prettier-ignore
      sim.setParticles({ indices, positions, velocities });
      const [x, v] = [Float64Array.from(state.positions), Float64Array.from(state.velocities)];
      indices.forEach((i, k) => {
        x.set(positions.slice(3 * k, 3 * k + 3), 3 * i);
        v.set(velocities.slice(3 * k, 3 * k + 3), 3 * i);
      });
      const fixed = [...cloth.particleFixed.keys()].filter((i) => cloth.particleFixed[i]);
      const model = createModel({ positions: x, velocities: v, masses: cloth.particleMass, fixed, springPairs: cloth.springIndices, springStiffness: cloth.springStiffness, springRestLengths: cloth.springRestLength, springDamping: cloth.springDamping, gravity: cloth.gravity }); // prettier-ignore
      const fresh = await createSimulation(model, options);
      await sim.advance(7);
      await fresh.advance(7);
      const [a, b] = [await sim.readState(), await fresh.readState()];
      sim.destroy();
      fresh.destroy();
      return {
        dx: maxAbsError(a.positions, b.positions).error,
        dv: maxAbsError(a.velocities, b.velocities).error,
      };
    });
    expect([...errors, ...uncaptured.slice(before)]).toEqual([]);
    console.log(`${integrator} ${JSON.stringify(extra)}: teleported − fresh on WebGPU: |Δx| ${value.dx.toExponential(2)} m, |Δv| ${value.dv.toExponential(2)} m/s`); // prettier-ignore
    // The same kernels on the same f32 numbers (the state read back is f32 exactly, the teleport's
    // values are rounded to f32 as an upload rounds them), and a fixed gather order: bit-identical.
    expect(value).toEqual({ dx: 0, dv: 0 });
  });
});
