/**
 * Measured global orders of convergence and invariants of the implicit integrators (CPU reference,
 * float64, linear solves to a relative residual of 1e-12).
 *
 * Problem (as test/cpu-convergence.test.ts): an undamped linear oscillator with a known solution.
 * Particle 0 is fixed at the origin; particle 1 (mass m) hangs on a spring of stiffness k and rest
 * length L along the unit axis u, with no gravity. Starting at distance L + A at rest,
 *   d(t) = L + A cos(ω t),  ω = √(k/m) = 2π,  x(t) = d(t) u,  v(t) = −A ω sin(ω t) u
 * (A < L, so the spring never passes through the fixed particle and the force along u is linear
 * in d; the motion stays on the axis, where K = k exactly).
 *
 * Orders: each integrator runs over one period T = 1 s with h, h/2, h/4, h/8; e(h) is the largest
 * position error over all steps, and log2(e(h)/e(h/2)) must lie within ±0.15 of the expected order:
 * implicit-euler 1, backward-euler 1, newmark 2, variational-symplectic-implicit 2.
 *
 * Invariants, on the same oscillator (the energy is computed here: ½ m |v|² + ½ k (|d| − L)²):
 * - implicit Euler (and backward Euler, the same step on a linear force) maps z = (ω (d − L), v)
 *   to (I − h S)⁻¹ z with S skew, and (I − h S)ᵀ(I − h S) = (1 + h²ω²) I: the energy shrinks by
 *   exactly 1/(1 + h²ω²) every step.
 * - Newmark with γ = ½, β = ¼ (the trapezoidal rule) conserves the quadratic energy of a linear
 *   undamped oscillator exactly: |E_n − E₀| ≤ 1e-9 E₀ over 100 periods (rounding only).
 * - The implicit variational scheme is, on a linear force, the implicit midpoint rule in (x, p)
 *   (p₊ − p = h f((x + x₊)/2), x₊ − x = h (p + p₊)/(2m)), which conserves quadratic invariants:
 *   hamiltonian() with state.momenta must stay within 1e-9 H₀ of H₀ over 100 periods, without drift.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { type ImplicitIntegratorName, hamiltonian, createModel } from '../src/index.ts';
import { CpuImplicitSimulation } from '../src/internal.ts';

const m = 0.25;
const k = Math.PI ** 2; // ω² = k/m = 4π²
const omega = Math.sqrt(k / m);
const L = 1;
const A = 0.2;
const PERIOD = (2 * Math.PI) / omega;
const AXIS = [2 / 3, -1 / 3, 2 / 3] as const;
const ORDER_TOLERANCE = 0.15;

const model = createModel({
  positions: [0, 0, 0, ...AXIS.map((c) => (L + A) * c)],
  masses: [m, m],
  fixed: [0],
  springPairs: [0, 1],
  springStiffness: k,
  springRestLengths: [L],
  gravity: [0, 0, 0],
});

function simulation(integrator: ImplicitIntegratorName, h: number): CpuImplicitSimulation {
  return new CpuImplicitSimulation(model, {
    integrator,
    dt: h,
    solver: 'pcg',
    tolerance: 1e-12,
    maxIterations: 50,
  });
}

/** ½ m |v|² + ½ k (|d| − L)² of particle 1, J. */
function oscillatorEnergy(x: Float64Array, v: Float64Array): number {
  const d = Math.hypot(x[3]!, x[4]!, x[5]!);
  return 0.5 * m * (v[3]! ** 2 + v[4]! ** 2 + v[5]! ** 2) + 0.5 * k * (d - L) ** 2;
}

interface ConvergenceCase {
  integrator: ImplicitIntegratorName;
  expectedOrder: number;
  /** Steps per period at the coarsest h; then 2×, 4×, 8×. */
  baseSteps: number;
}

const CASES: ConvergenceCase[] = [
  { integrator: 'implicit-euler', expectedOrder: 1, baseSteps: 400 },
  { integrator: 'backward-euler', expectedOrder: 1, baseSteps: 400 },
  { integrator: 'newmark', expectedOrder: 2, baseSteps: 100 },
  { integrator: 'variational-symplectic-implicit', expectedOrder: 2, baseSteps: 100 },
];

/** Largest position error over one period with `steps` steps per period. */
async function maxError(integrator: ImplicitIntegratorName, steps: number): Promise<number> {
  const h = PERIOD / steps;
  const sim = simulation(integrator, h);
  let worst = 0;
  for (let n = 1; n <= steps; n++) {
    sim.step();
    const { positions } = await sim.readState();
    const d = L + A * Math.cos(omega * n * h);
    const error = Math.hypot(
      positions[3]! - d * AXIS[0],
      positions[4]! - d * AXIS[1],
      positions[5]! - d * AXIS[2],
    );
    worst = Math.max(worst, error);
  }
  return worst;
}

const table: Record<string, string | number>[] = [];
const invariants: Record<string, string | number>[] = [];

afterAll(() => {
  console.log(
    `Measured orders, implicit integrators (ω = 2π, T = 1 s, one period, A = ${A}, e = max position error, m; tolerance ±${ORDER_TOLERANCE}):`,
  );
  console.table(table);
  console.log('Invariants over 100 periods:');
  console.table(invariants);
});

describe('global order of convergence on the undamped oscillator (float64)', () => {
  test.each(CASES.map((c) => [`${c.integrator}: order ${c.expectedOrder}`, c] as const))(
    '%s',
    async (_name, { integrator, expectedOrder, baseSteps }) => {
      const steps = [baseSteps, 2 * baseSteps, 4 * baseSteps, 8 * baseSteps];
      const errors: number[] = [];
      for (const n of steps) errors.push(await maxError(integrator, n));
      const orders = errors.slice(1).map((e, i) => Math.log2(errors[i]! / e));
      table.push({
        integrator,
        h: `1/${baseSteps} … 1/${8 * baseSteps}`,
        'e(h)': errors[0]!.toExponential(2),
        'e(h/8)': errors[3]!.toExponential(2),
        'p(h→h/2)': orders[0]!.toFixed(3),
        'p(h/2→h/4)': orders[1]!.toFixed(3),
        'p(h/4→h/8)': orders[2]!.toFixed(3),
        expected: expectedOrder,
      });
      orders.forEach((order, i) => {
        if (!(Math.abs(order - expectedOrder) <= ORDER_TOLERANCE)) {
          expect.fail(
            `order between h = 1/${steps[i]} and 1/${steps[i + 1]}: measured ${order.toFixed(3)} ` +
              `(e = ${errors[i]!.toExponential(3)} → ${errors[i + 1]!.toExponential(3)}), expected ${expectedOrder} ± ${ORDER_TOLERANCE}`,
          );
        }
      });
    },
  );
});

describe('invariants of the undamped linear oscillator over 100 periods (50 steps per period)', () => {
  const STEPS_PER_PERIOD = 50;
  const PERIODS = 100;
  const h = PERIOD / STEPS_PER_PERIOD;
  const E0 = 0.5 * k * A * A;

  test.each(['implicit-euler', 'backward-euler'] as const)(
    '%s: the energy shrinks by exactly 1/(1 + h²ω²) per step',
    async (integrator) => {
      const sim = simulation(integrator, h);
      const factor = 1 / (1 + (h * omega) ** 2);
      let previous = E0;
      let worst = 0;
      for (let n = 1; n <= 5 * STEPS_PER_PERIOD; n++) {
        sim.step();
        const { positions, velocities } = await sim.readState();
        const e = oscillatorEnergy(positions, velocities);
        worst = Math.max(worst, Math.abs(e / previous - factor));
        previous = e;
      }
      invariants.push({
        integrator,
        quantity: 'E₊/E − 1/(1 + h²ω²), 5 periods',
        'max deviation': worst.toExponential(2),
        bound: '1e-9',
      });
      expect(worst).toBeLessThan(1e-9);
    },
  );

  test('newmark (γ = ½, β = ¼) conserves the energy to 1e-9 E₀', async () => {
    const sim = simulation('newmark', h);
    let worst = 0;
    for (let n = 1; n <= PERIODS * STEPS_PER_PERIOD; n++) {
      sim.step();
      const { positions, velocities } = await sim.readState();
      worst = Math.max(worst, Math.abs(oscillatorEnergy(positions, velocities) - E0) / E0);
    }
    invariants.push({
      integrator: 'newmark',
      quantity: '|E − E₀|/E₀',
      'max deviation': worst.toExponential(2),
      bound: '1e-9',
    });
    expect(worst).toBeLessThan(1e-9);
  });

  test('variational-symplectic-implicit: the Hamiltonian H(x, p) stays within 1e-9 H₀, without drift', async () => {
    const sim = simulation('variational-symplectic-implicit', h);
    let worst = 0;
    const perPeriod: number[] = [];
    let sum = 0;
    for (let n = 1; n <= PERIODS * STEPS_PER_PERIOD; n++) {
      sim.step();
      const state = await sim.readState();
      expect(state.momenta).toBeDefined();
      const H = hamiltonian(model, state.positions, state.momenta!);
      // Cross-check hamiltonian() against the closed form p²/2m + ½ k (|d| − L)².
      const p = state.momenta!;
      const d = Math.hypot(state.positions[3]!, state.positions[4]!, state.positions[5]!);
      const own = (p[3]! ** 2 + p[4]! ** 2 + p[5]! ** 2) / (2 * m) + 0.5 * k * (d - L) ** 2;
      expect(Math.abs(H - own)).toBeLessThan(1e-14);
      const deviation = (H - E0) / E0;
      worst = Math.max(worst, Math.abs(deviation));
      sum += deviation;
      if (n % STEPS_PER_PERIOD === 0) {
        perPeriod.push(sum / STEPS_PER_PERIOD);
        sum = 0;
      }
    }
    // Drift: the mean deviation over the last 10 periods against the first 10.
    const mean = (values: number[]): number => values.reduce((s, x) => s + x, 0) / values.length;
    const drift = mean(perPeriod.slice(-10)) - mean(perPeriod.slice(0, 10));
    invariants.push({
      integrator: 'variational-symplectic-implicit',
      quantity: '|H − H₀|/H₀ (drift: last 10 − first 10 periods)',
      'max deviation': `${worst.toExponential(2)} (drift ${drift.toExponential(2)})`,
      bound: '1e-9',
    });
    expect(worst).toBeLessThan(1e-9);
    expect(Math.abs(drift)).toBeLessThan(1e-9);
  });
});
