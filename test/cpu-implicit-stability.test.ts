/**
 * Stability of the implicit integrators on a stiff cloth, where an explicit scheme blows up.
 *
 * Scene: a horizontal 24 × 24 cloth (buildCloth), spacing 0.1 m, particle mass 0.1 kg, k = 1e4 N/m
 * for structural, shear and bend springs, spring damping 10 N·s/m, pinned at its two top corners,
 * gravity −9.81 m/s² along y, h = 1/60 s. Its stiffest modes have ω ≈ √(k·16/m) ≈ 1.3e3 rad/s, so
 * h ω ≈ 21: symplectic Euler (stable only for h ω < 2) must diverge, while the implicit schemes
 * must not.
 *
 * Bounds (energies computed here from the state: kinetic ½ m |v|², spring ½ k (l − L)², gravity
 * −m g·x, so E₀ = 0: the cloth starts at rest, flat at y = 0, every spring at its rest length).
 * Spring damping only removes energy, so the true motion has E(t) ≤ E₀ and therefore kinetic
 * energy ≤ the gravitational energy released, R(t) = −G(t).
 * - implicit-euler (300 steps, 5 s) and backward-euler (60 steps): numerically dissipative as well,
 *   so the total energy must not increase from one step to the next (slack 1e-6·R, for rounding).
 * - newmark (100 steps; trapezoidal, no numerical dissipation; linearised once per step, so it
 *   can gain a little on nonlinear springs): E_n ≤ E₀ + 0.01·R_n.
 * - every scheme: every coordinate finite, kinetic energy ≤ −G_n + 0.01·R_n, and no particle lower
 *   than 1.1 × the cloth's diagonal (3.1·√2 m) below the pins.
 * - symplectic-euler (CpuSimulation) at the same h: its energy must exceed E₀ + 10·max(R, 1 J)
 *   (impossible for the true motion) or readState must throw WeftDivergenceError within 1,000 steps.
 *
 * Linear solves: 'pcg' (block preconditioner), tolerance 1e-4, at most 200 iterations. Measured
 * runtimes, energy extremes and the step at which symplectic Euler blew up are printed in afterAll.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { WeftDivergenceError, type ImplicitIntegratorName, buildCloth, type Model } from '../src/index.ts';
import { CpuImplicitSimulation, CpuSimulation } from '../src/internal.ts';

const H = 1 / 60;
const SIZE = 24;
const SPACING = 0.1;
const MASS = 0.1;
const STIFFNESS = 1e4;
const GRAVITY = -9.81;
const LOWEST = -1.1 * (SIZE - 1) * SPACING * Math.SQRT2;

const model = buildCloth({
  nx: SIZE,
  ny: SIZE,
  spacing: SPACING,
  particleMass: MASS,
  structuralStiffness: STIFFNESS,
  shearStiffness: STIFFNESS,
  bendStiffness: STIFFNESS,
  damping: 10,
  pins: 'top-corners',
  gravity: [0, GRAVITY, 0],
});

interface Energies {
  kinetic: number;
  spring: number;
  gravity: number;
  total: number;
}

/** Mechanical energy, J, computed here (not with src/model/energy.ts). */
function energies(m: Model, x: ArrayLike<number>, v: ArrayLike<number>): Energies {
  let kinetic = 0;
  let gravity = 0;
  for (let i = 0; i < m.particleCount; i++) {
    const mass = m.particleMass[i]!;
    kinetic += 0.5 * mass * (v[3 * i]! ** 2 + v[3 * i + 1]! ** 2 + v[3 * i + 2]! ** 2);
    gravity -= mass * GRAVITY * x[3 * i + 1]!;
  }
  let spring = 0;
  for (let s = 0; s < m.springCount; s++) {
    const a = 3 * m.springIndices[2 * s]!;
    const b = 3 * m.springIndices[2 * s + 1]!;
    const l = Math.hypot(x[b]! - x[a]!, x[b + 1]! - x[a + 1]!, x[b + 2]! - x[a + 2]!);
    spring += 0.5 * m.springStiffness[s]! * (l - m.springRestLength[s]!) ** 2;
  }
  return { kinetic, spring, gravity, total: kinetic + spring + gravity };
}

const table: Record<string, string | number>[] = [];

afterAll(() => {
  console.log(
    `Stiff cloth ${SIZE}×${SIZE}, k = ${STIFFNESS} N/m, c = 10 N·s/m, m = ${MASS} kg, h = 1/60 s (energies in J, E₀ = 0):`,
  );
  console.table(table);
});

const IMPLICIT_CASES: { integrator: ImplicitIntegratorName; steps: number; monotone: boolean }[] = [
  { integrator: 'implicit-euler', steps: 300, monotone: true },
  { integrator: 'backward-euler', steps: 60, monotone: true },
  { integrator: 'newmark', steps: 100, monotone: false },
];

describe(`stiff ${SIZE}×${SIZE} cloth at h = 1/60 s`, () => {
  test('the initial energy is zero (rest, flat at y = 0, springs at rest length)', () => {
    const e = energies(model, model.particlePositions, model.particleVelocities);
    expect(e.total).toBe(0);
  });

  test.each(
    IMPLICIT_CASES.map(
      (c) => [`${c.integrator}: ${c.steps} steps stay finite with bounded energy`, c] as const,
    ),
  )('%s', async (_name, { integrator, steps, monotone }) => {
    const simulation = new CpuImplicitSimulation(model, {
      integrator,
      dt: H,
      solver: 'pcg',
      tolerance: 1e-4,
      maxIterations: 200,
    });
    const start = performance.now();
    const e0 = energies(model, model.particlePositions, model.particleVelocities).total;
    let previous = e0;
    let released = 0;
    let maxTotal = -Infinity;
    let minTotal = Infinity;
    let maxKinetic = 0;
    let maxIncrease = -Infinity;
    let lowest = 0;
    for (let n = 1; n <= steps; n++) {
      simulation.step();
      const state = await simulation.readState(); // throws WeftDivergenceError on NaN/Inf
      const e = energies(model, state.positions, state.velocities);
      released = Math.max(released, -e.gravity);
      const where = `step ${n}: E = ${e.total.toFixed(4)} (K ${e.kinetic.toFixed(3)}, S ${e.spring.toFixed(3)}, G ${e.gravity.toFixed(3)}), previous ${previous.toFixed(4)}, released ${released.toFixed(3)}`;
      if (monotone && !(e.total <= previous + 1e-6 * released)) expect.fail(`energy increased at ${where}`);
      if (!(e.total <= e0 + 0.01 * released)) expect.fail(`energy above E₀ + 0.01·R at ${where}`);
      if (!(e.kinetic <= -e.gravity + 0.01 * released))
        expect.fail(`kinetic energy above the released potential at ${where}`);
      for (let i = 0; i < model.particleCount; i++) lowest = Math.min(lowest, state.positions[3 * i + 1]!);
      maxIncrease = Math.max(maxIncrease, e.total - previous);
      maxTotal = Math.max(maxTotal, e.total);
      minTotal = Math.min(minTotal, e.total);
      maxKinetic = Math.max(maxKinetic, e.kinetic);
      previous = e.total;
    }
    const seconds = (performance.now() - start) / 1000;
    const stats = (await simulation.readSolverStats())!;
    expect(lowest).toBeGreaterThan(LOWEST);
    expect(stats.unconvergedSolves).toBe(0);
    // Pinned corners never move.
    const final = await simulation.readState();
    for (const pin of [SIZE * (SIZE - 1), SIZE * SIZE - 1])
      expect(Array.from(final.positions.subarray(3 * pin, 3 * pin + 3))).toEqual(
        Array.from(model.particlePositions.subarray(3 * pin, 3 * pin + 3)),
      );
    table.push({
      integrator,
      steps,
      'runtime (s)': seconds.toFixed(1),
      'max E': maxTotal.toFixed(4),
      'min E': minTotal.toFixed(1),
      'max step ΔE': maxIncrease.toFixed(4),
      'max K': maxKinetic.toFixed(1),
      'released R': released.toFixed(1),
      'lowest y (m)': lowest.toFixed(3),
      'CG its/solve': (stats.linearIterations / stats.linearSolves).toFixed(1),
      'Newton its': stats.newtonIterations,
      'unconverged Newton steps': stats.unconvergedSteps,
    });
  });

  test('symplectic-euler at the same h blows up within 1,000 steps', async () => {
    const simulation = new CpuSimulation(model, { integrator: 'symplectic-euler', dt: H });
    const start = performance.now();
    const e0 = energies(model, model.particlePositions, model.particleVelocities).total;
    let released = 0;
    let energyBlowUp: number | undefined;
    let energyAtBlowUp = 0;
    let divergence: number | undefined;
    for (let n = 1; n <= 1000 && divergence === undefined; n++) {
      simulation.step();
      try {
        const state = await simulation.readState();
        const e = energies(model, state.positions, state.velocities);
        released = Math.max(released, Number.isFinite(e.gravity) ? -e.gravity : released);
        if (energyBlowUp === undefined && !(e.total <= e0 + 10 * Math.max(released, 1))) {
          energyBlowUp = n;
          energyAtBlowUp = e.total;
        }
      } catch (error) {
        expect(error).toBeInstanceOf(WeftDivergenceError);
        divergence = n;
      }
    }
    table.push({
      integrator: 'symplectic-euler (CpuSimulation)',
      steps: divergence ?? 1000,
      'runtime (s)': ((performance.now() - start) / 1000).toFixed(1),
      'E > E₀ + 10·max(R, 1 J)':
        energyBlowUp === undefined
          ? 'never'
          : `step ${energyBlowUp} (E = ${energyAtBlowUp.toExponential(2)})`,
      WeftDivergenceError: divergence === undefined ? 'never' : `step ${divergence}`,
    });
    // Its stiffest modes have h ω far above 2 (k = 1e4 N/m on 0.1 kg, h = 1/60 s: h ω ≈ 5 per
    // spring, more where springs add), where symplectic Euler grows by about (h ω)² per step: the
    // energy passes the bound within a few steps (measured: 3) and float64 overflows after a few
    // dozen (measured: 63). The bounds leave room for rounding, not for a stable scheme.
    expect(energyBlowUp, 'symplectic Euler gained energy within 10 steps').toBeLessThanOrEqual(10);
    expect(divergence, 'symplectic Euler reached WeftDivergenceError within 200 steps').toBeLessThanOrEqual(
      200,
    );
  });
});
