/**
 * Tests for the survivors of the fifth random sample of the TypeScript core's mutants (seed 5 at
 * 5513bd8, issue 14; reports/mutation/SURVIVORS.md): each pins a behaviour no suite checked, with
 * the expected value stated here, not computed by the code under test.
 */
import { describe, expect, test } from 'vitest';
import { buildCloth, createModel, createSimulation, type AdaptiveStats } from '../src/index.ts';
import { selfIntersections, trianglesIntersect } from '../src/internal.ts';
import { pileUp } from './helpers/self-contact-scenes.ts';
import { advanceUnderClock } from './helpers/fake-clock.ts';

describe('advance(): chunks sized by their wall time', () => {
  test('chunks double while quicker than 0.05 s, and halve (down to one step) once slower than 0.2 s', async () => {
    // A chunk takes 0 ms until 15 steps are done, 300 ms from then on.
    const { done, stepCount } = await advanceUnderClock(25, 0, (steps, clock) =>
      steps >= 15 ? clock + 300 : clock,
    );
    // Chunks 1, 2, 4, 8 (quick: each doubles the next), then 4, 2, 1, 1, 1, 1 (slow: each halves
    // the next, never below one step).
    expect(done).toEqual([1, 3, 7, 15, 19, 21, 22, 23, 24, 25]);
    expect(stepCount).toBe(25);
  });
});

describe('self-collision fail-safe: the second pass is all or nothing', () => {
  test('a pile-up that needs more than 8 sweeps ends with each particle at x₀ or at x₀ + h v, none part-way', async () => {
    // self-contact.test.ts's pile-up: 12 free triangles 5 cm apart falling at 5 m/s onto a pinned
    // one (h = 1/60 s). The first pass (8 sweeps) shortens moves to part of themselves; it cannot
    // settle, and the second pass sets every shortened particle back to x₀ (scale 0) and every
    // other to its whole move (scale 1), so after it no particle is truncated part-way.
    const model = pileUp();
    const n = model.particleCount;
    const h = 1 / 60;
    const simulation = await createSimulation(model, {
      integrator: 'symplectic-euler',
      dt: h,
      backend: 'cpu',
    });
    simulation.step();
    const state = await simulation.readState();
    const stats = (await simulation.readSolverStats())!.selfContact!;
    expect(stats.sweeps).toBeGreaterThan(8);
    expect(stats.truncated).toBe(0);
    expect(stats.undone).toBeGreaterThan(0);
    for (let i = 3; i < n; i++) {
      const moved = state.positions[3 * i + 1]! - model.particlePositions[3 * i + 1]!;
      // Either no move or the whole move h v (gravity 0, the layers 5 cm apart, beyond the 2 cm
      // thickness at the start: no force changes v); 1e-12 m: the rounding of y + h v.
      expect(Math.min(Math.abs(moved), Math.abs(moved + 5 * h)), `particle ${i}`).toBeLessThan(1e-12);
    }
    expect(selfIntersections(state.positions, model.triangleIndices)).toEqual([]);
    simulation.destroy();
  });
});

describe('pcg is CG preconditioned by the diagonal, cg is not (linear-solver.ts usesDiagonal)', () => {
  // Three free particles of 1, 2 and 4 kg, no springs, gravity: implicit Euler's A = M is
  // diagonal, and b = h M g. Diagonally preconditioned, D⁻¹ A = I: pcg converges in 1 iteration.
  // Plain CG takes one iteration per distinct eigenvalue that b touches (Krylov: the minimal
  // polynomial of A on b), here 3. (Seed 5's survivor `solver === 'pcg'` → `!==` swapped them.)
  test.each([
    ['pcg', 1],
    ['cg', 3],
  ] as const)(
    '%s: %i iterations on a diagonal system of three distinct masses',
    async (solver, iterations) => {
      const model = createModel({ positions: [0, 0, 0, 1, 0, 0, 2, 0, 0], masses: [1, 2, 4], springPairs: [], springStiffness: 0 }); // prettier-ignore
      const simulation = await createSimulation(model, { integrator: 'implicit-euler', dt: 0.01, solver, tolerance: 1e-12 }); // prettier-ignore
      simulation.step(1);
      const stats = (await simulation.readSolverStats())!;
      expect([stats.linearSolves, stats.linearIterations, stats.unconvergedSolves]).toEqual([
        1,
        iterations,
        0,
      ]);
      simulation.destroy();
    },
  );
});

describe('a step count that is not a whole number ≥ 0 is refused, naming steps (state-check.ts requireStepCount)', () => {
  // Not 2^53 or Infinity: without the check those would run (nearly) for ever.
  test.each([-1, 1.5, Number.NaN])('step(n) and advance(n) on the CPU, n = %d', async (steps) => {
    const model = createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], springPairs: [0, 1], springStiffness: 40, springRestLengths: [1] }); // prettier-ignore
    const simulation = await createSimulation(model, { integrator: 'symplectic-euler', dt: 0.01 });
    expect(() => simulation.step(steps)).toThrow(
      expect.objectContaining({ name: 'WeftInputError', field: 'steps' }),
    );
    await expect(simulation.advance(steps)).rejects.toMatchObject({ name: 'WeftInputError', field: 'steps' });
    expect(simulation.stepCount).toBe(0);
  });
});

describe('velocity-implicit Euler at rest: a zero Newton update converges (velocity-implicit-euler.ts `zero`)', () => {
  test('a spring at its rest length, no gravity: every step accepted, no shrink for a Newton failure, the state unchanged', async () => {
    const model = createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], springPairs: [0, 1], springStiffness: 40, springRestLengths: [1], gravity: [0, 0, 0] }); // prettier-ignore
    const simulation = await createSimulation(model, {
      integrator: 'velocity-implicit-euler',
      accuracy: 1e-3,
    });
    await simulation.advanceTo(1);
    const stats = (simulation as unknown as { readStats(): AdaptiveStats }).readStats();
    // At rest the first Newton update is exactly 0: converged at once. Without that rule the second
    // update is 0 too and its contraction rate 0/0 reads as a divergence: every attempt shrinks.
    expect(stats.shrinksFromNewtonFailure).toBe(0);
    expect(stats.rejectedSteps).toBe(0);
    expect(stats.acceptedSteps).toBeGreaterThan(0);
    const { positions } = await simulation.readState();
    expect(Array.from(positions)).toEqual([0, 0, 0, 1, 0, 0]);
  });
});

describe("the exact triangle–triangle test: a triangle with two corners under the other's plane and one above (self-intersection.ts)", () => {
  test('a vertical triangle through a horizontal one intersects it, in either order', () => {
    type V = [number, number, number];
    // t in z = 0; u's corners 0 and 1 at z = −1 and corner 2 at z = +1, crossing z = 0 at
    // (0.1, 0.05) and (0.35, 0.05), inside t. t's corners lie on both sides of u's plane (n_u =
    // (0, −1, 0.05): 1.05, 1.05, −1.95), so neither plane test rejects the pair; a test that took
    // two corners below as "all below" would.
    const t: V[] = [
      [-1, -1, 0],
      [2, -1, 0],
      [-1, 2, 0],
    ];
    const u: V[] = [
      [0, 0, -1],
      [0.5, 0, -1],
      [0.2, 0.1, 1],
    ];
    expect(trianglesIntersect(t, u)).toBe(true);
    expect(trianglesIntersect(u, t)).toBe(true);
    // Moved past t's edge x + y = 1 (to x ≈ 2.1), the same crossing misses it.
    const away = u.map(([x, y, z]) => [x + 2, y, z] as V);
    expect(trianglesIntersect(t, away)).toBe(false);
  });
});

describe('selfCollision without triangles (model.ts)', () => {
  test('is refused, naming selfCollision and saying it acts between triangles', () => {
    const description = { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], masses: [1, 1, 1], springPairs: [0, 1], springStiffness: 10, selfCollision: { thickness: 0.01 } }; // prettier-ignore
    expect(() => createModel(description)).toThrow(expect.objectContaining({ name: 'WeftInputError', field: 'selfCollision' })); // prettier-ignore
    expect(() => createModel(description)).toThrow(/acts between triangles, and the model has none/);
  });
});

describe('a long name in an error message is cut after 40 characters, and only past them (builders.ts quoted)', () => {
  test.each([
    [40, `'${'x'.repeat(40)}'`],
    [41, `'${'x'.repeat(40)}…'`],
  ])('an unknown orientation of %i characters reads %s', (length, shown) => {
    expect(() => buildCloth({ orientation: 'x'.repeat(length) as never })).toThrow(`got ${shown}`);
  });
});
