/**
 * Baraff & Witkin's release rule (1998 §6: a contact whose constraint force pulls inwards is let
 * go) at a particle that starts the step behind the surface. Its forces are taken where it is, not
 * on the surface it is moved to, so its λ there says nothing about adhesion. The scene: one
 * particle on a spring to a pinned anchor 5 mm under a floor's contact surface (1/60 s),
 * starting 18 mm behind that surface and moving into it at 1.09 m/s (the state a cloth's
 * particle at a sphere's foot was caught in, period-2, at ~1 m/s). Taken where the particle is,
 * the spring pushes it out (λ < 0); on the surface it pulls it in, so the contact must hold and
 * the particle rest on the surface, with λ = k (5 mm + rest length) + m g > 0 (a particle let go
 * there falls 4 mm back in, a mistake the 1 µm bound below sees). Implicit Euler on the CPU
 * (float64) and WebGPU; Newmark and backward Euler on the CPU.
 */
import { expect, test } from 'vitest';
import { createModel, createSimulation, type Model } from '../src/index.ts';
import { BACKENDS, useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const THICKNESS = 0.01;
/** The floor's contact surface, y (m): the plane y = 0 plus the thickness. */
const SURFACE = THICKNESS;

/** One particle at height y (m, moving at vy) on a spring to a fixed anchor straight above or below it, over the floor. */
function particleOnSpring(o: { y: number; vy: number; mass: number; anchorY: number; stiffness: number; rest: number; friction: number }): Model {
  return createModel({
    positions: [0, o.y, 0, 0, o.anchorY, 0],
    velocities: [0, o.vy, 0, 0, 0, 0],
    masses: [o.mass, 1],
    fixed: [1],
    springPairs: [0, 1],
    springStiffness: o.stiffness,
    springRestLengths: [o.rest],
    colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: o.friction, thickness: THICKNESS }],
  });
} // prettier-ignore

const anchoredParticle = (): Model =>
  particleOnSpring({ y: SURFACE - 0.018, vy: -1.09, mass: 0.3 / 1024, anchorY: SURFACE - 0.005, stiffness: 100, rest: 0.001, friction: 0 }); // prettier-ignore

/**
 * `model` under `integrator` at 1/60 s, CG to 1e-6, on `backend`. A cap of 12 CG iterations (a
 * resumed solve's: 3): one free particle's solve has 3 unknowns, so CG ends in at most 3; on WebGPU
 * step() encodes every iteration up to the cap (the default 200) whether it runs or not.
 */
function simulate(
  model: Model,
  integrator: 'implicit-euler' | 'newmark' | 'backward-euler',
  backend: 'cpu' | 'webgpu',
) {
  return createSimulation(model, { integrator, dt: 1 / 60, solver: 'cg', tolerance: 1e-6, maxIterations: 12, ...(backend === 'webgpu' ? { backend, device: node.runner() } : { backend }) }); // prettier-ignore
}

// Implicit Euler takes λ once, where the particle was: without the rule it falls back in on both
// backends. Newmark ends its step with a projection and backward Euler's later Newton iterations
// take λ again on the surface: they hold it either way, and are checked on the CPU only.
const CASES = [
  ['implicit-euler', 'cpu'],
  ['implicit-euler', 'webgpu'],
  ['newmark', 'cpu'],
  ['backward-euler', 'cpu'],
] as const;

test.each(CASES.filter(([, backend]) => BACKENDS.includes(backend)))(
  '%s, %s: a particle pushed out of a floor stays on it, though its spring pushed outwards where it was',
  async (integrator, backend) => {
    const sim = await simulate(anchoredParticle(), integrator, backend);
    try {
      const heights: number[] = [];
      for (let step = 0; step < 20; step++) {
        sim.step(1);
        heights.push((await sim.readState()).positions[1]!);
      }
      const worst = Math.max(...heights.map((y) => Math.abs(y - SURFACE)));
      console.log(
        `${integrator}, ${backend}: at most ${worst.toExponential(2)} m off the surface over 20 steps`,
      );
      // Every step ends on the surface: float32 positions round it to ~1e-9 m; 1 µm is 4,000 times
      // less than the 4 mm a wrongly released particle falls back in.
      for (const [step, y] of heights.entries()) {
        expect(Math.abs(y - SURFACE), `step ${step + 1}: y = ${y} m, surface ${SURFACE} m`).toBeLessThan(
          1e-6,
        );
      }
      expect(Math.abs((await sim.readState()).velocities[1]!), 'vertical speed at rest, m/s').toBeLessThan(
        1e-6,
      );
    } finally {
      sim.destroy();
    }
  },
);

/**
 * Backward Euler moves a particle that starts behind a surface onto it once, at the first Newton
 * iteration (its contact's gap is 0 after that): one 18 mm behind a floor at −1.09 m/s, with a
 * spring pulling it sideways (k = 500 N/m to an anchor 5 cm off, so Newton iterates), ends the
 * step on the surface, and with several Newton iterations. Moving it again at each iteration
 * would push it out by the gap each time (measured with the gap not zeroed: 0.18 m above).
 */
test('backward Euler, cpu: a particle behind a floor is moved onto it once, whatever the Newton iterations', async () => {
  const model = createModel({
    positions: [0, SURFACE - 0.018, 0, 0.05, 0.02, 0],
    velocities: [0.5, -1.09, 0, 0, 0, 0],
    masses: [0.01, 1],
    fixed: [1],
    springPairs: [0, 1],
    springStiffness: 500,
    springRestLengths: [0.01],
    colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0, thickness: THICKNESS }],
  });
  const sim = await createSimulation(model, { integrator: 'backward-euler', dt: 1 / 60, solver: 'cg', tolerance: 1e-8, correctionTolerance: 1e-10, residualTolerance: 1e-12 }); // prettier-ignore
  sim.step(1);
  const { positions } = await sim.readState();
  const stats = (await sim.readSolverStats())!;
  expect(stats.newtonIterations, 'Newton iterations in the step').toBeGreaterThan(1);
  // Ends on the surface: float64, and the converged velocity's normal part is 0 to the tolerances.
  expect(Math.abs(positions[1]! - SURFACE)).toBeLessThan(1e-9);
});

/**
 * A particle its spring holds at rest 2 mm above a floor's contact surface, within the h² |g| =
 * 2.7 mm that free flight under gravity alone closes in a step of 1/60 s: the step's detection
 * constrains it (Baraff & Witkin 1998 §5: its predicted motion crosses the surface), the constraint
 * pulls it onto the surface, and its force says so (λ = −(k · 2 mm)·h… < 0, adhesion). Released
 * only for the next step, it was pulled 2 mm down, let go, sprung back: a cycle (the 128² drop's
 * particles resting a few mm above the sphere, README). Released within the step, the solve
 * resumes without it and it stays where its spring holds it. Spring: k = 10 N/m, m = 0.01 kg, so
 * it hangs m g / k = 9.81 mm below its rest length, in equilibrium: every step must end where it
 * started, float64 to 1e-9 m, float32 to 1e-6 m (the wrong answer is 2 mm off).
 */
const HOVER = 0.002;
function hangingParticle(): Model {
  const [mass, stiffness, rest] = [0.01, 10, 0.05];
  const y = SURFACE + HOVER;
  return particleOnSpring({ y, vy: 0, mass, anchorY: y + rest + (mass * 9.81) / stiffness, stiffness, rest, friction: 0.5 }); // prettier-ignore
}

const HOVER_CASES = [
  ['implicit-euler', 'cpu'],
  ['implicit-euler', 'webgpu'],
  ['newmark', 'cpu'],
  ['newmark', 'webgpu'],
  ['backward-euler', 'cpu'],
  ['backward-euler', 'webgpu'],
] as const;

test.each(HOVER_CASES.filter(([, backend]) => BACKENDS.includes(backend)))(
  '%s, %s: a particle hanging 2 mm above a floor stays there (a contact that pulls is released within its step)',
  async (integrator, backend) => {
    const model = hangingParticle();
    const sim = await simulate(model, integrator, backend);
    try {
      const bound = backend === 'cpu' ? 1e-9 : 1e-6;
      for (let step = 1; step <= 12; step++) {
        sim.step(1);
        const y = (await sim.readState()).positions[1]!;
        expect(Math.abs(y - model.particlePositions[1]!), `step ${step}: y = ${y} m`).toBeLessThan(bound);
      }
      // Constrained, released and resumed every other step (a released contact is left free for
      // the next step, then caught by the prediction again): a solve a step, 6 resumed, and
      // backward Euler's Newton iterations after its first (constrained, released) solve — none
      // on the CPU; on WebGPU they run to the cap, since at this exact equilibrium the float32
      // residual never reaches Caribou's absolute tolerance (1e-15 N) and Σδa ≈ 0.
      const stats = (await sim.readSolverStats())!;
      expect(stats.linearSolves).toBe(12 + stats.newtonIterations + 6);
      expect(stats.unconvergedSolves).toBe(0);
    } finally {
      sim.destroy();
    }
  },
);
