/**
 * velocity-implicit-euler's WebGPU program (step doubling of backward Euler, three Newton loops
 * per attempt) run attempt by attempt on both executors — WebGPU and the CPU's, float32 storage —
 * with the same steps h: the error norms, the Newton and CG totals and the accepted states must
 * agree. This checks the implicit ops (jacobians, rhs, solve, measure, newton) inside an adaptive
 * program, where the half steps' coefficients are those of h/2 (scaleStep) and the loops' vectors
 * are renamed copies; and with bending, a turbulent wind (each rhs's at its half step's time) and
 * a strain limit (sweeps after each accepted step), the program adaptiveProgram() makes.
 */
import { expect, test } from 'vitest';
import {
  buildCloth,
  createSimulation,
  withBending,
  withStrainLimit,
  withWind,
  type Model,
} from '../src/index.ts';
import {
  adaptiveProgram,
  CpuProgramStepper,
  resolveAdaptiveOptions,
  resolveImplicitOptions,
  velocityImplicitProgram,
  WebGpuProgramStepper,
} from '../src/internal.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);

/** A 6 × 6 hanging cloth, stiff enough (k = 2000 N/m) that h = 4 ms needs several Newton iterations. */
function cloth(): Model {
  return buildCloth({ nx: 6, ny: 6, spacing: 0.1, structuralStiffness: 2000, shearStiffness: 2000, bendStiffness: 500, damping: 0.5, orientation: 'vertical' }); // prettier-ignore
}

const TOLERANCES = { relative: 1e-3, absolutePosition: 1e-3, absoluteVelocity: 1e-3, positionWeight: 1, velocityWeight: 1, norm: 'rms' as const }; // prettier-ignore

test('velocity-implicit Euler as a program: WebGPU and the CPU executor (f32) agree attempt by attempt', async () => {
  const model = cloth();
  // Newton stops at a relative correction or residual of 1e-3: float32 forces of a k = 2000 N/m
  // cloth carry noise near 1e-5 N, where the default 1e-4 can stall a loop on one backend only.
  const implicit = resolveImplicitOptions('backward-euler', { solver: 'pcg', tolerance: 1e-5, maxIterations: 200, newtonIterations: 10, correctionTolerance: 1e-3, residualTolerance: 1e-3 }); // prettier-ignore
  const program = velocityImplicitProgram(0, TOLERANCES, implicit);
  const gpu = new WebGpuProgramStepper(node.runner(), model, program, 'rms');
  const cpu = new CpuProgramStepper(model, { positions: model.particlePositions, velocities: model.particleVelocities }, program, 'f32'); // prettier-ignore
  try {
    const steps = [4e-3, 4e-3, 2e-3, 8e-3, 4e-3];
    for (const [k, h] of steps.entries()) {
      const [g, c] = [await gpu.attempt(h, 0), cpu.attempt(h, 0)];
      expect(g.kind, `attempt ${k}`).toBe('estimated');
      expect(c.kind, `attempt ${k}`).toBe('estimated');
      if (g.kind === 'estimated' && c.kind === 'estimated')
        expect(Math.abs(g.error - c.error), `attempt ${k}: error norm ${g.error} vs ${c.error}`).toBeLessThan(1e-3 * c.error); // prettier-ignore
      gpu.accept();
      cpu.accept();
    }
    // Each attempt: one loop of h and two of h/2, one linear solve per Newton iteration; the loop
    // of h is the error estimator's (measured: 6 iterations per attempt, 2 of them the estimator's).
    expect(gpu.newton.iterations).toBeGreaterThanOrEqual(3 * steps.length);
    expect(Math.abs(gpu.newton.iterations - cpu.newton.iterations)).toBeLessThanOrEqual(steps.length);
    expect(gpu.newton.linearSolves).toBe(gpu.newton.iterations);
    expect(cpu.newton.linearSolves).toBe(cpu.newton.iterations);
    expect(gpu.newton.errorEstimatorIterations).toBeGreaterThanOrEqual(steps.length);
    expect(gpu.newton.errorEstimatorIterations).toBeLessThan(gpu.newton.iterations);
    expect(gpu.newton.failedSolves + cpu.newton.failedSolves).toBe(0);
    const state = await gpu.readCurrent();
    const reference = cpu.current;
    expectClose(state.positions, reference.positions, { absolute: 1e-5, relative: 1e-4 }, 'positions (m)');
    expectClose(
      state.velocities,
      reference.velocities,
      { absolute: 1e-3, relative: 1e-3 },
      'velocities (m/s)',
    );
    // It moved: the comparison is not between two unchanged states.
    let moved = 0;
    for (let k = 0; k < reference.positions.length; k++)
      moved = Math.max(moved, Math.abs(reference.positions[k]! - model.particlePositions[k]!));
    expect(moved).toBeGreaterThan(1e-4);
  } finally {
    gpu.destroy();
  }
});

// Caribou's criteria are each disabled by a tolerance ≤ 0 (src/integrators/implicit-options.ts):
// with the correction test off, backward Euler's Newton loops stop by the residual test alone, on
// the GPU exactly as on the CPU. (The WGSL mutant `tc > 0` → `tc >= 0` is equivalent: with tc = 0
// the test ‖δa‖² < 0 · ‖Σδa‖² can never hold either way.)
test('backward Euler with the correction criterion disabled (0): the GPU stops its Newton loops where the CPU does', async () => {
  const model = cloth();
  // CG capped at 36, 1.5 times the most a solve takes (measured 24; the default is 200): step()
  // on WebGPU encodes every iteration up to the cap in each of the 9 Newton slots; every solve
  // converged is asserted below.
  const options = { integrator: 'backward-euler', dt: 1 / 60, correctionTolerance: 0, residualTolerance: 1e-3, newtonIterations: 8, maxIterations: 36 } as const; // prettier-ignore
  const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device: node.runner() });
  const cpu = await createSimulation(model, { ...options, precision: 'f32' });
  const enabled = await createSimulation(model, { ...options, correctionTolerance: 1e-1, precision: 'f32' });
  try {
    for (const s of [gpu, cpu, enabled]) s.step(4);
    const [g, c, e] = [(await gpu.readSolverStats())!, (await cpu.readSolverStats())!, (await enabled.readSolverStats())!]; // prettier-ignore
    console.log(`most CG iterations in a solve: GPU ${g.maxLinearIterations}, CPU ${c.maxLinearIterations}`);
    expect(g.unconvergedSolves + c.unconvergedSolves + e.unconvergedSolves).toBe(0);
    expect(g.newtonIterations).toBe(c.newtonIterations);
    expect(g.unconvergedSteps).toBe(c.unconvergedSteps);
    // The criterion matters here: enabled at 1e-1 it stops the loops earlier.
    expect(e.newtonIterations).toBeLessThan(c.newtonIterations);
  } finally {
    for (const s of [gpu, cpu, enabled]) s.destroy();
  }
});

test('velocity-implicit Euler with hinges, a turbulent wind and a strain limit: WebGPU and the CPU executor (f32) agree attempt by attempt', async () => {
  const hinged = withBending(cloth(), { stiffness: 0.5, damping: 0.01 });
  const windy = withWind(hinged, { velocity: [0, 0, 4], turbulence: 2, turbulencePeriod: 0.02, turbulenceWavelength: 0.3 }); // prettier-ignore
  const model = withStrainLimit(windy, { maxStretch: 0.02, iterations: 4 });
  const options = resolveAdaptiveOptions({ integrator: 'velocity-implicit-euler', linearTolerance: 1e-5 });
  const program = adaptiveProgram(options, model);
  const kinds = new Set(program.adaptive!.attempt.flatMap(function all(op): string[] { return op.op === 'newton' ? [...op.begin, ...op.residual, ...op.update].flatMap(all) : [op.op]; })); // prettier-ignore
  expect([...kinds].filter((k) => k === 'aero' || k === 'rhs').sort()).toEqual(['aero', 'rhs']);
  expect(program.adaptive!.accept.filter((op) => op.op === 'strainCorrection')).toHaveLength(4);
  const gpu = new WebGpuProgramStepper(node.runner(), model, program, 'max');
  const cpu = new CpuProgramStepper(model, { positions: model.particlePositions, velocities: model.particleVelocities }, program, 'f32'); // prettier-ignore
  const bare = new CpuProgramStepper(cloth(), { positions: model.particlePositions, velocities: model.particleVelocities }, adaptiveProgram(options, cloth()), 'f32'); // prettier-ignore
  try {
    // A start time off the turbulence's phase 0, so that a wrong clock shows, and late: at 10⁴ s a
    // float32 time rounds by up to 4.9e-4 s, 0.15 rad of the 20 ms waves (aero-ops.ts folds t₀ in f64).
    let t = 10000.013;
    for (const h of [4e-3, 4e-3, 2e-3, 4e-3]) {
      const [g, c] = [await gpu.attempt(h, t), cpu.attempt(h, t)];
      bare.attempt(h, t);
      expect(g.kind).toBe('estimated');
      if (g.kind === 'estimated' && c.kind === 'estimated')
        expect(Math.abs(g.error - c.error), `error norm ${g.error} vs ${c.error}`).toBeLessThan(1e-2 * c.error); // prettier-ignore
      [gpu, cpu, bare].forEach((s) => s.accept());
      t += h;
    }
    const state = await gpu.readCurrent();
    // float32 on both, the same program and steps: measured 3.0e-8 m apart; 30× that.
    expectClose(state.positions, cpu.current.positions, 1e-6, 'positions (m)');
    // The features moved the cloth away from where the springs alone take it (the wind's 4 m/s
    // push, the hinges, the sweeps) by 1.45e-4 m, 5,000× the backends' difference.
    let apart = 0;
    for (let k = 0; k < state.positions.length; k++)
      apart = Math.max(apart, Math.abs(cpu.current.positions[k]! - bare.current.positions[k]!));
    const diff = Math.max(...state.positions.map((x, k) => Math.abs(x - cpu.current.positions[k]!)));
    console.log(
      `features moved the cloth by ${apart.toExponential(2)} m; GPU vs CPU f32 ${diff.toExponential(2)} m`,
    );
    expect(apart).toBeGreaterThan(1e-4);
  } finally {
    gpu.destroy();
  }
});
