/**
 * Colliders with the explicit adaptive integrators on the CPU (issue 13): rk45 and step doubling
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
  type Model,
} from '../src/index.ts';
import { AdaptiveSimulation, colliderDistance } from '../src/internal.ts';
import { expectRestingOnSurface, incline, particle, SHAPES, slide, THICKNESS } from './helpers/collider-scenes.ts'; // prettier-ignore

/** A particle under gravity alone has no error to estimate: the step is held at maxStep. */
const H = 1 / 240;
const SCHEMES: [string, AdaptiveOptions][] = [
  ['rk45', { integrator: 'rk45', accuracy: 1e-4, maxStep: H }],
  ['step-doubling(heun)', { integrator: 'step-doubling', scheme: 'heun', accuracy: 1e-4, maxStep: H }],
];

describe.each(SCHEMES)('%s', (_, options) => {
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
    // Both schemes are exact under a constant acceleration (drift ½), and friction's Δv_t =
    // −μ g cos θ h is taken back from x as ½ h Δv_t: each step moves h v + ½ h² a, so the slide
    // is ½ a T² to round-off (with drift 1, as x₊ = x + h v₊ takes it back, it was 1 % short).
    expect(Math.abs(along / (0.5 * a * T * T) - 1)).toBeLessThan(1e-9);
  });
});

test('rk45: a cloth dropped on a sphere ends outside it, its step chosen by accuracy', async () => {
  const cloth = buildCloth({ nx: 8, ny: 8, spacing: 0.08, particleMass: 0.01, structuralStiffness: 200, shearStiffness: 50, bendStiffness: 10, damping: 0.05, pins: 'none', origin: [-0.28, 0.35, -0.28] }); // prettier-ignore
  const model = withColliders(cloth, [{ shape: 'sphere', center: [0, 0, 0], radius: 0.25, friction: 0.5, thickness: THICKNESS }]); // prettier-ignore
  const simulation = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-3 });
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
});

describe.each(SCHEMES)('%s with kinematic colliders (setColliderPose over each advanceTo)', (_, options) => {
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

describe('what the adaptive integrators cannot run is refused, however the simulation is made', () => {
  const plane = { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] } as const;
  const cloth = buildCloth({ nx: 3, ny: 3 });
  test.each([['colliders', 'velocity-implicit-euler', withColliders(cloth, [plane])]] as const)(
    '%s with %s',
    async (field, integrator, model) => {
      const made = [
        () => createAdaptiveSimulation(model as Model, { integrator, accuracy: 1e-3 }),
        () => createAdaptiveSimulation(model as Model, { integrator, accuracy: 1e-3, backend: 'webgpu' }),
        () => new AdaptiveSimulation(model as Model, { integrator, accuracy: 1e-3 }),
      ];
      for (const make of made) {
        const error = await Promise.resolve()
          .then(make)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WeftInputError);
        expect((error as WeftInputError).field).toBe(field);
      }
    },
  );
});
