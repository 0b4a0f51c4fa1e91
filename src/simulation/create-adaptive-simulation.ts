/**
 * Creates an adaptive simulation on the CPU or on WebGPU, choosing on WebGPU between the fused
 * kernel (the whole controller on the GPU, src/backends/webgpu/fused-stepper.ts) and the per-op
 * executor (one readback per attempted step, src/backends/webgpu/program-stepper.ts).
 */
import { WeftInputError } from '../core/errors.ts';
import type { Model } from '../model/model.ts';
import type { AdaptiveOptions } from '../integrators/adaptive-options.ts';
import { adaptiveProgram } from '../integrators/adaptive-programs.ts';
import { resolveAdaptiveOptions, validateOptions } from '../integrators/options.ts';
import { WebGpuProgramStepper } from '../backends/webgpu/program-stepper.ts';
import { FusedAdaptiveStepper, FUSED_MAX_PARTICLES } from '../backends/webgpu/fused-stepper.ts';
import { FusedUnsupported } from '../backends/webgpu/fused-program.ts';
import { withDevice } from '../backends/webgpu/device.ts';
import { requireFeatureSupport } from '../integrators/feature-support.ts';
import { AdaptiveSimulation } from './adaptive-simulation.ts';

/** The backend of an adaptive simulation and, for WebGPU, an optional device of the caller's. */
export interface AdaptiveBackendOptions {
  /** 'cpu' (default) or 'webgpu' (float32). */
  backend?: 'cpu' | 'webgpu';
  /** WebGPU: a device of the caller's, borrowed and never destroyed. */
  device?: GPUDevice;
  /**
   * WebGPU: run the step-size controller on the GPU, many attempted steps per dispatch of one
   * workgroup, reading the state of the controller back once per submission (true), or one
   * dispatch per op and one readback per attempted step (false). Default: true when the model has
   * at most 1,024 particles and the program has a fused form (explicit schemes; implicit ones
   * with solver 'cg' or 'pcg'), false otherwise; true where it has none is an error.
   */
  fused?: boolean;
}

/**
 * Creates an adaptive simulation on the CPU or on WebGPU. rk45, step doubling (of any explicit
 * scheme, Richardson extrapolation included) and, on WebGPU, velocity-implicit-euler are programs
 * (src/integrators/adaptive-programs.ts) that the backends' executors run; the CPU's
 * velocity-implicit-euler is Drake's stepper. The step-size controller is the same algorithm on
 * both (on the GPU, in shaders/fused-adaptive.wgsl, in float32 with the time in two floats).
 */
export async function createAdaptiveSimulation(
  model: Model,
  options: AdaptiveOptions & AdaptiveBackendOptions,
): Promise<AdaptiveSimulation> {
  const backend = options.backend ?? 'cpu';
  if (backend !== 'cpu' && backend !== 'webgpu')
    throw new WeftInputError('backend', `must be 'cpu' or 'webgpu', got '${String(backend)}'`);
  const o = resolveAdaptiveOptions(backend === 'webgpu' ? { ...options, precision: 'f32' } : options);
  validateOptions(options, o.integrator, backend);
  requireFeatureSupport(model, o.integrator);
  if (backend === 'cpu') return new AdaptiveSimulation(model, options);
  const program = adaptiveProgram(o, model);
  // The stepper's own inverse masses and fixed flags, which pin() and release() change (adaptive-edits.ts).
  const stepperModel = { ...model, particleInvMass: model.particleInvMass.slice(), particleFixed: model.particleFixed.slice() }; // prettier-ignore
  const fused = options.fused ?? model.particleCount <= FUSED_MAX_PARTICLES;
  // What the GPU cannot run is refused before a device is requested; what the device refuses
  // while the stepper is made (its pipelines included) fails the creation (withDevice).
  return withDevice(options.device, (device, owned, adapterName) => {
    let stepper: WebGpuProgramStepper | FusedAdaptiveStepper | null = null;
    if (fused) {
      try {
        stepper = new FusedAdaptiveStepper(device, stepperModel, program, o);
      } catch (error) {
        if (!(error instanceof FusedUnsupported)) throw error;
        if (options.fused === true) throw new WeftInputError('fused', `has no form for this program: ${error.message}`); // prettier-ignore
      }
    }
    const made = stepper ?? new WebGpuProgramStepper(device, stepperModel, program, o.tolerances.norm);
    const what = made instanceof FusedAdaptiveStepper ? ', fused' : '';
    return new AdaptiveSimulation(
      stepperModel,
      { ...options, precision: 'f32' },
      {
        stepper: made,
        description: `WebGPU: ${adapterName}${what}`,
        device,
        release: () => {
          made.destroy();
          if (owned) device.destroy();
        },
      },
    );
  });
}
