/**
 * The CPU reference path against scalar recursions written here, independently, from the spec.
 *
 * System: one spring in 1-D along y. Particle 0 is fixed at the origin, particle 1 (the spring's
 * second endpoint b) starts at y = −1.3 with velocity 0.2 along y; rest length L = 1, mass m = 0.7,
 * stiffness k = 40, spring damping c ∈ {0, 0.5}, gravity g = −9.81 along y, Rayleigh mass damping
 * r_m ∈ {0, 0.3}.
 *
 * Force on particle 1. passes.ts (and shaders/spring-forces.wgsl) define the force on the first
 * endpoint a as f_a = (k (l − L) + c (v_b − v_a)·n) n with d = x_b − x_a, l = |d|, n = d/l, and b
 * receives −f_a. With x_a = 0, v_a = 0: d = y, l = |y|, n = sign(y), so
 *   F(y, v) = −f_a + m g = −k (|y| − L) sign(y) − c v + m g        (sign(y)² = 1).
 * Every scheme except central-difference adds Rayleigh mass damping as a force −r_m m v:
 *   a(y, v) = F(y, v)/m − r_m v.
 *
 * Recursions (state (y, v), step h):
 * - explicit-euler (spec/sofa-ode-solvers.md §2.1, as written): y₊ = y + h v, v₊ = v + h a(y, v).
 * - symplectic-euler (spec/README.md, SOFA EulerExplicit default): v₊ = v + h a(y, v), y₊ = y + h v₊.
 * - variational-symplectic (spec/README.md's reading of §4.1): p₀ = m v₀,
 *   v₊ = (p + h (F(y, v) − r_m m v))/m, p₊ = m v₊, y₊ = y + h v₊.
 * - rk2 (§5.1, midpoint): y½ = y + h/2 v, v½ = v + h/2 a(y, v); y₊ = y + h v½, v₊ = v + h a(y½, v½).
 * - heun (integration-methods-lecture-de.md §3.6) on the state (y, v): k₁ = (v, a₁) with a₁ = a(y, v),
 *   k₂ = (v + h a₁, a(y + h v, v + h a₁)), (y, v)₊ = (y, v) + h (k₁ + k₂)/2.
 * - ralston (Ralston 1962): k₁ = (v, a(y, v)), y₂ = y + ⅔ h v, v₂ = v + ⅔ h a(y, v), k₂ = (v₂, a(y₂, v₂)),
 *   (y, v)₊ = (y, v) + h (¼ k₁ + ¾ k₂).
 * - rk4 (§5.2): the classic four stages, weights 1/6, 1/3, 1/3, 1/6.
 * - central-difference (§6 and spec/README.md): a = F(y, v)/m (no r_m);
 *   v₊ = v + h a if r_m = 0, else v₊ = v (1/h − r_m/2)/(1/h + r_m/2) + a/(1/h + r_m/2); y₊ = y + h v₊.
 *
 * Tolerance: |actual − expected| ≤ 1e-12·|expected| on y and v (float64; the recursions and the
 * simulation order their operations differently, so agreement is to rounding, not bitwise).
 */
import { describe, expect, test } from 'vitest';
import { type ExplicitIntegratorName, createModel } from '../src/index.ts';
import { CpuSimulation, EXPLICIT_INTEGRATOR_NAMES } from '../src/internal.ts';

const L = 1;
const m = 0.7;
const k = 40;
const g = -9.81;
const y0 = -1.3;
const v0 = 0.2;
const h = 0.01;
const RELATIVE_TOLERANCE = 1e-12;

interface Params {
  c: number;
  rm: number;
}

/** Total force on particle 1 (spring + spring damping + gravity), N; no Rayleigh damping. */
function force(y: number, v: number, { c }: Params): number {
  return -k * (Math.abs(y) - L) * Math.sign(y) - c * v + m * g;
}

/** Acceleration with Rayleigh mass damping as the force −r_m m v, m/s². */
function acceleration(y: number, v: number, p: Params): number {
  return force(y, v, p) / m - p.rm * v;
}

type Recursion = (n: number, p: Params) => { y: number; v: number };

const RECURSIONS: Record<ExplicitIntegratorName, Recursion> = {
  'explicit-euler': (n, p) => {
    let y = y0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      const a = acceleration(y, v, p);
      y = y + h * v;
      v = v + h * a;
    }
    return { y, v };
  },
  'symplectic-euler': (n, p) => {
    let y = y0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      v = v + h * acceleration(y, v, p);
      y = y + h * v;
    }
    return { y, v };
  },
  'variational-symplectic': (n, p) => {
    let y = y0;
    let v = v0;
    let momentum = m * v0;
    for (let i = 0; i < n; i++) {
      v = (momentum + h * (force(y, v, p) - p.rm * m * v)) / m;
      momentum = m * v;
      y = y + h * v;
    }
    return { y, v };
  },
  rk2: (n, p) => {
    let y = y0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      const yHalf = y + (h / 2) * v;
      const vHalf = v + (h / 2) * acceleration(y, v, p);
      const aHalf = acceleration(yHalf, vHalf, p);
      y = y + h * vHalf;
      v = v + h * aHalf;
    }
    return { y, v };
  },
  heun: (n, p) => {
    let y = y0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      const k1y = v;
      const k1v = acceleration(y, v, p);
      const k2y = v + h * k1v;
      const k2v = acceleration(y + h * k1y, v + h * k1v, p);
      y = y + (h * (k1y + k2y)) / 2;
      v = v + (h * (k1v + k2v)) / 2;
    }
    return { y, v };
  },
  ralston: (n, p) => {
    let y = y0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      const k1y = v;
      const k1v = acceleration(y, v, p);
      const k2y = v + ((2 * h) / 3) * k1v;
      const k2v = acceleration(y + ((2 * h) / 3) * k1y, k2y, p);
      y = y + h * (k1y / 4 + (3 * k2y) / 4);
      v = v + h * (k1v / 4 + (3 * k2v) / 4);
    }
    return { y, v };
  },
  rk4: (n, p) => {
    let y = y0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      const k1y = v;
      const k1v = acceleration(y, v, p);
      const k2y = v + (h / 2) * k1v;
      const k2v = acceleration(y + (h / 2) * k1y, v + (h / 2) * k1v, p);
      const k3y = v + (h / 2) * k2v;
      const k3v = acceleration(y + (h / 2) * k2y, v + (h / 2) * k2v, p);
      const k4y = v + h * k3v;
      const k4v = acceleration(y + h * k3y, v + h * k3v, p);
      y = y + (h / 6) * (k1y + 2 * k2y + 2 * k3y + k4y);
      v = v + (h / 6) * (k1v + 2 * k2v + 2 * k3v + k4v);
    }
    return { y, v };
  },
  'central-difference': (n, p) => {
    let y = y0;
    let v = v0;
    for (let i = 0; i < n; i++) {
      const a = force(y, v, p) / m;
      if (p.rm === 0) {
        v = v + h * a;
      } else {
        const denominator = 1 / h + p.rm / 2;
        v = (v * (1 / h - p.rm / 2)) / denominator + a / denominator;
      }
      y = y + h * v;
    }
    return { y, v };
  },
};

function simulate(integrator: ExplicitIntegratorName, p: Params): CpuSimulation {
  const model = createModel({
    positions: [0, 0, 0, 0, y0, 0],
    velocities: [0, 0, 0, 0, v0, 0],
    masses: [m, m],
    fixed: [0],
    springPairs: [0, 1],
    springStiffness: k,
    springRestLengths: [L],
    springDamping: p.c,
    gravity: [0, g, 0],
  });
  return new CpuSimulation(model, { integrator, dt: h, rayleighMass: p.rm });
}

/** Fails with the quantity, actual, expected and allowed error. */
function expectRelativelyClose(what: string, actual: number, expected: number): void {
  const allowed = RELATIVE_TOLERANCE * Math.abs(expected);
  const error = Math.abs(actual - expected);
  if (!(error <= allowed)) {
    expect.fail(
      `${what}: actual ${actual}, expected ${expected}, error ${error.toExponential(3)} > allowed ${allowed.toExponential(3)}`,
    );
  }
}

/**
 * r_m of each scheme's cases. At r_m = 0 central-difference and variational-symplectic are symplectic
 * Euler's recursion exactly (α = 1, β = h; p = m v), so rows there would repeat its numbers: they
 * run with a weak and a strong r_m instead (r_m h = 0.003 and 0.03).
 */
const RAYLEIGH_CASES = (integrator: ExplicitIntegratorName): number[] =>
  integrator === 'central-difference' || integrator === 'variational-symplectic' ? [0.3, 3] : [0, 0.3];

const cases = EXPLICIT_INTEGRATOR_NAMES.flatMap((integrator) =>
  [0, 0.5].flatMap((c) =>
    RAYLEIGH_CASES(integrator).flatMap((rm) =>
      [1, 2, 50].map(
        (steps) =>
          [
            `${integrator}, c = ${c}, r_m = ${rm}, after ${steps} steps`,
            { integrator, c, rm, steps },
          ] as const,
      ),
    ),
  ),
);

describe('CPU reference against the scalar recursion of each scheme (1-D spring, h = 0.01)', () => {
  test.each(cases)('%s', async (_name, { integrator, c, rm, steps }) => {
    const p = { c, rm };
    const expected = RECURSIONS[integrator](steps, p);
    const simulation = simulate(integrator, p);
    simulation.step(steps);
    const state = await simulation.readState();
    expect(state.step).toBe(steps);
    expectRelativelyClose('y of particle 1', state.positions[4]!, expected.y);
    expectRelativelyClose('v of particle 1', state.velocities[4]!, expected.v);
    // Nothing acts across the axis, and the fixed particle does not move: exactly zero.
    expect([state.positions[3], state.positions[5], state.velocities[3], state.velocities[5]]).toEqual([
      0, 0, 0, 0,
    ]);
    expect(Array.from(state.positions.subarray(0, 3))).toEqual([0, 0, 0]);
    expect(Array.from(state.velocities.subarray(0, 3))).toEqual([0, 0, 0]);
  });

  test('the cases differ from each other (damping terms are not silently ignored)', () => {
    // A guard against a vacuous comparison: c and r_m each change the 50-step trajectory.
    for (const integrator of EXPLICIT_INTEGRATOR_NAMES) {
      const plain = RECURSIONS[integrator](50, { c: 0, rm: 0 });
      expect(RECURSIONS[integrator](50, { c: 0.5, rm: 0 }).y).not.toBeCloseTo(plain.y, 6);
      expect(RECURSIONS[integrator](50, { c: 0, rm: 0.3 }).y).not.toBeCloseTo(plain.y, 6);
    }
  });

  test('central-difference’s rows differ from symplectic Euler’s (its centred r_m term); variational-symplectic’s cannot', () => {
    for (const rm of RAYLEIGH_CASES('central-difference'))
      for (const c of [0, 0.5]) {
        const euler = RECURSIONS['symplectic-euler'](50, { c, rm });
        const centred = RECURSIONS['central-difference'](50, { c, rm });
        // The centred formula divides the force by 1 + r_m h/2: measured ≥ 2.2e-4 m apart after 50 steps.
        expect(Math.abs(centred.y - euler.y)).toBeGreaterThan(1e-5);
        // p = m v makes the explicit variational scheme symplectic Euler, to rounding.
        const variational = RECURSIONS['variational-symplectic'](50, { c, rm });
        expect(Math.abs(variational.y - euler.y)).toBeLessThan(1e-14);
      }
  });
});

/**
 * On an affine problem (the 1-D spring above) every two-stage second-order Runge–Kutta scheme
 * gives the same numbers, so the 1-D recursions cannot tell Ralston from the midpoint rule. A
 * swinging spring is nonlinear: particle 1 (m = 0.7 kg) at (0.3, −1.2, 0) m moving at (0.4, 0, 0)
 * m/s on a spring of k = 40 N/m, L = 1 m from the fixed origin, gravity −9.81 m/s² along y. With
 * d = x₁, l = |d|: a(x) = −(k/m)(l − L) d/l + g. Ralston: x₂ = x + ⅔ h v, v₂ = v + ⅔ h a(x),
 * x₊ = x + h (¼ v + ¾ v₂), v₊ = v + h (¼ a(x) + ¾ a(x₂)).
 */
describe('Ralston on a nonlinear (swinging) spring', () => {
  type Vec = [number, number];
  const accel = ([x, y]: Vec): Vec => {
    const l = Math.hypot(x, y);
    const s = (-k / m) * (l - L);
    return [(s * x) / l, (s * y) / l + g];
  };
  function ralston(steps: number): { x: Vec; v: Vec } {
    let x: Vec = [0.3, -1.2];
    let v: Vec = [0.4, 0];
    for (let n = 0; n < steps; n++) {
      const a1 = accel(x);
      const x2: Vec = [x[0] + ((2 * h) / 3) * v[0], x[1] + ((2 * h) / 3) * v[1]];
      const v2: Vec = [v[0] + ((2 * h) / 3) * a1[0], v[1] + ((2 * h) / 3) * a1[1]];
      const a2 = accel(x2);
      x = [x[0] + h * (v[0] / 4 + (3 * v2[0]) / 4), x[1] + h * (v[1] / 4 + (3 * v2[1]) / 4)];
      v = [v[0] + h * (a1[0] / 4 + (3 * a2[0]) / 4), v[1] + h * (a1[1] / 4 + (3 * a2[1]) / 4)];
    }
    return { x, v };
  }
  const swing = (integrator: 'ralston' | 'rk2'): CpuSimulation =>
    new CpuSimulation(
      createModel({
        positions: [0, 0, 0, 0.3, -1.2, 0],
        velocities: [0, 0, 0, 0.4, 0, 0],
        masses: [1, m],
        fixed: [0],
        springPairs: [0, 1],
        springStiffness: k,
        springRestLengths: [L],
        gravity: [0, g, 0],
      }),
      { integrator, dt: h },
    );

  test('200 steps match the recursion to 1e-12 (relative) and differ from the midpoint rule', async () => {
    const expected = ralston(200);
    const simulation = swing('ralston');
    simulation.step(200);
    const state = await simulation.readState();
    expectRelativelyClose('x of particle 1', state.positions[3]!, expected.x[0]);
    expectRelativelyClose('y of particle 1', state.positions[4]!, expected.x[1]);
    expectRelativelyClose('vx of particle 1', state.velocities[3]!, expected.v[0]);
    expectRelativelyClose('vy of particle 1', state.velocities[4]!, expected.v[1]);
    const midpoint = swing('rk2');
    midpoint.step(200);
    const other = await midpoint.readState();
    // The schemes differ at O(h³) per step: ~1e-5 m over 200 steps, ≫ the 1e-12 tolerance.
    expect(Math.abs(other.positions[3]! - state.positions[3]!)).toBeGreaterThan(1e-7);
  });
});
