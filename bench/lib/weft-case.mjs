// One Weft case: a family (integrator on a scene) × size × backend, time-boxed from t = 0.
import { createSimulation, measureCopy, measureProduct } from '../../dist/weft-internal.js';
import { BACKENDS, FAMILIES, SCENES, explicitStepBytes, blowUpNote, qualityOf, stepOf } from './protocol.mjs';
import { timeBoxed } from './timebox.mjs';

/**
 * @param {object} o
 * @param {string} o.family   a key of FAMILIES
 * @param {string} o.backend  a key of BACKENDS
 * @param {import('../../dist/types/index.d.ts').Model} o.model the scene's N×N cloth
 * @param {GPUDevice} [o.device] the shared WebGPU device (webgpu only)
 * @param {number} o.frames   frames to simulate at most (quality figures after the last)
 * @param {number} o.budget   seconds of timing
 * @param {number} o.qualityBudget seconds the case may run to reach `frames`
 * @param {(stepsDone: number) => void} [o.onChunk]
 * @returns {Promise<Record<string, unknown>>} the fields of one result row
 */
export async function runWeftCase({
  family,
  backend,
  model,
  device,
  frames,
  budget,
  qualityBudget,
  onChunk,
}) {
  const { scene: sceneName, integrator, solver } = FAMILIES[family];
  const scene = SCENES[sceneName];
  const { backend: where, precision } = BACKENDS[backend];
  const dt = stepOf(scene);
  const setupStarted = performance.now();
  const sim = await createSimulation(model, {
    backend: where,
    integrator,
    dt,
    ...(where === 'cpu' ? { precision } : { device }),
    ...(solver ? { solver } : {}),
  });
  const setupMs = performance.now() - setupStarted;
  try {
    const maxSteps = frames * scene.stepsPerFrame;
    const copyBefore = where === 'webgpu' ? await measureCopy(device, COPY_ELEMENTS, 5, 3) : undefined;
    const run = await timeBoxed({
      advance: (steps) => sim.advance(steps),
      unit: 1,
      stepsPerFrame: scene.stepsPerFrame,
      maxSteps,
      budget,
      qualityBudget,
      onChunk,
    });
    const state = await sim.readState(); // throws WeftDivergenceError on NaN/Inf
    const stats = await sim.readSolverStats();
    const row = {
      status: 'ok',
      note: '',
      setup_ms: setupMs,
      warm_up_ms: 1000 * run.warmUpSeconds,
      samples: run.samples,
      timed_steps: run.timedSteps,
      ms_per_step: 1000 * run.secondsPerStep,
      ms_per_step_min: 1000 * run.minSecondsPerStep,
      steps_per_s: 1 / run.secondsPerStep,
      sim_s_per_wall_s: dt / run.secondsPerStep,
      sim_time_s: run.stepsDone * dt,
    };
    if (run.stepsDone === maxSteps) {
      const quality = qualityOf(model, state.positions);
      Object.assign(row, {
        quality_time_s: maxSteps * dt,
        sag_m: quality.sag,
        max_strain: quality.maxStrain,
      });
      row.note = blowUpNote(model, quality);
    } else {
      row.note = `time box reached at t = ${(run.stepsDone * dt).toFixed(3)} s, before the ${+(maxSteps * dt).toFixed(3)} s quality figures`;
    }
    if (stats) {
      Object.assign(row, {
        cg_iterations_per_solve: stats.linearIterations / Math.max(1, stats.linearSolves),
        cg_iterations_max: stats.maxLinearIterations,
        cg_residual_last: stats.lastResidual,
      });
      if (stats.unconvergedSolves > 0) {
        row.note = [row.note, `${stats.unconvergedSolves} of ${stats.linearSolves} solves unconverged`]
          .filter(Boolean)
          .join('; ');
      }
    }
    if (copyBefore) Object.assign(row, await bandwidth(sim, model, integrator, run, device, copyBefore));
    return row;
  } finally {
    sim.destroy();
  }
}

/** vec4<f32> elements of the reference copy: 16 MiB read and 16 MiB written per run. */
export const COPY_ELEMENTS = 1 << 20;

/**
 * Achieved bytes/s, and the copy kernel timed just before and just after the case on the same
 * device (the faster of the two). The caller states the fraction against the fastest copy of the
 * whole run (see run.mjs), so that a copy slowed by a burst of other work on the shared CPU
 * (SwiftShader is software) cannot flatter a case. Explicit integrators: the bytes a whole step
 * must move (explicitStepBytes) over the measured ms per step, so every overhead counts against
 * it. Implicit integrators: the matrix-free product q = A p, the kernel CG spends its iterations
 * in, timed on its own by measureProduct at the final state.
 */
async function bandwidth(sim, model, integrator, run, device, copyBefore) {
  const stepBytes = explicitStepBytes(model, integrator);
  const product = stepBytes === null ? await measureProduct(sim, 10, 3) : undefined;
  const copyAfter = await measureCopy(device, COPY_ELEMENTS, 5, 3);
  const copyGBps = Math.max(copyAfter.bytesPerSecond, copyBefore.bytesPerSecond) / 1e9;
  return stepBytes !== null
    ? {
        bandwidth_basis: 'step',
        bytes_per_step: stepBytes,
        achieved_GBps: stepBytes / run.secondsPerStep / 1e9,
        copy_GBps_local: copyGBps,
      }
    : {
        bandwidth_basis: 'product kernel',
        bytes_per_step: '',
        achieved_GBps: product.bytesPerSecond / 1e9,
        copy_GBps_local: copyGBps,
      };
}
