/**
 * Colliders on the CPU (issue 13): the signed distances against closed forms, a particle dropped on
 * each shape resting on its surface, Coulomb's cone on an incline (sticks at tan θ < μ, slides
 * with a = g (sin θ − μ cos θ) beyond), a cloth dropped on a sphere ending outside it, energy that
 * does not grow in a long resting contact, and clear errors.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { createModel, createSimulation, energy, parseScene } from '../src/index.ts';
import { colliderDistance, resolveCollider } from '../src/internal.ts';
import { clothOnSphere } from './helpers/cloth-on-sphere.ts';
import { expectRestingOnSurface, incline, particle, SHAPES, slide, THICKNESS, type Shape } from './helpers/collider-scenes.ts'; // prettier-ignore

describe('signed distances and normals against closed forms', () => {
  test.each([
    ['plane, above', { shape: 'plane', point: [0, 1, 0], normal: [0, 2, 0] }, [3, 1.5, -2], 0.5, [0, 1, 0]],
    [
      'plane, below',
      { shape: 'plane', point: [0, 0, 0], normal: [1, 1, 0] },
      [-1, 0, 0],
      -Math.SQRT1_2,
      [Math.SQRT1_2, Math.SQRT1_2, 0],
    ],
    ['sphere, outside', { shape: 'sphere', center: [1, 0, 0], radius: 0.5 }, [1, 0, 2], 1.5, [0, 0, 1]],
    ['sphere, inside', { shape: 'sphere', center: [0, 0, 0], radius: 1 }, [0, -0.25, 0], -0.75, [0, -1, 0]],
    [
      'capsule, beside the segment',
      { shape: 'capsule', a: [0, 0, 0], b: [2, 0, 0], radius: 0.1 },
      [1.5, 0.4, 0],
      0.3,
      [0, 1, 0],
    ],
    [
      'capsule, past its end',
      { shape: 'capsule', a: [0, 0, 0], b: [2, 0, 0], radius: 0.1 },
      [2, 0, -0.6],
      0.5,
      [0, 0, -1],
    ],
    ['box, face', { shape: 'box', center: [0, 0, 0], halfExtents: [1, 2, 3] }, [0, 2.5, 0], 0.5, [0, 1, 0]],
    [
      'box, corner',
      { shape: 'box', center: [0, 0, 0], halfExtents: [1, 1, 1] },
      [2, 2, 1],
      Math.SQRT2,
      [Math.SQRT1_2, Math.SQRT1_2, 0],
    ],
    [
      'box, inside, nearest face',
      { shape: 'box', center: [0, 0, 0], halfExtents: [1, 2, 3] },
      [0.8, 0, 0],
      -0.2,
      [1, 0, 0],
    ],
  ] as const)('%s', (_, shape, x, distance, normal) => {
    const got = colliderDistance(resolveCollider(shape, 0), x);
    expect(got.distance).toBeCloseTo(distance, 12);
    got.normal.forEach((n, d) => expect(n).toBeCloseTo(normal[d]!, 12));
  });
});

// rk4 and explicit Euler (x₊ = x + h v: a resting step ends on the surface moving into it, which
// counts as a contact to rounding) rest as symplectic Euler does (every scheme on an incline:
// SLIDE_SHARE below).
describe.each(['implicit-euler', 'symplectic-euler', 'rk4', 'explicit-euler'] as const)(
  '%s',
  (integrator) => {
    const dt = integrator === 'implicit-euler' ? 1 / 60 : 1 / 240;
    test.each(SHAPES)(
      'a particle dropped on a %s rests on it at the thickness, at rest',
      async (_, shape, start) => {
        const model = particle(start, [shape]);
        const simulation = await createSimulation(model, { integrator, dt });
        simulation.step(Math.round(2 / dt));
        // Implicit Euler lands each contact exactly on the offset surface (g + h v₊·n = 0, to
        // round-off); the explicit projection puts it there after each step.
        expectRestingOnSurface(model, await simulation.readState(), 1e-9, 1e-9);
      },
    );
  },
);

describe('implicit Euler on an incline, μ = 0.5', () => {
  const dt = 1 / 60;
  test('at 20° (tan θ = 0.36 < μ = 0.5) the particle sticks', async () => {
    const { model, down } = incline(20);
    const simulation = await createSimulation(model, { integrator: 'implicit-euler', dt });
    simulation.step(Math.round(1 / dt));
    const { positions } = await simulation.readState();
    const moved = Math.hypot(...[0, 1, 2].map((d) => positions[d]! - model.particlePositions[d]!));
    expect(moved).toBeLessThan(1e-9);
    expect(Math.abs(slide(model, positions, down))).toBeLessThan(1e-9);
  });

  test('at 35° (tan θ = 0.70 > μ) it slides with a = g (sin θ − μ cos θ)', async () => {
    const { model, down, a } = incline(35);
    const simulation = await createSimulation(model, { integrator: 'implicit-euler', dt });
    const T = 1;
    simulation.step(Math.round(T / dt));
    const { positions } = await simulation.readState();
    // First order: the distance after N steps is a h² N(N ± 1)/2, within h/T of ½ a T².
    expect(Math.abs(slide(model, positions, down) / (0.5 * a * T * T) - 1)).toBeLessThan(1.5 * (dt / T));
  });
});

/**
 * Each explicit and multistep scheme's x₊ under a constant acceleration a: x + h v + e h² a (e = 1
 * where x₊ = x + h v₊, 0 where x₊ = x + h v, ½ where the step is exact on it: the Runge–Kutta and
 * Adams schemes). On an incline where friction leaves a = g (sin θ − μ cos θ), N steps from rest
 * then slide h² a (N²/2 + (e − ½) N) when each contact's friction is taken back from x as the
 * scheme's step would carry it; taken back as h Δv (symplectic Euler's), the Runge–Kutta schemes
 * slid 1 % short (2.5 h/T per unit of share). Adams–Bashforth restarts a contact's velocity
 * history and steps it as x₊ = x + h v (e = 0, contact-programs.ts) after its s RK4 startup steps
 * (e = ½): its share is s/(2N) (1 for AB2, 2 for AB3; before the restart, 1e-4 of the slide and
 * 2.4e-5–2.9e-5 m at 20° were all its history gave). Tolerance: float64 round-off over 240 steps
 * (measured ≤ 2e-15). At 20° each sticks to 1e-9 m.
 */
const SLIDE_SHARE = {
  'explicit-euler': [0, 1e-9], 'symplectic-euler': [1, 1e-9], rk2: [0.5, 1e-9], heun: [0.5, 1e-9],
  ralston: [0.5, 1e-9], rk4: [0.5, 1e-9], 'central-difference': [1, 1e-9],
  'variational-symplectic': [1, 1e-9], 'adams-bashforth-2': [1 / 480, 1e-9],
  'adams-bashforth-3': [2 / 480, 1e-9], 'adams-moulton-pc': [0.5, 1e-9], 'heun-implicit': [0.5, 1e-9],
  'implicit-euler-pc': [1, 1e-9], 'variational-symplectic-implicit': [0.5, 1e-9],
} as const; // prettier-ignore

describe.each(Object.entries(SLIDE_SHARE))(
  '%s on an incline, μ = 0.5',
  (integrator, [share, tolerance, stuck = 1e-9]) => {
    const h = 1 / 240;
    const N = 240;
    const run = async (degrees: number) => {
      const { model, down } = incline(degrees);
      const simulation = await createSimulation(model, { integrator: integrator as 'rk4', dt: h });
      simulation.step(N);
      return slide(model, (await simulation.readState()).positions, down);
    };

    test('35° (tan θ = 0.70 > μ): it slides h² a (N²/2 + (e − ½) N), a = g (sin θ − μ cos θ)', async () => {
      const expected = h * h * incline(35).a * ((N * N) / 2 + (share - 0.5) * N);
      expect(Math.abs((await run(35)) / expected - 1)).toBeLessThan(tolerance);
    });

    test('20° (tan θ = 0.36 < μ): it sticks', async () => {
      expect(Math.abs(await run(20))).toBeLessThan(stuck);
    });
  },
);

// A contact restarts Adams–Bashforth's velocity history on the particle (contact-programs.ts).
// Before, the history kept a resting particle's unprojected v₊ = −g h (AB3 lifted it g h²/3 =
// 9.1e-4 m every third step at h = 1/60 s) or, pushed after the projection, an impact's −v before
// its 0 (AB2: ½ g h² every other step). Now it lands and stays on the surface: every step from
// the landing on ends at the thickness, to float64 rounding of the 0.3 m drop (measured 0).
describe.each(['adams-bashforth-2', 'adams-bashforth-3'] as const)('%s dropped on a floor', (integrator) => {
  test('lands and ends every later step at the thickness, at rest', async () => {
    const floor = { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS } as const;
    const simulation = await createSimulation(particle([0, 0.1, 0], [floor]), { integrator, dt: 1 / 60 });
    const heights: number[] = [];
    for (let step = 0; step < 60; step++) {
      simulation.step(1);
      heights.push((await simulation.readState()).positions[1]!);
    }
    // Free fall from 0.1 m lands within 0.15 s (9 steps).
    const landed = heights.findIndex((y) => y === THICKNESS);
    expect(landed).toBeGreaterThanOrEqual(0);
    expect(landed).toBeLessThan(12);
    for (let step = landed; step < heights.length; step++) expect(Math.abs(heights[step]! - THICKNESS), `step ${step + 1}`).toBeLessThan(1e-15); // prettier-ignore
    expect(Math.abs((await simulation.readState()).velocities[1]!)).toBeLessThan(1e-15);
  });
});

// The projection runs before F(y₊) is pushed (contact-programs.ts), so the history holds the force
// at the projected position: a particle hung from a fixed one by a spring (k = 40 N/m, rest
// 0.5 m, m = 1 kg, no friction), thrown down at 3 m/s from 0.1 m onto a floor, lands at step 3,
// and every step from its RK4 start on follows AB's v₊ = v + h Σ β_j a(y_{n−j}) with a(y) =
// k ((1 − y) − L)/m − g of the step-end states written here, the landing step excepted (projected
// onto the floor at rest). Pushed before the projection, steps 4 and 5 of AB2 were 4.0e-2 and
// 1.3e-2 m/s off (the force where AB2's step 3 ended, 4.0 cm behind the floor).
const ADAMS_BASHFORTH = { 'adams-bashforth-2': [3 / 2, -1 / 2], 'adams-bashforth-3': [23 / 12, -16 / 12, 5 / 12] } as const; // prettier-ignore
describe.each(Object.entries(ADAMS_BASHFORTH))('%s on a spring thrown onto a floor', (integrator, beta) => {
  test('the history holds the force at the projected position: v₊ = v + h Σ β_j a(y_{n−j}) every step after its start but the landing', async () => {
    const [h, k, rest, g] = [1 / 60, 40, 0.5, 9.81];
    const model = createModel({ positions: [0, 1, 0, 0, 0.1, 0], velocities: [0, 0, 0, 0, -3, 0], masses: [1, 1], fixed: [0], springPairs: [0, 1], springStiffness: k, springRestLengths: [rest], springDamping: 0, colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0, thickness: 0 }] }); // prettier-ignore
    const a = (y: number): number => k * (1 - y - rest) - g;
    const simulation = await createSimulation(model, { integrator: integrator as keyof typeof ADAMS_BASHFORTH, dt: h, backend: 'cpu' }); // prettier-ignore
    const [ys, vs] = [[0.1], [-3]];
    const [checked, landings] = [[] as number[], [] as number[]];
    for (let step = 1; step <= 8; step++) {
      simulation.step(1);
      const { positions, velocities } = await simulation.readState();
      ys.push(positions[4]!);
      vs.push(velocities[4]!);
      if (step <= beta.length - 1) continue; // RK4's start
      const n = step - 1;
      const predicted = vs[n]! + h * beta.reduce((sum, b, j) => sum + b * a(ys[n - j]!), 0);
      if (predicted < 0 && ys[step] === 0) {
        expect(vs[step], `step ${step}: projected onto the floor at rest`).toBe(0);
        landings.push(step);
      } else {
        expect(Math.abs(vs[step]! - predicted), `step ${step}`).toBeLessThan(1e-14);
        checked.push(step);
      }
    }
    expect(landings).toEqual([3]);
    expect(checked.filter((step) => step > 3).length).toBeGreaterThanOrEqual(4);
  });
});

describe('implicit Euler: which particles a solve constrains (Baraff & Witkin 1998 §6)', () => {
  const h = 1 / 60;
  const plane = { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS } as const;
  // v·n = 1e-5 m/s: above the 10⁻⁶ h |g| = 1.6e-7 m/s a new contact must exceed to be let go.
  const rising = 1e-5;

  // Left free in the solve (test/contact-approach.test.ts checks that decision: here both
  // decisions end alike), its step ends g h² − h v·n = 2.7 mm behind the surface; the projection
  // after the solve (as Newmark's and backward Euler's) puts it back on it and removes its inward
  // velocity. Before the projection it ended 2.7 mm inside.
  test('a particle on the surface moving away, not held before, ends the step on the surface at rest', async () => {
    const simulation = await createSimulation(particle([0, THICKNESS, 0], [plane], [0, rising, 0]), { integrator: 'implicit-euler', dt: h }); // prettier-ignore
    simulation.step(1);
    const { positions, velocities } = await simulation.readState();
    expect(positions[1]!).toBe(THICKNESS);
    expect(velocities[1]!).toBe(0);
  });

  test('a contact held in the last solve stays held while its force pushes, whatever v·n is', async () => {
    const simulation = await createSimulation(particle([0, THICKNESS, 0], [plane]), { integrator: 'implicit-euler', dt: h }); // prettier-ignore
    simulation.step(1); // resting: held, λ = m |g| h > 0
    simulation.setParticles({ indices: [0], velocities: [0, rising, 0] });
    simulation.step(1);
    const { positions, velocities } = await simulation.readState();
    // Still constrained: Δv·n = −v·n, so it ends the step on the surface, at rest.
    expect(Math.abs(positions[1]! - THICKNESS)).toBeLessThan(1e-15);
    expect(Math.abs(velocities[1]!)).toBeLessThan(1e-15);
  });

  test('free flight that reaches the surface exactly at the step’s end (g = h (u − v)·n) is not a contact: a spring pulling it back keeps it above', async () => {
    // g = 0.25 − 0.125 = 0.125 m, v·n = −2 m/s, h = 1/16 s, no gravity: g + h v·n = 0 exactly (all
    // dyadic), so the particle is constrained only if reaching counts with ≤. Free, implicit
    // Euler with the spring to the pinned anchor above (k = 10, L = 0.5, stretched by 0.2) is
    // the scalar recursion m v₊ = m v + h k (y_a − (y + h v₊) − L), y₊ = y + h v₊, which ends
    // 1.2 cm above the surface; constrained, it would end on it.
    const [dt, k, m, L, thickness] = [1 / 16, 10, 1, 0.5, 0.125];
    const [y, v, anchor] = [0.25, -2, 0.25 + L + 0.2];
    const model = createModel({
      positions: [0, y, 0, 0, anchor, 0],
      velocities: [0, v, 0, 0, 0, 0],
      masses: [m, m],
      fixed: [1],
      springPairs: [0, 1],
      springStiffness: k,
      springRestLengths: [L],
      gravity: [0, 0, 0],
      colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness }],
    });
    const simulation = await createSimulation(model, { integrator: 'implicit-euler', dt, tolerance: 1e-14 });
    simulation.step(1);
    const { positions } = await simulation.readState();
    const vNext = (v + ((dt * k) / m) * (anchor - y - L)) / (1 + (dt * dt * k) / m);
    expect(positions[1]! - thickness).toBeGreaterThan(0.01);
    expect(positions[1]!).toBeCloseTo(y + dt * vNext, 12);
  });

  // No gravity: a spring to the sphere's centre presses a particle circling it at 1 m/s. Each step
  // ends on the tangent plane of its contact, above the sphere by up to (h v)²/(2R) = 4.6e-4 m, and
  // not closing in: the contact is found again only because it was held (its reach h (|v| + the
  // fastest collider) + h² |g|). Lost (a NaN reach), the spring pulled it 5.6 mm inside.
  test('a held contact stays held within its reach: a particle circling a sphere, pressed by a spring, never enters it', async () => {
    const [R, v, h] = [0.3, 1, 1 / 60];
    const model = createModel({ positions: [0, 0, 0, R + THICKNESS, 0, 0], velocities: [0, 0, 0, 0, 0, v], masses: [0.1, 0.1], fixed: [0], springPairs: [0, 1], springStiffness: 10, springRestLengths: [0.1], gravity: [0, 0, 0], colliders: [{ shape: 'sphere', center: [0, 0, 0], radius: R, thickness: THICKNESS }] }); // prettier-ignore
    const simulation = await createSimulation(model, { integrator: 'implicit-euler', dt: h });
    const gaps: number[] = [];
    for (let k = 0; k < 60; k++) {
      simulation.step(1);
      const x = (await simulation.readState()).positions;
      gaps.push(Math.hypot(x[3]!, x[4]!, x[5]!) - R - THICKNESS);
    }
    expect(Math.min(...gaps)).toBeGreaterThan(-1e-12); // round-off
    expect(Math.max(...gaps)).toBeLessThan((h * v) ** 2 / (2 * R));
    expect(Math.max(...gaps)).toBeGreaterThan(0.1 * ((h * v) ** 2 / (2 * R))); // it does lift off the curve
  });

  test('a contact whose force pulls is released within the step (λ < 0): it falls freely at once', async () => {
    // Held on the plane's underside by gravity pulling it away: the solve needs λ = −m |g| h < 0,
    // so the contact is released and the solve resumes without it (contact-programs.ts).
    const below = { ...plane, normal: [0, -1, 0] } as const;
    const simulation = await createSimulation(particle([0, -THICKNESS, 0], [below], [0, 0, 0]), { integrator: 'implicit-euler', dt: h }); // prettier-ignore
    simulation.step(1); // free flight of implicit Euler: v₁ = −g h, y₁ = y₀ − g h²
    const first = await simulation.readState();
    expect(first.positions[1]! + THICKNESS).toBeCloseTo(-9.81 * h * h, 12);
    expect(first.velocities[1]!).toBeCloseTo(-9.81 * h, 12);
    simulation.step(1); // free: v₂ = −2 g h, y₂ = y₁ − 2 g h²
    const second = await simulation.readState();
    expect(second.positions[1]! + THICKNESS).toBeCloseTo(-3 * 9.81 * h * h, 12);
    expect((await simulation.readSolverStats())!.linearSolves).toBe(3); // step 1 resumed once
  });
});

// 1–2 s, but over its 60 s under Stryker's instrumentation, which failed `npm run mutate`'s dry run:
// skipped there (WEFT_MUTATION=1); implicit-colliders' 10² cloths cover the constrained solve.
test.skipIf(process.env['WEFT_MUTATION'] === '1')(
  'a 16² cloth dropped on a sphere (implicit Euler, dt = 1/60) ends outside it, resting',
  async () => {
    const model = clothOnSphere(16, 0.45);
    const simulation = await createSimulation(model, {
      integrator: 'implicit-euler',
      dt: 1 / 60,
      solver: 'pcg',
      tolerance: 1e-6,
    });
    simulation.step(240);
    const state = await simulation.readState();
    const stats = (await simulation.readSolverStats())!;
    expect(stats.unconvergedSolves).toBe(0);
    let [inside, closest] = [0, Infinity];
    for (let i = 0; i < model.particleCount; i++) {
      const x = [state.positions[3 * i]!, state.positions[3 * i + 1]!, state.positions[3 * i + 2]!] as const;
      const { distance } = colliderDistance(model.colliders[0]!, x);
      closest = Math.min(closest, distance);
      if (distance < 0) inside++;
    }
    console.log(`16² cloth on a sphere: closest particle ${closest.toExponential(3)} m from the surface (thickness ${THICKNESS} m), fastest ${Math.max(...state.velocities.map(Math.abs)).toFixed(3)} m/s, ${stats.linearIterations / stats.linearSolves} CG iterations per solve`); // prettier-ignore
    expect(inside).toBe(0);
    // Constrained particles end on the offset surface to the solver's tolerance.
    expect(closest).toBeGreaterThan(THICKNESS - 1e-4);
    // It draped: the cloth's lowest point fell below the sphere's top, and has come to rest.
    expect(Math.min(...state.positions.filter((_, k) => k % 3 === 1))).toBeLessThan(0.2);
    // At rest: the kinetic energy left is under 0.1 % of the potential energy the fall released.
    const [start, end] = [energy(model, model.particlePositions, model.particleVelocities), energy(model, state.positions, state.velocities)]; // prettier-ignore
    expect(end.kinetic).toBeLessThan(1e-3 * (start.gravity - end.gravity));
  },
  60_000,
);

// The variational scheme's contact is the explicit projection, its momenta given the impulse.
test.each(['implicit-euler', 'variational-symplectic-implicit'] as const)(
  'resting contact, 10⁴ %s steps: energy never grows',
  async (integrator) => {
    const model = particle(
      [0, THICKNESS, 0],
      [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }],
    );
    const simulation = await createSimulation(model, { integrator, dt: 1 / 60 });
    const e0 = energy(model, model.particlePositions, model.particleVelocities).total;
    let highest = -Infinity;
    for (let k = 0; k < 100; k++) {
      simulation.step(100);
      const s = await simulation.readState();
      highest = Math.max(highest, energy(model, s.positions, s.velocities).total);
    }
    expect(highest).toBeLessThanOrEqual(e0 + 1e-12);
  },
);

test('examples/scenes/cloth-on-sphere.json: the scene colliders reach the model; after 2 s no particle is inside either', async () => {
  const model = parseScene(
    JSON.parse(readFileSync(new URL('../examples/scenes/cloth-on-sphere.json', import.meta.url), 'utf8')),
  );
  expect(model.colliders.map((c) => c.shape)).toEqual(['sphere', 'plane']);
  const simulation = await createSimulation(model, { integrator: 'implicit-euler', dt: 1 / 60 });
  simulation.step(120);
  const { positions } = await simulation.readState();
  for (let i = 0; i < model.particleCount; i++) {
    const x = [positions[3 * i]!, positions[3 * i + 1]!, positions[3 * i + 2]!] as const;
    for (const c of model.colliders) expect(colliderDistance(c, x).distance).toBeGreaterThan(0);
  }
}, 60_000);

describe('errors', () => {
  test.each([
    [{ shape: 'sphere', center: [0, 0, 0], radius: -1 }, 'colliders[0].radius'],
    [{ shape: 'cone', center: [0, 0, 0] }, 'colliders[0].shape'],
    [{ shape: 'plane', point: [0, 0, 0], normal: [0, 0, 0] }, 'colliders[0].normal'],
    [{ shape: 'box', center: [0, 0], halfExtents: [1, 1, 1] }, 'colliders[0].center'],
    [{ shape: 'box', center: [0, 0, 0], halfExtents: [1, 0, 1] }, 'colliders[0].halfExtents[1]'],
    [{ shape: 'capsule', a: [0, 0, 0], b: [1, 0, 0], radius: 0.1, friction: -0.5 }, 'colliders[0].friction'],
    [{ shape: 'sphere', center: [0, 0, 0], radius: 1, thickness: -0.01 }, 'colliders[0].thickness'],
  ])('%o names %s', (collider, field) => {
    expect(() => particle([0, 1, 0], [collider as Shape])).toThrow(expect.objectContaining({ name: 'WeftInputError', field })); // prettier-ignore
  });
});
