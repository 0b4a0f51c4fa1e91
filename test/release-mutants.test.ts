/**
 * Tests for the survivors of the mutation run over the release-within-the-step code (issue 14,
 * reports/mutation/SURVIVORS.md, "Release within the step"): the CPU linear solver's start and
 * stopping rule, which the resume path rewrote. Expected values come from CG's own algebra
 * (homogeneity in b; a converged start needs no iteration), not from the code under test.
 */
import { describe, expect, test } from 'vitest';
import { createModel, type Model } from '../src/index.ts';
import { solveLinear, solverStorage, springStates } from '../src/internal.ts';

/** Three free particles on a bent chain of springs from a pinned one (a 9-unknown SPD system). */
function chain(): Model {
  return createModel({
    positions: [0, 0, 0, 0.1, 0.02, 0, 0.18, 0.09, 0.03, 0.25, 0.1, -0.04],
    masses: [1, 0.1, 0.2, 0.15],
    fixed: [0],
    springPairs: [0, 1, 1, 2, 2, 3],
    springStiffness: 1000,
    springRestLengths: [0.09, 0.1, 0.08],
  });
}

function solve(b: Float64Array, tolerance: number, x = new Float64Array(b.length), warmStart = false) {
  const model = chain();
  const { states, work } = solverStorage(model, (n) => new Float64Array(n));
  springStates(model, model.particlePositions, new Float64Array(3 * model.particleCount), true, states);
  const system = { mass: 1, damping: 0, stiffness: 1e-4 };
  const options = {
    solver: 'pcg',
    preconditioner: 'block',
    maxIterations: 100,
    tolerance,
    warmStart,
  } as const;
  return { result: solveLinear(model, states, system, options, b, x, work), x };
}

const B = new Float64Array([0, 0, 0, 0.3, -0.2, 0.1, -0.1, 0.4, 0.2, 0.25, 0.05, -0.3]);

describe('solveLinear (pcg): the stopping rule and the warm start', () => {
  test('b scaled by 2⁻³⁰ gives the same iterations and x scaled by 2⁻³⁰ exactly (tolerance relative to ‖b‖)', () => {
    // CG is homogeneous in b; a power of 2 scales every float exactly, so the iterates are the
    // unscaled ones × 2⁻³⁰ bit for bit — if the stopping test scales as ‖b‖² does.
    const scale = 2 ** -30;
    const full = solve(B, 1e-12);
    const small = solve(
      B.map((v) => v * scale),
      1e-12,
    );
    expect(full.result.converged).toBe(true);
    expect(small.result.iterations).toBe(full.result.iterations);
    expect(Array.from(small.x)).toEqual(Array.from(full.x, (v) => v * scale));
  });

  test('a warm start from a converged solution stops at its first check and stays there', () => {
    const cold = solve(B, 1e-12);
    // Its residual is ≤ ~1e-12 ‖b‖ (CG's recursive one to 1e-12, float64 drift far below 1e-8):
    // within 1e-8 at the loop's first check, after one step; a cold start takes several.
    const warm = solve(B, 1e-8, Float64Array.from(cold.x), true);
    expect(cold.result.iterations).toBeGreaterThan(2);
    expect([warm.result.iterations, warm.result.converged]).toEqual([1, true]);
    // One step from a residual of ~1e-12 ‖b‖ moves x by as little (x ~ 1e-2 m; 1e-12 m allowed).
    for (const [j, v] of warm.x.entries()) expect(Math.abs(v - cold.x[j]!)).toBeLessThan(1e-12);
  });
});
