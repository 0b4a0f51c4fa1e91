/**
 * Tests for the survivors of the sixth random sample of the TypeScript core's mutants (seed 6 at
 * c613cb8, issue 14; reports/mutation/SURVIVORS.md): each pins a behaviour no suite checked, with
 * the expected value stated here, not computed by the code under test.
 */
import { describe, expect, test } from 'vitest';
import { buildCloth, createModel, createSimulation, hamiltonian, WeftDivergenceError } from '../src/index.ts';
import { AdaptiveSimulation } from '../src/internal.ts';
import { advanceUnderClock } from './helpers/fake-clock.ts';

describe('model validation: the messages of index errors', () => {
  test('a spring index out of range names the valid range [0, n − 1]', () => {
    // Three particles: the indices are 0, 1 and 2, so the range is [0, 2].
    const description = {
      positions: [0, 0, 0, 1, 0, 0, 0, 1, 0],
      masses: [1, 1, 1],
      springPairs: [0, 1, 1, 5],
      springStiffness: 10,
      springRestLengths: [1, 1],
    };
    expect(() => createModel(description)).toThrow(
      /^springs\.pairs\[3\]: particle index 5 is out of range \[0, 2\]$/,
    );
  });
});

describe('the divergence watch: its bound counts the springs', () => {
  test('the bound is E₀ + 1000 (|E₀| + Σ m (|g| D + ½) + Σ ½ k (L/10)²)', async () => {
    // One spring (k = 1e5 N/m, L = 1 m) between two 0.1 kg particles, no gravity, the second moving
    // at 1 m/s: E₀ = ½ 0.1 · 1² = 0.05 J. Explicit Euler at h ω = 0.01 √(1e5 / 0.05) ≈ 14 grows the
    // amplitude ~14× a step, so 10 steps pass any bound while every coordinate stays finite.
    const model = createModel({
      positions: [0, 0, 0, 1, 0, 0],
      velocities: [0, 0, 0, 1, 0, 0],
      masses: [0.1, 0.1],
      springPairs: [0, 1],
      springStiffness: 1e5,
      springRestLengths: [1],
      gravity: [0, 0, 0],
    });
    const simulation = await createSimulation(model, { integrator: 'explicit-euler', dt: 0.01, backend: 'cpu' }); // prettier-ignore
    simulation.step(10);
    const error = (await simulation.readState().catch((e: unknown) => e)) as WeftDivergenceError;
    expect(error).toBeInstanceOf(WeftDivergenceError);
    const e0 = 0.05;
    const scale = e0 + 2 * 0.1 * (0 + 0.5) + 0.5 * 1e5 * (1 / 10) ** 2; // 500.15 J
    // Relative 1e-12: the bound is a few sums of these numbers, rounded in the last bits only.
    expect(Math.abs(error.energy!.bound - (e0 + 1000 * scale))).toBeLessThan(1e-12 * (e0 + 1000 * scale));
    simulation.destroy();
  });
});

describe('collider validation: a radius must be finite', () => {
  test.each([NaN, Infinity, '1'])('a sphere of radius %o is refused, naming its radius', (radius) => {
    const description = {
      positions: [0, 1, 0],
      masses: [1],
      springPairs: [],
      springStiffness: 1,
      springRestLengths: [],
      colliders: [{ shape: 'sphere', center: [0, 0, 0], radius }],
    };
    expect(() => createModel(description as never)).toThrow(
      /^colliders\[0\]\.radius: must be a finite number > 0, got /,
    );
  });
});

describe('builders: the message of a bad vector', () => {
  test('a cloth origin of two numbers is refused, saying what it must be', () => {
    expect(() => buildCloth({ nx: 2, ny: 2, origin: [0, 0] as never })).toThrow(
      /^cloth\.origin: must be 3 finite numbers \(x, y, z\), got /,
    );
  });
});

describe('the Hamiltonian counts the bending energy', () => {
  test('one hinge bent by φ from flat, at rest, no gravity: H = k c φ², c = 3 |e|² / (A₁ + A₂)', () => {
    // Two triangles on the unit edge 0–1 (x axis), apexes at y = ±1, each of area ½, flat at rest:
    // c = 3 · 1 / (½ + ½) = 3. Corner 3 turned by φ about the edge: θ − θ₀ = ±φ.
    const model = createModel({
      positions: [0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0],
      masses: [1, 1, 1, 1],
      springPairs: [],
      springStiffness: 0,
      triangles: [0, 1, 2, 1, 0, 3],
      gravity: [0, 0, 0],
      bending: { stiffness: 0.1, restAngles: 'flat' },
    });
    const phi = 0.5;
    const bent = [0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -Math.cos(phi), Math.sin(phi)];
    // To 5e-13 (12 digits of 0.075): θ comes from an atan2 of the normals, exact to a few ulps.
    expect(hamiltonian(model, bent, new Float64Array(12))).toBeCloseTo(0.1 * 3 * phi * phi, 12);
  });
});

describe('self-collision fail-safe: a pinned vertex is not a pinched pair', () => {
  test('a pinned vertex above a rising triangle is not counted pinched', async () => {
    // Triangle B = (0, 1, 2) at y = 0 rising at 5.4 m/s (h = 1/60: δ_B = 0.09 m, past 0.85 d₀ =
    // 0.085 m, so B is truncated); vertex 3 of triangle A pinned d₀ = 0.1 m above B's inside. The
    // pinned side moves 0, so it needs 0 of its room (< 0.95), and B is free: nothing is pinched.
    const d0 = 0.1;
    const u = 5.4;
    const model = createModel({
      positions: [0, 0, 0, 1, 0, 0, 0, 0, 1, 0.3, d0, 0.3, 0.3, d0 + 0.2, 1.3, 1.3, d0 + 0.2, 0.3],
      velocities: [0, u, 0, 0, u, 0, 0, u, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      masses: [1, 1, 1, 1, 1, 1],
      springPairs: [0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3],
      springStiffness: 0,
      gravity: [0, 0, 0],
      triangles: [0, 1, 2, 3, 4, 5],
      fixed: [3],
      selfCollision: { thickness: 0.02, stiffness: 1000 },
    });
    const simulation = await createSimulation(model, { integrator: 'symplectic-euler', dt: 1 / 60, backend: 'cpu' }); // prettier-ignore
    simulation.step();
    const stats = (await simulation.readSolverStats())!.selfContact!;
    simulation.destroy();
    expect(stats.pairs).toBeGreaterThanOrEqual(1);
    expect(stats.pinched).toBe(0);
  });
});

describe('advance(): a chunk is timed from its own start', () => {
  test('chunks of 10 ms each double (1, 2, 4, 8, 16), whatever the clock read at the start', async () => {
    // A fake clock at 1,000 s (a page open for a while), advanced 10 ms a chunk: each chunk takes
    // 10 ms < 0.05 s, so each doubles the next.
    const { done } = await advanceUnderClock(31, 1e6, (_, clock) => clock + 10);
    expect(done).toEqual([1, 3, 7, 15, 31]);
  });
});

describe('velocity-implicit Euler: the Jacobians of the error estimator are counted', () => {
  test('with full Newton, the estimator evaluates one Jacobian per estimator iteration', async () => {
    // Full Newton evaluates a Jacobian at every iteration, the error estimator's (the large step
    // of step doubling) included: its Jacobian count equals its iteration count, and both are > 0.
    const simulation = new AdaptiveSimulation(buildCloth({ nx: 3, ny: 3 }), {
      integrator: 'velocity-implicit-euler',
      accuracy: 1e-3,
      fullNewton: true,
    });
    await simulation.advanceTo(0.05);
    const { newton } = simulation.readStats();
    expect(newton.errorEstimatorIterations).toBeGreaterThan(0);
    expect(newton.errorEstimatorJacobianEvaluations).toBe(newton.errorEstimatorIterations);
  });
});
