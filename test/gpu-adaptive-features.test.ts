/**
 * Dihedral bending, strain limits, a steady wind and self-collision with rk45 and step doubling on WebGPU (Node, SwiftShader)
 * against the CPU reference in float32 storage (test/adaptive-features.test.ts checks the CPU
 * against energy, fixed-step RK4 and the wind's closed form). The fused adaptive kernel has no hinge,
 * strain, wind or self-contact passes, so these run on the per-op stepper (src/backends/webgpu/program-stepper.ts), and
 * `fused: true` is an error naming `fused`.
 */
import { expect, test } from 'vitest';
import {
  createAdaptiveSimulation,
  createSimulation,
  energy,
  withStrainLimit,
  WeftInputError,
  type AdaptiveOptions,
  type Model,
} from '../src/index.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { runBoth } from './helpers/adaptive-both.ts';
import { largestStretch, softCloth } from './helpers/strain-cloth.ts';
import { windTriangle } from './helpers/wind-triangle.ts';
import { bumpySheet } from './helpers/bumpy-sheet.ts';
import { shot } from './helpers/self-contact-scenes.ts';
import { selfIntersections } from './helpers/self-intersection.ts';

const node = useNodeDevice((device) => device);

/** The bumped free 5 × 5 sheet of adaptive-features.test.ts, with damped hinges. */
const bumpy = (): Model => bumpySheet(0.002);

const both = (model: Model, options: AdaptiveOptions, tEnd: number) =>
  runBoth(node.runner(), model, options, tEnd);

test('rk45 with damped hinges: the GPU unfolds the bumped sheet as the CPU does, losing the energy RK4 does', async () => {
  const model = bumpy();
  const T = 0.1;
  // 21 steps accepted and 2 rejected on both (measured).
  const { gpu, cpu, description } = await both(model, { integrator: 'rk45', accuracy: 1e-5 }, T);
  expect(description).not.toMatch(/fused/);
  const moved = Math.max(...gpu.positions.map((x, k) => Math.abs(x - model.particlePositions[k]!)));
  expect(moved).toBeGreaterThan(0.01); // measured 2.2 cm: the hinges unfold the 2 cm bumps
  // float32 rounding (6e-9 m of a 0.1 m state) over ~20 steps: ~1e-7 m; measured 6e-8.
  expectClose(gpu.positions, cpu.positions, 5e-7, 'bending rk45: positions GPU vs CPU f32 (m)');
  // The damped hinges take 98 % of E₀ in 0.1 s; fixed-step RK4 (f64, h = 0.1 ms) says how much.
  const reference = await createSimulation(model, { integrator: 'rk4', dt: 1e-4 });
  await reference.advance(Math.round(T / 1e-4));
  const exact = await reference.readState();
  reference.destroy();
  const start = energy(model, model.particlePositions, model.particleVelocities).total;
  const [left, expected] = [energy(model, gpu.positions, gpu.velocities).total, energy(model, exact.positions, exact.velocities).total]; // prettier-ignore
  expect(expected).toBeLessThan(0.05 * start);
  // Accuracy 1e-5 of a 0.1 m state per step, ~20 steps: E within ~1e-4 E₀ (measured: 1e-6 E₀).
  expect(Math.abs(left - expected)).toBeLessThan(1e-4 * start);
}, 60_000);

test('step doubling (rk4) with a 10 % strain limit: the GPU holds the soft cloth as the CPU does', async () => {
  const model = withStrainLimit(softCloth(), { maxStretch: 0.1, iterations: 8 });
  const T = 0.5;
  // 34 steps accepted and 3 rejected on both (measured).
  const { gpu, cpu, description } = await both(model, { integrator: 'step-doubling', scheme: 'rk4', accuracy: 1e-3 }, T); // prettier-ignore
  expect(description).not.toMatch(/fused/);
  // The free corners swing down ~1.1 m (free fall: ½ g T² = 1.23 m).
  const moved = Math.max(...gpu.positions.map((x, k) => Math.abs(x - model.particlePositions[k]!)));
  expect(moved).toBeGreaterThan(0.5 * 0.5 * 9.81 * T * T);
  // Springs at the limit are corrected or not as float32 rounds their length either side of it on
  // each backend (README, "Strain limits"): measured 6.4e-4 m apart, 2e-5 in the largest stretch.
  expectClose(
    gpu.positions,
    cpu.positions,
    2e-3,
    'strain-limited step doubling: positions GPU vs CPU f32 (m)',
  );
  expect(Math.abs(largestStretch(softCloth(), gpu.positions) - largestStretch(softCloth(), cpu.positions))).toBeLessThan(1e-3); // prettier-ignore
}, 120_000);

test('rk45 in a steady wind: the GPU carries the free triangle as v̇ = k (W − v)² says, as the CPU', async () => {
  const { model, v, z } = windTriangle();
  const T = 1;
  const { gpu, cpu, description } = await both(model, { integrator: 'rk45', accuracy: 1e-6 }, T);
  expect(description).not.toMatch(/fused/);
  for (let i = 0; i < 3; i++) {
    // float32 rounding (6e-8 relative) over ~20 steps and accuracy 1e-6 a step (measured: 9e-8 in v, 2e-7 in z).
    expect(Math.abs(gpu.velocities[3 * i + 2]! / v(T) - 1)).toBeLessThan(1e-6);
    expect(Math.abs((gpu.positions[3 * i + 2]! - model.particlePositions[3 * i + 2]!) / z(T) - 1)).toBeLessThan(1e-6); // prettier-ignore
  }
  // It moved 2.46 m; the backends' float32 roundings part it by ~1e-6 of that (measured 2.4e-7 m).
  expectClose(gpu.positions, cpu.positions, 2e-5, 'wind rk45: positions GPU vs CPU f32 (m)');
}, 60_000);

// velocity-implicit Euler: the GPU's program (step doubling of backward Euler) against the CPU's
// Drake stepper; the fail-safe's truncation decides where the vertex ends on both.
test.each(['rk45', 'velocity-implicit-euler'] as const)(
  '%s with self-collision: a vertex shot at 50 m/s through a triangle stops above it on the GPU, as on the CPU',
  async (integrator) => {
    const model = shot(true);
    // Free flight: one step of maxStep (0.83 m); the pair is listed at its start, the fail-safe truncates it.
    const { gpu, cpu, description } = await both(model, { integrator, accuracy: 1e-3, maxStep: 1 / 60, initialStep: 1 / 60 }, 1 / 60); // prettier-ignore
    expect(description).not.toMatch(/fused/);
    expect(gpu.positions[3 * 3 + 1]!).toBeGreaterThan(0); // above the pinned triangle (y = 0)
    expect(gpu.positions[3 * 3 + 1]!).toBeLessThan(0.02); // within the thickness (CPU: 9.6 mm)
    expect(selfIntersections(gpu.positions, model.triangleIndices)).toEqual([]);
    console.log(`${integrator} shot: GPU y ${gpu.positions[3 * 3 + 1]!.toFixed(6)} m, CPU ${cpu.positions[3 * 3 + 1]!.toFixed(6)} m, max |Δx| ${Math.max(...gpu.positions.map((x, k) => Math.abs(x - cpu.positions[k]!))).toExponential(2)} m`); // prettier-ignore
    // float32 rounding of a ~1 m move: ~1e-7 m (measured 1.04e-7 m for both).
    expectClose(
      gpu.positions,
      cpu.positions,
      1e-6,
      `self-collision ${integrator}: positions GPU vs CPU f32 (m)`,
    );
  },
  60_000,
);

test('self-collision pairs past the capacity: reading the state is an error naming maxPairsPerParticle, as the CPU’s step is', async () => {
  const tight = (): Model => shot({ thickness: 0.02, stiffness: 1000, maxPairsPerParticle: 1 });
  const options = { integrator: 'rk45', accuracy: 1e-3, maxStep: 1 / 60, initialStep: 1 / 60 } as const;
  const cpu = await createAdaptiveSimulation(tight(), options);
  await expect(cpu.advanceTo(1 / 60)).rejects.toThrow(expect.objectContaining({ field: 'selfCollision.maxPairsPerParticle' })); // prettier-ignore
  const gpu = await createAdaptiveSimulation(tight(), {
    ...options,
    backend: 'webgpu',
    device: node.runner(),
  });
  try {
    await gpu.advanceTo(1 / 60); // the GPU cuts the list and flags it (no readback inside a step)
    await expect(gpu.readState()).rejects.toThrow(expect.objectContaining({ field: 'selfCollision.maxPairsPerParticle' })); // prettier-ignore
  } finally {
    gpu.destroy();
  }
  // A fixed-step simulation's readState raises them too (before, only readSolverStats did).
  const fixed = await createSimulation(tight(), { integrator: 'symplectic-euler', dt: 1 / 60, backend: 'webgpu', device: node.runner() }); // prettier-ignore
  try {
    fixed.step(1);
    await expect(fixed.readState()).rejects.toThrow(expect.objectContaining({ field: 'selfCollision.maxPairsPerParticle' })); // prettier-ignore
  } finally {
    fixed.destroy();
  }
}, 60_000);

test('fused: true with bending, a strain limit, wind or self-collision is an input error naming `fused`', async () => {
  for (const [model, reason] of [
    [bumpy(), /bends/],
    [withStrainLimit(softCloth(), { maxStretch: 0.1 }), /strainCorrection/],
  ] as const) {
    const error = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-3, backend: 'webgpu', device: node.runner(), fused: true }).catch((e: unknown) => e); // prettier-ignore
    expect(error).toBeInstanceOf(WeftInputError);
    expect((error as WeftInputError).field).toBe('fused');
    expect((error as Error).message).toMatch(reason);
  }
});
