/**
 * The fixed-step multistep and predictor–corrector integrators (spec/integration-methods-lecture-de.md):
 * global orders measured on the oscillator (as test/cpu-convergence.test.ts: one period with h,
 * h/2, h/4, h/8, e = largest position error over all steps, order = log₂ of successive ratios,
 * each within ±0.15 of the expected order), the cost per step, and the corrector's reporting of
 * iterations and non-convergence.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { OSCILLATOR, oscillatorError, oscillatorModel } from './helpers/adaptive-problems.ts';
import { type MultistepIntegratorName, WeftInputError } from '../src/index.ts';
import { CpuMultistepSimulation, MULTISTEP_INTEGRATORS, type MultistepOptions } from '../src/internal.ts';

const ORDER_TOLERANCE = 0.15;

interface Case {
  name: string;
  options: Omit<MultistepOptions, 'dt'>;
  expectedOrder: number;
  baseSteps: number;
}

const CASES: Case[] = [
  {
    name: 'adams-bashforth-2',
    options: { integrator: 'adams-bashforth-2' },
    expectedOrder: 2,
    baseSteps: 100,
  },
  {
    name: 'adams-bashforth-3',
    options: { integrator: 'adams-bashforth-3' },
    expectedOrder: 3,
    baseSteps: 100,
  },
  {
    name: 'adams-moulton-pc (PECE)',
    options: { integrator: 'adams-moulton-pc' },
    expectedOrder: 3,
    baseSteps: 100,
  },
  {
    name: 'adams-moulton-pc (corrector to 1e-13)',
    options: { integrator: 'adams-moulton-pc', maxCorrectorIterations: 30, correctorTolerance: 1e-13 },
    expectedOrder: 3,
    baseSteps: 100,
  },
  { name: 'heun-implicit', options: { integrator: 'heun-implicit' }, expectedOrder: 2, baseSteps: 100 },
  {
    name: 'implicit-euler-pc',
    options: { integrator: 'implicit-euler-pc' },
    expectedOrder: 1,
    baseSteps: 400,
  },
];

async function maxError(options: Omit<MultistepOptions, 'dt'>, steps: number): Promise<number> {
  const h = 1 / steps;
  const simulation = new CpuMultistepSimulation(oscillatorModel(), { ...options, dt: h });
  let worst = 0;
  for (let n = 1; n <= steps; n++) {
    simulation.step();
    const state = await simulation.readState();
    worst = Math.max(worst, oscillatorError(state.positions, state.velocities, n * h).position);
  }
  expect(simulation.readMultistepStats().unconvergedSteps).toBe(0);
  return worst;
}

const table: Record<string, string | number>[] = [];
afterAll(() => {
  console.log('Multistep orders on the oscillator (ω = 2π, one period, e = max position error, m):');
  console.table(table);
});

describe('global order of convergence (oscillator)', () => {
  test.each(CASES.map((c) => [c.name, c.expectedOrder, c] as const))(
    '%s: order %i',
    async (_name, expectedOrder, { options, baseSteps, name }) => {
      const steps = [1, 2, 4, 8].map((f) => f * baseSteps);
      const errors: number[] = [];
      for (const n of steps) errors.push(await maxError(options, n));
      const orders = errors.slice(1).map((e, i) => Math.log2(errors[i]! / e));
      table.push({
        integrator: name,
        h: `1/${steps[0]} … 1/${steps[3]}`,
        'e(h)': errors[0]!.toExponential(2),
        'e(h/8)': errors[3]!.toExponential(2),
        orders: orders.map((p) => p.toFixed(3)).join(', '),
        expected: expectedOrder,
      });
      orders.forEach((p) => expect(Math.abs(p - expectedOrder)).toBeLessThan(ORDER_TOLERANCE));
      expect(MULTISTEP_INTEGRATORS[options.integrator].order).toBe(expectedOrder);
    },
  );
});

describe('cost and corrector statistics', () => {
  test.each([
    ['adams-bashforth-2', 1, 1],
    ['adams-bashforth-3', 2, 1],
    ['adams-moulton-pc', 2, 2],
  ] as const)('%s: %i RK4 starting steps, then %i evaluation(s) per step', (integrator, startup, perStep) => {
    const simulation = new CpuMultistepSimulation(oscillatorModel(), { integrator, dt: 0.01 });
    simulation.step(50);
    const stats = simulation.readMultistepStats();
    expect(stats.startupSteps).toBe(startup);
    // F(y₀), then 4 per RK4 step (3 stages + F of the result), then perStep per step.
    expect(stats.derivativeEvaluations).toBe(1 + 4 * startup + perStep * (50 - startup));
    expect(stats.unconvergedSteps).toBe(0);
  });

  test('implicit Euler by fixed point: iterations grow with h ω (contraction h ω per sweep), and non-convergence above 1 is reported', async () => {
    const { omega } = OSCILLATOR;
    const iterations: number[] = [];
    for (const hOmega of [0.05, 0.2, 0.4]) {
      const simulation = new CpuMultistepSimulation(oscillatorModel(), {
        integrator: 'implicit-euler-pc',
        dt: hOmega / omega,
      });
      simulation.step(10);
      const stats = simulation.readMultistepStats();
      expect(stats.unconvergedSteps).toBe(0);
      expect(stats.converged).toBe(true);
      expect(stats.lastCorrection).toBeLessThanOrEqual(1);
      iterations.push(stats.correctorIterations / 10);
      await simulation.readState();
    }
    expect(iterations[0]!).toBeLessThan(iterations[1]!);
    expect(iterations[1]!).toBeLessThan(iterations[2]!);

    // The iteration contracts by h ω per sweep (the oscillator's F has norm ω in scaled units):
    // at h ω = 1.5 it diverges, and every step says so.
    const unstable = new CpuMultistepSimulation(oscillatorModel(), {
      integrator: 'implicit-euler-pc',
      dt: 1.5 / omega,
      maxCorrectorIterations: 20,
    });
    unstable.step(3);
    const stats = unstable.readMultistepStats();
    expect(stats.unconvergedSteps).toBe(3);
    expect(stats.converged).toBe(false);
    expect(stats.lastCorrection).toBeGreaterThan(1);
    expect(stats.maxCorrectorIterationsInStep).toBe(20);
    const solver = await unstable.readSolverStats();
    expect(solver!.unconvergedSteps).toBe(3);
    expect(solver!.newtonIterations).toBe(60);
  });

  test('implicit Heun (trapezoidal) converges up to h ω < 2, not beyond', () => {
    const { omega } = OSCILLATOR;
    // Contraction h ω / 2 per sweep: at h ω = 1.5 reaching 1e-10 takes ~80 sweeps.
    const run = (hOmega: number): number => {
      const simulation = new CpuMultistepSimulation(oscillatorModel(), {
        integrator: 'heun-implicit',
        dt: hOmega / omega,
        maxCorrectorIterations: 300,
      });
      simulation.step(4);
      return simulation.readMultistepStats().unconvergedSteps;
    };
    expect(run(1.5)).toBe(0);
    expect(run(2.5)).toBe(4);
  });

  test('f32 storage follows f64 to float32 rounding', async () => {
    const run = async (
      precision: 'f64' | 'f32',
    ): Promise<{ positions: Float64Array; velocities: Float64Array }> => {
      const simulation = new CpuMultistepSimulation(oscillatorModel(), {
        integrator: 'adams-bashforth-3',
        dt: 0.005,
        precision,
      });
      await simulation.advance(100);
      return simulation.readState();
    };
    const [a, b] = [await run('f64'), await run('f32')];
    a.positions.forEach((x, k) => expect(Math.abs(x - b.positions[k]!)).toBeLessThan(2e-6));
    // Both ran: after half a period (0.5 s) the closed form has moved particle 1 by 2A = 0.4 m, and
    // AB3 at h ω = 0.031 is within 7.2e-6 m of it (measured, both precisions); allowed 2e-5 m.
    const start = oscillatorModel().particlePositions;
    const moved = Math.hypot(...[3, 4, 5].map((k) => b.positions[k]! - start[k]!));
    expect(Math.abs(moved - 2 * OSCILLATOR.A)).toBeLessThan(2e-5);
    for (const state of [a, b])
      expect(oscillatorError(state.positions, state.velocities, 0.5).position).toBeLessThan(2e-5);
  });

  test.each([
    ['integrator', { integrator: 'adams-bashforth-4' as MultistepIntegratorName, dt: 0.01 }],
    ['dt', { integrator: 'adams-bashforth-2', dt: 0 }],
    ['rayleighMass', { integrator: 'adams-bashforth-2', dt: 0.01, rayleighMass: -1 }],
    ['precision', { integrator: 'adams-bashforth-2', dt: 0.01, precision: 'f16' as never }],
    ['correctorTolerance', { integrator: 'heun-implicit', dt: 0.01, correctorTolerance: 0 }],
    ['maxCorrectorIterations', { integrator: 'heun-implicit', dt: 0.01, maxCorrectorIterations: 0.5 }],
  ] as [string, MultistepOptions][])('a bad %s is a WeftInputError naming it', (field, options) => {
    let error: unknown;
    try {
      new CpuMultistepSimulation(oscillatorModel(), options);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WeftInputError);
    expect((error as WeftInputError).field).toBe(field);
  });
});
