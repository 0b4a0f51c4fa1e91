/**
 * Measured global orders of convergence of every integrator (CPU reference, float64).
 *
 * Problem: an undamped linear oscillator with a known solution. Particle 0 is fixed at the origin;
 * particle 1 (mass m) hangs on a spring of stiffness k and rest length L along the unit axis u, with
 * no gravity. Starting at distance L + A at rest, its distance is exactly
 *   d(t) = L + A cos(ω t),  ω = √(k/m),  x(t) = d(t) u,  v(t) = −A ω sin(ω t) u
 * (the spring never passes through the fixed particle since A < L, so the force is linear in d).
 * m and k are chosen so that ω = 2π: the period is T = 1 s.
 *
 * Each integrator runs over one period with h, h/2, h/4, h/8; e(h) is the largest position error
 * |x_n − x(n h)| over all steps (the final error alone is misleading: at t = T the phase error
 * does not show in x to first order, since ẋ(T) = 0). The order is log2(e(h)/e(h/2)) for each
 * halving, and every one of the three must lie within ±0.15 of the expected order. The base h is
 * chosen per integrator so that the coarsest pair is in the asymptotic regime and the finest error
 * is still far above float64 rounding (RK4's error at h = 1/400 is ~5e-10 m). On this linear
 * problem rk2 and heun have the same stability polynomial 1 + z + z²/2, so their errors coincide.
 *
 * central-difference is leapfrog: its velocity lives at half steps, v_n ≈ v(t_n + h/2) after the
 * step (x₊ = x + h v₊). Started with the exact half-step velocity v(−h/2) = A ω sin(ω h/2) u it is
 * second order; started collocated (v₀ = v(0) = 0) the initial velocity is off by O(h) and the
 * method is first order. Symplectic Euler and the explicit variational symplectic scheme are the
 * same recursion with the velocity read as collocated, hence first order from a collocated start.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { createModel, createSimulation, type ExplicitIntegratorName } from '../src/index.ts';

const m = 0.25;
const k = Math.PI ** 2; // ω² = k/m = 4π²
const omega = Math.sqrt(k / m);
const L = 1;
const A = 0.2;
const PERIOD = (2 * Math.PI) / omega;
const AXIS = [2 / 3, -1 / 3, 2 / 3] as const;
const ORDER_TOLERANCE = 0.15;

type Start = 'collocated' | 'half-step';

interface ConvergenceCase {
  integrator: ExplicitIntegratorName;
  start: Start;
  expectedOrder: number;
  /** Steps per period at the coarsest h; then 2×, 4×, 8×. */
  baseSteps: number;
}

const CASES: ConvergenceCase[] = [
  { integrator: 'explicit-euler', start: 'collocated', expectedOrder: 1, baseSteps: 800 },
  { integrator: 'symplectic-euler', start: 'collocated', expectedOrder: 1, baseSteps: 200 },
  { integrator: 'variational-symplectic', start: 'collocated', expectedOrder: 1, baseSteps: 200 },
  { integrator: 'rk2', start: 'collocated', expectedOrder: 2, baseSteps: 100 },
  { integrator: 'heun', start: 'collocated', expectedOrder: 2, baseSteps: 100 },
  { integrator: 'ralston', start: 'collocated', expectedOrder: 2, baseSteps: 100 },
  { integrator: 'rk4', start: 'collocated', expectedOrder: 4, baseSteps: 50 },
  { integrator: 'central-difference', start: 'half-step', expectedOrder: 2, baseSteps: 100 },
  { integrator: 'central-difference', start: 'collocated', expectedOrder: 1, baseSteps: 200 },
];

/** Largest position error over one period with `steps` steps per period. */
async function maxError(integrator: ExplicitIntegratorName, start: Start, steps: number): Promise<number> {
  const h = PERIOD / steps;
  // v(−h/2) = A ω sin(ω h/2) u for the leapfrog start; v(0) = 0 otherwise.
  const speed = start === 'half-step' ? A * omega * Math.sin((omega * h) / 2) : 0;
  const model = createModel({
    positions: [0, 0, 0, ...AXIS.map((c) => (L + A) * c)],
    velocities: [0, 0, 0, ...AXIS.map((c) => speed * c)],
    masses: [m, m],
    fixed: [0],
    springPairs: [0, 1],
    springStiffness: k,
    springRestLengths: [L],
    gravity: [0, 0, 0],
  });
  const simulation = await createSimulation(model, { integrator, dt: h });
  let worst = 0;
  for (let n = 1; n <= steps; n++) {
    simulation.step();
    const { positions } = await simulation.readState();
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

afterAll(() => {
  console.log(
    `Measured orders (ω = 2π, T = 1 s, one period, A = ${A}, e = max position error, m; tolerance ±${ORDER_TOLERANCE}):`,
  );
  console.table(table);
});

describe('global order of convergence on the undamped oscillator (float64)', () => {
  test.each(CASES.map((c) => [`${c.integrator}, ${c.start} start: order ${c.expectedOrder}`, c] as const))(
    '%s',
    async (_name, { integrator, start, expectedOrder, baseSteps }) => {
      const steps = [baseSteps, 2 * baseSteps, 4 * baseSteps, 8 * baseSteps];
      const errors: number[] = [];
      for (const n of steps) errors.push(await maxError(integrator, start, n));
      const orders = errors.slice(1).map((e, i) => Math.log2(errors[i]! / e));
      table.push({
        integrator,
        start,
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
