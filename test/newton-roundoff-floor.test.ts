/**
 * Newton loops at an equilibrium in float32 (program.ts NewtonCriterion, Weft's round-off floor).
 * A particle hangs at rest on a spring, m g = k (L − L₀) exactly in float64; in float32 its
 * residual is round-off, ~u |k (L − L₀)|, far above Caribou's absolute tolerance (1e-15 N), and
 * its corrections are round-off too, so Σδa ≈ 0 defeats the relative tests: without the floor every
 * backward-Euler step ran to the Newton cap and was reported unconverged (CPU float32 and WebGPU:
 * 12 of 12 steps, 120 Newton iterations), and velocity-implicit Euler on WebGPU took 651 steps and
 * 1,510 Newton-failure rejections for 0.5 s of rest (CPU float64: 7 steps). The answer, rest,
 * is analytic: the particle must stay where it is.
 */
import { expect, test } from 'vitest';
import { createAdaptiveSimulation, createModel, createSimulation, type Model } from '../src/index.ts';
import { BACKENDS, useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const [MASS, STIFFNESS, REST, HEIGHT, GRAVITY] = [0.3 / 1024, 100, 0.001, 0.012, 9.81];

/** The particle at `height` hangs at rest: its anchor sits L₀ + m g / k above it. */
function hangingParticle(
  stiffness = STIFFNESS,
  start = [0, HEIGHT, 0],
  velocity = [0, 0, 0],
  height = HEIGHT,
): Model {
  const anchor = height + REST + (MASS * GRAVITY) / stiffness;
  return createModel({
    positions: [...start, 0, anchor, 0],
    velocities: [...velocity, 0, 0, 0],
    masses: [MASS, 1],
    fixed: [1],
    springPairs: [0, 1],
    springStiffness: stiffness,
    springRestLengths: [REST],
  });
}

const FLOAT32_RUNS = [
  { backend: 'cpu', precision: 'f32' },
  { backend: 'webgpu', precision: 'f32' },
] as const;
const runs = FLOAT32_RUNS.filter(({ backend }) => BACKENDS.includes(backend));
const on = (backend: 'cpu' | 'webgpu') => (backend === 'webgpu' ? { backend, device: node.runner() } : { backend, precision: 'f32' as const }); // prettier-ignore

/** Rest in float32: within 4 units of round-off of the height (it starts rounded to float32). */
const REST_BOUND = 4 * 2 ** -24 * HEIGHT;

test.each(runs)(
  'backward Euler, $backend $precision: a particle at rest converges every step and stays put',
  async ({ backend }) => {
    const sim = await createSimulation(hangingParticle(), { integrator: 'backward-euler', dt: 1 / 60, solver: 'cg', tolerance: 1e-6, maxIterations: 12, ...on(backend) }); // prettier-ignore
    try {
      sim.step(12);
      const y = (await sim.readState()).positions[1]!;
      const stats = (await sim.readSolverStats())!;
      expect(Math.abs(y - HEIGHT), `y = ${y} m`).toBeLessThanOrEqual(REST_BOUND);
      expect(stats.unconvergedSteps, 'steps at the Newton cap').toBe(0);
      // Each loop stops at its first or second correction (round-off); the cap is 10 a step.
      expect(stats.newtonIterations).toBeLessThanOrEqual(2 * 12);
    } finally {
      sim.destroy();
    }
  },
);

test.each(runs)(
  'backward Euler, $backend $precision: a particle at rest 4 m up converges every step (the floor scales with ‖x₀‖)',
  async ({ backend }) => {
    // ‖x₀‖ ≈ 5.7 m: a floor that divided by ‖x₀‖² instead (u²/‖x₀‖²) is 32² times tighter here,
    // below the round-off corrections, and every step runs to the cap (measured on the CPU: 12 of 12).
    const height = 4;
    const model = hangingParticle(STIFFNESS, [0, height, 0], [0, 0, 0], height);
    const sim = await createSimulation(model, { integrator: 'backward-euler', dt: 1 / 60, solver: 'cg', tolerance: 1e-6, maxIterations: 12, ...on(backend) }); // prettier-ignore
    try {
      sim.step(4);
      const y = (await sim.readState()).positions[1]!;
      const stats = (await sim.readSolverStats())!;
      // Rest in float32 at 4 m: within 4 units of its round-off (measured 1 ulp, 2.4e-7 m, on the CPU).
      expect(Math.abs(y - height), `y = ${y} m`).toBeLessThanOrEqual(4 * 2 ** -24 * height);
      expect(stats.unconvergedSteps, 'steps at the Newton cap').toBe(0);
      expect(stats.newtonIterations).toBeLessThanOrEqual(2 * 4);
    } finally {
      sim.destroy();
    }
  },
);

test.each(runs)('velocity-implicit Euler, $backend $precision: 0.5 s at rest takes no more steps than float64 and no Newton failure', async ({ backend }) => {
  const advance = async (options: object) => {
    const sim = await createAdaptiveSimulation(hangingParticle(), { integrator: 'velocity-implicit-euler', ...options }); // prettier-ignore
    try {
      await sim.advanceTo(0.5);
      return { y: (await sim.readState()).positions[1]!, stats: sim.readStats() };
    } finally {
      sim.destroy();
    }
  };
  const reference = await advance({ backend: 'cpu' });
  const run = await advance(on(backend));
  expect(Math.abs(run.y - HEIGHT), `y = ${run.y} m`).toBeLessThanOrEqual(REST_BOUND);
  expect(run.stats.shrinksFromNewtonFailure, 'Newton failures').toBe(0);
  // float64 (CPU) takes 7 steps; rest in float32 may not take more.
  expect(run.stats.acceptedSteps + run.stats.rejectedSteps).toBeLessThanOrEqual(reference.stats.acceptedSteps);
}); // prettier-ignore

test.each(runs)(
  "backward Euler, $backend $precision: with only the round-off floor a swinging particle converges every step, to float64's answer",
  async ({ backend }) => {
    // A soft spring (h² k/m ≈ 0.5) and a start 2 cm off its rest: it swings through all 24 steps.
    const model = hangingParticle(0.5, [0, HEIGHT - 0.02, 0.01], [0.01, 0, 0]);
    const options = { integrator: 'backward-euler', dt: 1 / 60, solver: 'cg', tolerance: 1e-7, maxIterations: 12 } as const; // prettier-ignore
    const end = async (more: object) => {
      const sim = await createSimulation(model, { ...options, ...more });
      try {
        sim.step(24);
        return { x: (await sim.readState()).positions.slice(0, 3), stats: (await sim.readSolverStats())! };
      } finally {
        sim.destroy();
      }
    };
    // Reference: float64, Caribou's correction test at 1e-12 (its floor, 2⁻⁵³, never ends a loop first).
    const reference = await end({ backend: 'cpu', correctionTolerance: 1e-12 });
    // Caribou's three tests off (≤ 0): the floor (or the cap of 10) ends every loop.
    const run = await end({ ...on(backend), correctionTolerance: 0, residualTolerance: 0, absoluteResidualTolerance: 0 }); // prettier-ignore
    const distance = Math.hypot(...[0, 1, 2].map((i) => run.x[i]! - reference.x[i]!));
    // The floor is reached before the cap (a floor far tighter than u, such as h² for h⁴, is not)…
    expect(run.stats.unconvergedSteps, 'steps at the Newton cap').toBe(0);
    // …and it stops at float32's rounding of the answer: measured 4.3e-10 m on the CPU, u |x| = 7e-10 m.
    expect(distance, `${distance} m from float64`).toBeLessThan(8 * 2 ** -24 * HEIGHT);
  },
);

test('velocity-implicit Euler, cpu f32: a swinging particle takes float64’s Newton iterations (the zero-update test at float32’s ε)', async () => {
  // The soft spring of the swinging case: Drake's loops take ~3 iterations an attempt (measured
  // float64 2,106, float32 2,104 over 351 attempts); a zero-update threshold that calls every
  // float32 update zero (10 / 2⁻²³, say) ends each loop after one iteration (1,053).
  const advance = async (precision: 'f32' | 'f64') => {
    const model = hangingParticle(0.5, [0, HEIGHT - 0.02, 0.01], [0.01, 0, 0]);
    const sim = await createAdaptiveSimulation(model, { integrator: 'velocity-implicit-euler', backend: 'cpu', precision }); // prettier-ignore
    try {
      await sim.advanceTo(0.2);
      return sim.readStats();
    } finally {
      sim.destroy();
    }
  };
  const [f64, f32] = [await advance('f64'), await advance('f32')];
  expect(f32.acceptedSteps + f32.rejectedSteps).toBe(f64.acceptedSteps + f64.rejectedSteps);
  // float32 round-off may end a loop one iteration apart from float64 now and then (2 of 2,106).
  expect(Math.abs(f32.newton.iterations - f64.newton.iterations)).toBeLessThanOrEqual(0.02 * f64.newton.iterations);
}); // prettier-ignore
