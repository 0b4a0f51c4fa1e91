/**
 * An adaptive program (src/integrators/adaptive-programs.ts) on WebGPU, as the stepper the
 * step-size controller drives: each attempt is one submission (the program's `first` and
 * `attempt` ops with the coefficients of this h), its error norm read back once.
 */
import type { Program } from '../../integrators/program.ts';
import type { Model } from '../../model/model.ts';
import type { AttemptOutcome, GpuAdaptiveStepper } from '../common/stepper.ts';
import { checkDeviceFits } from './device-fits.ts';
import { WebGpuExecutor } from './executor.ts';

/** The norm's tree reduction needs a power of two. */
const WORKGROUP = 64;

export class WebGpuProgramStepper implements GpuAdaptiveStepper {
  readonly estimateOrder: number;
  private readonly executor: WebGpuExecutor;
  private firstValid = false;

  constructor(
    private readonly device: GPUDevice,
    model: Model,
    private readonly program: Program,
    private readonly norm: 'rms' | 'max',
  ) {
    checkDeviceFits(model, device.limits, WORKGROUP);
    this.estimateOrder = program.adaptive!.estimateOrder;
    this.executor = new WebGpuExecutor(device, model, program, 0, WORKGROUP);
  }

  get positions(): GPUBuffer {
    return this.executor.positions;
  }

  get derivativeEvaluations(): number {
    return this.executor.evaluations;
  }

  async attempt(h: number): Promise<AttemptOutcome> {
    this.executor.setStep(h);
    const encoder = this.device.createCommandEncoder({ label: 'WebGpuProgramStepper.attempt' });
    const pass = encoder.beginComputePass();
    if (!this.firstValid) this.executor.encode(pass, 'first');
    this.firstValid = true;
    this.executor.encode(pass, 'attempt');
    pass.end();
    this.executor.encodeNormReadback(encoder);
    this.device.queue.submit([encoder.finish()]);
    return { kind: 'estimated', error: await this.executor.readNorm(this.norm) };
  }

  accept(): void {
    const encoder = this.device.createCommandEncoder({ label: 'WebGpuProgramStepper.accept' });
    const pass = encoder.beginComputePass();
    this.executor.encode(pass, 'accept');
    pass.end();
    this.device.queue.submit([encoder.finish()]);
    this.firstValid = false;
  }

  readCurrent(): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    return this.executor.readState();
  }

  destroy(): void {
    this.executor.destroy();
  }
}
