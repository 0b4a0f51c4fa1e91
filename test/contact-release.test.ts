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
  solver: 'cg' | 'jacobi' = 'cg',
) {
  return createSimulation(model, { integrator, dt: 1 / 60, solver, tolerance: 1e-6, maxIterations: 12, ...(backend === 'webgpu' ? { backend, device: node.runner() } : { backend }) }); // prettier-ignore
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

// CG on each backend; block Jacobi (CPU only: WebGPU refuses it with colliders) resumes by its own loop.
const HOVER_CASES = [
  ['implicit-euler', 'cpu', 'cg'],
  ['implicit-euler', 'webgpu', 'cg'],
  ['newmark', 'cpu', 'cg'],
  ['newmark', 'webgpu', 'cg'],
  ['backward-euler', 'cpu', 'cg'],
  ['backward-euler', 'webgpu', 'cg'],
  ['implicit-euler', 'cpu', 'jacobi'],
  ['implicit-euler', 'webgpu', 'jacobi'],
] as const;

test.each(HOVER_CASES.filter(([, backend]) => BACKENDS.includes(backend)))(
  '%s, %s, %s: a particle hanging 2 mm above a floor stays there (a contact that pulls is released within its step)',
  async (integrator, backend, solver) => {
    const model = hangingParticle();
    const sim = await simulate(model, integrator, backend, solver);
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

/**
 * RELEASE_NOW_FRACTION's threshold (src/model/colliders.ts): a contact whose pull is a small part
 * of its terms is held this step, one whose pull is a clear part is released at once. A particle
 * in equilibrium on its spring (f = 0) falls at v₀ = −0.5 m/s towards a floor it would stop δ short
 * of: implicit Euler's free solve s = b/A, A = m + h²k, b = −h²k v₀ (the normal row), ends at
 * v₊ = v₀ m/A, so it starts h|v₊| + δ above the surface; the contact (it reaches the floor within
 * the step) asks v₊ = −d/h, s_n = s − δ/h, and λ = A(s_n − s) < 0 is the part
 * (δ/h)/(s_n + s) of its terms |A s_n| + |b|. δ is chosen for a part of 0.02 (held: the step ends on
 * the surface) and of 0.2 (released: the step ends at free flight's v₊), either side of 0.05.
 */
function fallingShort(part: number): { model: Model; held: number; free: number } {
  const [h, mass, stiffness, rest, v0] = [1 / 60, 0.01, 10, 0.05, -0.5];
  const a = mass + h * h * stiffness;
  const s = (-h * h * stiffness * v0) / a;
  const vFree = v0 + s;
  const delta = (h * 2 * part * s) / (1 + part); // (δ/h) = part (2s − δ/h)
  const y = SURFACE + delta - h * vFree;
  const anchorY = y + rest + (mass * 9.81) / stiffness;
  // A third particle falls freely 1 m to the side: its b (h m g) makes the first solve's
  // reference ≫ λ², so the resumed one must not be judged done against that reference.
  const model = createModel({
    positions: [0, y, 0, 0, anchorY, 0, 1, 1, 0],
    velocities: [0, v0, 0, 0, 0, 0, 0, 0, 0],
    masses: [mass, 1, mass],
    fixed: [1],
    springPairs: [0, 1],
    springStiffness: stiffness,
    springRestLengths: [rest],
    colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0, thickness: THICKNESS }],
  });
  return { model, held: SURFACE, free: y + h * vFree };
}

// CG and block Jacobi (its own resumed loop, r measured afresh) on both backends.
const SHORT_CASES = [
  ['cpu', 'cg'],
  ['webgpu', 'cg'],
  ['cpu', 'jacobi'],
  ['webgpu', 'jacobi'],
] as const;
test.each(
  SHORT_CASES.filter(([backend]) => BACKENDS.includes(backend)).flatMap(([backend, solver]) =>
    [0.02, 0.2].map((part) => [part, backend, solver] as const),
  ),
)(
  // prettier-ignore
  'implicit Euler, a pull that is %s of its contact terms, %s, %s: held this step below 0.05, released at once above',
  async (part, backend, solver) => {
    const { model, held, free } = fallingShort(part);
    const sim = await simulate(model, 'implicit-euler', backend, solver);
    try {
      sim.step(1);
      const y = (await sim.readState()).positions[1]!;
      const expected = part < 0.05 ? held : free;
      // float64 to 1e-9 m, float32 (y ≈ 0.02 m) to 1e-7 m; held and free are δ = 0.07 or 0.6 mm apart.
      expect(Math.abs(y - expected), `y = ${y} m, expected ${expected} m`).toBeLessThan(backend === 'cpu' ? 1e-9 : 1e-7); // prettier-ignore
      // Released at once: the solve, its resumed part, and (held) none.
      expect((await sim.readSolverStats())!.linearSolves).toBe(part < 0.05 ? 1 : 2);
    } finally {
      sim.destroy();
    }
  },
);

/**
 * A resumed solve's cap, resumedIterations = ⌈maxIterations / 2⌉ (src/integrators/contact-programs.ts).
 * A chain of four particles hangs in equilibrium from an anchor, the lowest 2 mm above a floor:
 * caught by the prediction, held, released at once (as the hanging particle above). The first,
 * constrained solve has three unknowns (the chain's vertical motion; x and z stay 0), an
 * irreducible tridiagonal system: CG ends in exactly 3 iterations. The resumed one starts from the
 * released particle's −λ n alone, a vector with a part along every eigenvector of the 4 × 4
 * tridiagonal system: it needs all 4. So with maxIterations 6 the resumed solve stops at
 * its cap of 3, unconverged; with 7 (a cap of 4) it converges and the chain stays at rest.
 */
test.each([
  [6, 3, 1],
  [7, 4, 0],
])(
  'implicit Euler, cpu: maxIterations %i caps the resumed solve at %i iterations (unconverged: %i)',
  async (maxIterations, cap, unconverged) => {
    const [n, mass, stiffness, rest, above] = [4, 0.01, 10, 0.05, SURFACE + HOVER];
    // Particle i (0 the lowest) hangs below a spring that carries the i + 1 particles under it.
    const ys = [above];
    for (let i = 1; i <= n; i++) ys.push(ys[i - 1]! + rest + (i * mass * 9.81) / stiffness);
    const model = createModel({
      positions: ys.flatMap((y) => [0, y, 0]),
      masses: [...Array<number>(n).fill(mass), 1],
      fixed: [n],
      springPairs: Array.from({ length: n }, (_, i) => [i, i + 1]).flat(),
      springStiffness: stiffness,
      springRestLengths: Array<number>(n).fill(rest),
      colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0, thickness: THICKNESS }],
    });
    const sim = await createSimulation(model, { integrator: 'implicit-euler', dt: 1 / 60, solver: 'cg', tolerance: 1e-10, maxIterations }); // prettier-ignore
    sim.step(1);
    const stats = (await sim.readSolverStats())!;
    expect([stats.linearSolves, stats.linearIterations, stats.unconvergedSolves]).toEqual([2, 3 + cap, unconverged]); // prettier-ignore
    const y = (await sim.readState()).positions[1]!;
    // Converged: at rest to CG's 1e-10 (float64); capped: short of it by more than 1e-8 m (9e-8 measured).
    if (unconverged === 0) expect(Math.abs(y - above)).toBeLessThan(1e-12);
    else expect(Math.abs(y - above)).toBeGreaterThan(1e-8);
    sim.destroy();
  },
);
