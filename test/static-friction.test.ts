/**
 * Static friction inside the implicit solve (option `staticFriction`, src/backends/cpu/contacts.ts;
 * Baraff & Witkin 1998 §5.3: a particle constrained in all three directions has S = 0). A particle
 * A resting on a small sphere holds one end of a spring whose other end B swings down beside it;
 * with μ = 5 the contact's force stays inside the friction cone (tangential pull ≤ 1.5 N against
 * 5 × ≥ 0.98 N), so A sticks, and a sticking contact must act as a pin: B's trajectory is the one of
 * the same integrator with A fixed and no collider (an independent run: fixed particles are filtered
 * by invMass = 0, not by contacts). With friction after the solve instead (staticFriction false) A is
 * stopped too, but the solve moved B as if A could follow: B's path differs, which shows the
 * comparison can fail. WebGPU (Node, SwiftShader) against the CPU in float32 on the same scene.
 */
import { describe, expect, test } from 'vitest';
import { createModel, createSimulation, type Model, type SimulationOptions } from '../src/index.ts';
import { MUTATION_RUN, useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const H = 1 / 60;
const STEPS = 60;
/** A on top of a sphere of radius 0.05 m (thickness 0.01 m), B 0.2 m beside it: the spring at rest. */
const POSITIONS = [0, 0.06, 0, 0.2, 0.06, 0];
const SPRING = { masses: [0.1, 0.05], springPairs: [0, 1], springStiffness: 100, springDamping: 0.02 };

function onSphere(friction: number): Model {
  const sphere = { shape: 'sphere', center: [0, 0, 0], radius: 0.05, friction, thickness: 0.01 } as const;
  return createModel({ positions: POSITIONS, ...SPRING, colliders: [sphere] });
}

const pinned = (): Model => createModel({ positions: POSITIONS, ...SPRING, fixed: [0] });

type Integrator = 'implicit-euler' | 'newmark' | 'backward-euler';

/** B's positions after each of `steps` steps, and A's largest displacement (m). */
async function run(model: Model, options: SimulationOptions, steps = STEPS) {
  const simulation = await createSimulation(model, options);
  const path: number[][] = [];
  let moved = 0;
  for (let step = 0; step < steps; step++) {
    simulation.step(1);
    const { positions } = await simulation.readState();
    path.push([positions[3]!, positions[4]!, positions[5]!]);
    moved = Math.max(moved, Math.hypot(positions[0]! - POSITIONS[0]!, positions[1]! - POSITIONS[1]!, positions[2]! - POSITIONS[2]!)); // prettier-ignore
  }
  const stats = (await simulation.readSolverStats())!;
  simulation.destroy();
  return { path, moved, stats };
}

/** The largest distance between two paths of B (m). */
const apart = (a: number[][], b: number[][]): number =>
  Math.max(...a.map((p, k) => Math.hypot(p[0]! - b[k]![0]!, p[1]! - b[k]![1]!, p[2]! - b[k]![2]!)));

describe.each(['implicit-euler', 'newmark', 'backward-euler'] as const)('%s', (integrator: Integrator) => {
  const options = { integrator, dt: H, solver: 'pcg', tolerance: 1e-10 } as const;

  test('a sticking contact acts as a pin: B follows the run with A fixed; friction after the solve does not', async () => {
    const reference = await run(pinned(), options);
    const sticking = await run(onSphere(5), options);
    const after = await run(onSphere(5), { ...options, staticFriction: false });
    const [stuck, late] = [apart(sticking.path, reference.path), apart(after.path, reference.path)];
    console.log(`${integrator}: B from the pinned run, sticking ${stuck.toExponential(2)} m, friction after the solve ${late.toExponential(2)} m; A moved ${sticking.moved.toExponential(2)} m`); // prettier-ignore
    // B swung: at least 5 cm from where it started (else the comparison says little).
    expect(Math.hypot(reference.path.at(-1)![0]! - 0.2, reference.path.at(-1)![1]! - 0.06)).toBeGreaterThan(
      0.05,
    );
    // Held in three directions A does not move; its s is 0 from x₀ = z = 0, filtered (rounding only).
    expect(sticking.moved).toBeLessThan(1e-12);
    // The same filtered system as the pinned run's: only CG's stop (1e-10 relative) differs.
    expect(stuck).toBeLessThan(1e-8);
    // Friction after the solve: the solve moved B as if A could follow (≥ 0.1 mm over the swing).
    expect(late).toBeGreaterThan(1e-4);
    expect(sticking.stats.unconvergedSolves).toBe(0);
  });
});

test('A slides once the pull leaves the friction cone (μ = 0.2): it moves, and B leaves the pinned path', async () => {
  const options = { integrator: 'implicit-euler', dt: H, solver: 'pcg', tolerance: 1e-10 } as const;
  const reference = await run(pinned(), options);
  const sliding = await run(onSphere(0.2), options);
  // B's pull on A reaches ≥ 0.5 N along the surface against μ × ~1 N: A is dragged off the top.
  expect(sliding.moved).toBeGreaterThan(1e-3);
  expect(apart(sliding.path, reference.path)).toBeGreaterThan(1e-3);
  expect(sliding.stats.unconvergedSolves).toBe(0);
});

// Under mutation testing (WEFT_MUTATION=1) the CPU cases only: no device is acquired.
describe.skipIf(MUTATION_RUN).each(['implicit-euler', 'backward-euler'] as const)(
  'WebGPU, %s',
  (integrator) => {
    test('the sticking contact on the GPU follows the CPU in float32', async () => {
      const options = { integrator, dt: H, solver: 'pcg', tolerance: 1e-5, maxIterations: 20 } as const;
      // 20 steps (a third of the swing): SwiftShader's cost is in backward Euler's unrolled loop.
      const gpu = await run(onSphere(5), { ...options, backend: 'webgpu', device: node.runner() }, 20);
      const cpu = await run(onSphere(5), { ...options, precision: 'f32' }, 20);
      const distance = apart(gpu.path, cpu.path);
      console.log(`WebGPU ${integrator}: B from the CPU's (f32) ${distance.toExponential(2)} m; A moved ${gpu.moved.toExponential(2)} m`); // prettier-ignore
      // float32 over 20 steps of a swing of ~0.2 m: rounding of ~1e-7 relative per step, accumulated.
      expect(distance).toBeLessThan(1e-5);
      // A held: float32 rounding of its position only.
      expect(gpu.moved).toBeLessThan(1e-6);
      expect(gpu.stats.unconvergedSolves).toBe(0);
    });
  },
);
