/**
 * Wind on the CPU (issue 13 item 5): the total force on a flat sheet against the closed form —
 * facing the wind ½ ρ C_d A W², edge-on nothing, at 45° drag plus lift ½ ρ C_l A W² cos θ sin θ
 * perpendicular to the wind — through one explicit step (Σ m Δv = h F) and one implicit Euler step
 * (the springs' forces are internal, so the momentum gained is h F to the solver's tolerance);
 * the turbulence's closed form; scenes; clear errors.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import {
  buildCloth,
  buildRope,
  createModel,
  createSimulation,
  parseScene,
  withWind,
  WeftInputError,
  type Model,
  type Wind,
} from '../src/index.ts';
import { windAt, resolveWind } from '../src/internal.ts';

const [RHO, CD, CL] = [1.2, 1.1, 0.6];
const [NX, NY, SPACING, MASS] = [9, 7, 0.05, 0.004];
/** The sheet's area, m². */
const AREA = (NX - 1) * SPACING * (NY - 1) * SPACING;

/** A free vertical sheet in the x–y plane (normal ±z), no gravity, in `velocity`. */
function sheet(velocity: [number, number, number]): Model {
  const cloth = buildCloth({ nx: NX, ny: NY, spacing: SPACING, particleMass: MASS, orientation: 'vertical', pins: 'none', gravity: [0, 0, 0] }); // prettier-ignore
  return withWind(cloth, { velocity, density: RHO, drag: CD, lift: CL });
}

/** Σ m Δv / h after one step of h from rest: the total external force, N. */
async function totalForce(model: Model, integrator: 'symplectic-euler' | 'implicit-euler', h: number) {
  const sim = await createSimulation(model, { integrator, dt: h, ...(integrator === 'implicit-euler' ? { tolerance: 1e-10 } : {}) }); // prettier-ignore
  sim.step(1);
  const { velocities } = await sim.readState();
  sim.destroy();
  const f = [0, 0, 0];
  for (let i = 0; i < model.particleCount; i++)
    for (let d = 0; d < 3; d++) f[d]! += (model.particleMass[i]! * velocities[3 * i + d]!) / h;
  return { f, velocities };
}

describe.each(['symplectic-euler', 'implicit-euler'] as const)('%s', (integrator) => {
  test('a sheet facing a 6 m/s wind gets the drag ½ ρ C_d A W² along it, and no lift', async () => {
    const W = 6;
    const { f } = await totalForce(sheet([0, 0, W]), integrator, 1e-3);
    const expected = 0.5 * RHO * CD * AREA * W * W;
    expect(Math.abs(f[2]! / expected - 1)).toBeLessThan(1e-9);
    expect(Math.hypot(f[0]!, f[1]!)).toBeLessThan(1e-9 * expected);
  });

  test('a sheet edge-on to the wind gets no force at all', async () => {
    const { velocities } = await totalForce(sheet([6, 2, 0]), integrator, 1e-3);
    // Bit for bit the step without wind (whose springs' round-off moves it by ~1e-15 m/s).
    const still = await totalForce(withWind(sheet([0, 0, 0]), null), integrator, 1e-3);
    expect(Array.from(velocities)).toEqual(Array.from(still.velocities));
  });

  test('at 45°: drag ½ ρ C_d A W² cos² θ along n, lift ½ ρ C_l A W² cos θ sin θ perpendicular to the wind', async () => {
    const W = 5;
    const u = [W * Math.SQRT1_2, 0, W * Math.SQRT1_2]; // θ = 45° from the normal z
    const { f } = await totalForce(sheet(u as [number, number, number]), integrator, 1e-3);
    const q = 0.5 * RHO * AREA * W * W;
    const drag = [0, 0, q * CD * 0.5]; // |u_n| u_n / W² = cos² θ = ½, along n = z
    // Lift: magnitude q C_l cos θ sin θ = q C_l / 2, perpendicular to u in the x–z plane, on the side of n.
    const lift = [-q * CL * 0.5 * Math.SQRT1_2, 0, q * CL * 0.5 * Math.SQRT1_2];
    const expected = [0, 1, 2].map((d) => drag[d]! + lift[d]!);
    expected.forEach((e, d) => expect(Math.abs(f[d]! - e)).toBeLessThan(1e-9 * q));
  });
});

test.each([
  // a₊ sees the wind at the predicted end state v + h a₀ (second order, wind-programs.ts), whose
  // relative speed is W − Δv: the step's impulse (h/2)(F₀ + F₊) is about Δv/W ≈ 2e-3 less.
  ['newmark', 3e-3],
  // Its momenta p₊ hold the step's impulse (v₊ = 2 res/h is the midpoint's velocity); the second
  // half, (h/2) f at v₊, sees the wind slowed by Δv/2: about 1e-3 less.
  ['variational-symplectic-implicit', 2e-3],
  // Newton converges to the wind at the step's end, whose relative speed is W − Δv: 2 Δv/W ≈ 4e-3 less.
  ['backward-euler', 1e-2],
] as const)(
  '%s sees the wind through its right-hand side: the impulse of a step from rest is h ½ ρ C_d A W²',
  async (integrator, tolerance) => {
    const W = 6;
    const h = 1e-3;
    const sim = await createSimulation(sheet([0, 0, W]), { integrator, dt: h, tolerance: 1e-10 });
    sim.step(1);
    const { velocities, momenta } = await sim.readState();
    sim.destroy();
    const impulse = momenta ?? velocities.map((v) => MASS * v);
    const gained = impulse.reduce((s, p, k) => s + (k % 3 === 2 ? p : 0), 0) / h;
    const expected = 0.5 * RHO * CD * AREA * W * W;
    expect(gained).toBeLessThanOrEqual(expected * (1 + 1e-9));
    expect(Math.abs(gained / expected - 1)).toBeLessThan(tolerance);
  },
);

// The predictor–correctors without startup steps: the wind is in the corrector's F too (the first
// step's impulse is h F at the corrector's iterate, whose relative speed is W − Δv: ≈ 1e-3 less).
// h = 0.2 ms: the sheet's springs (h ω ≈ 1 at 1 ms) let implicit Euler's fixed point converge.
test.each(['implicit-euler-pc', 'heun-implicit'] as const)(
  '%s sees the wind in its corrector: the impulse of a step from rest is h ½ ρ C_d A W²',
  async (integrator) => {
    const [W, h] = [6, 2e-4];
    const sim = await createSimulation(sheet([0, 0, W]), { integrator, dt: h });
    sim.step(1);
    const { velocities } = await sim.readState();
    expect((await sim.readSolverStats())!.converged).toBe(true);
    sim.destroy();
    const gained = velocities.reduce((s, v, k) => s + (k % 3 === 2 ? MASS * v : 0), 0) / h;
    expect(Math.abs(gained / (0.5 * RHO * CD * AREA * W * W) - 1)).toBeLessThan(1e-2);
  },
);

test('a sheet falling through still air is slowed by its drag (relative velocity w − v̄)', async () => {
  // Horizontal, falling at 2 m/s in still air: drag up, ½ ρ C_d A (2 m/s)².
  const cloth = buildCloth({ nx: NX, ny: NY, spacing: SPACING, particleMass: MASS, pins: 'none', gravity: [0, 0, 0] }); // prettier-ignore
  const falling = createModel({ positions: cloth.particlePositions, velocities: cloth.particlePositions.map((_, k) => (k % 3 === 1 ? -2 : 0)), masses: cloth.particleMass, springPairs: cloth.springIndices, springStiffness: cloth.springStiffness, triangles: cloth.triangleIndices, gravity: [0, 0, 0], wind: { velocity: [0, 0, 0], density: RHO, drag: CD, lift: CL } }); // prettier-ignore
  const h = 1e-3;
  const sim = await createSimulation(falling, { integrator: 'symplectic-euler', dt: h });
  sim.step(1);
  const { velocities } = await sim.readState();
  const gained = velocities.reduce((s, v, k) => s + (k % 3 === 1 ? MASS * (v + 2) : 0), 0) / h;
  expect(Math.abs(gained / (0.5 * RHO * CD * AREA * 4) - 1)).toBeLessThan(1e-9);
});

test('the turbulence is the three travelling waves of src/model/wind.ts, mean W', () => {
  const wind = resolveWind({
    velocity: [3, 0, 1],
    turbulence: 0.8,
    turbulenceWavelength: 2,
    turbulencePeriod: 0.5,
  });
  const x = [0.3, -0.2, 1.1] as const;
  const d1 = [1, 0.5, 0.2].map((c) => c / Math.hypot(1, 0.5, 0.2));
  const k = Math.PI; // 2π / 2 m
  const phase = k * (d1[0]! * x[0] + d1[1]! * x[1] + d1[2]! * x[2]) - 4 * Math.PI * 0.1;
  expect(windAt(wind, x, 0.1)[0]).toBeCloseTo(3 + 0.8 * Math.sin(phase), 12);
  // The time average over a long window is W.
  const mean = [0, 0, 0];
  for (let s = 0; s < 2000; s++) windAt(wind, x, s * 0.0049).forEach((w, d) => (mean[d]! += w / 2000));
  mean.forEach((m, d) => expect(Math.abs(m - wind.velocity[d]!)).toBeLessThan(0.02));
});

describe('scenes and errors', () => {
  test('a scene cloth with wind: the wind reaches the model, validated', () => {
    const model = parseScene({ cloth: { nx: 4, ny: 3 }, wind: { velocity: [1, 0, 2], drag: 0.8 } });
    expect(model.wind).toMatchObject({ velocity: [1, 0, 2], drag: 0.8, density: 1.2, lift: 0.5 });
    expect(model.triangleIndices.length).toBe(3 * 2 * 3 * 2);
    expect(() => parseScene({ cloth: { nx: 4 }, wind: { velocity: [1, 0, 2], gust: 3 } })).toThrow(
      /wind\.gust/,
    );
    expect(() => parseScene({ cloth: { nx: 4 }, wind: { velocity: [1, 0] } })).toThrow(/must have 3 entries/);
    expect(() => parseScene({ cloth: { nx: 4 }, wind: { drag: 1 } })).toThrow(/wind\.velocity/);
    expect(() => parseScene({ rope: {}, wind: { velocity: [1, 0, 0] } })).toThrow(/has none/);
    const explicit = parseScene({ particles: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], masses: [1, 1, 1] }, springs: { pairs: [0, 1], stiffness: 1 }, triangles: [0, 1, 2], wind: { velocity: [0, 0, 1] } }); // prettier-ignore
    expect(Array.from(explicit.triangleIndices)).toEqual([0, 1, 2]);
  });

  test('examples/scenes/flag-in-wind.json: the wind turns the flag about its pole', async () => {
    const scene: unknown = JSON.parse(readFileSync(new URL('../examples/scenes/flag-in-wind.json', import.meta.url), 'utf8')); // prettier-ignore
    const model = parseScene(scene);
    const sim = await createSimulation(model, { integrator: 'implicit-euler', dt: 1 / 120 });
    sim.step(120);
    const { positions } = await sim.readState();
    sim.destroy();
    // Without wind the flag stays in its plane z = 0 (measured: its free top corner at
    // (0.77, 0.27, 0) after 1 s); the wind's 1 m/s across it turns it about the pole (0.41, 0.01, 0.45).
    const tip = 3 * (16 * 10 - 1);
    expect(positions[tip + 2]).toBeGreaterThan(0.2);
    expect(positions[0]).toBe(0); // pinned
  });

  test.each([
    ['wind.velocity[1]', { velocity: [1, Number.NaN, 0] }],
    ['wind.density', { velocity: [1, 0, 0], density: -1 }],
    ['wind.turbulencePeriod', { velocity: [1, 0, 0], turbulencePeriod: 0 }],
    ['wind.lift', { velocity: [1, 0, 0], lift: Infinity }],
    ['wind', 'east'],
  ] as const)('names %s', (field, wind) => {
    try {
      withWind(buildCloth({ nx: 3, ny: 3 }), wind as unknown as Wind);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(WeftInputError);
      expect((e as WeftInputError).field).toBe(field);
    }
  });

  test('triangles are checked; wind without triangles is refused', () => {
    const base = {
      positions: [0, 0, 0, 1, 0, 0, 0, 1, 0],
      masses: [1, 1, 1],
      springPairs: [],
      springStiffness: 0,
    };
    expect(() => createModel({ ...base, triangles: [0, 1, 3] })).toThrow(/triangles\[2\].*out of range/);
    expect(() => createModel({ ...base, triangles: [0, 1] })).toThrow(/multiple of 3/);
    expect(() => withWind(buildRope(), { velocity: [1, 0, 0] })).toThrow(/has none/);
  });
});
