/**
 * rk45 against an independent peer: `odex` (npm), Colin Smith's port of Hairer & Wanner's ODEX
 * (Gragg–Bulirsch–Stoer extrapolation, a different method from Runge–Kutta, with its own step
 * control). The right-hand side given to odex is written here from the physics (Hooke springs,
 * gravity, pinned particles), not from Weft's passes, so the comparison checks the force passes too.
 *
 * Problem: a 6 × 6 cloth (buildCloth defaults: k = 1000 N/m structural, shear and bend, 0.1 kg per
 * particle, top corners pinned) falling for 0.25 s. odex at rtol = atol = 1e-13 is the reference;
 * rk45 at accuracy 1e-12 must match it to 1e-12 m and 1e-10 m/s (measured: 7e-14 m, 1.3e-11 m/s),
 * and at looser accuracies its distance to the reference must scale like the tolerance.
 */
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { logSlope } from './helpers/adaptive-problems.ts';
import { buildCloth, type Model } from '../src/index.ts';
import { AdaptiveSimulation } from '../src/internal.ts';

/** The part of odex's API used here (its package ships TypeScript sources, not declarations). */
interface OdexSolver {
  absoluteTolerance: number;
  relativeTolerance: number;
  maxSteps: number;
  solve(
    f: (t: number, y: number[]) => number[],
    t0: number,
    y0: number[],
    t1: number,
  ): { y: number[]; outcome: number; nStep: number; nAccept: number; nReject: number; nEval: number };
}
const { Solver } = createRequire(import.meta.url)('odex') as { Solver: new (n: number) => OdexSolver };

/** y = (x, v), y' = (v, f(x)/m + g) on free particles, 0 on pinned ones. */
function clothDerivative(model: Model): (t: number, y: number[]) => number[] {
  const n = model.particleCount;
  return (_t, y) => {
    const force = new Float64Array(3 * n);
    for (let s = 0; s < model.springCount; s++) {
      const a = model.springIndices[2 * s]!;
      const b = model.springIndices[2 * s + 1]!;
      const d = [0, 1, 2].map((c) => y[3 * b + c]! - y[3 * a + c]!);
      const length = Math.hypot(d[0]!, d[1]!, d[2]!);
      const tension = (model.springStiffness[s]! * (length - model.springRestLength[s]!)) / length;
      for (let c = 0; c < 3; c++) {
        force[3 * a + c]! += tension * d[c]!;
        force[3 * b + c]! -= tension * d[c]!;
      }
    }
    const dy = new Array<number>(6 * n).fill(0);
    for (let i = 0; i < n; i++) {
      if (model.particleFixed[i]) continue;
      for (let c = 0; c < 3; c++) {
        dy[3 * i + c] = y[3 * n + 3 * i + c]!;
        dy[3 * n + 3 * i + c] = force[3 * i + c]! / model.particleMass[i]! + model.gravity[c]!;
      }
    }
    return dy;
  };
}

const T = 0.25;

describe('rk45 vs odex on a falling 6 × 6 cloth', () => {
  const model = buildCloth({ nx: 6, ny: 6 });
  const n3 = 3 * model.particleCount;
  const solver = new Solver(2 * n3);
  solver.absoluteTolerance = solver.relativeTolerance = 1e-13;
  solver.maxSteps = 100_000;
  const reference = solver.solve(
    clothDerivative(model),
    0,
    [...model.particlePositions, ...model.particleVelocities],
    T,
  );

  async function distance(accuracy: number, precision: 'f64' | 'f32' = 'f64') {
    const simulation = new AdaptiveSimulation(model, {
      integrator: 'rk45',
      accuracy,
      absoluteTolerance: accuracy,
      precision,
    });
    await simulation.advanceTo(T);
    const state = await simulation.readState();
    let position = 0;
    let velocity = 0;
    for (let k = 0; k < n3; k++) {
      position = Math.max(position, Math.abs(state.positions[k]! - reference.y[k]!));
      velocity = Math.max(velocity, Math.abs(state.velocities[k]! - reference.y[n3 + k]!));
    }
    return { position, velocity, steps: simulation.readStats().acceptedSteps };
  }

  test('odex converged', () => {
    expect(reference.outcome).toBe(0);
    // The cloth has fallen and swung: the comparison is not of a state at rest.
    expect(Math.min(...reference.y.slice(0, n3).filter((_, k) => k % 3 === 1))).toBeLessThan(-0.1);
  });

  test('at accuracy 1e-12 rk45 matches odex to 1e-12 m and 1e-10 m/s', async () => {
    const { position, velocity, steps } = await distance(1e-12);
    console.log(
      `rk45 (1e-12, ${steps} steps) vs odex (1e-13, ${reference.nAccept} steps, ${reference.nEval} evaluations): ` +
        `${position.toExponential(2)} m, ${velocity.toExponential(2)} m/s`,
    );
    expect(position).toBeLessThan(1e-12);
    expect(velocity).toBeLessThan(1e-10);
  });

  test('at looser accuracies the distance to odex scales like the tolerance', async () => {
    const accuracies = [1e-6, 1e-8, 1e-10];
    const distances: number[] = [];
    for (const accuracy of accuracies) {
      const { position, velocity } = await distance(accuracy);
      distances.push(position);
      // Measured 0.066–0.089 accuracy (m) on a cloth that moves 0.31 m: allowed 1 accuracy.
      expect(position).toBeLessThan(accuracy);
      // Velocities (which swing by 2.4 m/s) carry ω × the position error: measured 13–23 accuracy; allowed 50.
      expect(velocity).toBeLessThan(50 * accuracy);
    }
    const slope = logSlope(accuracies, distances);
    expect(slope).toBeGreaterThan(0.8);
    expect(slope).toBeLessThan(1.2);
  });

  test('float32 storage stays within float32 rounding of the reference', async () => {
    const { position } = await distance(1e-5, 'f32');
    // rk45's own error at 1e-5 (≈ 0.08 accuracy, as above) plus float32 storage rounding of |x| ≲ 1 m
    // (6e-8 m per store, ~30 steps): measured 1.2e-6 m; allowed 4e-6 m.
    expect(position).toBeLessThan(4e-6);
  });
});

describe('float32 storage', () => {
  test('velocity-implicit-euler with f32 storage follows the f64 run on a cloth, which follows odex', async () => {
    const model = buildCloth({ nx: 6, ny: 6 });
    const n3 = 3 * model.particleCount;
    const solver = new Solver(2 * n3);
    solver.absoluteTolerance = solver.relativeTolerance = 1e-13;
    solver.maxSteps = 100_000;
    const reference = solver.solve(
      clothDerivative(model),
      0,
      [...model.particlePositions, ...model.particleVelocities],
      0.2,
    );
    expect(reference.outcome).toBe(0);
    const run = async (precision: 'f64' | 'f32') => {
      const simulation = new AdaptiveSimulation(model, {
        integrator: 'velocity-implicit-euler',
        accuracy: 1e-3,
        precision,
      });
      await simulation.advanceTo(0.2);
      return { state: await simulation.readState(), stats: simulation.readStats() };
    };
    const [a, b] = [await run('f64'), await run('f32')];
    let worst = 0;
    a.state.positions.forEach((x, k) => (worst = Math.max(worst, Math.abs(x - b.state.positions[k]!))));
    console.log(
      `velocity-implicit-euler f32 vs f64 storage after 0.2 s: ${worst.toExponential(2)} m; steps ${b.stats.acceptedSteps} vs ${a.stats.acceptedSteps}, unconverged PCG solves (f32) ${b.stats.newton.unconvergedLinearSolves}, Newton iterations ${b.stats.newton.iterations} vs ${a.stats.newton.iterations}, PCG iterations ${b.stats.newton.linearIterations} vs ${a.stats.newton.linearIterations}`,
    );
    // Float32 storage rounds |x| ≲ 1 m by ≤ 6e-8 m per store; over 30–80 steps with the same step
    // sequence, ≤ 5e-6 m: measured 0.8–1.4e-7 m; allowed 1e-5 m (0.005 % of the 0.196 m motion).
    expect(worst).toBeLessThan(1e-5);
    expect(b.stats.accuracyMet).toBe(true);
    // The f64 run against odex, per coordinate, as fractions of the largest motion in the run
    // (0.196 m, 1.96 m/s): first-order backward Euler under per-step control, measured 1.1–2.1 % (x)
    // and 3.1–6.9 % (v) (the step controller's versions differ); allowed 4 % and 12 %.
    let motionX = 0;
    let motionV = 0;
    let errorX = 0;
    let errorV = 0;
    for (let k = 0; k < n3; k++) {
      motionX = Math.max(motionX, Math.abs(reference.y[k]! - model.particlePositions[k]!));
      motionV = Math.max(motionV, Math.abs(reference.y[n3 + k]! - model.particleVelocities[k]!));
      errorX = Math.max(errorX, Math.abs(a.state.positions[k]! - reference.y[k]!));
      errorV = Math.max(errorV, Math.abs(a.state.velocities[k]! - reference.y[n3 + k]!));
    }
    expect(motionX).toBeGreaterThan(0.19);
    expect(motionV).toBeGreaterThan(1.9);
    expect(errorX).toBeLessThan(0.04 * motionX);
    expect(errorV).toBeLessThan(0.12 * motionV);
    // It moved: the particle that moves most in the reference moved as far, to the same 4 %.
    let farthest = 0;
    for (let k = 0; k < n3; k++)
      if (Math.abs(reference.y[k]! - model.particlePositions[k]!) === motionX) farthest = k;
    const moved = Math.abs(a.state.positions[farthest]! - model.particlePositions[farthest]!);
    expect(Math.abs(moved - motionX)).toBeLessThan(0.04 * motionX);
  });
});
