/**
 * The CPU executor: interprets a program (src/integrators/program.ts) over named particle
 * vectors in float64, or float32 storage (arithmetic between stores is float64, stores round as
 * the GPU's do). `eval` is the spring and gather passes of passes.ts, which mirror the WGSL.
 */
import { strainCorrection } from './strain-limit.ts';
import type { Model } from '../../model/model.ts';
import {
  coefficientAt,
  parseRingEntry,
  vectorNames,
  type Corrector,
  type Op,
  type Program,
} from '../../integrators/program.ts';
import type { RealArray } from '../common/stepper.ts';
import { errorNorm } from './error-norm.ts';
import { accelerations, springForces } from './passes.ts';
import { CpuImplicitOps } from './implicit-ops.ts';
import { CpuContacts } from './contacts.ts';
import { CpuAero } from './aero.ts';
import { CpuBending } from './bending.ts';
import { CpuSelfContact } from './self-contact.ts';

/** Statistics of the corrector (zeros for schemes without one). */
export interface CorrectorStats {
  correctorIterations: number;
  maxCorrectorIterationsInStep: number;
  unconvergedSteps: number;
  converged: boolean;
  lastCorrection: number;
}

export class CpuExecutor {
  /** Evaluations of a(x, v) so far. */
  evaluations = 0;
  readonly corrector: CorrectorStats = {
    correctorIterations: 0,
    maxCorrectorIterationsInStep: 0,
    unconvergedSteps: 0,
    converged: true,
    lastCorrection: 0,
  };
  private readonly vectors = new Map<string, RealArray>();
  /** Physical slot of entry @0 of each ring. */
  private readonly heads = new Map<string, number>();
  private readonly springForce: RealArray;
  private h = 0;
  /** The result of the last `norm` op. */
  lastNorm = NaN;
  /** The implicit ops and their statistics (implicit programs only). */
  readonly implicit: CpuImplicitOps | null;
  /** Contacts with the model's colliders (null without colliders). */
  readonly contacts: CpuContacts | null;
  /** Wind on the model's triangles (null without wind). */
  readonly aero: CpuAero | null;
  /** Dihedral bending on the model's hinges (null without bending). */
  readonly bending: CpuBending | null;
  /** Self-collision of the model's triangles (null without it). */
  readonly selfContact: CpuSelfContact | null;

  constructor(
    private readonly model: Model,
    private readonly program: Program,
    precision: 'f64' | 'f32',
  ) {
    const real = (length: number): RealArray =>
      precision === 'f64' ? new Float64Array(length) : new Float32Array(length);
    const n3 = 3 * model.particleCount;
    for (const name of vectorNames(program)) {
      const entry = parseRingEntry(name);
      if (!entry) this.vectors.set(name, real(n3));
    }
    for (const [ring, length] of Object.entries(program.rings)) {
      this.heads.set(ring, 0);
      for (let slot = 0; slot < length; slot++) this.vectors.set(`${ring}#${slot}`, real(n3));
    }
    this.vector('x').set(model.particlePositions);
    this.vector('v').set(model.particleVelocities);
    this.springForce = real(3 * model.springCount);
    this.contacts = model.colliders.length > 0 ? new CpuContacts(model) : null;
    this.aero = model.wind ? new CpuAero(model) : null;
    this.bending = model.bending ? new CpuBending(model, real) : null;
    this.selfContact = model.selfCollision ? new CpuSelfContact(model, real) : null;
    this.implicit = program.implicit
      ? new CpuImplicitOps(model, program.implicit, real, (name) => this.vector(name), (ops) => ops.forEach((op) => this.apply(op)), this.contacts, this.selfContact) // prettier-ignore
      : null;
  }

  /** The storage of a vector name (ring entries resolved to their current slot). */
  vector(name: string): RealArray {
    const entry = parseRingEntry(name);
    const key = entry
      ? `${entry.ring}#${(this.heads.get(entry.ring)! + entry.back) % this.program.rings[entry.ring]!}`
      : name;
    const found = this.vectors.get(key);
    if (!found) throw new Error(`program vector '${name}' was not allocated`);
    return found;
  }

  /** Runs `ops` with step h. */
  run(ops: readonly Op[], h: number): void {
    this.h = h;
    for (const op of ops) this.apply(op);
  }

  private apply(op: Op): void {
    switch (op.op) {
      case 'eval':
        springForces(this.model, this.vector(op.x), this.vector(op.v), this.springForce);
        accelerations(this.model, this.springForce, this.vector(op.v), op.rayleighMass, this.vector(op.a));
        this.bending?.states(this.vector(op.x), this.vector(op.v), true);
        this.bending?.gather(this.vector(op.a), true);
        this.selfContact?.states(this.vector(op.x), this.vector(op.v), false, true);
        this.selfContact?.gather(this.vector(op.a), true);
        this.evaluations++;
        return;
      case 'combine':
        return this.combine(op.outputs);
      case 'rotate': {
        const length = this.program.rings[op.ring]!;
        this.heads.set(op.ring, (this.heads.get(op.ring)! + length - 1) % length);
        return;
      }
      case 'correct':
        return this.correct(this.program.corrector!);
      case 'project':
        return this.contacts!.project(this.vector(op.x), this.vector(op.v), this.h * (op.drift ?? 1), op.slack ? -1 : op.onSurface ? 1 : 0, (op.restart ?? []).map((name) => this.vector(name))); // prettier-ignore
      case 'moveColliders':
        return this.contacts!.move(this.h);
      case 'aero': {
        const scale = coefficientAt(op.scale, this.h);
        return this.aero!.apply(
          this.vector(op.x),
          this.vector(op.v),
          this.vector(op.to),
          scale,
          op.perMass,
          this.h,
          op.stage,
        );
      }
      case 'selfContacts':
        return this.selfContact!.detect(this.vector(op.x), this.vector(op.v), this.h);
      case 'selfFailSafe':
        return this.selfContact!.failSafe(this.vector(op.x), this.vector(op.v), (op.restart ?? []).map((name) => this.vector(name))); // prettier-ignore
      case 'windClock':
        return this.aero!.tick();
      case 'strainCorrection':
        return strainCorrection(this.model, this.vector(op.x), op.maxStretch, this.vector(op.to));
      case 'norm': {
        const pair = ([x, v]: readonly [string, string]) => ({
          positions: this.vector(x),
          velocities: this.vector(v),
        });
        this.lastNorm = errorNorm(this.model, pair(op.error), pair(op.start), pair(op.end), op.tolerances);
        return;
      }
      default:
        if (!this.implicit) throw new Error(`'${op.op}' needs an implicit program`);
        if (op.op === 'jacobians') this.evaluations++;
        return this.implicit.apply(op, this.h);
    }
  }

  /**
   * Every output from the old values, then written, element by element: an output may be one of
   * its own (or the other output's) terms. Terms are summed last first, as
   * shaders/program-combine.wgsl does (the base, first, is added last).
   */
  private combine(outputs: Extract<Op, { op: 'combine' }>['outputs']): void {
    const n3 = 3 * this.model.particleCount;
    const resolved = outputs.map((out) => {
      const terms = out.terms
        .map(([c, name]) => [coefficientAt(c, this.h), name] as const)
        .filter(([c]) => c !== 0)
        .reverse();
      return {
        to: this.vector(out.to),
        cs: terms.map(([c]) => c),
        vs: terms.map(([, name]) => this.vector(name)),
      };
    });
    const [first, second] = resolved as [(typeof resolved)[number], (typeof resolved)[number] | undefined];
    const { to: to0, cs: c0, vs: v0 } = first;
    const count0 = c0.length;
    if (!second) {
      for (let k = 0; k < n3; k++) {
        let a = 0;
        for (let j = 0; j < count0; j++) a += c0[j]! * v0[j]![k]!;
        to0[k] = a;
      }
      return;
    }
    const { to: to1, cs: c1, vs: v1 } = second;
    const count1 = c1.length;
    for (let k = 0; k < n3; k++) {
      let a = 0;
      let b = 0;
      for (let j = 0; j < count0; j++) a += c0[j]! * v0[j]![k]!;
      for (let j = 0; j < count1; j++) b += c1[j]! * v1[j]![k]!;
      to0[k] = a;
      to1[k] = b;
    }
  }

  /**
   * Fixed-point sweeps of the corrector body until the scaled max-norm of the change is ≤ 1, or
   * `maxIterations` sweeps (src/integrators/program.ts, Corrector).
   */
  private correct(c: Corrector): void {
    const tol = {
      relative: c.tolerance,
      absolutePosition: c.tolerance,
      absoluteVelocity: c.tolerance,
      positionWeight: 1,
      velocityWeight: 1,
      norm: 'max' as const,
    };
    const [x, v, xNext, vNext] = ['pc.x', 'pc.v', 'pc.xNext', 'pc.vNext'].map((n) => this.vector(n)) as [
      RealArray,
      RealArray,
      RealArray,
      RealArray,
    ];
    const change = { positions: new Float64Array(x.length), velocities: new Float64Array(v.length) };
    const state = { positions: this.vector('x'), velocities: this.vector('v') };
    let converged = !c.check;
    let iterations = 0;
    let norm = 0;
    for (let k = 0; k < c.maxIterations; k++) {
      for (const op of c.body) this.apply(op);
      iterations++;
      for (let i = 0; i < x.length; i++) {
        change.positions[i] = xNext[i]! - x[i]!;
        change.velocities[i] = vNext[i]! - v[i]!;
      }
      x.set(xNext);
      v.set(vNext);
      norm = errorNorm(this.model, change, state, { positions: x, velocities: v }, tol);
      if (c.check && norm <= 1) {
        converged = true;
        break;
      }
      // A NaN or Inf sweep cannot recover: stop (unconverged when checked), as the GPU does.
      if (!Number.isFinite(norm)) {
        converged = false;
        break;
      }
    }
    const s = this.corrector;
    s.correctorIterations += iterations;
    s.maxCorrectorIterationsInStep = Math.max(s.maxCorrectorIterationsInStep, iterations);
    s.lastCorrection = norm;
    s.converged = converged;
    if (!converged) s.unconvergedSteps++;
  }
}
