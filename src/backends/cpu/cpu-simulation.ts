import { planStep, type IntegrationOptions, type StepPlan } from '../../integrators/schemes.ts';
import { resolveStepOptions, validateIntegrationOptions } from '../../integrators/options.ts';
import type { Model } from '../../model/model.ts';
import type { Simulation, SimulationState } from '../common/simulation-types.ts';
import { requireFiniteState, advanceInChunks, requireStepCount } from '../common/state-check.ts';
import {
  accelerations,
  rungeKuttaStage,
  springForces,
  symplecticUpdate,
  type RealArray,
  type RungeKuttaBuffers,
  type RungeKuttaStage,
} from './passes.ts';

/** Options of the CPU reference path. */
export interface CpuSimulationOptions extends IntegrationOptions {
  /**
   * Storage precision of every state and intermediate vector. 'f64' (default) is the reference;
   * 'f32' stores as the GPU does (arithmetic between stores is still float64), for fair
   * benchmarks and GPU-vs-CPU comparisons.
   */
  precision?: 'f64' | 'f32';
}

/** The CPU reference path: the same passes as the GPU, in TypeScript. */
export class CpuSimulation implements Simulation {
  readonly backend = 'cpu';
  readonly integrator;
  readonly dt: number;
  readonly model: Model;
  readonly description: string;
  readonly precision: 'f64' | 'f32';
  private steps = 0;
  private readonly plan: StepPlan;
  private readonly buffers: RungeKuttaBuffers;
  private readonly springForce: RealArray;
  private readonly stages: RungeKuttaStage[];

  constructor(model: Model, options: CpuSimulationOptions) {
    const valid = validateIntegrationOptions(options);
    const { precision } = resolveStepOptions(options);
    this.model = model;
    this.integrator = valid.integrator;
    this.dt = valid.dt;
    this.precision = precision;
    this.description = `CPU (TypeScript, ${precision === 'f64' ? 'float64' : 'float32 storage'})`;
    this.plan = planStep(valid.integrator, valid.dt, valid.rayleighMass);
    const real = (length: number): RealArray =>
      precision === 'f64' ? new Float64Array(length) : new Float32Array(length);
    const n3 = 3 * model.particleCount;
    this.buffers = {
      positions: real(n3),
      velocities: real(n3),
      stagePositions: real(n3),
      stageVelocities: real(n3),
      accelerations: real(n3),
      sumPositions: real(n3),
      sumVelocities: real(n3),
    };
    this.buffers.positions.set(model.particlePositions);
    this.buffers.velocities.set(model.particleVelocities);
    this.springForce = real(3 * model.springCount);
    this.stages = rungeKuttaStages(this.plan, valid.dt);
  }

  get stepCount(): number {
    return this.steps;
  }

  step(steps = 1): void {
    requireStepCount(steps);
    const { model, buffers: b, plan } = this;
    for (let n = 0; n < steps; n++) {
      if (plan.kind === 'symplectic') {
        this.evaluate(b.positions, b.velocities);
        symplecticUpdate(
          model.particleCount,
          b.positions,
          b.velocities,
          b.accelerations,
          this.dt,
          plan.velocityScale,
          plan.accelerationScale,
        );
      } else {
        for (const stage of this.stages) {
          if (stage.isFirst) this.evaluate(b.positions, b.velocities);
          else this.evaluate(b.stagePositions, b.stageVelocities);
          rungeKuttaStage(model.particleCount, b, stage);
        }
      }
    }
    this.steps += steps;
  }

  /** a(x, v) into `accelerations`: the spring pass, then the gather pass. */
  private evaluate(positions: RealArray, velocities: RealArray): void {
    springForces(this.model, positions, velocities, this.springForce);
    accelerations(
      this.model,
      this.springForce,
      velocities,
      this.plan.rayleighMass,
      this.buffers.accelerations,
    );
  }

  advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    return advanceInChunks((n) => this.step(n), steps, onProgress);
  }

  finished(): Promise<void> {
    return Promise.resolve();
  }

  async readState(): Promise<SimulationState> {
    return requireFiniteState({
      step: this.steps,
      time: this.steps * this.dt,
      positions: Float64Array.from(this.buffers.positions),
      velocities: Float64Array.from(this.buffers.velocities),
    });
  }

  readSolverStats(): Promise<null> {
    return Promise.resolve(null);
  }

  destroy(): void {}
}

/** The stage coefficients of a Runge–Kutta plan (empty for a symplectic plan). */
export function rungeKuttaStages(plan: StepPlan, h: number): RungeKuttaStage[] {
  if (plan.kind !== 'runge-kutta') return [];
  return plan.weights.map((weight, i) => ({
    stageStep: (plan.stageOffsets[i] ?? 0) * h,
    weight: weight * h,
    isFirst: i === 0,
    isLast: i === plan.weights.length - 1,
  }));
}
