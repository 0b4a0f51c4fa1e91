/**
 * The matrix-free linear solvers of the CPU reference (src/backends/cpu/linear-solver.ts) and the passes
 * they use (systemProduct, diagonalInverse in src/backends/cpu/implicit-passes.ts) against a dense float64
 * reference assembled here, independently, from the spring geometry.
 *
 * Dense reference. For a spring s joining a and b, d = x_b − x_a, l = |d|, n = d/l, the force on a
 * is f_a = k (l − L) n + c ((v_b − v_a)·n) n, and −∂f_a/∂x_a = J_s with
 *   J_s = k (n nᵀ + g (I − n nᵀ)),  g = 1 − L/l  ('exact'),  g = max(g, 0)  ('clamped', Choi & Ko),
 * (derived from ∂(l − L)/∂d = nᵀ and ∂n/∂d = (I − n nᵀ)/l); −∂f_a/∂v_a = c n nᵀ. The stiffness
 * matrix K has +J_s on the (a, a) and (b, b) blocks and −J_s on (a, b) and (b, a); likewise B with
 * c n nᵀ. A = α M + β B + γ K, with the rows and columns of fixed particles removed (the solvers
 * are "filtered"). A test checks the exact K against central finite differences of the force.
 * The reference solution is Gaussian elimination with partial pivoting; eigenvalues come from the
 * cyclic Jacobi eigenvalue method on symmetric matrices.
 *
 * Networks: 6–12 particles at random positions in the unit cube, random pairs, stiffness 10–1000
 * N/m (log-uniform), damping 0–5 N·s/m, masses 0.1–2 kg, one or two fixed particles, rest lengths
 * 0.6–1.4 times the current length (so some springs are compressed), from a seeded PRNG
 * (mulberry32). Three sets of system coefficients (α, β, γ), those of the implicit schemes:
 * implicit Euler at h = 0.01 (mass-dominated), Newmark at h = 0.1 (stiff) and the variational
 * scheme at h = 0.05 (β = 0).
 *
 * Block Jacobi converges iff ρ(I − D⁻¹A) < 1 (D the block or scalar diagonal). ρ is computed here
 * from the eigenvalues of L⁻¹ A L⁻ᵀ (D = L Lᵀ, similar to D⁻¹A). Where ρ ≥ 1 the Jacobi case is not
 * compared with the solution; it must instead report converged = false (its name says so).
 */
import { describe, expect, test } from 'vitest';
import { expectClose } from './helpers/expect-close.ts';
import { type LinearSolverName, createModel, type Model } from '../src/index.ts';
import {
  CpuImplicitSimulation,
  diagonalInverse,
  springStates,
  systemProduct,
  type SpringStates,
  type SystemCoefficients,
  solveLinear,
  type LinearSolveResult,
  type SolverWorkspace,
} from '../src/internal.ts';

// ---------------------------------------------------------------------------------------------
// Seeded PRNG and dense linear algebra (float64, row-major).

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Dense {
  readonly data: Float64Array;
  constructor(
    readonly rows: number,
    readonly cols: number = rows,
  ) {
    this.data = new Float64Array(rows * cols);
  }
  get(i: number, j: number): number {
    return this.data[i * this.cols + j]!;
  }
  set(i: number, j: number, value: number): void {
    this.data[i * this.cols + j] = value;
  }
  add(i: number, j: number, value: number): void {
    this.data[i * this.cols + j] = this.data[i * this.cols + j]! + value;
  }
  times(u: ArrayLike<number>): Float64Array {
    const out = new Float64Array(this.rows);
    for (let i = 0; i < this.rows; i++) {
      let sum = 0;
      for (let j = 0; j < this.cols; j++) sum += this.get(i, j) * u[j]!;
      out[i] = sum;
    }
    return out;
  }
  copy(): Dense {
    const c = new Dense(this.rows, this.cols);
    c.data.set(this.data);
    return c;
  }
}

/** Solves A x = b by Gaussian elimination with partial pivoting. */
function gaussSolve(matrix: Dense, b: ArrayLike<number>): Float64Array {
  const n = matrix.rows;
  const a = matrix.copy();
  const x = Float64Array.from(b);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a.get(r, col)) > Math.abs(a.get(pivot, col))) pivot = r;
    if (a.get(pivot, col) === 0) throw new Error('singular matrix');
    if (pivot !== col) {
      for (let j = 0; j < n; j++) {
        const t = a.get(col, j);
        a.set(col, j, a.get(pivot, j));
        a.set(pivot, j, t);
      }
      const t = x[col]!;
      x[col] = x[pivot]!;
      x[pivot] = t;
    }
    for (let r = col + 1; r < n; r++) {
      const factor = a.get(r, col) / a.get(col, col);
      if (factor === 0) continue;
      for (let j = col; j < n; j++) a.add(r, j, -factor * a.get(col, j));
      x[r] = x[r]! - factor * x[col]!;
    }
  }
  for (let r = n - 1; r >= 0; r--) {
    let sum = x[r]!;
    for (let j = r + 1; j < n; j++) sum -= a.get(r, j) * x[j]!;
    x[r] = sum / a.get(r, r);
  }
  return x;
}

/** Eigenvalues of a symmetric matrix (cyclic Jacobi rotations), ascending. */
function symmetricEigenvalues(matrix: Dense): number[] {
  const n = matrix.rows;
  const a = matrix.copy();
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    let total = 0;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        total += a.get(i, j) ** 2;
        if (i !== j) off += a.get(i, j) ** 2;
      }
    if (off <= 1e-30 * total) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a.get(p, q);
        if (apq === 0) continue;
        const theta = (a.get(q, q) - a.get(p, p)) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a.get(k, p);
          const akq = a.get(k, q);
          a.set(k, p, c * akp - s * akq);
          a.set(k, q, s * akp + c * akq);
        }
        for (let k = 0; k < n; k++) {
          const apk = a.get(p, k);
          const aqk = a.get(q, k);
          a.set(p, k, c * apk - s * aqk);
          a.set(q, k, s * apk + c * aqk);
        }
      }
    }
  }
  return Array.from({ length: n }, (_, i) => a.get(i, i)).sort((x, y) => x - y);
}

/** Lower Cholesky factor of an SPD matrix; null when it is not positive definite. */
function cholesky(matrix: Dense): Dense | null {
  const n = matrix.rows;
  const l = new Dense(n);
  for (let j = 0; j < n; j++) {
    let d = matrix.get(j, j);
    for (let k = 0; k < j; k++) d -= l.get(j, k) ** 2;
    if (!(d > 0)) return null;
    l.set(j, j, Math.sqrt(d));
    for (let i = j + 1; i < n; i++) {
      let s = matrix.get(i, j);
      for (let k = 0; k < j; k++) s -= l.get(i, k) * l.get(j, k);
      l.set(i, j, s / l.get(j, j));
    }
  }
  return l;
}

/** L⁻¹ A L⁻ᵀ for lower-triangular L. */
function congruence(a: Dense, l: Dense): Dense {
  const n = a.rows;
  // Y = L⁻¹ A (forward substitution, column by column), then S = L⁻¹ Yᵀ (A symmetric).
  const forward = (m: Dense): Dense => {
    const out = new Dense(n);
    for (let col = 0; col < n; col++) {
      for (let i = 0; i < n; i++) {
        let s = m.get(i, col);
        for (let k = 0; k < i; k++) s -= l.get(i, k) * out.get(k, col);
        out.set(i, col, s / l.get(i, i));
      }
    }
    return out;
  };
  const y = forward(a);
  const yt = new Dense(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) yt.set(i, j, y.get(j, i));
  return forward(yt);
}

const norm = (u: ArrayLike<number>): number => Math.sqrt(Array.from(u).reduce((s, x) => s + x * x, 0));
const subtract = (u: ArrayLike<number>, w: ArrayLike<number>): Float64Array =>
  Float64Array.from(u, (x, i) => x - w[i]!);

// ---------------------------------------------------------------------------------------------
// Networks and their dense systems.

interface Network {
  name: string;
  model: Model;
  exact: boolean;
  system: SystemCoefficients;
}

const SYSTEMS: { name: string; system: SystemCoefficients }[] = [
  // implicit Euler: (1 + h r_m) M + h B + h (h + r_k) K, h = 0.01, r_m = 0.1, r_k = 0.01.
  { name: 'implicit Euler h=0.01', system: { mass: 1.001, damping: 0.01, stiffness: 0.01 * 0.02 } },
  // Newmark: (1 + hγ r_m) M + hγ B + (h² β + hγ r_k) K, h = 0.1, γ = ½, β = ¼, r_m = 0.1, r_k = 0.
  { name: 'Newmark h=0.1', system: { mass: 1.005, damping: 0.05, stiffness: 0.0025 } },
  // variational: (4/h² + 4 r_m/h) M + (1 + 4 r_k/h) K, h = 0.05, no B.
  { name: 'variational h=0.05', system: { mass: 1600, damping: 0, stiffness: 1 } },
];

function randomModel(seed: number, restScale: readonly [number, number] = [0.6, 1.4]): Model {
  const random = mulberry32(seed);
  const n = 6 + Math.floor(random() * 7);
  const positions = Array.from({ length: 3 * n }, () => random());
  const masses = Array.from({ length: n }, () => 0.1 + 1.9 * random());
  const fixedCount = 1 + Math.floor(random() * 2);
  const fixed: number[] = [];
  while (fixed.length < fixedCount) {
    const i = Math.floor(random() * n);
    if (!fixed.includes(i)) fixed.push(i);
  }
  const springCount = n + Math.floor(random() * 2 * n);
  const pairs: number[] = [];
  const seen = new Set<string>();
  while (pairs.length < 2 * springCount) {
    const a = Math.floor(random() * n);
    const b = Math.floor(random() * n);
    const key = `${Math.min(a, b)},${Math.max(a, b)}`;
    if (a === b || seen.has(key)) continue;
    seen.add(key);
    pairs.push(a, b);
  }
  const stiffness = Array.from({ length: springCount }, () => 10 * 100 ** random());
  const damping = Array.from({ length: springCount }, () => 5 * random());
  const restLengths = Array.from({ length: springCount }, (_, s) => {
    const a = pairs[2 * s]!;
    const b = pairs[2 * s + 1]!;
    const l = Math.hypot(
      positions[3 * b]! - positions[3 * a]!,
      positions[3 * b + 1]! - positions[3 * a + 1]!,
      positions[3 * b + 2]! - positions[3 * a + 2]!,
    );
    return l * (restScale[0] + (restScale[1] - restScale[0]) * random());
  });
  return createModel({
    positions,
    masses,
    fixed,
    springPairs: pairs,
    springStiffness: stiffness,
    springDamping: damping,
    springRestLengths: restLengths,
  });
}

/** Free particles' indices (row block i of the dense matrix is particle free[i]). */
function freeParticles(model: Model): number[] {
  return Array.from({ length: model.particleCount }, (_, i) => i).filter((i) => model.particleFixed[i] === 0);
}

/** n nᵀ, l and g of spring s at the model's positions. */
function springGeometry(model: Model, positions: ArrayLike<number>, s: number) {
  const a = model.springIndices[2 * s]!;
  const b = model.springIndices[2 * s + 1]!;
  const d = [0, 1, 2].map((c) => positions[3 * b + c]! - positions[3 * a + c]!);
  const l = Math.hypot(d[0]!, d[1]!, d[2]!);
  const n = d.map((x) => x / l);
  return { a, b, l, n, g: 1 - model.springRestLength[s]! / l };
}

/** Full (3n × 3n) K or B. */
function fullMatrix(model: Model, which: 'stiffness' | 'damping', exact: boolean): Dense {
  const dim = 3 * model.particleCount;
  const out = new Dense(dim);
  for (let s = 0; s < model.springCount; s++) {
    const { a, b, n, g } = springGeometry(model, model.particlePositions, s);
    const geometric = exact ? g : Math.max(g, 0);
    const k = model.springStiffness[s]!;
    const c = model.springDamping[s]!;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        const nn = n[i]! * n[j]!;
        const block = which === 'stiffness' ? k * (nn + geometric * ((i === j ? 1 : 0) - nn)) : c * nn;
        out.add(3 * a + i, 3 * a + j, block);
        out.add(3 * b + i, 3 * b + j, block);
        out.add(3 * a + i, 3 * b + j, -block);
        out.add(3 * b + i, 3 * a + j, -block);
      }
    }
  }
  return out;
}

/** A = α M + β B + γ K, fixed rows and columns removed. */
function denseSystem(model: Model, exact: boolean, system: SystemCoefficients): Dense {
  const free = freeParticles(model);
  const K = fullMatrix(model, 'stiffness', exact);
  const B = fullMatrix(model, 'damping', exact);
  const A = new Dense(3 * free.length);
  free.forEach((p, I) => {
    free.forEach((q, J) => {
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) {
          const r = 3 * p + i;
          const c = 3 * q + j;
          const mass = p === q && i === j ? system.mass * model.particleMass[p]! : 0;
          A.set(3 * I + i, 3 * J + j, mass + system.damping * B.get(r, c) + system.stiffness * K.get(r, c));
        }
      }
    });
  });
  return A;
}

/** A (block or scalar) diagonal of the dense system. */
function denseDiagonal(A: Dense, block: boolean): Dense {
  const D = new Dense(A.rows);
  for (let i = 0; i < A.rows; i++)
    for (let j = 0; j < A.rows; j++)
      if (block ? Math.floor(i / 3) === Math.floor(j / 3) : i === j) D.set(i, j, A.get(i, j));
  return D;
}

/** ρ(I − D⁻¹ A) for SPD D; Infinity when D is not positive definite. */
function jacobiSpectralRadius(A: Dense, block: boolean): number {
  const L = cholesky(denseDiagonal(A, block));
  if (!L) return Infinity;
  const eigenvalues = symmetricEigenvalues(congruence(A, L));
  return Math.max(...eigenvalues.map((lambda) => Math.abs(1 - lambda)));
}

/** Full-length (3n) vector from the free-particle vector, zeros on fixed particles. */
function expand(model: Model, reduced: ArrayLike<number>): Float64Array {
  const full = new Float64Array(3 * model.particleCount);
  freeParticles(model).forEach((p, I) => {
    for (let c = 0; c < 3; c++) full[3 * p + c] = reduced[3 * I + c]!;
  });
  return full;
}

function reduce(model: Model, full: ArrayLike<number>): Float64Array {
  const free = freeParticles(model);
  const out = new Float64Array(3 * free.length);
  free.forEach((p, I) => {
    for (let c = 0; c < 3; c++) out[3 * I + c] = full[3 * p + c]!;
  });
  return out;
}

function statesOf(model: Model, exact: boolean): SpringStates {
  const states: SpringStates = {
    force: new Float64Array(3 * model.springCount),
    jacobian: new Float64Array(6 * model.springCount),
    direction: new Float64Array(3 * model.springCount),
  };
  springStates(model, model.particlePositions, new Float64Array(3 * model.particleCount), exact, states);
  return states;
}

function workspace(model: Model): SolverWorkspace {
  const n3 = 3 * model.particleCount;
  return {
    residual: new Float64Array(n3),
    direction: new Float64Array(n3),
    product: new Float64Array(n3),
    preconditioned: new Float64Array(n3),
    inverseDiagonal: new Float64Array(6 * model.particleCount),
  };
}

interface Prepared extends Network {
  A: Dense;
  b: Float64Array;
  solution: Float64Array;
  minEigenvalue: number;
  rhoBlock: number;
  rhoScalar: number;
}

function prepare(network: Network, seed: number): Prepared {
  const A = denseSystem(network.model, network.exact, network.system);
  const random = mulberry32(seed * 7919 + 1);
  const reduced = Float64Array.from({ length: A.rows }, () => 2 * random() - 1);
  return {
    ...network,
    A,
    b: expand(network.model, reduced),
    solution: gaussSolve(A, reduced),
    minEigenvalue: symmetricEigenvalues(A)[0]!,
    rhoBlock: jacobiSpectralRadius(A, true),
    rhoScalar: jacobiSpectralRadius(A, false),
  };
}

const SEEDS = [1, 2, 3, 4, 5, 6];
const NETWORKS: Prepared[] = SEEDS.flatMap((seed) =>
  (['clamped', 'exact'] as const).flatMap((jacobian) =>
    SYSTEMS.map(({ name, system }) => {
      const model = randomModel(seed);
      return prepare(
        {
          name: `seed ${seed} (${model.particleCount} particles, ${model.springCount} springs), ${jacobian}, ${name}`,
          model,
          exact: jacobian === 'exact',
          system,
        },
        seed,
      );
    }),
  ),
);

interface SolverCase {
  solver: LinearSolverName;
  preconditioner: 'block' | 'scalar';
  label: string;
}

const SOLVERS: SolverCase[] = [
  { solver: 'cg', preconditioner: 'block', label: 'cg' },
  { solver: 'pcg', preconditioner: 'block', label: 'pcg (block)' },
  { solver: 'pcg', preconditioner: 'scalar', label: 'pcg (scalar)' },
  { solver: 'jacobi', preconditioner: 'block', label: 'jacobi (block)' },
  { solver: 'jacobi', preconditioner: 'scalar', label: 'jacobi (scalar)' },
];

function run(
  net: Prepared,
  { solver, preconditioner }: SolverCase,
  maxIterations: number,
  tolerance: number,
  b: Float64Array = net.b,
): { result: LinearSolveResult; x: Float64Array } {
  const x = new Float64Array(3 * net.model.particleCount);
  const result = solveLinear(
    net.model,
    statesOf(net.model, net.exact),
    net.system,
    { solver, preconditioner, maxIterations, tolerance },
    b,
    x,
    workspace(net.model),
  );
  return { result, x };
}

function relativeError(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  return norm(subtract(actual, expected)) / norm(expected);
}

/**
 * What a solve that did not converge must still get right: x finite, zero on fixed particles, and
 * its report true of it. The reported residual is ‖b − A x‖/‖b‖ of the returned x, recomputed here
 * with the dense A (CG updates r recursively; measured drift ≤ 3e-14 on the breakdowns here, with
 * residuals up to 85 ‖b‖: allowed 1e-10);
 * it is above the tolerance. A breakdown (pᵀAp ≤ 0 before step k) returns the iterate of step
 * k − 1 and stops early: the same solve capped at that many iterations returns the same x, bit for
 * bit, and reports no breakdown.
 */
function expectHonestFailure(
  net: Prepared,
  s: SolverCase,
  { result, x }: { result: LinearSolveResult; x: Float64Array },
  maxIterations: number,
  tolerance: number,
  b: Float64Array = net.b,
): void {
  expect(result.converged).toBe(false);
  expect(x.every(Number.isFinite)).toBe(true);
  for (let i = 0; i < net.model.particleCount; i++)
    if (net.model.particleFixed[i]) expect(Array.from(x.subarray(3 * i, 3 * i + 3))).toEqual([0, 0, 0]);
  const reducedB = reduce(net.model, b);
  const trueResidual = norm(subtract(reducedB, net.A.times(reduce(net.model, x)))) / norm(reducedB);
  expect(Math.abs(trueResidual - result.relativeResidual)).toBeLessThan(1e-10);
  expect(result.relativeResidual).toBeGreaterThan(tolerance);
  if (result.breakdown) {
    expect(result.iterations).toBeLessThan(maxIterations);
    if (result.iterations === 0) {
      expect(x.every((v) => v === 0)).toBe(true);
      expect(result.relativeResidual).toBe(1);
    } else {
      const capped = run(net, s, result.iterations, tolerance, b);
      expect(capped.result.breakdown).toBe(false);
      expect(capped.result.relativeResidual).toBe(result.relativeResidual);
      expect(Array.from(capped.x)).toEqual(Array.from(x));
    }
  } else expect(result.iterations).toBe(maxIterations);
}

/** Jacobi iterations needed to shrink the error by 1e-14 at rate ρ, with margin. */
function jacobiBudget(rho: number): number {
  return Math.min(2_000_000, Math.ceil((2 * Math.log(1e-14)) / Math.log(rho)) + 200);
}

// ---------------------------------------------------------------------------------------------

describe('the dense reference itself', () => {
  test.each(SEEDS)('seed %i: exact K equals central finite differences of the spring forces', (seed) => {
    const model = randomModel(seed);
    const K = fullMatrix(model, 'stiffness', true);
    const dim = 3 * model.particleCount;
    // Total spring force (no damping, no gravity), written here: f_a = k (l − L) n, f_b = −f_a.
    const forces = (x: Float64Array): Float64Array => {
      const f = new Float64Array(dim);
      for (let s = 0; s < model.springCount; s++) {
        const { a, b, l, n } = springGeometry(model, x, s);
        const magnitude = model.springStiffness[s]! * (l - model.springRestLength[s]!);
        for (let c = 0; c < 3; c++) {
          f[3 * a + c] = f[3 * a + c]! + magnitude * n[c]!;
          f[3 * b + c] = f[3 * b + c]! - magnitude * n[c]!;
        }
      }
      return f;
    };
    const eps = 1e-6;
    let worst = 0;
    for (let j = 0; j < dim; j++) {
      const plus = Float64Array.from(model.particlePositions);
      const minus = Float64Array.from(model.particlePositions);
      plus[j] = plus[j]! + eps;
      minus[j] = minus[j]! - eps;
      const fp = forces(plus);
      const fm = forces(minus);
      for (let i = 0; i < dim; i++) {
        const fd = -(fp[i]! - fm[i]!) / (2 * eps);
        worst = Math.max(worst, Math.abs(fd - K.get(i, j)) / (1 + Math.abs(K.get(i, j))));
      }
    }
    expect(worst).toBeLessThan(1e-5);
  });

  test('the networks cover compressed springs, indefinite exact systems and Jacobi divergence', () => {
    // Guards against a vacuous suite: the random cases must exercise what the tests claim.
    const compressed = NETWORKS.some(({ model }) =>
      Array.from({ length: model.springCount }, (_, s) =>
        springGeometry(model, model.particlePositions, s),
      ).some(({ g }) => g < 0),
    );
    expect(compressed).toBe(true);
    expect(NETWORKS.filter((n) => !n.exact).every((n) => n.minEigenvalue > 0)).toBe(true);
    expect(NETWORKS.some((n) => n.exact && n.minEigenvalue < 0)).toBe(true);
    expect(NETWORKS.some((n) => n.rhoBlock < 1)).toBe(true);
    expect(NETWORKS.some((n) => n.rhoBlock >= 1 || n.rhoScalar >= 1)).toBe(true);
  });
});

describe('systemProduct equals the dense A·u', () => {
  test.each(NETWORKS.map((n) => [n.name, n] as const))('%s', (_name, net) => {
    const random = mulberry32(net.A.rows);
    const reduced = Float64Array.from({ length: net.A.rows }, () => 2 * random() - 1);
    const u = expand(net.model, reduced);
    const out = new Float64Array(u.length).fill(NaN);
    systemProduct(net.model, statesOf(net.model, net.exact), net.system, u, out);
    const expected = expand(net.model, net.A.times(reduced));
    const scale = Math.max(...Array.from(expected, Math.abs));
    expectClose(out, expected, { absolute: 1e-13 * scale, relative: 1e-12 }, 'A·u');
  });
});

describe('diagonalInverse equals the inverse of the dense diagonal blocks', () => {
  const cases = NETWORKS.flatMap((n) =>
    (['block', 'scalar'] as const).map((kind) => [`${n.name}, ${kind}`, n, kind] as const),
  );
  test.each(cases)('%s', (_name, net, kind) => {
    const out = new Float64Array(6 * net.model.particleCount).fill(NaN);
    diagonalInverse(net.model, statesOf(net.model, net.exact), net.system, kind === 'block', out);
    const expected = new Float64Array(out.length);
    freeParticles(net.model).forEach((p, I) => {
      const block = new Dense(3);
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++)
          if (kind === 'block' || i === j) block.set(i, j, net.A.get(3 * I + i, 3 * I + j));
      const columns = [0, 1, 2].map((j) =>
        gaussSolve(
          block,
          [0, 1, 2].map((i) => (i === j ? 1 : 0)),
        ),
      );
      // Stored symmetric: xx, yy, zz, xy, xz, yz.
      const entries = [
        columns[0]![0]!,
        columns[1]![1]!,
        columns[2]![2]!,
        columns[1]![0]!,
        columns[2]![0]!,
        columns[2]![1]!,
      ];
      expected.set(entries, 6 * p);
    });
    const scale = Math.max(...Array.from(expected, Math.abs));
    expectClose(out, expected, { absolute: 1e-12 * scale, relative: 1e-10 }, `${kind} inverse`, {
      stride: 6,
    });
  });
});

describe('solveLinear against the dense solution (tolerance 1e-12, relative error ≤ 1e-8)', () => {
  const cases = NETWORKS.flatMap((net) =>
    SOLVERS.map((s) => {
      const rho = s.preconditioner === 'block' ? net.rhoBlock : net.rhoScalar;
      let note = '';
      if (s.solver === 'jacobi')
        note =
          rho < 1 ? ` (ρ = ${rho.toFixed(4)})` : ` (ρ = ${rho.toFixed(3)} ≥ 1: must not report converged)`;
      else if (net.minEigenvalue <= 0)
        note = ` (indefinite, λ_min = ${net.minEigenvalue.toExponential(2)}: converged ⇒ right)`;
      return [`${net.name}: ${s.label}${note}`, net, s, rho] as const;
    }),
  );
  test.each(cases)('%s', (_name, net, s, rho) => {
    const jacobi = s.solver === 'jacobi';
    const maxIterations = jacobi ? (rho < 1 ? jacobiBudget(rho) : 5000) : 500;
    const { result, x } = run(net, s, maxIterations, 1e-12);
    expect(result.iterations).toBeLessThanOrEqual(maxIterations);
    // Fixed particles are projected out: exactly zero.
    for (let i = 0; i < net.model.particleCount; i++)
      if (net.model.particleFixed[i]) expect(Array.from(x.subarray(3 * i, 3 * i + 3))).toEqual([0, 0, 0]);
    if (jacobi && !(rho < 1)) {
      expect(result.converged).toBe(false);
      expect(result.iterations).toBe(maxIterations);
      return;
    }
    if (!jacobi && net.minEigenvalue <= 0 && !result.converged) {
      // An indefinite system may break CG down; it must then say so rather than claim convergence,
      // and what it returns must be what it reports.
      expectHonestFailure(net, s, { result, x }, maxIterations, 1e-12);
      return;
    }
    expect(result.converged).toBe(true);
    expect(result.breakdown).toBe(false);
    expect(result.relativeResidual).toBeLessThanOrEqual(1e-12);
    const error = relativeError(reduce(net.model, x), net.solution);
    if (!(error <= 1e-8)) expect.fail(`relative error ${error.toExponential(3)} > 1e-8`);
  });
});

describe('CG and PCG: the energy-norm error ‖x* − x_k‖_A never increases with k', () => {
  const spd = NETWORKS.filter((n) => n.minEigenvalue > 0);
  const cases = spd.flatMap((net) =>
    SOLVERS.filter((s) => s.solver !== 'jacobi').map((s) => [`${net.name}: ${s.label}`, net, s] as const),
  );
  test.each(cases)('%s', (_name, net, s) => {
    const energyError = (x: Float64Array): number => {
      const e = subtract(net.solution, reduce(net.model, x));
      const Ae = net.A.times(e);
      return Math.sqrt(e.reduce((sum, v, i) => sum + v * Ae[i]!, 0));
    };
    const errors = [energyError(new Float64Array(3 * net.model.particleCount))];
    for (let k = 1; k <= net.A.rows; k++) {
      const { result, x } = run(net, s, k, 1e-14);
      expect(result.iterations).toBeLessThanOrEqual(k);
      errors.push(energyError(x));
    }
    // Allowed rise: rounding, relative to the initial error.
    const slack = 1e-12 * errors[0]!;
    errors.slice(1).forEach((e, i) => {
      if (!(e <= errors[i]! + slack))
        expect.fail(
          `‖e‖_A rose at k = ${i + 1}: ${errors[i]!.toExponential(4)} → ${e.toExponential(4)} (all: ${errors.map((v) => v.toExponential(2)).join(', ')})`,
        );
    });
    // And it goes somewhere: down by at least 1e-6 within dim iterations (dim = 3 × free particles).
    expect(errors[errors.length - 1]!).toBeLessThan(1e-6 * errors[0]!);
  });
});

describe('iteration counts and converged flags (tolerance 1e-6)', () => {
  const cases = NETWORKS.filter((n) => n.minEigenvalue > 0).flatMap((net) =>
    SOLVERS.flatMap((s) =>
      [1, 3, 200].map((k) => [`${net.name}: ${s.label}, maxIterations ${k}`, net, s, k] as const),
    ),
  );
  test.each(cases)('%s', (_name, net, s, maxIterations) => {
    const tolerance = 1e-6;
    const { result, x } = run(net, s, maxIterations, tolerance);
    expect(result.iterations).toBeGreaterThanOrEqual(1);
    expect(result.iterations).toBeLessThanOrEqual(maxIterations);
    expect(result.breakdown).toBe(false);
    expect(result.converged).toBe(result.relativeResidual <= tolerance);
    if (!result.converged) expect(result.iterations).toBe(maxIterations);
    if (s.solver !== 'jacobi') {
      // CG's recursively updated residual is the true one, to rounding.
      const b = reduce(net.model, net.b);
      const trueResidual = norm(subtract(b, net.A.times(reduce(net.model, x)))) / norm(b);
      expect(Math.abs(trueResidual - result.relativeResidual)).toBeLessThan(1e-10);
    }
  });

  test.each(SOLVERS.map((s) => [s.label, s] as const))('%s: b = 0 gives x = 0 in 0 iterations', (_l, s) => {
    const net = NETWORKS[0]!;
    const { result, x } = run(net, s, 10, 1e-6, new Float64Array(net.b.length));
    expect(result).toEqual({
      iterations: 0,
      relativeResidual: 0,
      converged: true,
      breakdown: false,
      reference: 0,
    });
    expect(x.every((v) => v === 0)).toBe(true);
  });
});

describe("an 'exact' Jacobian under strong compression: CG reports breakdown, never a wrong solution", () => {
  // One free particle (m = 0.1 kg) at the origin between two fixed particles at x = ±0.2 m, each
  // joined by a spring of rest length 1 m and k = 1000 N/m: l = 0.2, g = 1 − L/l = −4. With the
  // implicit-Euler system at h = 0.1 (α = 1, β = h, γ = h²):
  //   A = 0.1 I + 0.01 · 2 · 1000 (n nᵀ − 4 (I − n nᵀ)) = diag(20.1, −79.9, −79.9)   (exact)
  //   A = diag(20.1, 0.1, 0.1)                                                           (clamped).
  const compressed = (jacobian: 'exact' | 'clamped'): Prepared => {
    const model = createModel({
      positions: [-0.2, 0, 0, 0, 0, 0, 0.2, 0, 0],
      masses: [1, 0.1, 1],
      fixed: [0, 2],
      springPairs: [0, 1, 1, 2],
      springStiffness: 1000,
      springRestLengths: [1, 1],
      gravity: [0, -9.81, 0],
    });
    return prepare(
      {
        name: jacobian,
        model,
        exact: jacobian === 'exact',
        system: { mass: 1, damping: 0.1, stiffness: 0.01 },
      },
      1,
    );
  };

  test('the dense reference: the exact system is indefinite, the clamped one SPD', () => {
    const exact = compressed('exact').A;
    const clamped = compressed('clamped').A;
    expectClose(symmetricEigenvalues(exact), [-79.9, -79.9, 20.1], 1e-9, 'exact eigenvalues', { stride: 1 });
    expectClose(symmetricEigenvalues(clamped), [0.1, 0.1, 20.1], 1e-9, 'clamped eigenvalues', { stride: 1 });
  });

  const rhs = [
    ['transverse b = (0, 1, 0)', [0, 1, 0]],
    ['mixed b = (1, 1, 0), bᵀAb < 0', [1, 1, 0]],
    ['mixed b = (3, 1, 0), bᵀAb > 0', [3, 1, 0]],
  ] as const;
  const cases = SOLVERS.filter((s) => s.solver !== 'jacobi').flatMap((s) =>
    rhs.map(([name, b]) => [`${s.label}, ${name}`, s, b] as const),
  );
  test.each(cases)('%s', (_name, s, b) => {
    const exact = compressed('exact');
    const full = expand(exact.model, b);
    const { result, x } = run(exact, s, 100, 1e-12, full);
    expect(result.iterations).toBeLessThanOrEqual(100);
    const solution = gaussSolve(exact.A, b);
    if (result.converged) {
      const error = relativeError(reduce(exact.model, x), solution);
      if (!(error <= 1e-8)) expect.fail(`reported converged with relative error ${error.toExponential(3)}`);
    } else {
      expect(result.breakdown).toBe(true);
      expectHonestFailure(exact, s, { result, x }, 100, 1e-12, full);
    }
    // A purely transverse b sees only the negative eigenvalue: the first p·Ap < 0 for every variant.
    if (b[0] === 0) {
      expect(result).toMatchObject({ breakdown: true, converged: false, iterations: 0 });
    }
    // The clamped Jacobian on the same geometry is SPD and solves.
    const clamped = compressed('clamped');
    const c = run(clamped, s, 100, 1e-12, full);
    expect(c.result.converged).toBe(true);
    const error = relativeError(reduce(clamped.model, c.x), gaussSolve(clamped.A, b));
    expect(error).toBeLessThan(1e-8);
  });

  test.each(['exact', 'clamped'] as const)(
    'implicit-euler on the compressed particle under gravity, %s Jacobian: solver stats',
    async (jacobian) => {
      // b = h f = h m g is transverse to the springs, so with 'exact' CG breaks down at once.
      const { model } = compressed(jacobian);
      const simulation = new CpuImplicitSimulation(model, {
        integrator: 'implicit-euler',
        dt: 0.1,
        solver: 'cg',
        jacobian,
        tolerance: 1e-10,
      });
      simulation.step();
      const stats = (await simulation.readSolverStats())!;
      expect(stats.linearSolves).toBe(1);
      expect(stats.unconvergedSolves).toBe(jacobian === 'exact' ? 1 : 0);
      const state = await simulation.readState();
      if (jacobian === 'clamped') {
        // Δv = h m g / (m + h² · 0) transversally (the clamped transverse stiffness is 0): v = h g.
        expect(state.velocities[4]).toBeCloseTo(0.1 * -9.81, 10);
      }
    },
  );
});

describe('the random networks: some exact systems are indefinite; CG then never claims a wrong solution', () => {
  // Strong compression (rest lengths 2–3 times the current length) with the stiff Newmark system.
  const cases = [11, 12, 13, 14, 15, 16, 17, 18].map((seed) => {
    const model = randomModel(seed, [2, 3]);
    const net = prepare(
      { name: `seed ${seed}`, model, exact: true, system: { mass: 1, damping: 0.05, stiffness: 0.01 } },
      seed,
    );
    return [`seed ${seed}, λ_min = ${net.minEigenvalue.toExponential(2)}`, net] as const;
  });

  test('at least one of them is indefinite', () => {
    expect(cases.some(([, net]) => net.minEigenvalue < 0)).toBe(true);
  });

  const solverCases = cases.flatMap(([name, net]) =>
    SOLVERS.filter((s) => s.solver !== 'jacobi').map((s) => [`${name}: ${s.label}`, net, s] as const),
  );
  test.each(solverCases)('%s', (_name, net, s) => {
    const { result, x } = run(net, s, 500, 1e-12);
    if (result.converged) {
      const error = relativeError(reduce(net.model, x), net.solution);
      if (!(error <= 1e-8)) expect.fail(`reported converged with relative error ${error.toExponential(3)}`);
    } else {
      expect(net.minEigenvalue).toBeLessThan(0);
      expectHonestFailure(net, s, { result, x }, 500, 1e-12);
    }
  });
});
