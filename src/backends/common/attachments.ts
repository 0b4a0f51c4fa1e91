/**
 * Attachments: what a running simulation lets an app change about its particles — teleport them
 * (`setParticles`), pin and release them, and drive pinned ones along app-set targets (kinematic
 * attachments). This class validates every call and keeps the book (which particles are fixed,
 * where each kinematic one is going); a backend only carries out its writes ({@link AttachmentSink}).
 *
 * A pinned particle is what a fixed one is at creation: inverse mass 0, so every explicit pass
 * gives it a = 0 and every implicit solve filters its row (Δv = 0). Giving it a velocity v makes
 * it move at that velocity inside every scheme, and the implicit solvers see that motion through
 * the v it holds: in spec/sofa-ode-solvers.md §2.2 (EulerImplicit, after Baraff & Witkin 1998)
 * every particle's v_k enters the right-hand side h (f_k − ((h + r_k) K + r_m M) v_k), so the free
 * neighbours of a moving pinned particle feel its motion, while its own row is filtered (Δv = 0).
 * That is Baraff & Witkin's constraint filtering (1998, §5.3, not in spec/) with the filter S_i = 0
 * and the prescribed velocity change z_i = 0: a prescribed-velocity constraint v_i = (target − x_i)/T
 * held over a call of T = steps · h.
 */
import { describeValue, WeftInputError } from '../../core/errors.ts';
import type { Model } from '../../model/model.ts';
import { ringEntry, type Program } from '../../integrators/program.ts';

/** What {@link Simulation.setParticles} takes. */
export interface ParticleUpdate {
  /** Particle indices, integers in [0, n), each at most once. */
  indices: ArrayLike<number>;
  /** New positions, xyz interleaved, 3 per index, m. Default: unchanged. */
  positions?: ArrayLike<number>;
  /** New velocities, xyz interleaved, 3 per index, m/s. Default: unchanged. Must be 0 on a pinned particle. */
  velocities?: ArrayLike<number>;
}

/** What a backend does for {@link ParticleAttachments}. */
export interface AttachmentSink {
  /** Writes xyz values of `indices` into the vector `name` ('x', 'v' or a history ring entry). */
  writeVector(name: string, indices: Uint32Array, xyz: Float64Array): void;
  /** The live model's inverse masses of `indices` changed: upload them (and masses, 0 if fixed). */
  writeMasses(indices: Uint32Array): void;
  /** The state changed under the scheme: re-run its setup block and restart its startup steps. */
  restart(): void;
  /** A particle that the multigrid hierarchy holds as free was pinned: rebuild it before the next solve. */
  rebuildHierarchy(): void;
}

interface Kinematic {
  /** Where the particle is at the start of the next call (the target it last reached). */
  from: [number, number, number];
  target: [number, number, number];
}

/** The names of a program's velocity-history ring entries (multistep: Fv@0 …), for kinematic motion. */
export function velocityHistory(program: Program): string[] {
  return Array.from({ length: program.rings['Fv'] ?? 0 }, (_, j) => ringEntry('Fv', j));
}

/** Validates a list of particle indices: integers in range, no repeats. */
export function particleIndices(field: string, value: unknown, particleCount: number): Uint32Array {
  const length = (value as { length?: unknown } | null)?.length;
  if (typeof value !== 'object' || value === null || !Number.isSafeInteger(length))
    throw new WeftInputError(field, `must be an array of particle indices, got ${describeValue(value)}`);
  const list = value as ArrayLike<unknown>;
  const seen = new Set<number>();
  const out = new Uint32Array(list.length);
  for (let k = 0; k < list.length; k++) {
    const index = list[k];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= particleCount)
      throw new WeftInputError(`${field}[${k}]`, `particle index ${describeValue(index)} is out of range [0, ${particleCount - 1}]`); // prettier-ignore
    if (seen.has(index)) throw new WeftInputError(`${field}[${k}]`, `particle ${index} is listed twice`);
    seen.add(index);
    out[k] = index;
  }
  return out;
}

/** Validates 3 finite numbers per index. */
export function particleVectors(field: string, value: unknown, count: number): Float64Array {
  const length = (value as { length?: unknown } | null)?.length;
  if (typeof value !== 'object' || value === null || !Number.isSafeInteger(length))
    throw new WeftInputError(
      field,
      `must be an array of numbers (xyz per index), got ${describeValue(value)}`,
    );
  const list = value as ArrayLike<unknown>;
  if (list.length !== 3 * count)
    throw new WeftInputError(field, `must have ${3 * count} entries (3 per index), got ${list.length}`);
  const out = new Float64Array(list.length);
  for (let k = 0; k < list.length; k++) {
    const v = list[k];
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new WeftInputError(`${field}[${k}]`, `must be a finite number, got ${describeValue(v)}`);
    out[k] = v;
  }
  return out;
}

/** The book of a simulation's attachments, and the live model its backend runs on. */
export class ParticleAttachments {
  /** The model with its own fixed flags and inverse masses, which pin and release change. */
  readonly model: Model;
  private readonly kinematic = new Map<number, Kinematic>();
  /** Fixed flags the multigrid hierarchy was built with (a particle pinned outside them needs a rebuild). */
  private readonly hierarchyFixed: Uint8Array;
  private sink: AttachmentSink | null = null;

  /** `velocityHistory`: the history vectors of v (multistep rings), rewritten with a kinematic velocity. */
  constructor(
    model: Model,
    private readonly velocityHistory: readonly string[] = [],
  ) {
    this.model = { ...model, particleInvMass: model.particleInvMass.slice(), particleFixed: model.particleFixed.slice() }; // prettier-ignore
    this.hierarchyFixed = model.particleFixed.slice();
  }

  /** Connects the backend (after it is built on {@link model}). */
  connect(sink: AttachmentSink): void {
    this.sink = sink;
  }

  private get out(): AttachmentSink {
    if (!this.sink) throw new Error('ParticleAttachments: no backend connected');
    return this.sink;
  }

  setParticles(update: ParticleUpdate): void {
    if (typeof update !== 'object' || update === null)
      throw new WeftInputError('update', `must be an object { indices, positions?, velocities? }, got ${describeValue(update)}`); // prettier-ignore
    const n = this.model.particleCount;
    const indices = particleIndices('indices', update.indices, n);
    const positions = update.positions === undefined ? null : particleVectors('positions', update.positions, indices.length); // prettier-ignore
    const velocities = update.velocities === undefined ? null : particleVectors('velocities', update.velocities, indices.length); // prettier-ignore
    if (velocities)
      indices.forEach((i, k) => {
        if (!this.model.particleFixed[i]) return;
        for (let c = 0; c < 3; c++)
          if (velocities[3 * k + c] !== 0)
            throw new WeftInputError(`velocities[${3 * k + c}]`, `particle ${i} is pinned, so its velocity must be 0 (release it first, or give it a target), got ${velocities[3 * k + c]}`); // prettier-ignore
      });
    if (indices.length === 0) return;
    if (positions) this.out.writeVector('x', indices, positions);
    if (velocities) this.out.writeVector('v', indices, velocities);
    if (positions)
      indices.forEach((i, k) => {
        const found = this.kinematic.get(i);
        if (found) found.from = [positions[3 * k]!, positions[3 * k + 1]!, positions[3 * k + 2]!];
      });
    this.out.restart();
  }

  pin(value: ArrayLike<number>): void {
    const indices = particleIndices('indices', value, this.model.particleCount);
    for (const i of indices) this.kinematic.delete(i);
    this.setFixed(indices, true);
    // A pinned particle stops: its velocity is 0 (a kinematic one gets its own at each call).
    if (indices.length > 0) this.out.writeVector('v', indices, new Float64Array(3 * indices.length));
    this.afterChange(indices);
  }

  release(value: ArrayLike<number>): void {
    const indices = particleIndices('indices', value, this.model.particleCount);
    indices.forEach((i, k) => {
      if (!(this.model.particleMass[i]! > 0))
        throw new WeftInputError(`indices[${k}]`, `particle ${i} has mass ${this.model.particleMass[i]}, so it cannot be released (a free particle needs mass > 0)`); // prettier-ignore
    });
    for (const i of indices) this.kinematic.delete(i);
    this.setFixed(indices, false);
    this.afterChange(indices);
  }

  setTargets(value: ArrayLike<number>, targets: ArrayLike<number>): void {
    const indices = particleIndices('indices', value, this.model.particleCount);
    const xyz = particleVectors('positions', targets, indices.length);
    const fresh = indices.filter((i) => !this.kinematic.has(i));
    indices.forEach((i, k) => {
      const target: [number, number, number] = [xyz[3 * k]!, xyz[3 * k + 1]!, xyz[3 * k + 2]!];
      const found = this.kinematic.get(i);
      if (found) found.target = target;
      else this.kinematic.set(i, { from: [...target], target });
    });
    if (fresh.length === 0) return;
    // A particle that becomes kinematic is placed at its first target at once, at rest.
    const at = new Float64Array(3 * fresh.length);
    fresh.forEach((i, k) => at.set(this.kinematic.get(i)!.target, 3 * k));
    this.out.writeVector('x', fresh, at);
    this.out.writeVector('v', fresh, new Float64Array(at.length));
    this.setFixed(fresh, true);
    this.afterChange(fresh);
  }

  /** Whether any particle is kinematic. */
  get moving(): boolean {
    return this.kinematic.size > 0;
  }

  /** Whether a kinematic particle has a target it has not started to move to. */
  get pending(): boolean {
    for (const m of this.kinematic.values()) if (m.target.some((x, c) => x !== m.from[c])) return true;
    return false;
  }

  /**
   * Before a call that takes `steps` steps of h: each kinematic particle starts where its last
   * target left it, with v = (target − from) / (steps h), constant over the call (a = 0 on it), so
   * x + steps h v = target. The multistep rings of v get the same v (their F history is that of
   * a uniform motion).
   */
  begin(steps: number, h: number): void {
    if (this.kinematic.size === 0 || steps === 0) return;
    const indices = Uint32Array.from(this.kinematic.keys());
    const from = new Float64Array(3 * indices.length);
    const velocity = new Float64Array(3 * indices.length);
    indices.forEach((i, k) => {
      const m = this.kinematic.get(i)!;
      for (let c = 0; c < 3; c++) {
        from[3 * k + c] = m.from[c]!;
        velocity[3 * k + c] = (m.target[c]! - m.from[c]!) / (steps * h);
      }
    });
    this.out.writeVector('x', indices, from);
    for (const name of ['v', ...this.velocityHistory]) this.out.writeVector(name, indices, velocity);
    for (const m of this.kinematic.values()) m.from = [...m.target];
  }

  /** After the call: each kinematic particle is put exactly at its target (float rounding removed). */
  end(): void {
    if (this.kinematic.size === 0) return;
    const indices = Uint32Array.from(this.kinematic.keys());
    const at = new Float64Array(3 * indices.length);
    indices.forEach((i, k) => at.set(this.kinematic.get(i)!.target, 3 * k));
    this.out.writeVector('x', indices, at);
  }

  private setFixed(indices: Uint32Array, fixed: boolean): void {
    const { particleFixed, particleInvMass, particleMass } = this.model;
    for (const i of indices) {
      particleFixed[i] = fixed ? 1 : 0;
      particleInvMass[i] = fixed ? 0 : 1 / particleMass[i]!;
    }
  }

  private afterChange(indices: Uint32Array): void {
    if (indices.length === 0) return;
    this.out.writeMasses(indices);
    if (indices.some((i) => this.model.particleFixed[i] === 1 && this.hierarchyFixed[i] === 0)) {
      this.hierarchyFixed.set(this.model.particleFixed);
      this.out.rebuildHierarchy();
    }
    this.out.restart();
  }
}
