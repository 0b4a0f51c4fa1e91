/**
 * Colliders with the adaptive integrators on the CPU (issue 13): rk45, step doubling and velocity-implicit Euler
 * project each accepted step onto the colliders (src/integrators/contact-programs.ts). A particle
 * dropped on each shape rests at the thickness, Coulomb's cone holds on an incline (sticks at
 * tan θ < μ, slides with a = g (sin θ − μ cos θ) beyond), and every way of making an adaptive
 * simulation refuses what it cannot run instead of leaving it out of the steps.
 */
import { describe, expect, test } from 'vitest';
import {
  buildCloth,
  createAdaptiveSimulation,
  withColliders,
  WeftInputError,
  type AdaptiveOptions,
} from '../src/index.ts';
import { colliderDistance } from '../src/internal.ts';
import { expectRestingOnSurface, incline, particle, SHAPES, slide, THICKNESS } from './helpers/collider-scenes.ts'; // prettier-ignore

/** A particle under gravity alone has no error to estimate: the step is held at maxStep. */
const H = 1 / 240;
const SCHEMES: [string, AdaptiveOptions][] = [
  ['rk45', { integrator: 'rk45', accuracy: 1e-4, maxStep: H }],
  ['step-doubling(heun)', { integrator: 'step-doubling', scheme: 'heun', accuracy: 1e-4, maxStep: H }],
];
/**
 * With velocity-implicit Euler (Drake's stepper on the CPU), projected after each accepted step
 * as the explicit ones are. Its accepted map, two half steps of backward Euler, carries a constant
 * acceleration as x₊ = x + h v + ¾ h² a (drift d = ¾; the explicit schemes' d = ½).
 */
const ALL: [string, AdaptiveOptions][] = [...SCHEMES, ['velocity-implicit-euler', { integrator: 'velocity-implicit-euler', accuracy: 1e-4, maxStep: H }]]; // prettier-ignore

describe.each(ALL)('%s', (_, options) => {
  test.each(SHAPES)(
    'a particle dropped on a %s rests on it at the thickness, at rest',
    async (__, shape, start) => {
      const model = particle(start, [shape]);
      const simulation = await createAdaptiveSimulation(model, options);
      await simulation.advanceTo(1);
      // The projection after each accepted step puts it on the offset surface, to round-off.
      expectRestingOnSurface(model, await simulation.readState(), 1e-9, 1e-9);
      // Every step at maxStep (the last one clipped to land on 1 s, which rounding may split in two).
      expect(simulation.readStats().acceptedSteps).toBeGreaterThanOrEqual(240);
      expect(simulation.readStats().acceptedSteps).toBeLessThanOrEqual(241);
    },
  );

  test('on an incline at 20° (tan θ = 0.36 < μ = 0.5) the particle sticks', async () => {
    const { model } = incline(20);
    const simulation = await createAdaptiveSimulation(model, options);
    await simulation.advanceTo(1);
    const { positions } = await simulation.readState();
    const moved = Math.hypot(...[0, 1, 2].map((d) => positions[d]! - model.particlePositions[d]!));
    expect(moved).toBeLessThan(1e-9);
  });

  test('on an incline at 35° (tan θ = 0.70 > μ) it slides with a = g (sin θ − μ cos θ)', async () => {
    const { model, down, a } = incline(35);
    const simulation = await createAdaptiveSimulation(model, options);
    const T = 1;
    await simulation.advanceTo(T);
    const along = slide(model, (await simulation.readState()).positions, down);
    // Friction's Δv_t = −μ g cos θ h is taken back from x as d h Δv_t, so each step of h moves
    // h v + d h² a along the incline, and N steps x_N = ½ a T² + (d − ½) a h T (T = N h) to
    // round-off: rk45 and Heun are exact under a constant acceleration (d = ½; with the carry of
    // x₊ = x + h v₊ they were 1 % short), velocity-implicit Euler's halves of backward Euler d = ¾
    // (2.1e-3 of the slide ahead).
    const d = options.integrator === 'velocity-implicit-euler' ? 0.75 : 0.5;
    expect(Math.abs(along / (0.5 * a * T * T + (d - 0.5) * a * H * T) - 1)).toBeLessThan(1e-9);
  });
});

test.each(['rk45', 'velocity-implicit-euler'] as const)(
  '%s: a cloth dropped on a sphere ends outside it, its step chosen by accuracy',
  async (integrator) => {
    const cloth = buildCloth({ nx: 8, ny: 8, spacing: 0.08, particleMass: 0.01, structuralStiffness: 200, shearStiffness: 50, bendStiffness: 10, damping: 0.05, pins: 'none', origin: [-0.28, 0.35, -0.28] }); // prettier-ignore
    const model = withColliders(cloth, [{ shape: 'sphere', center: [0, 0, 0], radius: 0.25, friction: 0.5, thickness: THICKNESS }]); // prettier-ignore
    const simulation = await createAdaptiveSimulation(model, { integrator, accuracy: 1e-3 });
    await simulation.advanceTo(0.5);
    const { positions } = await simulation.readState();
    let closest = Infinity;
    for (let i = 0; i < model.particleCount; i++)
    closest = Math.min(closest, colliderDistance(model.colliders[0]!, [positions[3 * i]!, positions[3 * i + 1]!, positions[3 * i + 2]!]).distance); // prettier-ignore
    expect(closest).toBeGreaterThan(THICKNESS - 1e-9);
    // It draped: particles fell past the sphere's top (0.25 m).
    expect(Math.min(...positions.filter((_, k) => k % 3 === 1))).toBeLessThan(0.2);
    const stats = simulation.readStats();
    expect(stats.accuracyMet).toBe(true);
    expect(stats.acceptedSteps).toBeGreaterThan(10);
    // Projected after each accepted step, the attempts are free flight: the step stays on the
    // motion's scale (velocity-implicit Euler measured ≥ 0.34 ms, 507 steps; with its three
    // backward-Euler steps constrained inside the solve, the first contacts drove it to 1e-9 s).
    expect(stats.smallestStep).toBeGreaterThan(1e-4);
  },
);

describe.each(ALL)('%s with kinematic colliders (setColliderPose over each advanceTo)', (_, options) => {
  test('a particle resting on a plane moving up at 0.5 m/s rides on it at the thickness, moving with it', async () => {
    const u = 0.5;
    const model = particle([0, THICKNESS, 0], [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }]); // prettier-ignore
    const simulation = await createAdaptiveSimulation(model, options);
    let worst = 0;
    for (let call = 1; call <= 10; call++) {
      const t = 0.05 * call;
      simulation.setColliderPose(0, { point: [0, u * t, 0] });
      await simulation.advanceTo(t);
      const { positions, velocities } = await simulation.readState();
      // The plane's height is u t: the particle at u t + thickness, moving up at u.
      worst = Math.max(worst, Math.abs(positions[1]! - (u * t + THICKNESS)), Math.abs(velocities[1]! - u));
    }
    // Each accepted step moves the plane by h u and ends the particle on it (n·v₊ = u·n): round-off.
    expect(worst).toBeLessThan(1e-12);
  });

  test('μ = 0.2 on a box sliding at 1 m/s: the particle slips with a = μ g until it moves at the box speed', async () => {
    const [mu, s, T] = [0.2, 1, 1];
    const model = particle([0, THICKNESS, 0], [{ shape: 'box', center: [0, -0.5, 0], halfExtents: [2, 0.5, 2], friction: mu, thickness: THICKNESS }]); // prettier-ignore
    const simulation = await createAdaptiveSimulation(model, options);
    for (let call = 1; call <= 60; call++) {
      simulation.setColliderPose(0, { center: [(s * T * call) / 60, -0.5, 0] });
      await simulation.advanceTo((T * call) / 60);
    }
    const { positions, velocities } = await simulation.readState();
    // Coulomb: a = μ g while slower than the box, reached at t* = s / (μ g) (kinematic-colliders.test.ts).
    const tStar = s / (mu * 9.81);
    expect(Math.abs(velocities[0]! - s)).toBeLessThan(1e-9);
    // The slip ends within a step (h = 1/240 s here) of t*: off by at most a step's travel s h.
    expect(Math.abs(positions[0]! - (0.5 * mu * 9.81 * tStar * tStar + s * (T - tStar)))).toBeLessThan(s * H);
    expect(Math.abs(positions[1]! - THICKNESS)).toBeLessThan(1e-9);
  });
});

test('setColliderPose then advance(n): an input error (a pose needs the duration advanceTo gives); checked after destroy', async () => {
  const model = particle([0, 1, 0], [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] }]);
  const simulation = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-3 });
  simulation.setColliderPose(0, { point: [0, 0.1, 0] });
  await expect(simulation.advance(1)).rejects.toThrow(expect.objectContaining({ name: 'WeftInputError', field: 'setColliderPose' })); // prettier-ignore
  expect(() => simulation.setColliderPose(3, { point: [0, 0.1, 0] })).toThrow(WeftInputError);
  await simulation.advanceTo(0.1); // reaches it; advance(n) runs again
  await simulation.advance(1);
  simulation.destroy();
  expect(() => simulation.setColliderPose(0, { point: [0, 0.1, 0] })).toThrow(/destroy/);
});

test('velocity-implicit Euler takes colliders, their poses and particle edits together', async () => {
  const plane = { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] } as const;
  const model = withColliders(buildCloth({ nx: 3, ny: 3 }), [plane]);
  const simulation = await createAdaptiveSimulation(model, { integrator: 'velocity-implicit-euler', accuracy: 1e-3 }); // prettier-ignore
  simulation.setColliderPose(0, { point: [0, 0.1, 0] });
  simulation.setParticles({ indices: [0], positions: [0, 1, 0] }); // since 58ee9a6 it takes the edits
  expect(Array.from((await simulation.readState()).positions.subarray(0, 3))).toEqual([0, 1, 0]);
  simulation.destroy();
});
