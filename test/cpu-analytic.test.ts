/**
 * Analytic checks of the CPU reference path (Warp's tests/sim/test_cloth.py in spirit): free fall,
 * fixed particles, a hanging rope's static equilibrium, and energy of an undamped spring.
 * Every expected value is computed here from a closed form, not from the code under test.
 */
import { describe, expect, test } from 'vitest';
import { EXPLICIT_INTEGRATOR_NAMES } from '../src/internal.ts';
import {
  buildCloth,
  buildRope,
  createModel,
  createSimulation,
  energy,
  type ExplicitIntegratorName,
  type Simulation,
} from '../src/index.ts';

/** Fails with the index, actual, expected and allowed error of the first value out of tolerance. */
function expectAllClose(
  what: string,
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  allowed: (expected: number) => number,
): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const error = Math.abs(actual[i]! - expected[i]!);
    const tolerance = allowed(expected[i]!);
    if (!(error <= tolerance)) {
      expect.fail(
        `${what}[${i}]: actual ${actual[i]}, expected ${expected[i]}, error ${error.toExponential(3)} > allowed ${tolerance.toExponential(3)}`,
      );
    }
  }
}

describe('free fall (no springs)', () => {
  // Three free particles with different initial positions and velocities, no springs, and a
  // gravity with a component on every axis, so every coordinate is exercised.
  const gravity = [0.7, -9.81, -1.3] as const;
  const y0 = [0, 2, 0, 1.5, -0.25, 3, -4, 10, 0.125];
  const v0 = [0, 0, 0, 3, 4.5, -1, -0.5, 12, 2];
  const h = 0.01;
  const n = 100;
  const t = n * h;

  /**
   * Closed forms after n steps of constant acceleration g:
   * - exact: y = y0 + v0 t + ½ g t², v = v0 + g t. Midpoint, Heun, Ralston and RK4 reproduce a quadratic
   *   exactly (their stage derivatives are exact for constant a), so they match up to rounding.
   * - explicit Euler: v_k = v0 + k h g, y_n = y0 + h Σ_{k<n} v_k = y0 + n h v0 + g h² n(n−1)/2.
   * - symplectic Euler / variational symplectic / central difference (r_m = 0), which all use
   *   v₊ = v + h g, x₊ = x + h v₊: y_n = y0 + h Σ_{k=1..n} v_k = y0 + n h v0 + g h² n(n+1)/2.
   *   For the leapfrog reading of central difference (v₀ is v(−h/2)), this *is* the exact solution
   *   at t = n h: y0 + (v(−h/2) + g h/2) t + ½ g t² = y0 + n h v0 + g h² n(n+1)/2.
   */
  const quadratic = (triangular: number) => ({
    positions: y0.map((y, i) => y + t * v0[i]! + gravity[i % 3]! * h * h * triangular),
    velocities: v0.map((v, i) => v + t * gravity[i % 3]!),
  });
  const EXPECTED: Record<ExplicitIntegratorName, { positions: number[]; velocities: number[] }> = {
    'explicit-euler': quadratic((n * (n - 1)) / 2),
    'symplectic-euler': quadratic((n * (n + 1)) / 2),
    'variational-symplectic': quadratic((n * (n + 1)) / 2),
    'central-difference': quadratic((n * (n + 1)) / 2),
    rk2: quadratic((n * n) / 2),
    heun: quadratic((n * n) / 2),
    ralston: quadratic((n * n) / 2),
    rk4: quadratic((n * n) / 2),
  };

  test('a model with zero springs is accepted', () => {
    const model = createModel({ positions: y0, masses: [1, 1, 1], springPairs: [], springStiffness: 1 });
    expect(model.springCount).toBe(0);
    expect(Array.from(model.incidence.offsets)).toEqual([0, 0, 0, 0]);
  });

  // Rounding: n steps each add a few ulps of the largest magnitudes (|y| ≲ 25, |v| ≲ 13).
  test.each(EXPLICIT_INTEGRATOR_NAMES)(
    '%s after 100 steps matches its closed form to 1e-12 m (m/s)',
    async (integrator) => {
      const model = createModel({
        positions: y0,
        velocities: v0,
        masses: [1, 0.5, 2],
        springPairs: [],
        springStiffness: 1,
        gravity,
      });
      const simulation = await createSimulation(model, { integrator, dt: h });
      simulation.step(n);
      const state = await simulation.readState();
      expect(state.time).toBeCloseTo(t, 14);
      expectAllClose('positions', state.positions, EXPECTED[integrator].positions, () => 1e-12);
      expectAllClose('velocities', state.velocities, EXPECTED[integrator].velocities, () => 1e-12);
    },
  );

  test('the three closed forms differ by more than the tolerance (the checks are not interchangeable)', () => {
    // ½ g h² n: the O(h) gap between the Euler-type discrete solutions and the exact one.
    expect(Math.abs(EXPECTED['explicit-euler'].positions[1]! - EXPECTED.rk4.positions[1]!)).toBeGreaterThan(
      0.04,
    );
    expect(Math.abs(EXPECTED['symplectic-euler'].positions[1]! - EXPECTED.rk4.positions[1]!)).toBeGreaterThan(
      0.04,
    );
  });
});

describe('fixed particles never move', () => {
  // A 16×16 horizontal cloth (default stiffness 1000 N/m, mass 0.1 kg) falling under gravity from
  // its pins; h = 1 ms keeps every scheme bounded over 200 steps (explicit Euler grows slowly).
  const cases = EXPLICIT_INTEGRATOR_NAMES.flatMap((integrator) =>
    (['top-corners', 'top-edge'] as const).flatMap((pins) =>
      [0, 0.3].map(
        (rayleighMass) =>
          [`${integrator}, pins ${pins}, r_m = ${rayleighMass}`, { integrator, pins, rayleighMass }] as const,
      ),
    ),
  );

  test.each(cases)('%s: bitwise over 200 steps', async (_name, { integrator, pins, rayleighMass }) => {
    const model = buildCloth({ nx: 16, ny: 16, pins, damping: 0.5 });
    const fixed = Array.from(model.particleFixed.keys()).filter((i) => model.particleFixed[i] === 1);
    expect(fixed.length).toBe(pins === 'top-corners' ? 2 : 16);
    const simulation = await createSimulation(model, { integrator, dt: 1e-3, rayleighMass });
    simulation.step(200);
    const state = await simulation.readState(); // throws if anything diverged
    for (const i of fixed) {
      for (let c = 0; c < 3; c++) {
        expect(Object.is(state.positions[3 * i + c], model.particlePositions[3 * i + c])).toBe(true);
        expect(Object.is(state.velocities[3 * i + c], 0)).toBe(true);
      }
    }
    // The free particles did move (the cloth sags), so the test is not vacuous.
    const free = Array.from(model.particleFixed.keys()).find((i) => model.particleFixed[i] === 0)!;
    expect(state.positions[3 * free + 1]).toBeLessThan(-1e-3);
  });
});

describe('hanging rope: static equilibrium', () => {
  // A vertical rope of N particles, spacing L, pinned at the top, hanging along −y. At rest each
  // segment i (between particles i and i+1) carries the weight of the N − 1 − i particles below it:
  //   k e_i = (N − 1 − i) m g  ⇒  y_j = −Σ_{i<j} (L + e_i).
  // Spring damping c = 10 N·s/m makes every mode decay (slowest rate ≈ 2.2 /s); 15 s at h = 1 ms
  // leaves ~1e-15 m of the initial 0.07 m transient. The equilibrium is a fixed point of every
  // scheme (v = 0, a = 0), so each converges to it to rounding (measured: ≤ 6e-15 m).
  const N = 8;
  const L = 0.1;
  const m = 0.1;
  const k = 100;
  const g = 9.81;
  const expectedY: number[] = [0];
  for (let i = 0; i < N - 1; i++) expectedY.push(expectedY[i]! - (L + ((N - 1 - i) * m * g) / k));

  test.each(EXPLICIT_INTEGRATOR_NAMES)(
    '%s with spring damping converges to it to 1e-12 m',
    async (integrator) => {
      const model = buildRope({
        particles: N,
        spacing: L,
        particleMass: m,
        stiffness: k,
        damping: 10,
        direction: [0, -1, 0],
      });
      const simulation = await createSimulation(model, { integrator, dt: 1e-3 });
      simulation.step(15_000);
      const state = await simulation.readState();
      const y = Array.from({ length: N }, (_, j) => state.positions[3 * j + 1]!);
      expectAllClose('y', y, expectedY, () => 1e-12);
      expectAllClose('velocities', state.velocities, new Float64Array(3 * N), () => 1e-12);
      // The rope really stretched: the bottom hangs (Σ e_i ≈ 0.27 m) below its unstretched length.
      expect(expectedY[N - 1]! + (N - 1) * L).toBeLessThan(-0.2);
    },
  );
});

describe('energy of an undamped spring (1-D, no gravity)', () => {
  // One free particle (m = 0.7 kg) on a spring (k = 40 N/m, L = 1 m) to a fixed one at the
  // origin, along x, displaced by 0.3 m: ω = √(k/m) ≈ 7.56 rad/s, T ≈ 0.83 s, h = T/200.
  const m = 0.7;
  const k = 40;
  const L = 1;
  const u0 = 0.3;
  const omega = Math.sqrt(k / m);
  const period = (2 * Math.PI) / omega;
  const h = period / 200;
  const E0 = 0.5 * k * u0 * u0;

  const simulate = (integrator: ExplicitIntegratorName): Promise<Simulation> =>
    createSimulation(
      createModel({
        positions: [0, 0, 0, L + u0, 0, 0],
        masses: [m, m],
        fixed: [0],
        springPairs: [0, 1],
        springStiffness: k,
        springRestLengths: [L],
        gravity: [0, 0, 0],
      }),
      { integrator, dt: h },
    );
  // Energy computed here: ½ m v² + ½ k (|x| − L)² (the motion stays on the x axis, x > 0).
  const mechanical = (x: number, v: number): number => 0.5 * m * v * v + 0.5 * k * (Math.abs(x) - L) ** 2;

  test('rk4 conserves it to 1e-8 relative over one period (200 steps)', async () => {
    // RK4's energy error per step is O((hω)⁶) relative: (0.031)⁶/72 ≈ 1.3e-11, ≈ 3e-9 per period.
    const simulation = await simulate('rk4');
    let worst = 0;
    for (let n = 0; n < 200; n++) {
      simulation.step();
      const { positions, velocities } = await simulation.readState();
      worst = Math.max(worst, Math.abs(mechanical(positions[3]!, velocities[3]!) - E0) / E0);
      // energy() of src/model/energy.ts agrees with the energy computed here.
      expect(energy(simulation.model, positions, velocities).total).toBeCloseTo(
        mechanical(positions[3]!, velocities[3]!),
        12,
      );
    }
    expect(worst).toBeLessThan(1e-8);
  });

  test('symplectic Euler keeps it bounded over 100 periods, with no drift', async () => {
    // For u'' = −ω² u, symplectic Euler (v₊ = v − h ω² u, u₊ = u + h v₊) conserves exactly
    //   Q = v² + ω² u² − h ω² u v,
    // and |h ω² u v| ≤ (h ω/2)(v² + ω² u²), so Q (1 − hω/2) ≤ (2/m) E ≤ Q (1 + hω/2)... inverted:
    // with Q = (2/m) E₀ (the start is at rest), the energy E = (m/2)(v² + ω² u²) stays within
    //   E₀/(1 + hω/2) ≤ E ≤ E₀/(1 − hω/2)   (≈ E₀ (1 ± hω/2), hω = 2π/200),
    // whatever the number of periods. Conservation of Q to rounding over 20 000 steps is the
    // "no drift" statement.
    const simulation = await simulate('symplectic-euler');
    const hw = h * omega;
    const Q = (u: number, v: number): number => v * v + omega * omega * u * u - h * omega * omega * u * v;
    const Q0 = Q(u0, 0);
    let lowest = Infinity;
    let highest = -Infinity;
    let worstQ = 0;
    for (let n = 0; n < 100 * 200; n++) {
      simulation.step();
      const { positions, velocities } = await simulation.readState();
      const e = mechanical(positions[3]!, velocities[3]!);
      lowest = Math.min(lowest, e);
      highest = Math.max(highest, e);
      worstQ = Math.max(worstQ, Math.abs(Q(positions[3]! - L, velocities[3]!) - Q0) / Q0);
    }
    expect(lowest).toBeGreaterThanOrEqual((E0 / (1 + hw / 2)) * (1 - 1e-10));
    expect(highest).toBeLessThanOrEqual((E0 / (1 - hw / 2)) * (1 + 1e-10));
    expect(worstQ).toBeLessThan(1e-10);
    // The bound is not vacuous: the energy does oscillate by a good part of it.
    expect(highest - lowest).toBeGreaterThan(0.5 * hw * E0);
  });
});
