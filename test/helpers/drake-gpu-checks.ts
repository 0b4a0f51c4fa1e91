/**
 * Drake's spring–mass tests (test/helpers/drake-spring-mass.ts) on WebGPU: velocity-implicit-euler
 * with Drake's error control, held to the bounds Drake enforces, each run inside its own error
 * scopes. Used by test/gpu-adaptive-node.test.ts (Dawn in Node; the browser runs the same
 * SwiftShader). These small models run fused (the controller on the GPU, fused-stepper.ts):
 * SpringMassStepTest's ~850 attempts take a few seconds (~80 s one readback per attempt).
 *
 * Not run on the GPU: ErrorEstimationTest's h = 1e-8 s (its bound 1e-14 m is below float32's
 * spacing, 7.5e-9 at x = 0.1 m), and SpringMassDamperStiffTest (its accuracy 1e-6 m/s is below the
 * float32 spacing of v ≈ 100 m/s, 7.6e-6; tried fused on 25 Nov 2026: the float32 Newton loop
 * (k = 1e10) fails at the minimum step 1e-5 s at t = 1e-5 s, a WeftStepSizeError); the CPU runs
 * both (test/adaptive-velocity-implicit-euler.test.ts).
 */
import { describe, expect, test } from 'vitest';
import { runScoped, type WithErrors } from './implicit-cases.ts';
import {
  ACCURACY_EFFECTS,
  drakeSpringModel,
  ERROR_ESTIMATION,
  errorEstimationStep,
  runDrake,
  SPRING_MASS_STEP,
  springMassSolution,
} from './drake-spring-mass.ts';

/** Runs `run` on a device inside error scopes (see runScoped). */
export interface DrakeGpuRunner {
  run<T extends object>(run: (device: GPUDevice) => Promise<T>): Promise<WithErrors<T>>;
}

export function drakeGpuRunner(device: GPUDevice, uncaptured: string[]): DrakeGpuRunner {
  return { run: (run) => runScoped(device, uncaptured, () => run(device)) };
}

/** SpringMassStepTest's ~850 GPU attempts take ~80 s on SwiftShader alone. */
const LONG_TEST_MS = 600_000;

/**
 * PCG iterations per Newton solve: 2. The mass is one 3×3 block, which the block preconditioner
 * solves in one iteration; the GPU encodes every allowed iteration (the default 1000 makes an
 * attempt ~1.8× slower here, measured, with identical results).
 */
const GPU_SOLVER = { linearMaxIterations: 2 } as const;

export function describeDrakeGpuSuite(runner: () => DrakeGpuRunner): void {
  describe("Drake's spring–mass tests on WebGPU (velocity-implicit-euler, errorControl 'drake')", () => {
    test(
      'SpringMassStepTest: |x(1) − x_true| ≤ 5e-3 m',
      async () => {
        const { k, x0, v0, tEnd, positionBound, options } = SPRING_MASS_STEP;
        const result = await runner().run(async (device) => ({
          gpu: await runDrake(drakeSpringModel(k, x0, v0), { ...options, ...GPU_SOLVER }, tEnd, {
            backend: 'webgpu',
            device,
          }),
        }));
        expect(result.errors).toEqual([]);
        const { gpu } = result;
        const error = gpu.x - springMassSolution(k, x0, v0, tEnd).x;
        console.log(
          `WebGPU SpringMassStepTest: x error ${error.toExponential(3)} m (Drake's bound ${positionBound}), ${gpu.stats.acceptedSteps} steps, ${gpu.stats.rejectedSteps} rejected`,
        );
        expect(gpu.time).toBe(tEnd);
        // implicit_integrator_test.h SpringMassStepTest: EXPECT_NEAR(x_final_true, x_final, 5e-3).
        expect(Math.abs(error)).toBeLessThanOrEqual(positionBound);
        expect(gpu.stats.accuracyMet).toBe(true);
      },
      LONG_TEST_MS,
    );

    test('SpringMassStepAccuracyEffectsTest: the looser accuracy gives the larger error', async () => {
      const e = ACCURACY_EFFECTS;
      const exact = springMassSolution(e.k, e.x0, e.v0, e.tEnd);
      const result = await runner().run(async (device) => {
        const errors: number[] = [];
        for (const accuracy of e.accuracies) {
          const options = { ...e.options, ...GPU_SOLVER, accuracy };
          const run = await runDrake(drakeSpringModel(e.k, e.x0, e.v0), options, e.tEnd, { backend: 'webgpu', device }); // prettier-ignore
          errors.push(Math.abs(run.x - exact.x));
        }
        return { positionErrors: errors };
      });
      expect(result.errors).toEqual([]);
      const [tight, loose] = result.positionErrors as [number, number];
      // implicit_integrator_test.h SpringMassStepAccuracyEffectsTest: EXPECT_GT(loose error, tight error).
      expect(loose).toBeGreaterThan(tight);
    });

    const { initialConditions, steps } = ERROR_ESTIMATION;
    const gpuSteps = steps.filter(({ h }) => h >= 1e-4);
    test.each(
      gpuSteps.flatMap(({ h, atol }) => initialConditions.map(([x0, v0]) => [h, x0, v0, atol] as const)),
    )(
      'ErrorEstimationTest: one step h = %s from x₀ = %s m, v₀ = %s m/s, error and |error − estimate| ≤ %s',
      async (h, x0, v0, atol) => {
        const result = await runner().run((device) => errorEstimationStep(x0, v0, h, { backend: 'webgpu', device }, GPU_SOLVER)); // prettier-ignore
        expect(result.errors).toEqual([]);
        expect(result.steps).toBe(1);
        // implicit_integrator_test.h ErrorEstimationTest: EXPECT_LE(err, atol[j]), EXPECT_LE(|err − est|, atol[j]).
        expect(result.error).toBeLessThanOrEqual(atol);
        expect(Math.abs(result.error - result.estimate)).toBeLessThanOrEqual(atol);
      },
    );
  });
}
