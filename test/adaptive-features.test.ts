/**
 * Dihedral bending, strain limits, wind and self-collision with the explicit adaptive integrators on the CPU (issue 13):
 * rk45 and step doubling are programs of the same ops as the fixed-step schemes, so every `eval`
 * includes the hinges (src/model/bending.ts), and the strain-limit sweeps (Provot 1995,
 * src/integrators/strain-programs.ts) follow each accepted step with the accepted h.
 * A steady wind's `aero` ops join every `eval` too (src/integrators/wind-programs.ts; turbulence:
 * wind-stages.test.ts). Self-collision: the pairs are listed at each accepted state (at its first
 * attempt's h: a retry's smaller h reaches less far) and the fail-safe ends each accepted step.
 * Velocity-implicit Euler refuses self-collision, by name (bending, wind and strain limits:
 * adaptive-vie-features.test.ts).
 */
import { describe, expect, test } from 'vitest';
import {
  createAdaptiveSimulation,
  createModel,
  createSimulation,
  energy,
  withStrainLimit,
  type AdaptiveOptions,
  type Model,
} from '../src/index.ts';
import { expectClose } from './helpers/expect-close.ts';
import { largestStretch, softCloth } from './helpers/strain-cloth.ts';
import { windTriangle } from './helpers/wind-triangle.ts';
import { bumpySheet } from './helpers/bumpy-sheet.ts';
import { collapsingCloth, shot } from './helpers/self-contact-scenes.ts';
import { selfIntersections } from './helpers/self-intersection.ts';

const bumpy = bumpySheet;

const SCHEMES: [string, AdaptiveOptions][] = [
  ['rk45', { integrator: 'rk45', accuracy: 1e-6 }],
  ['step-doubling(rk4)', { integrator: 'step-doubling', scheme: 'rk4', accuracy: 1e-6 }],
];

/** Positions and energies of `model` at t = 0.05, 0.10, …, 0.30 s. */
async function samples(advanceTo: (t: number) => Promise<unknown>, read: () => Promise<{ positions: Float64Array; velocities: Float64Array }>, model: Model) {
  const out: { positions: Float64Array; kinetic: number; total: number }[] = [];
  for (let k = 1; k <= 6; k++) {
    await advanceTo(0.05 * k);
    const { positions, velocities } = await read();
    const e = energy(model, positions, velocities);
    out.push({ positions, kinetic: e.kinetic, total: e.total });
  }
  return out;
} // prettier-ignore

// Past ~0.35 s the sheet, which has no springs, folds its triangles flat and the hinges' forces
// grow without bound (fixed-step RK4 at h = 1e-4 s diverges there too): the runs stop at 0.3 s.
describe.each(SCHEMES)('%s', (_, options) => {
  test('bending without damping: the sheet unfolds and the energy (springs, hinges, motion) is kept', async () => {
    const model = bumpy();
    const simulation = await createAdaptiveSimulation(model, options);
    const start = energy(model, model.particlePositions, model.particleVelocities).total;
    const run = await samples(
      (t) => simulation.advanceTo(t),
      () => simulation.readState(),
      model,
    );
    // Half the hinges' energy has become motion within 0.05 s (measured 0.50–0.80 E₀ over the run):
    // with no hinge force in the steps nothing would move.
    expect(Math.max(...run.map((r) => r.kinetic))).toBeGreaterThan(0.5 * start);
    // Each accepted step's error is ≤ 1e-6 of the state; ~80 steps (rk45) drift E by 8e-5 of E₀,
    // step doubling of RK4 by 4e-6 (measured): a force that is not −∇E (bendingEnergy) drifts by O(1).
    for (const r of run) expect(Math.abs(r.total / start - 1)).toBeLessThan(5e-4);
  });

  test('bending with hinge damping: the same path as fixed-step RK4 at h = 0.1 ms, the energy falling', async () => {
    const model = bumpy(0.002);
    const simulation = await createAdaptiveSimulation(model, options);
    const reference = await createSimulation(model, { integrator: 'rk4', dt: 1e-4 });
    const run = await samples(
      (t) => simulation.advanceTo(t),
      () => simulation.readState(),
      model,
    );
    const exact = await samples(
      () => reference.advance(500),
      () => reference.readState(),
      model,
    );
    reference.destroy();
    for (let k = 0; k < run.length; k++) {
      // RK4's error at h = 1e-4 s is O(h⁴) ≈ 1e-12 here; the adaptive runs' 1e-6 per step of a
      // state of ~0.1 m accumulates to ≤ 1e-5 m over 0.3 s (measured 6e-8 for rk45).
      expectClose(
        run[k]!.positions,
        exact[k]!.positions,
        1e-5,
        `positions at ${0.05 * (k + 1)} s vs RK4 (m)`,
      );
      // The damping takes energy out at every instant (measured: E₀ → 0.011 E₀ by 0.3 s).
      if (k > 0) expect(run[k]!.total).toBeLessThan(run[k - 1]!.total);
    }
    expect(run.at(-1)!.total).toBeLessThan(
      0.05 * energy(model, model.particlePositions, model.particleVelocities).total,
    );
  });

  test('a strain limit of 10 % (8 sweeps after each accepted step) holds a soft hanging cloth near it', async () => {
    const hang = async (model: Model) => {
      const simulation = await createAdaptiveSimulation(model, { ...options, accuracy: 1e-3 });
      await simulation.advanceTo(1);
      return largestStretch(softCloth(), (await simulation.readState()).positions);
    };
    const [without, within] = [await hang(softCloth()), await hang(withStrainLimit(softCloth(), { maxStretch: 0.1, iterations: 8 }))]; // prettier-ignore
    // Measured: ~99 % without; with, rk45 17.0 % (≈ 40 steps of ~25 ms, each re-stretching the
    // cloth, as implicit Euler at 1/60 s ends at 14.5 %), step doubling 10.9 %; bounds ~1 % above.
    expect(without).toBeGreaterThan(0.8);
    expect(within).toBeGreaterThan(0.09);
    expect(within).toBeLessThan(options.integrator === 'rk45' ? 0.18 : 0.12);
  });
});

describe.each([
  ['rk45', { integrator: 'rk45', accuracy: 1e-9 }],
  ['step-doubling(rk4)', { integrator: 'step-doubling', scheme: 'rk4', accuracy: 1e-9 }],
] as [string, AdaptiveOptions][])('%s', (_, options) => {
  test('a steady wind: a free triangle facing it is carried along as v̇ = k (W − v)² says', async () => {
    const { model, v, z } = windTriangle();
    const simulation = await createAdaptiveSimulation(model, options);
    const T = 1;
    await simulation.advanceTo(T);
    const state = await simulation.readState();
    for (let i = 0; i < 3; i++) {
      // Accuracy 1e-9 per step over 22 (rk45) and 48 steps: measured 4e-10 in v, 2e-9 in z.
      expect(Math.abs(state.velocities[3 * i + 2]! / v(T) - 1)).toBeLessThan(1e-7);
      expect(Math.abs((state.positions[3 * i + 2]! - model.particlePositions[3 * i + 2]!) / z(T) - 1)).toBeLessThan(1e-7); // prettier-ignore
      // Drag along n only, and no lift: nothing moves in x or y.
      expect(Math.abs(state.velocities[3 * i]!) + Math.abs(state.velocities[3 * i + 1]!)).toBe(0);
    }
  });
});

describe.each([
  ['rk45', { integrator: 'rk45' }],
  ['step-doubling(heun)', { integrator: 'step-doubling', scheme: 'heun' }],
] as [string, AdaptiveOptions][])(
  '%s with self-collision (pairs listed at each accepted state, fail-safe after each accepted step)',
  (_, scheme) => {
    test('a vertex shot at 50 m/s through a triangle in one step (0.83 m) stops above it', async () => {
      const run = async (model: Model) => {
        // Free flight has no error to estimate: one step of maxStep.
        const simulation = await createAdaptiveSimulation(model, { ...scheme, accuracy: 1e-3, maxStep: 1 / 60, initialStep: 1 / 60 }); // prettier-ignore
        await simulation.advanceTo(1 / 60);
        return (await simulation.readState()).positions;
      };
      expect((await run(shot(false)))[3 * 3 + 1]!).toBeCloseTo(0.05 - 50 / 60, 12); // straight through
      const model = shot(true);
      const positions = await run(model);
      // Stopped within the thickness (2 cm) above the pinned triangle (measured 9.6 mm).
      expect(positions[3 * 3 + 1]!).toBeGreaterThan(0);
      expect(positions[3 * 3 + 1]!).toBeLessThan(0.02);
      expect(selfIntersections(positions, model.triangleIndices)).toEqual([]);
    });
  },
);

test(`rk45: a 16² cloth collapsing onto itself on a floor for 0.6 s: no intersection at any frame`, async (context) => {
  if (process.env['WEFT_MUTATION'] === '1') context.skip(); // ~4 s; the shot covers the contacts
  /** The most intersecting triangle pairs at any frame of 1/60 s (with `untilFirst`, up to the first). */
  const worst = async (model: Model, untilFirst: boolean): Promise<number> => {
    const simulation = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-2 });
    let most = 0;
    for (let k = 1; k <= 36 && !(untilFirst && most > 0); k++) {
      await simulation.advanceTo(k / 60);
      most = Math.max(most, selfIntersections((await simulation.readState()).positions, model.triangleIndices).length); // prettier-ignore
    }
    return most;
  };
  // Measured: without self-collision it first intersects at frame 12 (15 pairs at worst by frame
  // 36); with it, never (67 steps accepted, 6 rejected, the smallest 9.6 ms).
  expect(await worst(collapsingCloth(16), true)).toBeGreaterThan(0);
  expect(await worst(collapsingCloth(16, { thickness: 0.004, maxPairsPerParticle: 96 }), false)).toBe(0);
}, 120_000);

test('rk45, one spring 12 % long, nothing else: one accepted step ends it at 1.1 L, v = Δx / h', async () => {
  // As strain-limit.test.ts's pair: no force, so the error estimate is 0 and the step is maxStep.
  const h = 0.01;
  const model = createModel({ positions: [0, 0, 0, 1.12, 0, 0], masses: [1, 3], springPairs: [0, 1], springStiffness: 1e-12, springRestLengths: [1], gravity: [0, 0, 0], strainLimit: { maxStretch: 0.1, iterations: 1 } }); // prettier-ignore
  const simulation = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-6, maxStep: h, initialStep: h }); // prettier-ignore
  await simulation.advanceTo(h);
  const { positions: x, velocities: v } = await simulation.readState();
  expect(simulation.readStats().acceptedSteps).toBe(1);
  // Inverse masses 1 and 1/3: the ends move 0.02 × 3/4 and 0.02 × 1/4 towards each other.
  expect(x[0]).toBeCloseTo(0.015, 12);
  expect(x[3]).toBeCloseTo(1.12 - 0.005, 12);
  expect(v[0]).toBeCloseTo(0.015 / h, 9);
  expect(v[3]).toBeCloseTo(-0.005 / h, 9);
});

test('readSolverStats: the adaptive statistics in the implicit integrators’ shape (velocity-implicit Euler on a hanging cloth)', async () => {
  const simulation = await createAdaptiveSimulation(softCloth(), { integrator: 'velocity-implicit-euler', accuracy: 1e-3 }); // prettier-ignore
  await simulation.advanceTo(0.1);
  const [stats, solver] = [simulation.readStats(), await simulation.readSolverStats()];
  expect(stats.newton.iterations).toBeGreaterThan(0); // Newton ran: the fields below are not all 0
  expect(solver).toEqual({
    steps: stats.acceptedSteps,
    linearSolves: stats.newton.linearSolves,
    linearIterations: stats.newton.linearIterations,
    maxLinearIterations: stats.newton.maxLinearIterations,
    lastResidual: stats.newton.lastLinearResidual,
    maxResidual: stats.newton.maxLinearResidual,
    unconvergedSolves: stats.newton.unconvergedLinearSolves,
    newtonIterations: stats.newton.iterations,
    unconvergedSteps: stats.minStepViolations,
    converged: stats.accuracyMet,
  });
});
