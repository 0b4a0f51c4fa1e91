import { describeValue, WeftInputError } from '../core/errors.ts';
import { buildIncidence, type Incidence } from './incidence.ts';
import { resolveCollider, type Collider, type ResolvedCollider } from './colliders.ts';
import { resolveWind, type ResolvedWind, type Wind } from './wind.ts';
import { resolveStrainLimit, type ResolvedStrainLimit, type StrainLimit } from './strain-limit.ts';
import { resolveBending, type Bending, type ResolvedBending } from './bending.ts';
import { resolveSelfCollision, type ResolvedSelfCollision, type SelfCollision } from './self-collision.ts';

/**
 * What a caller describes: particles and springs, flat arrays, SI units.
 * Optional fields take the defaults documented on each.
 */
export interface ModelDescription {
  /** Particle positions, xyz interleaved, length 3n, metres. */
  positions: ArrayLike<number>;
  /** Particle velocities, xyz interleaved, length 3n, m/s. Default: all zero. */
  velocities?: ArrayLike<number>;
  /** Particle masses, length n, kg. Must be > 0 for every particle that is not fixed. */
  masses: ArrayLike<number>;
  /** Indices of fixed (pinned) particles: they never move. Default: none. */
  fixed?: ArrayLike<number>;
  /** Spring endpoints, particle index pairs interleaved [a0, b0, a1, b1, …], length 2s. */
  springPairs: ArrayLike<number>;
  /** Spring stiffness, N/m: one value for all springs or one per spring. Must be ≥ 0. */
  springStiffness: number | ArrayLike<number>;
  /** Spring rest lengths, m, length s. Default: the initial distance of each pair. Must be > 0. */
  springRestLengths?: ArrayLike<number>;
  /** Spring damping along the spring, N·s/m: one value or one per spring. Default 0. Must be ≥ 0. */
  springDamping?: number | ArrayLike<number>;
  /** Gravitational acceleration, m/s². Default [0, -9.81, 0]. */
  gravity?: readonly [number, number, number];
  /** Static shapes the particles cannot pass through (src/model/colliders.ts). Default: none. */
  colliders?: readonly Collider[];
  /**
   * The cloth's triangles, particle indices, three per triangle [3t] (any winding): the surface
   * the wind acts on. Default: none (buildCloth and meshToModel give theirs).
   */
  triangles?: ArrayLike<number>;
  /** Wind on the triangles (src/model/wind.ts). Default: none. Needs `triangles`. */
  wind?: Wind;
  /** Springs kept from stretching past (1 + maxStretch) L (src/model/strain-limit.ts). Default: none. */
  strainLimit?: StrainLimit;
  /** Dihedral bending on the hinges of `triangles` (src/model/bending.ts). Default: none. */
  bending?: Bending;
  /** Self-collision of `triangles` (src/model/self-collision.ts). Default: none. */
  selfCollision?: SelfCollision;
}

/**
 * The parts of a mass-spring system that do not change while it is integrated (after Warp's
 * `sim.Model`): topology, rest lengths, stiffness, masses, fixed flags, and the initial state.
 * Struct of arrays; every array is float64 on the host (the GPU path converts to float32).
 */
export interface Model {
  /** n, number of particles. */
  readonly particleCount: number;
  /** s, number of springs. */
  readonly springCount: number;
  /** Initial positions, [3n], m. */
  readonly particlePositions: Float64Array;
  /** Initial velocities, [3n], m/s. Zero for fixed particles. */
  readonly particleVelocities: Float64Array;
  /** Masses, [n], kg. */
  readonly particleMass: Float64Array;
  /** Inverse masses, [n], 1/kg; 0 for fixed particles, which is how every kernel holds them. */
  readonly particleInvMass: Float64Array;
  /** 1 where the particle is fixed, [n]. */
  readonly particleFixed: Uint8Array;
  /** Spring endpoints, [2s], pairs (a, b). */
  readonly springIndices: Uint32Array;
  /** Rest lengths, [s], m. */
  readonly springRestLength: Float64Array;
  /** Stiffness, [s], N/m. */
  readonly springStiffness: Float64Array;
  /** Damping along the spring, [s], N·s/m. */
  readonly springDamping: Float64Array;
  /** Gravitational acceleration, m/s². */
  readonly gravity: readonly [number, number, number];
  /** Per-particle list of incident springs, for gathering forces without atomics. */
  readonly incidence: Incidence;
  /** Colliders, validated, defaults filled in, normals unit length. */
  readonly colliders: readonly ResolvedCollider[];
  /** Triangles, [3t], particle indices (the surface the wind acts on; empty when none). */
  readonly triangleIndices: Uint32Array;
  /** The wind, validated, defaults filled in; null when none. */
  readonly wind: ResolvedWind | null;
  /** The strain limit, validated; null when none. */
  readonly strainLimit: ResolvedStrainLimit | null;
  /** Dihedral bending on the triangles' hinges, resolved; null when none. */
  readonly bending: ResolvedBending | null;
  /** Self-collision of the triangles, resolved; null when none. */
  readonly selfCollision: ResolvedSelfCollision | null;
}

/** `value` is array-like: an object with a length that is a whole number (not a string, not null). */
function requireArray(field: string, value: unknown, what = 'an array of numbers'): ArrayLike<number> {
  const length = (value as { length?: unknown } | null)?.length;
  if (typeof value !== 'object' || value === null || !Number.isSafeInteger(length) || (length as number) < 0)
    throw new WeftInputError(field, `must be ${what}, got ${describeValue(value)}`);
  return value as ArrayLike<number>;
}

function requireFinite(field: string, values: ArrayLike<number>): void {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new WeftInputError(`${field}[${i}]`, `must be a finite number, got ${describeValue(value)}`);
    }
  }
}

function requireLength(field: string, values: ArrayLike<number>, length: number, what: string): void {
  if (values.length !== length) {
    throw new WeftInputError(field, `must have ${length} entries (${what}), got ${values.length}`);
  }
}

function requireIndex(field: string, value: unknown, particleCount: number): void {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) >= particleCount) {
    throw new WeftInputError(field, `particle index ${describeValue(value)} is out of range [0, ${particleCount - 1}]`); // prettier-ignore
  }
}

/** A per-spring value given as one number or an array of s numbers. */
function perSpring(field: string, value: number | ArrayLike<number>, springCount: number): Float64Array {
  if (typeof value === 'number') {
    requireFinite(field, [value]);
    return new Float64Array(springCount).fill(value);
  }
  requireLength(field, requireArray(field, value, 'a number or an array of numbers'), springCount, 'one per spring'); // prettier-ignore
  requireFinite(field, value);
  return Float64Array.from(value);
}

/** The springs' arrays, validated: indices in range and distinct, k and c ≥ 0, rest lengths > 0. */
function springArrays(
  description: ModelDescription,
  particleCount: number,
): Pick<Model, 'springCount' | 'springIndices' | 'springRestLength' | 'springStiffness' | 'springDamping'> {
  const { positions, springPairs } = description;
  if (springPairs.length % 2 !== 0) {
    throw new WeftInputError('springs.pairs', `length ${springPairs.length} is not even (pairs a, b)`);
  }
  const springCount = springPairs.length / 2;
  // Every index is checked before anything is allocated (an array-like may claim any length).
  for (let s = 0; s < springCount; s++) {
    const a = springPairs[2 * s] as number;
    const b = springPairs[2 * s + 1] as number;
    requireIndex(`springs.pairs[${2 * s}]`, a, particleCount);
    requireIndex(`springs.pairs[${2 * s + 1}]`, b, particleCount);
    if (a === b)
      throw new WeftInputError(`springs.pairs[${2 * s}]`, `spring ${s} joins particle ${a} to itself`);
  }
  const springIndices = Uint32Array.from(springPairs);

  const springStiffness = perSpring('springs.stiffness', description.springStiffness, springCount);
  const springDamping = perSpring('springs.damping', description.springDamping ?? 0, springCount);
  springStiffness.forEach((k, s) => {
    if (k < 0) throw new WeftInputError(`springs.stiffness[${s}]`, `must be ≥ 0, got ${k}`);
  });
  springDamping.forEach((c, s) => {
    if (c < 0) throw new WeftInputError(`springs.damping[${s}]`, `must be ≥ 0, got ${c}`);
  });

  let springRestLength: Float64Array;
  const restLengths = description.springRestLengths ?? undefined;
  if (restLengths !== undefined) {
    requireLength('springs.restLengths', requireArray('springs.restLengths', restLengths), springCount, 'one per spring'); // prettier-ignore
    requireFinite('springs.restLengths', restLengths);
    springRestLength = Float64Array.from(restLengths);
  } else {
    springRestLength = new Float64Array(springCount);
    for (let s = 0; s < springCount; s++) {
      const a = springIndices[2 * s] as number;
      const b = springIndices[2 * s + 1] as number;
      springRestLength[s] = Math.hypot(
        (positions[3 * b] as number) - (positions[3 * a] as number),
        (positions[3 * b + 1] as number) - (positions[3 * a + 1] as number),
        (positions[3 * b + 2] as number) - (positions[3 * a + 2] as number),
      );
    }
  }
  springRestLength.forEach((length, s) => {
    if (!(length > 0)) {
      const hint = restLengths === undefined ? ' (its particles start at the same place)' : '';
      throw new WeftInputError(`springs.restLengths[${s}]`, `must be > 0, got ${length}${hint}`);
    }
  });

  return { springCount, springIndices, springRestLength, springStiffness, springDamping };
}

/**
 * Validates a description and builds the model. Every problem is a {@link WeftInputError} that
 * names the field and the index: NaN/Inf anywhere, mass ≤ 0 on a free particle, spring index out
 * of range or a self-loop, rest length ≤ 0, negative stiffness or damping.
 */
export function createModel(description: ModelDescription): Model {
  if (typeof description !== 'object' || description === null)
    throw new WeftInputError('model', `must be an object (positions, masses, springPairs, springStiffness), got ${describeValue(description)}`); // prettier-ignore
  // The required arrays (names as in ModelDescription; scenes check theirs in scene.ts).
  for (const field of ['positions', 'masses', 'springPairs'] as const) {
    const value: unknown = description[field];
    if (typeof value !== 'object' || value === null || typeof (value as ArrayLike<number>).length !== 'number')
      throw new WeftInputError(field, `required: an array of numbers, got ${value === null ? 'null' : typeof value}`); // prettier-ignore
    requireArray(field, value);
  }
  if (description.springStiffness === undefined)
    throw new WeftInputError('springStiffness', 'required: a number or an array of numbers (one per spring), got undefined'); // prettier-ignore
  const { positions, masses } = description;
  if (positions.length % 3 !== 0) {
    throw new WeftInputError('particles.positions', `length ${positions.length} is not a multiple of 3`);
  }
  const particleCount = positions.length / 3;
  if (particleCount === 0) throw new WeftInputError('particles.positions', 'there are no particles');
  requireFinite('particles.positions', positions);
  requireLength('particles.masses', masses, particleCount, 'one per particle');
  requireFinite('particles.masses', masses);

  const particleFixed = new Uint8Array(particleCount);
  const fixed = requireArray('particles.fixed', description.fixed ?? []);
  for (let i = 0; i < fixed.length; i++) {
    const index = fixed[i] as number;
    requireIndex(`particles.fixed[${i}]`, index, particleCount);
    particleFixed[index] = 1;
  }

  const particleMass = Float64Array.from(masses);
  const particleInvMass = new Float64Array(particleCount);
  for (let i = 0; i < particleCount; i++) {
    const mass = particleMass[i] as number;
    if (particleFixed[i]) continue;
    if (mass <= 0)
      throw new WeftInputError(`particles.masses[${i}]`, `must be > 0 on a free particle, got ${mass}`);
    particleInvMass[i] = 1 / mass;
  }

  const particleVelocities = new Float64Array(3 * particleCount);
  const velocities = description.velocities ?? undefined;
  if (velocities !== undefined) {
    requireLength('particles.velocities', requireArray('particles.velocities', velocities), 3 * particleCount, '3 per particle'); // prettier-ignore
    requireFinite('particles.velocities', velocities);
    particleVelocities.set(velocities);
  }
  for (let i = 0; i < particleCount; i++) {
    if (!particleFixed[i]) continue;
    for (let c = 0; c < 3; c++) {
      if (particleVelocities[3 * i + c] !== 0) {
        throw new WeftInputError(
          `particles.velocities[${3 * i + c}]`,
          `particle ${i} is fixed, so its velocity must be 0, got ${particleVelocities[3 * i + c]}`,
        );
      }
    }
  }

  const springs = springArrays(description, particleCount);

  const gravity = description.gravity ?? [0, -9.81, 0];
  requireLength('gravity', requireArray('gravity', gravity, 'an array of 3 numbers'), 3, 'x, y, z');
  requireFinite('gravity', gravity);

  return {
    particleCount,
    particlePositions: Float64Array.from(positions),
    particleVelocities,
    particleMass,
    particleInvMass,
    particleFixed,
    ...springs,
    gravity: [gravity[0], gravity[1], gravity[2]],
    incidence: buildIncidence(particleCount, springs.springIndices),
    colliders: resolveColliders(description.colliders),
    ...aerodynamics(description.triangles, description.wind, particleCount),
    strainLimit: description.strainLimit === undefined ? null : resolveStrainLimit(description.strainLimit),
    bending: description.bending === undefined ? null : resolveBending(description.bending, Uint32Array.from(requireArray('triangles', description.triangles ?? [])), positions), // prettier-ignore
    selfCollision: description.selfCollision === undefined ? null : resolveSelfCollision(description.selfCollision, Uint32Array.from(requireArray('triangles', description.triangles ?? [])), positions, springs.springStiffness), // prettier-ignore
  };
}

/** The triangles (indices in range, three per triangle) and the wind, which needs triangles. */
function aerodynamics(triangles: unknown, wind: unknown, particleCount: number): Pick<Model, 'triangleIndices' | 'wind'> {
  const list = requireArray('triangles', triangles ?? []);
  if (list.length % 3 !== 0) throw new WeftInputError('triangles', `length ${list.length} is not a multiple of 3 (three particle indices per triangle)`); // prettier-ignore
  for (let k = 0; k < list.length; k++) requireIndex(`triangles[${k}]`, list[k], particleCount);
  const triangleIndices = Uint32Array.from(list);
  if (wind === undefined) return { triangleIndices, wind: null };
  if (triangleIndices.length === 0) throw new WeftInputError('wind', 'acts on triangles, and the model has none (give `triangles`, or build the model with buildCloth or meshToModel)'); // prettier-ignore
  return { triangleIndices, wind: resolveWind(wind) };
} // prettier-ignore

/**
 * `model` with `wind` (validated, fields named `wind.…`; null: none) on its triangles: for models
 * a builder or {@link meshToModel} made.
 */
export function withWind(model: Model, wind: Wind | null): Model {
  if (wind === null) return { ...model, wind: null };
  return { ...model, ...aerodynamics(model.triangleIndices, wind, model.particleCount) };
}

/**
 * `model` with `colliders` (validated, fields named `colliders[k].…`): for models a builder or
 * {@link meshToModel} made.
 */
export function withColliders(model: Model, colliders: readonly Collider[]): Model {
  return { ...model, colliders: resolveColliders(colliders) };
}

function resolveColliders(colliders: unknown): ResolvedCollider[] {
  if (colliders === undefined) return [];
  if (!Array.isArray(colliders))
    throw new WeftInputError('colliders', `must be an array of colliders, got ${describeValue(colliders)}`);
  return colliders.map((c, k) => resolveCollider(c, k));
}

/** `model` with a strain limit on every spring (validated, fields named `strainLimit.…`; null: none). */
export function withStrainLimit(model: Model, limit: StrainLimit | null): Model {
  return { ...model, strainLimit: limit === null ? null : resolveStrainLimit(limit) };
}

/**
 * `model` with dihedral bending on its triangles' hinges (validated, fields named `bending.…`; the
 * rest geometry from the model's initial positions; null: none): for models a builder or
 * {@link meshToModel} made.
 */
export function withBending(model: Model, bending: Bending | null): Model {
  return { ...model, bending: bending === null ? null : resolveBending(bending, model.triangleIndices, model.particlePositions) }; // prettier-ignore
}

/**
 * `model` with self-collision of its triangles (validated, fields named `selfCollision.…`; the
 * thickness checked against the initial positions; null: none): for models a builder or
 * {@link meshToModel} made.
 */
export function withSelfCollision(model: Model, selfCollision: SelfCollision | null): Model {
  return { ...model, selfCollision: selfCollision === null ? null : resolveSelfCollision(selfCollision, model.triangleIndices, model.particlePositions, model.springStiffness) }; // prettier-ignore
}
