/**
 * The implicit integrators on WebGPU: a {@link WebGpuSimulation} of an implicit program
 * (src/integrators/implicit-programs.ts), with the resolved options and kernel-level access that
 * the kernel tests and benchmarks use.
 */
import { WeftInputError } from '../../core/errors.ts';
import type {
  ImplicitIntegratorName,
  ResolvedImplicitOptions,
  SolverStats,
} from '../../integrators/implicit-options.ts';
import { resolveImplicitOptions, resolveStepOptions } from '../../integrators/options.ts';
import type { Model } from '../../model/model.ts';
import { withDevice } from './device.ts';
import {
  kernelAccess,
  type ImplicitKernelAccess,
  type SingleKernel,
  type VectorName,
} from './implicit-kernel-access.ts';
import { WebGpuSimulation, type WebGpuSimulationOptions } from './webgpu-simulation.ts';

export type { ImplicitKernelAccess, SingleKernel, VectorName };
export { FLOAT32_TOLERANCE_FLOOR } from './implicit-ops.ts';

/** Options of the implicit WebGPU path. */
export interface WebGpuImplicitOptions extends WebGpuSimulationOptions {
  integrator: ImplicitIntegratorName;
}

/**
 * The most linear-solver iterations one WebGPU step may encode: a step's solves are unrolled into
 * its command list (maxIterations per solve, each Newton iteration a solve), ~3 dispatches each.
 */
export const MAX_ENCODED_ITERATIONS = 1_000_000;

/** Refuses iteration caps the GPU cannot encode, naming the option, before anything is made. */
function requireEncodable(o: ResolvedImplicitOptions): void {
  if (o.maxIterations > MAX_ENCODED_ITERATIONS / 10)
    throw new WeftInputError('maxIterations', `must be at most ${MAX_ENCODED_ITERATIONS / 10} on WebGPU (every iteration is encoded into the step's commands), got ${o.maxIterations}`); // prettier-ignore
  const solves = o.newtonIterations + 1;
  if (solves * o.maxIterations > MAX_ENCODED_ITERATIONS)
    throw new WeftInputError('maxIterations', `× (newtonIterations + 1) must be at most ${MAX_ENCODED_ITERATIONS} on WebGPU (every iteration is encoded), got ${o.maxIterations} × ${solves}`); // prettier-ignore
}

export class WebGpuImplicitSimulation extends WebGpuSimulation {
  declare readonly integrator: ImplicitIntegratorName;
  private access: ImplicitKernelAccess | null = null;

  /** Validates, acquires a device (or borrows the caller's), uploads the model and compiles the program. */
  static override async create(
    model: Model,
    options: WebGpuImplicitOptions,
  ): Promise<WebGpuImplicitSimulation> {
    resolveStepOptions(options);
    requireEncodable(resolveImplicitOptions(options.integrator, options, model.particleCount));
    return withDevice(options.device, (device, owned, name) => new WebGpuImplicitSimulation(model, options, device, owned, name)); // prettier-ignore
  }

  override async readSolverStats(): Promise<SolverStats> {
    return (await super.readSolverStats())!;
  }

  get options(): ResolvedImplicitOptions {
    return this.implicitOptions!;
  }

  /**
   * Runs one kernel (or one whole linear solve) on this simulation's buffers and reads buffers
   * back: for testing each kernel against the CPU reference, and for benchmarks. Not for the
   * real-time path, which never waits on the GPU.
   */
  get kernels(): ImplicitKernelAccess {
    return (this.access ??= kernelAccess(this.executor, this.program));
  }
}
