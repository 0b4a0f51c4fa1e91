/**
 * The CPU reference simulation of every fixed-step integrator (explicit, multistep, implicit): the
 * scheme's program (src/integrators/programs.ts, implicit-programs.ts) run by the CPU executor,
 * float64 or float32 storage. `CpuSimulation`, `CpuMultistepSimulation` and
 * `CpuImplicitSimulation` only validate options and build programs.
 */
import { withStrainLimitOps } from '../../integrators/strain-programs.ts';
import { AttachableSimulation } from '../common/attachable-simulation.ts';
import { ParticleAttachments, velocityHistory } from '../common/attachments.ts';
import { ColliderPoses } from '../common/collider-poses.ts';
import {
  emptyStats,
  type ImplicitIntegratorName,
  type ImplicitOptions,
  type SolverStats,
} from '../../integrators/implicit-options.ts';
import { implicitProgram } from '../../integrators/implicit-programs.ts';
import type { MultistepOptions, MultistepStats } from '../../integrators/adaptive-options.ts';
import { MULTISTEP_INTEGRATOR_NAMES, MULTISTEP_INTEGRATORS } from '../../integrators/multistep.ts';
import {
  resolveImplicitOptions,
  resolveMultistepOptions,
  resolveStepOptions,
  validateIntegrationOptions,
} from '../../integrators/options.ts';
import type { Program } from '../../integrators/program.ts';
import { explicitProgram, multistepProgram } from '../../integrators/programs.ts';
import { withContacts } from '../../integrators/contact-programs.ts';
import { withWindOps } from '../../integrators/wind-programs.ts';
import { withSelfContact } from '../../integrators/self-contact-programs.ts';
import type { IntegrationOptions } from '../../integrators/schemes.ts';
import type { Model } from '../../model/model.ts';
import { WeftInputError } from '../../core/errors.ts';
import type { Simulation, SimulationState } from '../common/simulation-types.ts';
import { advanceInChunks, requireStepCount, StateWatch, stepsTo } from '../common/state-check.ts';
import { CpuExecutor } from './executor.ts';

/** Options of the CPU reference path. */
export interface CpuSimulationOptions extends IntegrationOptions {
  /**
   * Storage precision of every state and intermediate vector. 'f64' (default) is the reference;
   * 'f32' stores as the GPU does (arithmetic between stores is still float64), for fair
   * benchmarks and GPU-vs-CPU comparisons.
   */
  precision?: 'f64' | 'f32';
}

const describe = (precision: 'f64' | 'f32'): string =>
  `CPU (TypeScript, ${precision === 'f64' ? 'float64' : 'float32 storage'})`;

/** A program run step by step on the CPU. */
export class CpuProgramSimulation extends AttachableSimulation implements Simulation {
  readonly backend = 'cpu';
  private readonly executor: CpuExecutor;
  private steps = 0;
  private startupSteps = 0;
  /** Startup steps still to take (all of them at creation, and again after a restart). */
  private startupLeft: number;
  private readonly watch: StateWatch;
  protected readonly attachments: ParticleAttachments;
  protected readonly colliderPoses: ColliderPoses;
  /** The scheme's program, with its contact ops when the model has colliders. */
  private readonly program: Program;

  protected constructor(
    readonly model: Model,
    readonly integrator: Simulation['integrator'],
    readonly dt: number,
    readonly precision: 'f64' | 'f32',
    readonly description: string,
    scheme: Program,
  ) {
    super();
    const program = withSelfContact(
      withWindOps(
        withContacts(withStrainLimitOps(scheme, model.strainLimit), integrator, model.colliders.length),
        model.wind,
      ),
      model.selfCollision !== null,
    );
    this.program = program;
    this.attachments = new ParticleAttachments(model, velocityHistory(program));
    const live = this.attachments.model;
    this.executor = new CpuExecutor(live, program, precision);
    this.watch = new StateWatch(live);
    this.startupLeft = program.startupSteps;
    this.attachments.connect({
      writeVector: (name, indices, xyz) => {
        const to = this.executor.vector(name);
        indices.forEach((i, k) => to.set(xyz.subarray(3 * k, 3 * k + 3), 3 * i));
      },
      writeMasses: () => {}, // the executor reads the live model's inverse masses
      restart: () => {
        this.executor.run(program.setup, dt);
        this.startupLeft = program.startupSteps;
      },
      rebuildHierarchy: () => this.executor.implicit?.rebuildMultigrid(),
    });
    this.colliderPoses = new ColliderPoses(model.colliders);
    this.colliderPoses.connect({ writeCollider: (k, pose, up, uq) => this.executor.contacts?.setCollider(k, pose, up, uq) }); // prettier-ignore
    this.executor.run(program.setup, dt);
  }

  get stepCount(): number {
    return this.steps;
  }

  step(steps = 1): void {
    this.lifecycle.check('step()');
    requireStepCount(steps);
    this.beginCall(steps, this.dt);
    this.run(steps);
    this.endCall();
  }

  private run(steps: number): void {
    for (let n = 0; n < steps; n++) {
      if (this.startupLeft > 0) {
        this.executor.run(this.program.startup, this.dt);
        this.startupSteps++;
        this.startupLeft--;
      } else this.executor.run(this.program.step, this.dt);
      this.steps++;
    }
  }

  async advance(steps: number, onProgress?: (done: number, total: number) => void): Promise<void> {
    this.lifecycle.check('advance()');
    requireStepCount(steps);
    this.beginCall(steps, this.dt);
    await advanceInChunks((n) => (this.lifecycle.check('advance()'), this.run(n)), steps, onProgress);
    this.endCall();
  }

  async advanceTo(t: number, onProgress?: (time: number, target: number) => void): Promise<void> {
    const start = this.stepCount;
    return this.advance(stepsTo(t, start, this.dt), (done) => onProgress?.((start + done) * this.dt, t));
  }

  async finished(): Promise<void> {
    this.lifecycle.check('finished()');
  }

  async readState(): Promise<SimulationState> {
    this.lifecycle.check('readState()');
    const momenta = this.program.momenta;
    return this.watch.check({
      step: this.steps,
      time: this.steps * this.dt,
      positions: Float64Array.from(this.executor.vector('x')),
      velocities: Float64Array.from(this.executor.vector('v')),
      ...(momenta ? { momenta: Float64Array.from(this.executor.vector(momenta)) } : {}),
    });
  }

  /** Steps, RK4 starting steps, evaluations of a(x, v) and the corrector's statistics. */
  readMultistepStats(): MultistepStats {
    return {
      steps: this.steps,
      startupSteps: this.startupSteps,
      derivativeEvaluations: this.executor.evaluations,
      ...this.executor.corrector,
    };
  }

  /**
   * Implicit integrators: the linear solves' and Newton loops' statistics. Multistep integrators:
   * the statistics in the implicit integrators' shape, `newtonIterations`
   * holding the corrector (fixed-point) iterations; explicit integrators: null.
   */
  async readSolverStats(): Promise<SolverStats | null> {
    this.lifecycle.check('readSolverStats()');
    const self = this.executor.selfContact;
    const selfContact = self ? { selfContact: { ...self.stats } } : {};
    if (this.executor.implicit) return { ...this.executor.implicit.stats, steps: this.steps, ...selfContact };
    if (self && this.program.rings['Fv'] === undefined)
      return { ...emptyStats(), steps: this.steps, ...selfContact };
    if (this.program.rings['Fv'] === undefined) return null;
    const s = this.readMultistepStats();
    return {
      ...emptyStats(),
      steps: s.steps,
      newtonIterations: s.correctorIterations,
      unconvergedSteps: s.unconvergedSteps,
      converged: s.converged,
      ...selfContact,
    };
  }

  destroy(): void {
    this.lifecycle.destroy();
  }
}

/** The explicit integrators on the CPU (the reference of the WebGPU path). */
export class CpuSimulation extends CpuProgramSimulation {
  constructor(model: Model, options: CpuSimulationOptions) {
    const valid = validateIntegrationOptions(options);
    const { precision } = resolveStepOptions(options);
    const program = explicitProgram(valid.integrator, valid.rayleighMass);
    super(model, valid.integrator, valid.dt, precision, describe(precision), program);
  }
}

/**
 * Fixed-step multistep integrators on the CPU. Orders (global, measured in
 * test/adaptive-multistep.test.ts): adams-bashforth-2 2, adams-bashforth-3 3, adams-moulton-pc 3
 * (AB3 predictor, AM order-3 corrector; PECE keeps the corrector's order), heun-implicit 2,
 * implicit-euler-pc 1. Stability: the Adams–Bashforth methods are only conditionally stable (AB2
 * is weakly unstable on an undamped oscillator at every h); the fixed-point corrector of
 * heun-implicit and implicit-euler-pc converges only for h ω ≲ 1, so they are no use on stiff
 * systems (there, use velocity-implicit-euler or the Newton/CG integrators).
 */
export class CpuMultistepSimulation extends CpuProgramSimulation {
  constructor(model: Model, options: MultistepOptions) {
    if (!MULTISTEP_INTEGRATOR_NAMES.includes(options.integrator))
      throw new WeftInputError(
        'integrator',
        `unknown multistep integrator '${String(options.integrator)}' (known: ${MULTISTEP_INTEGRATOR_NAMES.join(', ')})`,
      );
    const o = resolveMultistepOptions(options);
    const name = options.integrator;
    const program = multistepProgram(name, o.rayleighMass, o.correctorTolerance, o.maxCorrectorIterations);
    const description = `${describe(o.precision)}, ${name} (order ${MULTISTEP_INTEGRATORS[name].order})`;
    super(model, name, o.dt, o.precision, description, program);
  }
}

/** Options of the implicit CPU path. */
export interface CpuImplicitOptions extends ImplicitOptions {
  integrator: ImplicitIntegratorName;
  dt: number;
  rayleighMass?: number;
  rayleighStiffness?: number;
  precision?: 'f64' | 'f32';
}

/**
 * The implicit integrators on the CPU: the reference for the WebGPU kernels, float64 by default.
 * Each step's ops are those the GPU runs (spring states → right-hand side → linear solve →
 * update), so a comparison failing points at one kernel.
 */
export class CpuImplicitSimulation extends CpuProgramSimulation {
  constructor(model: Model, options: CpuImplicitOptions) {
    const { dt, rayleighMass, rayleighStiffness, precision } = resolveStepOptions(options);
    const o = resolveImplicitOptions(options.integrator, options, model.particleCount);
    const program = implicitProgram(options.integrator, rayleighMass, rayleighStiffness, o);
    super(model, options.integrator, dt, precision, `${describe(precision)}, ${o.solver}`, program);
  }
}
