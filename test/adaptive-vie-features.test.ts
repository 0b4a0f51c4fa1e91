/**
 * Velocity-implicit Euler (Drake's stepper on the CPU, src/backends/cpu/velocity-implicit-euler.ts)
 * with dihedral bending, wind and a strain limit: the hinges' forces join a and their K, B the
 * iteration matrix; the wind's force joins a at each iterate's time t + h (its Jacobian left out);
 * Provot's sweeps follow each accepted step. Each case against an independent solution: the free
 * triangle's closed form and its turbulent ODE integrated in the test (helpers/wind-triangle.ts),
 * fixed-step RK4 at h = 0.1 ms, the strain limit itself. The scheme is first order with an
 * O(h²) estimate, so its global error falls as √accuracy: measured 10× per 100× accuracy below.
 */
import { describe, expect, test } from 'vitest';
import { createAdaptiveSimulation, createSimulation, energy, withStrainLimit } from '../src/index.ts';
import { expectClose } from './helpers/expect-close.ts';
import { bumpySheet } from './helpers/bumpy-sheet.ts';
import { largestStretch, softCloth } from './helpers/strain-cloth.ts';
import { shot } from './helpers/self-contact-scenes.ts';
import { selfIntersections } from './helpers/self-intersection.ts';
import { turbulentTriangle, windTriangle } from './helpers/wind-triangle.ts';

const VIE = { integrator: 'velocity-implicit-euler' } as const;

describe('velocity-implicit Euler in a wind (CPU)', () => {
  test('steady: the free triangle is carried along as v̇ = k (W − v)² says, converging as √accuracy', async () => {
    const { model, v, z } = windTriangle();
    const errors: number[] = [];
    for (const accuracy of [1e-4, 1e-6]) {
      const simulation = await createAdaptiveSimulation(model, { ...VIE, accuracy });
      await simulation.advanceTo(1);
      const { positions, velocities } = await simulation.readState();
      errors.push(Math.abs(velocities[2]! / v(1) - 1));
      // z itself: within the same first-order error (measured 7e-4 and 7e-5 relative).
      expect(Math.abs(positions[2]! / z(1) - 1)).toBeLessThan(2e-3);
      simulation.destroy();
    }
    // Measured 1.17e-3 and 1.19e-4: first order under a per-step control (100× accuracy, 10× error).
    expect(errors[0]!).toBeLessThan(2e-3);
    expect(errors[0]! / errors[1]!).toBeGreaterThan(7);
    expect(errors[0]! / errors[1]!).toBeLessThan(14);
  });

  test('turbulent: the free triangle follows its ODE integrated in the test', async () => {
    const { model, reference } = turbulentTriangle();
    const exact = reference(0.2, 1e-5);
    const simulation = await createAdaptiveSimulation(model, { ...VIE, accuracy: 1e-6 });
    await simulation.advanceTo(0.2);
    const { positions } = await simulation.readState();
    const error = Math.hypot(...[0, 1, 2].map((d) => positions[d]! - exact.x[d]!));
    // Measured 7.1e-5 m (7.1e-4 at accuracy 1e-4) of a 0.23 m path: the first-order error.
    expect(error).toBeLessThan(1.5e-4);
    simulation.destroy();
  });
});

test('velocity-implicit Euler bends: a damped bumped sheet follows fixed-step RK4 at h = 0.1 ms (CPU)', async () => {
  const model = bumpySheet(0.002);
  const reference = await createSimulation(model, { integrator: 'rk4', dt: 1e-4 });
  reference.step(3000);
  const exact = await reference.readState();
  reference.destroy();
  const simulation = await createAdaptiveSimulation(model, { ...VIE, accuracy: 1e-6 });
  await simulation.advanceTo(0.3);
  const state = await simulation.readState();
  const moved = Math.max(...exact.positions.map((x, k) => Math.abs(x - model.particlePositions[k]!)));
  // The hinges moved the sheet by 3.8e-2 m; without their force nothing would move.
  expect(moved).toBeGreaterThan(0.03);
  // First order: measured 2.0e-5 m at accuracy 1e-6 (2.0e-4 at 1e-4); RK4's own error ~1e-12.
  expectClose(state.positions, exact.positions, 5e-5, 'velocity-implicit Euler vs RK4 with hinges (m)');
  // The hinge damping took 99 % of the energy out (RK4 too).
  const e0 = energy(model, model.particlePositions, model.particleVelocities).total;
  expect(energy(model, state.positions, state.velocities).total).toBeLessThan(0.05 * e0);
  simulation.destroy();
});

test('velocity-implicit Euler with a strain limit of 10 % holds a soft hanging cloth near it (CPU)', async () => {
  const hang = async (model: ReturnType<typeof softCloth>) => {
    const simulation = await createAdaptiveSimulation(model, { ...VIE, accuracy: 1e-3 });
    await simulation.advanceTo(1);
    const stretch = largestStretch(softCloth(), (await simulation.readState()).positions);
    simulation.destroy();
    return stretch;
  };
  const without = await hang(softCloth());
  const within = await hang(withStrainLimit(softCloth(), { maxStretch: 0.1, iterations: 8 }));
  // Measured 100 % without, 10.06 % with (~650 accepted steps of ~1.5 ms, each re-stretching the
  // cloth a little before its sweeps).
  expect(without).toBeGreaterThan(0.8);
  expect(within).toBeGreaterThan(0.09);
  expect(within).toBeLessThan(0.11);
});

describe('velocity-implicit Euler with self-collision (CPU)', () => {
  test('a vertex shot at 50 m/s through a triangle in one step (0.83 m) stops above it', async () => {
    const run = async (selfCollision: boolean) => {
      const model = shot(selfCollision);
      // Free flight has no error to estimate: one step of maxStep.
      const simulation = await createAdaptiveSimulation(model, { ...VIE, accuracy: 1e-3, maxStep: 1 / 60, initialStep: 1 / 60 }); // prettier-ignore
      await simulation.advanceTo(1 / 60);
      return (await simulation.readState()).positions;
    };
    expect((await run(false))[3 * 3 + 1]!).toBeCloseTo(0.05 - 50 / 60, 12); // straight through
    const positions = await run(true);
    // The fail-safe's truncation: within the thickness (2 cm) above the pinned triangle (measured 9.6 mm).
    expect(positions[3 * 3 + 1]!).toBeGreaterThan(0);
    expect(positions[3 * 3 + 1]!).toBeLessThan(0.02);
    expect(selfIntersections(positions, shot(true).triangleIndices)).toEqual([]);
  });

  test('shot at 1 m/s, the vertex is pushed back by the pairs’ repulsion inside the Newton solve', async () => {
    const base = shot(true);
    const model = { ...base, particleVelocities: base.particleVelocities.map((v) => v / 50) };
    const simulation = await createAdaptiveSimulation(model, { ...VIE, accuracy: 1e-4 });
    let lowest = Infinity;
    for (let k = 1; k <= 20; k++) {
      await simulation.advanceTo(0.01 * k);
      const { positions } = await simulation.readState();
      lowest = Math.min(lowest, positions[3 * 3 + 1]!);
      expect(selfIntersections(positions, model.triangleIndices)).toEqual([]);
    }
    const { positions, velocities } = await simulation.readState();
    // ½ m v² = 0.5 J outruns the 2 cm band's ½ k r² = 0.2 J: the fail-safe stops the vertex at
    // 0.7 mm, and the compressed pair sends it back up, past its start (measured y 0.081 m,
    // v 0.62 m/s; without the repulsion in a it stays at 0.07 mm, v = 0).
    expect(lowest).toBeGreaterThan(0);
    expect(positions[3 * 3 + 1]!).toBeGreaterThan(0.05);
    expect(velocities[3 * 3 + 1]!).toBeGreaterThan(0.3);
    simulation.destroy();
  });
});
