/**
 * Colliders on WebGPU (Node, SwiftShader) against the CPU reference in float32 storage: explicit
 * and multistep schemes project contacts after each step (shaders/contact-project.wgsl), the
 * same model as src/backends/cpu/contacts.ts. A particle dropped on each shape rests at the
 * thickness, one on an incline slides by a = g (sin θ − μ cos θ), and a cloth falling on a sphere
 * matches the CPU and ends outside it.
 */
import { expect, test } from 'vitest';
import { buildCloth, createModel, createSimulation, withColliders, type Model } from '../src/index.ts';
import { colliderDistance } from '../src/internal.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { clothOnSphere } from './helpers/cloth-on-sphere.ts';
import { incline, slide } from './helpers/collider-scenes.ts';

const node = useNodeDevice((device) => device);
const THICKNESS = 0.01;

const SHAPES = [
  ['plane', { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }],
  ['sphere', { shape: 'sphere', center: [0, -1, 0], radius: 1, thickness: THICKNESS }],
  ['capsule', { shape: 'capsule', a: [-1, -0.5, 0], b: [1, -0.5, 0], radius: 0.5, thickness: THICKNESS }],
  ['box', { shape: 'box', center: [0, -0.5, 0], halfExtents: [1, 0.5, 1], thickness: THICKNESS }],
] as const;

/** Three free particles, 0.1 kg, dropped from 0.2 m above the origin region (one on the incline's slope when given). */
function drops(collider: object): Model {
  return createModel({ positions: [0.1, 0.2, 0, 0.3, 0.25, 0.2, -0.2, 0.15, -0.1], masses: [0.1, 0.1, 0.1], springPairs: [], springStiffness: 0, colliders: [collider as never] }); // prettier-ignore
}

async function both(model: Model, integrator: string, dt: number, steps: number) {
  const gpu = await createSimulation(model, { integrator: integrator as 'rk4', dt, backend: 'webgpu', device: node.runner() }); // prettier-ignore
  const cpu = await createSimulation(model, { integrator: integrator as 'rk4', dt, precision: 'f32' });
  try {
    gpu.step(steps);
    cpu.step(steps);
    return { gpu: await gpu.readState(), cpu: await cpu.readState() };
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}

test.each(
  ['symplectic-euler', 'rk4', 'adams-bashforth-2'].flatMap((integrator) => SHAPES.map(([name, shape]) => [integrator, name, shape] as const)), // prettier-ignore
)(
  '%s, particles dropped on a %s: rest at the thickness on the GPU, as on the CPU',
  async (integrator, _, shape) => {
    const model = drops(shape);
    // 0.5 s: the last lands at 0.23 s and every shape holds them still by 0.375 s (CPU f32, all
    // three schemes: |v| ≤ 3e-10 m/s and the thickness to 1e-8 m then).
    const { gpu, cpu } = await both(model, integrator, 1 / 240, 120);
    for (let i = 0; i < 3; i++) {
      const x = [gpu.positions[3 * i]!, gpu.positions[3 * i + 1]!, gpu.positions[3 * i + 2]!] as const;
      // float32: the surface at the thickness to a few ulps of the coordinates (~1e-7 m).
      expect(Math.abs(colliderDistance(model.colliders[0]!, x).distance - THICKNESS)).toBeLessThan(1e-6);
    }
    expect(Math.max(...gpu.velocities.map(Math.abs))).toBeLessThan(1e-5);
    // On a curved surface a particle slides until friction holds it; whether a step sticks is a
    // threshold float32 round-off can move by a step, and one step's slide is ≤ g h²: 2 g h² there.
    const flat = shape.shape === 'plane' || shape.shape === 'box';
    const h = 1 / 240;
    expectClose(gpu.positions, cpu.positions, flat ? 1e-6 : 2 * 9.81 * h * h, `${integrator}: positions GPU vs CPU f32 (m)`); // prettier-ignore
  },
  60_000,
);

// e: the share of h² a each scheme's x₊ carries (test/colliders.test.ts, SLIDE_SHARE): the GPU's
// projection takes friction back as drift · h Δv (a uniform) and, for explicit Euler, counts a
// particle on the surface to rounding (an override), as the CPU does.
test.each([
  ['symplectic-euler', 1],
  ['rk4', 0.5],
  ['explicit-euler', 0],
  // Its contact restarts the velocity history (all three entries: contact-project.wgsl's restart0–2),
  // then x₊ = x + h v (e = 0) after 2 RK4 startup steps (e = ½): s/(2N) (test/colliders.test.ts).
  ['adams-bashforth-3', 2 / 480],
] as const)(
  '%s on a 35° incline, μ = 0.5: the GPU slides as the CPU does, by h² a (N²/2 + (e − ½) N)',
  async (integrator, share) => {
    const { model, down, a } = incline(35);
    const dt = 1 / 240;
    const N = 240;
    const { gpu, cpu } = await both(model, integrator, dt, N);
    const along = slide(model, gpu.positions, down);
    // float32 over 240 steps (CPU f64: to 1e-15); another share would be off by 2.5 h/T = 1e-2 per unit.
    expect(Math.abs(along / (dt * dt * a * ((N * N) / 2 + (share - 0.5) * N)) - 1)).toBeLessThan(1e-4);
    expectClose(gpu.positions, cpu.positions, 1e-5 * along, 'incline: positions GPU vs CPU f32 (m)');
  },
  60_000,
);

test('an 8² cloth falling on a sphere (symplectic Euler): GPU = CPU f32, no particle inside', async () => {
  const cloth = buildCloth({ nx: 8, ny: 8, spacing: 0.08, particleMass: 0.01, structuralStiffness: 200, shearStiffness: 50, bendStiffness: 10, damping: 0.05, pins: 'none', origin: [-0.28, 0.35, -0.28] }); // prettier-ignore
  const sphere = {
    shape: 'sphere',
    center: [0, 0, 0],
    radius: 0.25,
    friction: 0.5,
    thickness: THICKNESS,
  } as const;
  const model = withColliders(cloth, [sphere]);
  // 0.5 s: it reaches the sphere at 0.1 s and its edges fall below the top (0.25 m) by 0.15 s and
  // to y ≈ 0 by 0.45 s (CPU f32).
  const { gpu, cpu } = await both(model, 'symplectic-euler', 1 / 480, 240);
  let closest = Infinity;
  for (let i = 0; i < model.particleCount; i++) {
    const x = [gpu.positions[3 * i]!, gpu.positions[3 * i + 1]!, gpu.positions[3 * i + 2]!] as const;
    closest = Math.min(closest, colliderDistance(model.colliders[0]!, x).distance);
  }
  expect(closest).toBeGreaterThan(THICKNESS - 1e-6);
  // It draped: particles fell past the sphere's top.
  expect(Math.min(...gpu.positions.filter((_, k) => k % 3 === 1))).toBeLessThan(0.2);
  // Contacts switch on thresholds, so float32 round-off may move a contact by a step: compare to
  // 1 mm (the cloth moved ~0.5 m).
  expectClose(gpu.positions, cpu.positions, 1e-3, 'cloth on a sphere: positions GPU vs CPU f32 (m)');
}, 60_000);

// Block Jacobi is not here: on this cloth (h² k / m ≈ 28 a spring) it stalls once the contacts
// constrain it (13 of 33 solves at the cap by step 20, on both backends alike); its constrained and
// resumed solves are checked in test/jacobi-contacts.test.ts and test/contact-release.test.ts.
test.each(['pcg', 'cg', 'multigrid'] as const)(
  'implicit Euler (%s): a 12² cloth dropped on a sphere, constrained CG on the GPU as on the CPU (f32), outside the sphere',
  async (solver) => {
    const model = clothOnSphere(12, 0.4);
    const options = {
      integrator: 'implicit-euler',
      dt: 1 / 60,
      solver,
      tolerance: 1e-5,
      maxIterations: 200,
    } as const;
    const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device: node.runner() });
    const cpu = await createSimulation(model, { ...options, precision: 'f32' });
    try {
      // Four steps after the first contacts (step 8): the constrained solves against the CPU's.
      // The GPU steps through advance(), which reads each solve's progress back every 8 iterations
      // and skips the rest (bit-identical to step(), multigrid included:
      // test/gpu-cg-dispatches.test.ts); step() encodes all 200 iterations of every solve, which
      // take 9 (multigrid) to 35 (cg) on average here.
      await gpu.advance(12);
      cpu.step(12);
      const [g12, c12] = [await gpu.readState(), await cpu.readState()];
      const fall = 0.4 - Math.min(...c12.positions.filter((_, k) => k % 3 === 1));
      // Solves to 1e-5 (relative, float32; the GPU's CG is Chronopoulos–Gear): within 0.01 % of
      // the fall. Later, contacts that switch on thresholds make the two drift apart (1–2 mm by
      // step 40 with cg and multigrid), so the rest is checked against physics: to step 20, where
      // its edges have wrapped the sphere (CPU f32: lowest particle at y = 0.19 m at step 12,
      // 0.008 m at step 20, then back up to 0.033 m by step 40 as it settles).
      expectClose(g12.positions, c12.positions, 1e-4 * fall, `${solver}: positions GPU vs CPU f32 after 12 steps (m)`); // prettier-ignore
      await gpu.advance(8);
      const g = await gpu.readState();
      const stats = (await gpu.readSolverStats())!;
      expect(stats.unconvergedSolves).toBe(0);
      let closest = Infinity;
      for (let i = 0; i < model.particleCount; i++) {
        const x = [g.positions[3 * i]!, g.positions[3 * i + 1]!, g.positions[3 * i + 2]!] as const;
        closest = Math.min(closest, colliderDistance(model.colliders[0]!, x).distance);
      }
      console.log(`${solver}: closest ${closest.toExponential(3)} m after 20 steps, ${stats.linearIterations / stats.linearSolves} iterations per solve`); // prettier-ignore
      // Outside the sphere (mid-fall, a particle may be inside its thickness by up to a step's motion).
      expect(closest).toBeGreaterThan(0);
      // It draped: its edges fell below the sphere's top.
      expect(Math.min(...g.positions.filter((_, k) => k % 3 === 1))).toBeLessThan(0.25);
    } finally {
      gpu.destroy();
      cpu.destroy();
    }
  },
  120_000,
);
