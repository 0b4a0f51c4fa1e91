/**
 * Colliders in Newmark and backward Euler (and the variational scheme, projected after its free step:
 * drops and a cloth) on WebGPU (Node, SwiftShader) against the CPU reference
 * in float32 storage: the same program (src/integrators/contact-programs.ts) on both backends,
 * shaders/contact-detect.wgsl and contact-respond.wgsl with each scheme's coefficients. Particles
 * dropped on a plane and a sphere rest at the thickness, one on a 35° incline slides by
 * ½ g (sin θ − μ cos θ) t², a cloth dropped on a sphere follows the CPU and ends outside it, and
 * one collapsing onto itself on a floor with self-collision follows the CPU with no intersection;
 * no solve ends unconverged on either backend (backward Euler's did on the GPU before its contact
 * filter projected twice: shaders/implicit-common.wgsl).
 *
 * Cost (SwiftShader): step() encodes every solve unrolled to its cap of CG iterations, inside each
 * of backward Euler's 11 unrolled Newton iterations, whether it runs or not; scenes whose solves
 * are short run through advance(), which reads the solver's progress back every 8 iterations and
 * skips the rest (bit-identical to step(): test/gpu-cg-dispatches.test.ts), those with long solves
 * through step(), where those readbacks cost more than they skip (measured in a quiet suite run on
 * 28 Nov: backward Euler's 16² collapse 29 s through step(), 62 s through advance()). Each scene's
 * cap is what its solves take with a margin (every solve converged is asserted: none reaches it).
 */
import { describe, expect, test } from 'vitest';
import {
  createModel,
  createSimulation,
  type Model,
  type Simulation,
  type SolverStats,
} from '../src/index.ts';
import { colliderDistance } from '../src/internal.ts';
import { expectClose } from './helpers/expect-close.ts';
import { shortOrLong } from './helpers/long-run.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { clothOnSphere, THICKNESS } from './helpers/cloth-on-sphere.ts';
import { collapsingCloth } from './helpers/self-contact-scenes.ts';
import { selfIntersections } from './helpers/self-intersection.ts';

const node = useNodeDevice((device) => device);
type Scheme = 'newmark' | 'backward-euler' | 'variational-symplectic-implicit';
const H = 1 / 60;

const SHAPES = [
  ['plane', { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }],
  ['sphere', { shape: 'sphere', center: [0, -1, 0], radius: 1, thickness: THICKNESS }],
] as const;

/** Three free particles, 0.1 kg, dropped from 0.15–0.25 m. */
function drops(collider: object): Model {
  return createModel({ positions: [0.1, 0.2, 0, 0.3, 0.25, 0.2, -0.2, 0.15, -0.1], masses: [0.1, 0.1, 0.1], springPairs: [], springStiffness: 0, colliders: [collider as never] }); // prettier-ignore
}

/** The GPU and CPU f32 simulations of `model`, solves capped at `maxIterations` CG iterations. */
async function pair(model: Model, integrator: Scheme, maxIterations: number) {
  const options = { integrator, dt: H, solver: 'pcg', tolerance: 1e-5, maxIterations } as const;
  const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device: node.runner() });
  const cpu = await createSimulation(model, { ...options, precision: 'f32' });
  return { gpu, cpu };
}

/** Expects every solve of both backends converged (none at the cap, none broken down); returns a summary. */
async function expectConverged(gpu: Simulation, cpu: Simulation, label: string): Promise<string> {
  const [g, c] = [(await gpu.readSolverStats())!, (await cpu.readSolverStats())!];
  const line = (s: SolverStats): string => `${s.linearSolves} solves (at most ${s.maxLinearIterations} iterations, ${s.unconvergedSolves} unconverged), ${s.newtonIterations} Newton iterations (${s.unconvergedSteps} steps unconverged)`; // prettier-ignore
  const summary = `GPU ${line(g)}; CPU f32 ${line(c)}`;
  expect({ gpu: g.unconvergedSolves, cpu: c.unconvergedSolves }, `${label}: ${summary}`).toEqual({ gpu: 0, cpu: 0 }); // prettier-ignore
  return summary;
}

/** `model` as it is after `steps` steps of `integrator` on the CPU (f32): its state there, all else the same. */
async function stateAfter(
  model: Model,
  integrator: Scheme,
  maxIterations: number,
  steps: number,
): Promise<Model> {
  const lead = await createSimulation(model, { integrator, dt: H, solver: 'pcg', tolerance: 1e-5, maxIterations, precision: 'f32' }); // prettier-ignore
  lead.step(steps);
  const { positions, velocities } = await lead.readState();
  lead.destroy();
  return { ...model, particlePositions: Float64Array.from(positions), particleVelocities: Float64Array.from(velocities) }; // prettier-ignore
}

const distances = (model: Model, positions: ArrayLike<number>): number[] =>
  Array.from({ length: model.particleCount }, (_, i) => colliderDistance(model.colliders[0]!, [positions[3 * i]!, positions[3 * i + 1]!, positions[3 * i + 2]!]).distance); // prettier-ignore

/**
 * Three particles dropped on `shape` rest at the thickness on the GPU and the CPU (f32) alike after
 * 0.6 s: the last lands by step 14 and each scheme holds all three still by step 30 (CPU f32:
 * |v| ≤ 8e-8 m/s, the thickness to 3e-8 m; Newmark's on the sphere 1.5e-2 m/s at 24).
 */
async function expectDropsRest(integrator: Scheme, shape: (typeof SHAPES)[number][1]): Promise<void> {
  const model = drops(shape);
  const { gpu, cpu } = await pair(model, integrator, 20);
  try {
    await gpu.advance(36);
    cpu.step(36);
    const [g, c] = [await gpu.readState(), await cpu.readState()];
    // float32: the surface at the thickness to a few ulps of the coordinates (~1e-7 m).
    for (const d of distances(model, g.positions)) expect(Math.abs(d - THICKNESS)).toBeLessThan(1e-6);
    expect(Math.max(...g.velocities.map(Math.abs))).toBeLessThan(1e-5);
    // The same float32 operations in another order: a few ulps of 0.2 m per step that moved it.
    expectClose(g.positions, c.positions, 1e-6, `${integrator}: positions GPU vs CPU f32 (m)`);
    await expectConverged(gpu, cpu, `${integrator}, drops`);
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}

describe.each(['newmark', 'backward-euler'] as const)('%s', (integrator) => {
  test.each(SHAPES)(
    'particles dropped on a %s rest at the thickness on the GPU, as on the CPU',
    async (_, shape) => expectDropsRest(integrator, shape),
    180_000,
  );

  test('on a 35° incline, μ = 0.5, the GPU slides as the CPU does, by ½ g (sin θ − μ cos θ) t²', async () => {
    const t = (35 * Math.PI) / 180;
    const n = [-Math.sin(t), Math.cos(t), 0];
    const model = createModel({ positions: n.map((c) => c * THICKNESS), masses: [0.1], springPairs: [], springStiffness: 0, colliders: [{ shape: 'plane', point: [0, 0, 0], normal: n as never, friction: 0.5, thickness: THICKNESS }] }); // prettier-ignore
    const { gpu, cpu } = await pair(model, integrator, 20);
    const T = 0.5; // s: 30 steps
    try {
      await gpu.advance(Math.round(T / H));
      cpu.step(Math.round(T / H));
      const [g, c] = [await gpu.readState(), await cpu.readState()];
      const down = [-Math.cos(t), -Math.sin(t), 0];
      const along = [0, 1, 2].reduce(
        (s, d) => s + (g.positions[d]! - model.particlePositions[d]!) * down[d]!,
        0,
      );
      const a = 9.81 * (Math.sin(t) - 0.5 * Math.cos(t));
      // As on the CPU (test/implicit-colliders.test.ts): within 1.5 h/T of ½ a T², the start-up
      // error of a first-order scheme, h/T relative (backward Euler's is exactly that on the CPU
      // at T = 0.25, 0.5 and 1 s; Newmark's below 1e-7).
      expect(Math.abs(along / (0.5 * a * T * T) - 1)).toBeLessThan((1.5 * H) / T);
      expectClose(
        g.positions,
        c.positions,
        1e-5 * along,
        `${integrator}, incline: positions GPU vs CPU f32 (m)`,
      );
      await expectConverged(gpu, cpu, `${integrator}, incline`);
    } finally {
      gpu.destroy();
      cpu.destroy();
    }
  }, 180_000);

  test('an 8² cloth dropped on a sphere: GPU = CPU f32 after the first contacts, then outside it, every solve converged', async () => {
    const model = clothOnSphere(8, 0.4);
    // Caps of 100 CG iterations (Newmark) and 200 (backward Euler): its GPU solves take up to 65
    // here (the CPU's 19), and a resumed one, capped at half, more than 25 on the GPU.
    const { gpu, cpu } = await pair(model, integrator, integrator === 'backward-euler' ? 200 : 100);
    try {
      // First contacts: step 8 (Newmark) and 7 (backward Euler, whose x₊ = x + h v₊ falls faster).
      // At step 12 eight symmetric particles of Newmark's cloth leave the sphere with λ ≈ 0: each
      // backend releases some of them and holds others, 5 mm apart after that step; so step 11.
      // Backward Euler's at step 11: eight symmetric copies end its first Newton solve with λ at
      // −0.049925 of |A s·n| + |b·n| (CPU, any tolerance 1e-5–1e-8), 0.15 % inside the −0.05 that
      // releases within the step; the GPU's copies spread ±0.2 % around it (its state 5e-7 m off
      // by step 10), so it releases one or two and the CPU none, 9 mm apart after; so step 10.
      // The free fall through advance() (short solves), the contacts through step() (long ones,
      // which advance() would read back every 8 iterations). Then to step 13 (24 under
      // npm run test:long): five or six steps of contacts after the first; its edges are below the
      // sphere's top by 0.07–0.08 m then (CPU f32: lowest particle at 0.172 m, 0.179 m).
      const [fall, steps, end] = [6, integrator === 'newmark' ? 11 : 10, shortOrLong(13, 24)];
      await gpu.advance(fall);
      gpu.step(steps - fall);
      cpu.step(steps);
      const [g, c] = [await gpu.readState(), await cpu.readState()];
      const drop = 0.4 - Math.min(...c.positions.filter((_, k) => k % 3 === 1));
      // Solves to 1e-5 (relative, float32): within 0.01 % of the fall, as implicit Euler's test.
      expectClose(g.positions, c.positions, 1e-4 * drop, `${integrator}: positions GPU vs CPU f32 after ${steps} steps (m)`); // prettier-ignore
      gpu.step(end - steps);
      cpu.step(end - steps);
      const late = await gpu.readState();
      // Backward Euler's Newton loop keeps a contact's force λ n in b − A x₀ while the residual
      // across n falls: a contact filter that left ~6e-8 |λ| along n (one float32 projection) made
      // 88 of the GPU's 168 solves in 24 steps stop unconverged on p·Ap ≤ 0 (the CPU's: none).
      const solves = await expectConverged(gpu, cpu, `${integrator}, 8² cloth on a sphere, ${end} steps`);
      const closest = Math.min(...distances(model, late.positions));
      console.log(`${integrator}, 8² cloth on a sphere: fall ${drop.toFixed(3)} m at step ${steps}; after ${end} steps the GPU's closest particle ${closest.toExponential(4)} m; ${solves}`); // prettier-ignore
      // Every step ends with nothing behind the surface (the end-of-step projection), to float32.
      expect(closest).toBeGreaterThan(THICKNESS - 1e-6);
      expect(Math.min(...late.positions.filter((_, k) => k % 3 === 1))).toBeLessThan(0.25); // draped
    } finally {
      gpu.destroy();
      cpu.destroy();
    }
  }, 240_000);

  test('a 16² cloth collapsing onto itself on a floor with self-collision, from its CPU f32 state mid-fall: GPU = CPU f32, no intersection', async () => {
    // Caps of 80 and 50 CG iterations: these solves take up to 35 (backward Euler) and 15 (Newmark),
    // their resumed solves (at most half the cap) up to 31 and 14 (CPU f32, static friction's slips).
    const cap = integrator === 'backward-euler' ? 80 : 50;
    // Its lower edge meets the floor at step 5 and its self-contact pairs are first found at step
    // 6; they act first at backward Euler's step 11 (44 pairs, CPU f32), Newmark's at none of 12
    // steps, and by step 12 Newmark's bottom row, on the floor, ends 0.3 mm apart on the two
    // backends (a contact decision on a threshold). So both backends start from the CPU's state
    // at step 6 (backward Euler) or 4 (Newmark), the same model otherwise, and run to step 12 or 8:
    // the free fall before is the other tests' (and costs the GPU most here, 11 Newton
    // iterations each encoded to the cap through step()).
    const [start, per] = integrator === 'backward-euler' ? [6, 3] : [4, 2];
    const model = await stateAfter(collapsingCloth(16, { thickness: 0.004 }), integrator, cap, start);
    const { gpu, cpu } = await pair(model, integrator, cap);
    try {
      for (let k = 1; k <= 2; k++) {
        // Newmark's solves (up to 15 iterations, no Newton loop) through advance(); backward
        // Euler's Newton iterations through step(), which reads nothing back.
        if (integrator === 'newmark') await gpu.advance(per);
        else gpu.step(per);
        cpu.step(per);
        const [g, c] = [await gpu.readState(), await cpu.readState()];
        expect(selfIntersections(g.positions, model.triangleIndices)).toEqual([]);
        const moved = Math.max(...c.positions.map((p, j) => Math.abs(p - model.particlePositions[j]!)));
        // As above: solves to 1e-5 in float32, within 0.01 % of the largest move since the start.
        expectClose(g.positions, c.positions, 1e-4 * moved, `${integrator}: positions GPU vs CPU f32 at step ${start + per * k} (m)`); // prettier-ignore
      }
      await expectConverged(gpu, cpu, `${integrator}, collapsing cloth`);
    } finally {
      gpu.destroy();
      cpu.destroy();
    }
  }, 240_000);
});

describe('variational-symplectic-implicit (its free step projected, its momenta given the impulse)', () => {
  const integrator = 'variational-symplectic-implicit';

  test.each(SHAPES)(
    'particles dropped on a %s rest at the thickness on the GPU, as on the CPU',
    async (_, shape) => expectDropsRest(integrator, shape),
    180_000,
  );

  test('an 8² cloth dropped on a sphere: GPU = CPU f32, outside it, every solve converged', async () => {
    const model = clothOnSphere(8, 0.4);
    const { gpu, cpu } = await pair(model, integrator, 100);
    try {
      // First contacts at step 7 (CPU f32); 13 steps: six of contacts.
      const steps = 13;
      gpu.step(steps);
      cpu.step(steps);
      const [g, c] = [await gpu.readState(), await cpu.readState()];
      const drop = 0.4 - Math.min(...c.positions.filter((_, k) => k % 3 === 1));
      // Solves to 1e-5 (relative, float32): within 0.01 % of the fall, as the schemes' above.
      expectClose(g.positions, c.positions, 1e-4 * drop, `${integrator}: positions GPU vs CPU f32 after ${steps} steps (m)`); // prettier-ignore
      const solves = await expectConverged(gpu, cpu, `${integrator}, 8² cloth on a sphere`);
      const closest = Math.min(...distances(model, g.positions));
      console.log(`${integrator}, 8² cloth on a sphere: fall ${drop.toFixed(3)} m at step ${steps}; the GPU's closest particle ${closest.toExponential(4)} m; ${solves}`); // prettier-ignore
      // The projection ends every step with nothing behind the surface, to float32.
      expect(closest).toBeGreaterThan(THICKNESS - 1e-6);
    } finally {
      gpu.destroy();
      cpu.destroy();
    }
  }, 240_000);
});
