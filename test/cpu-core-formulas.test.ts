/**
 * The small formulas of the numerical core, each against a statement of it written here (issue
 * 14's mutation triage, reports/mutation/SURVIVORS.md: these are what mutants survived in):
 * - the implicit schemes' system and right-hand-side coefficients, at h, r_m, r_k, γ, β all
 *   non-zero and distinct (the scene tests run r_k = 0 or γ = ½, where a wrong term can vanish),
 *   against test/helpers/implicit-coefficients.ts (written from the sources, not imported);
 * - the adaptive error norm (Hairer, Nørsett & Wanner I, eq. 4.10–4.11), rms and max, with a fixed
 *   particle left out, against the sum written out here;
 * - energy() and hamiltonian() on a three-particle model whose energies are worked out by hand;
 * - the incident-spring lists (CSR) of a small graph, written out by hand;
 * - the Newton statistics of an implicit adaptive program: n identical attempts count n times.
 */
import { describe, expect, test } from 'vitest';
import { buildCloth, createModel, energy, hamiltonian, type ImplicitIntegratorName } from '../src/index.ts';
import {
  CpuProgramStepper,
  differenceNorm,
  errorNorm,
  resolveImplicitOptions,
  velocityImplicitProgram,
  IMPLICIT_INTEGRATOR_NAMES,
  rhsCoefficients,
  systemCoefficients,
} from '../src/internal.ts';
import { expectedRhs, expectedSystem, type Scheme } from './helpers/implicit-coefficients.ts';

describe('implicit coefficients against the schemes written out', () => {
  // Distinct, non-round values: a term multiplied by the wrong parameter changes the result.
  const schemes: Scheme[] = [
    { h: 0.013, rm: 0.7, rk: 0.0031, gamma: 0.61, beta: 0.33 },
    { h: 0.5, rm: 2.3, rk: 0.17, gamma: 0.9, beta: 0.05 },
  ];
  const cases = IMPLICIT_INTEGRATOR_NAMES.flatMap((name) => schemes.map((s) => [name, s] as const));
  test.each(cases)('%s at %o', (integrator: ImplicitIntegratorName, s) => {
    const options = { newmarkGamma: s.gamma, newmarkBeta: s.beta } as Parameters<
      typeof systemCoefficients
    >[4];
    const system = systemCoefficients(integrator, s.h, s.rm, s.rk, options);
    const rhs = rhsCoefficients(integrator, s.h, s.rm, s.rk, options);
    // Round-off only: the same products in another order (≤ a few ulp).
    const close = (actual: number, expected: number, what: string): void =>
      expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
        1e-14 * Math.max(1, Math.abs(expected)),
      );
    const wantSystem = expectedSystem(integrator, s);
    for (const key of ['mass', 'damping', 'stiffness'] as const) close(system[key], wantSystem[key], key);
    const wantRhs = expectedRhs(integrator, s);
    for (const key of Object.keys(wantRhs) as (keyof typeof wantRhs)[]) close(rhs[key], wantRhs[key], key);
  });
});

describe('error norm (Hairer I, eq. 4.10–4.11)', () => {
  // Three particles, the middle one fixed: N = 6 × 2 components count.
  const model = createModel({
    positions: [0, 0, 0, 1, 0, 0, 2, 0, 0],
    masses: [1, 1, 1],
    fixed: [1],
    springPairs: [0, 1, 1, 2],
    springStiffness: 10,
  });
  const start = {
    positions: Float64Array.from([0.1, -2, 0.5, 9, 9, 9, 3, 0.2, -0.4]),
    velocities: Float64Array.from([1, 0, -0.3, 9, 9, 9, 0.05, -4, 2]),
  };
  const end = {
    positions: Float64Array.from([-0.3, -1, 0.6, 9, 9, 9, 2.5, 0.1, -0.45]),
    velocities: Float64Array.from([1.5, 0.2, -0.1, 9, 9, 9, 0.01, -3, 2.5]),
  };
  const error = {
    positions: Float64Array.from([1e-3, -2e-3, 5e-4, 7, 7, 7, -1e-4, 3e-3, 2e-3]),
    velocities: Float64Array.from([-4e-3, 1e-3, 0, 7, 7, 7, 6e-3, -5e-4, 1e-3]),
  };
  const tol = {
    relative: 1e-2,
    absolutePosition: 1e-3,
    absoluteVelocity: 2e-3,
    positionWeight: 1.5,
    velocityWeight: 0.5,
  };

  /** The scaled components w e / (a + r max(|y|, |ŷ|)), free particles only, written out. */
  function scaled(): number[] {
    const out: number[] = [];
    for (const c of [0, 1, 2, 6, 7, 8]) {
      const sx = tol.absolutePosition + tol.relative * Math.max(Math.abs(start.positions[c]!), Math.abs(end.positions[c]!)); // prettier-ignore
      const sv = tol.absoluteVelocity + tol.relative * Math.max(Math.abs(start.velocities[c]!), Math.abs(end.velocities[c]!)); // prettier-ignore
      out.push(
        (tol.positionWeight * error.positions[c]!) / sx,
        (tol.velocityWeight * error.velocities[c]!) / sv,
      );
    }
    return out;
  }

  test('rms: √(Σ (w e / sc)² / N) over the free particles’ 12 components', () => {
    const terms = scaled();
    const expected = Math.sqrt(terms.reduce((sum, t) => sum + t * t, 0) / 12);
    const actual = errorNorm(model, error, start, end, { ...tol, norm: 'rms' });
    expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-15 * expected);
  });

  test('max: max |w e / sc| over the free particles', () => {
    const expected = Math.max(...scaled().map(Math.abs));
    expect(errorNorm(model, error, start, end, { ...tol, norm: 'max' })).toBe(expected);
  });

  test('a NaN in a free particle’s error gives NaN in both norms; in a fixed one, nothing', () => {
    for (const norm of ['rms', 'max'] as const) {
      const bad = { positions: error.positions.slice(), velocities: error.velocities.slice() };
      bad.velocities[7] = NaN;
      expect(errorNorm(model, bad, start, end, { ...tol, norm }), norm).toBeNaN();
      // NaN after a larger finite component still wins in the max norm.
      bad.velocities[7] = 0;
      bad.positions[8] = NaN;
      expect(errorNorm(model, bad, start, end, { ...tol, norm }), norm).toBeNaN();
      const fixedOnly = { positions: error.positions.slice(), velocities: error.velocities.slice() };
      fixedOnly.positions[4] = NaN;
      expect(Number.isFinite(errorNorm(model, fixedOnly, start, end, { ...tol, norm })), norm).toBe(true);
    }
  });

  test('every particle fixed: the norm is 0', () => {
    const pinned = createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], fixed: [0, 1], springPairs: [0, 1], springStiffness: 1 }); // prettier-ignore
    const two = { positions: new Float64Array(6).fill(1), velocities: new Float64Array(6).fill(1) };
    expect(errorNorm(pinned, two, two, two, { ...tol, norm: 'rms' })).toBe(0);
  });

  test('differenceNorm writes a − b to the scratch state and scales against b', () => {
    const a = {
      positions: end.positions.map((x, k) => x + error.positions[k]!),
      velocities: end.velocities.map((v, k) => v + error.velocities[k]!),
    };
    const scratch = { positions: new Float64Array(9), velocities: new Float64Array(9) };
    const norm = differenceNorm(model, a, end, start, { ...tol, norm: 'rms' }, scratch);
    for (let k = 0; k < 9; k++) {
      expect(scratch.positions[k]).toBeCloseTo(error.positions[k]!, 12);
      expect(scratch.velocities[k]).toBeCloseTo(error.velocities[k]!, 12);
    }
    const terms = scaled();
    const expected = Math.sqrt(terms.reduce((sum, t) => sum + t * t, 0) / 12);
    expect(Math.abs(norm - expected)).toBeLessThanOrEqual(1e-9 * expected);
  });
});

describe('energy and Hamiltonian of a hand-worked three-particle model', () => {
  // Masses 1, 2, 3 kg; springs 0–1 (k = 10, L = 1) and 1–2 (k = 4, L = 2); g = (0.5, −9.81, 2).
  const model = createModel({
    positions: [0, 0, 1, 3, 4, 1, 3, 4, 13],
    masses: [1, 2, 3],
    fixed: [0],
    springPairs: [0, 1, 1, 2],
    springStiffness: [10, 4],
    springRestLengths: [1, 2],
    gravity: [0.5, -9.81, 2],
  });
  const x = [0, 0, 1, 3, 4, 1, 3, 4, 13];
  const v = [0, 0, 0, 1, -2, 2, 0.5, 0, -1];
  // Kinetic: ½·2·(1 + 4 + 4) + ½·3·(0.25 + 1) = 9 + 1.875 = 10.875 J.
  // Springs (every z is off 0, so a sign error in any difference shows): lengths 5 and 12: ½·10·(5 − 1)² + ½·4·(12 − 2)² = 80 + 200 = 280 J.
  // Gravity −Σ m g·x (every particle, the fixed one too): particle 0: −1 (2) = −2; particle 1:
  // −2 (1.5 − 39.24 + 2) = 71.48; particle 2: −3 (1.5 − 39.24 + 26) = 35.22; sum 104.7.
  test('kinetic 10.875 J, spring 280 J, gravity 104.7 J', () => {
    const e = energy(model, x, v);
    expect(e.kinetic).toBeCloseTo(10.875, 12);
    expect(e.spring).toBeCloseTo(280, 12);
    expect(e.gravity).toBeCloseTo(104.7, 12);
    expect(e.total).toBeCloseTo(10.875 + 280 + 104.7, 11);
  });
  test('Hamiltonian with momenta p: Σ |p|²/2m over free particles + the potentials', () => {
    // p₁ = (2, −4, 4): |p|²/(2·2) = 36/4 = 9; p₂ = (1.5, 0, −3): 11.25/6 = 1.875; fixed p₀ ignored.
    const p = [100, 100, 100, 2, -4, 4, 1.5, 0, -3];
    expect(hamiltonian(model, x, p)).toBeCloseTo(9 + 1.875 + 280 + 104.7, 11);
  });
});

describe('incident springs (CSR), written out', () => {
  test('a star, a chain and an isolated particle', () => {
    // Springs: 0:(0,1) 1:(2,0) 2:(1,2) 3:(0,3); particle 4 has none.
    const model = createModel({
      positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 5, 5, 5],
      masses: [1, 1, 1, 1, 1],
      springPairs: [0, 1, 2, 0, 1, 2, 0, 3],
      springStiffness: 1,
    });
    // Entry 2·spring + side (0: first endpoint). Particle 0: s0 side 0, s1 side 1, s3 side 0.
    expect(Array.from(model.incidence.offsets)).toEqual([0, 3, 5, 7, 8, 8]);
    expect(Array.from(model.incidence.entries)).toEqual([0, 3, 6, 1, 4, 2, 5, 7]);
  });
});

/**
 * Two CPU steppers of velocity-implicit-euler's program (step doubling of backward Euler) with the
 * given implicit options, on the same stiff 5 × 5 cloth: one to attempt once, one three times.
 */
function twoSteppers(implicit: ReturnType<typeof resolveImplicitOptions>): {
  once: CpuProgramStepper;
  thrice: CpuProgramStepper;
} {
  const model = buildCloth({ nx: 5, ny: 5, spacing: 0.1, structuralStiffness: 2000, shearStiffness: 2000, bendStiffness: 500, damping: 0.5, orientation: 'vertical' }); // prettier-ignore
  const tolerances = { relative: 1e-3, absolutePosition: 1e-3, absoluteVelocity: 1e-3, positionWeight: 1, velocityWeight: 1, norm: 'rms' as const }; // prettier-ignore
  const program = velocityImplicitProgram(0, tolerances, implicit);
  const initial = { positions: model.particlePositions, velocities: model.particleVelocities };
  return { once: new CpuProgramStepper(model, initial, program, 'f64'), thrice: new CpuProgramStepper(model, initial, program, 'f64') }; // prettier-ignore
}

describe('Newton statistics of an implicit adaptive program add up attempt by attempt', () => {
  test('three identical attempts count three times one attempt; maxima and last values stay', () => {
    // velocity-implicit-euler's program (step doubling of backward Euler) on a stiff 5 × 5 cloth:
    // an attempt from the same state with the same h does the same work (no warm start), so the
    // counters after n attempts are n × one attempt's — the bookkeeping must add differences of
    // the executor's running totals, not the totals themselves.
    const { once, thrice } = twoSteppers(resolveImplicitOptions('backward-euler', { solver: 'pcg', tolerance: 1e-8, maxIterations: 200, newtonIterations: 10, correctionTolerance: 1e-6, residualTolerance: 1e-6 })); // prettier-ignore
    const h = 4e-3;
    const first = once.attempt(h, 0);
    expect(first.kind).toBe('estimated');
    for (let k = 0; k < 3; k++) expect(thrice.attempt(h, 0)).toEqual(first);
    const [a, b] = [once.newton, thrice.newton];
    expect(a.iterations).toBeGreaterThanOrEqual(3);
    expect(a.errorEstimatorIterations).toBeGreaterThan(0);
    expect(a.errorEstimatorIterations).toBeLessThan(a.iterations);
    for (const key of [
      'iterations',
      'jacobianEvaluations',
      'factorizations',
      'linearSolves',
      'linearIterations',
      'unconvergedLinearSolves',
      'failedSolves',
      'errorEstimatorIterations',
      'errorEstimatorJacobianEvaluations',
      'errorEstimatorFactorizations',
    ] as const)
      // prettier-ignore
      expect(b[key], key).toBe(3 * a[key]);
    for (const key of ['maxLinearIterations', 'lastLinearResidual', 'maxLinearResidual'] as const)
      expect(b[key], key).toBe(a[key]);
    // Matrix-free with a fresh Jacobian every iteration, one linear solve per iteration.
    expect(a.jacobianEvaluations).toBe(a.iterations);
    expect(a.factorizations).toBe(a.iterations);
    expect(a.linearSolves).toBe(a.iterations);
    expect(a.errorEstimatorJacobianEvaluations).toBe(a.errorEstimatorIterations);
    expect(a.errorEstimatorFactorizations).toBe(a.errorEstimatorIterations);
    // The most iterations one solve took lies between the mean and the total.
    expect(a.maxLinearIterations).toBeGreaterThanOrEqual(a.linearIterations / a.linearSolves);
    expect(a.maxLinearIterations).toBeLessThan(a.linearIterations);
    expect(a.maxLinearResidual).toBeGreaterThanOrEqual(a.lastLinearResidual);
    expect(a.lastLinearResidual).toBeGreaterThan(0);
    expect(a.failedSolves).toBe(0);
  });
});

describe('Newton failures and unconverged solves are counted attempt by attempt', () => {
  test('one Newton iteration, two CG iterations: every attempt fails, three count three times one', () => {
    // Newton capped at one iteration with a 1e-12 criterion cannot converge, and CG capped at two
    // iterations stops above its tolerance: each attempt is 'newton-failed' with failed and
    // unconverged counts > 0, and the same every time from the same state.
    const { once, thrice } = twoSteppers(resolveImplicitOptions('backward-euler', { solver: 'pcg', tolerance: 1e-10, maxIterations: 2, newtonIterations: 1, correctionTolerance: 1e-12, residualTolerance: 1e-12 })); // prettier-ignore
    expect(once.attempt(0.02, 0)).toEqual({ kind: 'newton-failed' });
    for (let k = 0; k < 3; k++) expect(thrice.attempt(0.02, 0)).toEqual({ kind: 'newton-failed' });
    const [a, b] = [once.newton, thrice.newton];
    expect(a.failedSolves).toBeGreaterThan(0);
    expect(a.unconvergedLinearSolves).toBeGreaterThan(0);
    expect(b.failedSolves).toBe(3 * a.failedSolves);
    expect(b.unconvergedLinearSolves).toBe(3 * a.unconvergedLinearSolves);
    expect(b.iterations).toBe(3 * a.iterations);
  });
});
