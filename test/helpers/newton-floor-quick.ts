/**
 * The quick case of Weft's Newton round-off floor (program.ts NewtonCriterion; wgsl-quick-cases.ts
 * KERNEL_CHECKS.newtonFloor), the hanging particle of test/newton-roundoff-floor.test.ts at rest
 * in float32 on WebGPU, where only the floor can end a Newton loop (its residual is round-off far
 * above tol_a and Σδa ≈ 0): backward Euler per op (solver-scalars.wgsl CARIBOU_CHECK) and
 * velocity-implicit Euler fused (fused-solve.wgsl newtonOutcome; generated, and interpreted
 * under the mutator, see FORMS). Answers analytic: rest stays rest, and every loop ends converged.
 */
import { createModel, createSimulation, type Model } from '../../src/index.ts';
import {
  AdaptiveSimulation,
  adaptiveProgram,
  FusedAdaptiveStepper,
  resolveAdaptiveOptions,
  type FusedForm,
} from '../../src/internal.ts';

const [MASS, STIFFNESS, REST, HEIGHT, GRAVITY] = [0.3 / 1024, 100, 0.001, 0.012, 9.81];
/** Rest in float32: within 4 units of round-off of the height (it starts rounded to float32). */
/** The particle at `height` hangs at rest: its anchor sits L₀ + m g / k above it. */
function hangingParticle(height = HEIGHT): Model {
  const anchor = height + REST + (MASS * GRAVITY) / STIFFNESS;
  return createModel({
    positions: [0, height, 0, 0, anchor, 0],
    masses: [MASS, 1],
    fixed: [1],
    springPairs: [0, 1],
    springStiffness: STIFFNESS,
    springRestLengths: [REST],
  });
}

/** Rest in float32: within 4 units of round-off of the height (it starts rounded to float32). */
function atRest(what: string, y: number, height = HEIGHT): string[] {
  const bound = 4 * 2 ** -24 * height;
  return Math.abs(y - height) <= bound ? [] : [`${what}: y = ${y} m, not ${height} m ± ${bound}`];
}

/**
 * The fused forms run: the generated one; the interpreter too when the WGSL mutator has mutated
 * fused-interpreter.wgsl or fused-common.wgsl (test/wgsl-mutants.run.ts sets the override before
 * it imports the cases):
 * its pipeline compiles in ~26 s on SwiftShader, and npm test checks the interpreter against the
 * generated form in test/gpu-adaptive-fused.test.ts.
 */
const mutated = (globalThis as { __weftWgslOverride?: { file: string } }).__weftWgslOverride?.file;
const FORMS: readonly FusedForm[] =
  mutated === 'fused-interpreter.wgsl' || mutated === 'fused-common.wgsl'
    ? ['generated', 'interpreted']
    : ['generated'];

export async function newtonFloorQuick(device: GPUDevice): Promise<string[]> {
  const failures: string[] = [];
  // Backward Euler, 4 steps: each loop ends at its first or second correction (without the floor
  // every step ran to the cap of 10, unconverged); at 0.012 m and at 4 m (‖x₀‖ > 1 m: a floor
  // scaled by 1/‖x₀‖ instead of ‖x₀‖ is 32 times tighter there, and every step ran to the cap).
  for (const height of [HEIGHT, 4]) {
    const what = `backward Euler at ${height} m`;
    const sim = await createSimulation(hangingParticle(height), { integrator: 'backward-euler', dt: 1 / 60, solver: 'cg', tolerance: 1e-6, maxIterations: 12, backend: 'webgpu', device }); // prettier-ignore
    try {
      sim.step(4);
      const stats = (await sim.readSolverStats())!;
      failures.push(...atRest(what, (await sim.readState()).positions[1]!, height));
      if (stats.unconvergedSteps !== 0) failures.push(`${what}: ${stats.unconvergedSteps} unconverged steps`);
      if (stats.newtonIterations > 2 * 4)
        failures.push(`${what}: ${stats.newtonIterations} Newton iterations > 8`);
    } finally {
      sim.destroy();
    }
  }
  // Velocity-implicit Euler fused, 0.05 s, at 0.012 m and 4 m: float64 takes 1 step (7 for 0.5 s);
  // without the floor the GPU's loops failed and the controller shrank the step (651 steps + 1,510
  // rejections for 0.5 s at 0.012 m).
  const adaptive = { integrator: 'velocity-implicit-euler', precision: 'f32' } as const;
  const o = resolveAdaptiveOptions(adaptive);
  for (const [form, height] of FORMS.flatMap((f) => [HEIGHT, 4].map((y) => [f, y] as const))) {
    const what = `velocity-implicit Euler ${form} at ${height} m`;
    const model = hangingParticle(height);
    const stepper = new FusedAdaptiveStepper(device, model, adaptiveProgram(o, model), o, form);
    const run = new AdaptiveSimulation(model, adaptive, { stepper, description: form, device, release: () => stepper.destroy() }); // prettier-ignore
    try {
      await run.advanceTo(0.05);
      const stats = run.readStats();
      failures.push(...atRest(what, (await run.readState()).positions[1]!, height));
      if (stats.shrinksFromNewtonFailure !== 0) failures.push(`${what}: ${stats.shrinksFromNewtonFailure} Newton failures`); // prettier-ignore
      // At 4 m float32's rounding of x (2.4e-7 m) is in the error estimate: 5 steps measured, not 1.
      if (height === HEIGHT && stats.acceptedSteps + stats.rejectedSteps > 2) failures.push(`${what}: ${stats.acceptedSteps} + ${stats.rejectedSteps} steps > 2`); // prettier-ignore
    } finally {
      run.destroy();
    }
  }
  return failures;
}
