/**
 * An adaptive program (src/integrators/adaptive-programs.ts) on WebGPU, as the stepper the
 * step-size controller drives: each attempt is one submission (the program's `first` and
 * `attempt` ops with the coefficients of this h), its error norm read back once. Implicit programs
 * (velocity-implicit Euler) run their attempt with checkpoints (finished solves skipped) and read
 * the solver's totals back once per attempt: a Newton loop that ended unconverged fails it.
 */
import { emptyNewtonStats, type NewtonStats } from '../../integrators/adaptive-options.ts';
import { emptyStats } from '../../integrators/implicit-options.ts';
import { flatOps, type Program } from '../../integrators/program.ts';
import type { Model } from '../../model/model.ts';
import {
  recordNewtonAttempt,
  type AttemptOutcome,
  type GpuAdaptiveStepper,
  type ImplicitTotals,
} from '../common/stepper.ts';
import { checkDeviceFits } from './device-fits.ts';
import { WebGpuExecutor } from './executor.ts';
import type { ResolvedCollider } from '../../model/colliders.ts';

/** The reductions need a power of two. */
const WORKGROUP = 64;
/** Implicit programs: CG iterations between checkpoints (as WebGpuSimulation.advance's default). */
const CHECK_EVERY = 8;

export class WebGpuProgramStepper implements GpuAdaptiveStepper {
  readonly estimateOrder: number;
  /** Newton statistics (implicit programs; zeros otherwise). */
  readonly newton: NewtonStats = emptyNewtonStats();
  private readonly executor: WebGpuExecutor;
  private firstValid = false;
  private totals: ImplicitTotals = { ...emptyStats(), estimatorIterations: 0 };
  /** Newton loops per attempt: each checks one residual more than it iterates. */
  private readonly loopsPerAttempt: number;
  private residualEvaluations = 0;

  constructor(
    private readonly device: GPUDevice,
    model: Model,
    private readonly program: Program,
    private readonly norm: 'rms' | 'max',
  ) {
    checkDeviceFits(model, device.limits, WORKGROUP, Boolean(program.implicit));
    this.estimateOrder = program.adaptive!.estimateOrder;
    this.executor = new WebGpuExecutor(device, model, program, 0, WORKGROUP, program.implicit ? CHECK_EVERY : 0);
    this.loopsPerAttempt = flatOps(program.adaptive!.attempt).filter((op) => op.op === 'newton').length;
    // Every block compiled now (dispatchCount compiles it), inside the creation's error scope.
    for (const block of ['first', 'attempt', 'accept'] as const) this.executor.dispatchCount(block);
  } // prettier-ignore

  get positions(): GPUBuffer {
    return this.executor.positions;
  }

  /** A kinematic collider's pose and velocity (ColliderSink, src/backends/common/collider-poses.ts). */
  writeCollider(k: number, pose: ResolvedCollider, up: readonly number[], uq: readonly number[]): void {
    this.executor.contacts?.writeCollider(k, pose, up, uq);
  }

  /** EditableStepper (src/simulation/adaptive-edits.ts): xyz of `indices` into the vector `name`. */
  writeVector(name: string, indices: Uint32Array, xyz: Float64Array): void {
    this.executor.writeParticles(name, indices, xyz);
  }

  /** EditableStepper: uploads the model's inverse masses of `indices`. */
  writeMasses(indices: Uint32Array): void {
    this.executor.writeMasses(indices);
  }

  /** EditableStepper: the state changed, so `first` runs again. */
  invalidate(): void {
    this.firstValid = false;
  }

  /** Evaluations of a(x, v), or of the spring forces and Jacobians (one per Newton iteration and residual check). */
  get derivativeEvaluations(): number {
    return this.executor.evaluations + this.residualEvaluations;
  }

  async attempt(h: number, t: number): Promise<AttemptOutcome> {
    if (this.executor.aero) this.executor.aero.origin = t; // written with the step's uniforms
    this.executor.setStep(h);
    const implicit = this.executor.implicit;
    const encoder = this.device.createCommandEncoder({ label: 'WebGpuProgramStepper.attempt' });
    const pass = encoder.beginComputePass();
    if (!this.firstValid) this.executor.encode(pass, 'first');
    this.firstValid = true;
    if (!implicit) this.executor.encode(pass, 'attempt');
    pass.end();
    this.device.queue.submit([encoder.finish()]);
    if (implicit) await this.executor.runChecked('attempt');
    // One submission and one round trip for the norm and, for implicit programs, the solver totals.
    const readback = this.device.createCommandEncoder({ label: 'WebGpuProgramStepper.norm' });
    this.executor.encodeNormReadback(readback);
    implicit?.encodeStatsReadback(readback);
    this.device.queue.submit([readback.finish()]);
    const [error, totals] = await Promise.all([this.executor.readNorm(this.norm), implicit?.mapStats()]);
    if (!implicit || !totals) return { kind: 'estimated', error };
    const after = totals;
    const failed = recordNewtonAttempt(this.newton, this.totals, after);
    this.residualEvaluations += after.newtonIterations - this.totals.newtonIterations + this.loopsPerAttempt;
    this.totals = after;
    return failed ? { kind: 'newton-failed' } : { kind: 'estimated', error };
  }

  accept(): void {
    const encoder = this.device.createCommandEncoder({ label: 'WebGpuProgramStepper.accept' });
    const pass = encoder.beginComputePass();
    this.executor.encode(pass, 'accept');
    pass.end();
    this.device.queue.submit([encoder.finish()]);
    this.firstValid = false;
  }

  /** The accepted state; raises self-collision's flags (pairs cut, a query box too large) as errors. */
  async readCurrent(): Promise<{ positions: Float64Array; velocities: Float64Array }> {
    const [state] = await Promise.all([this.executor.readState(), this.executor.selfContact?.checkFlags()]);
    return state;
  }

  destroy(): void {
    this.executor.destroy();
  }
}
