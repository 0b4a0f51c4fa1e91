import { describeValue, WeftInputError } from '../core/errors.ts';
import { createModel, type Model } from './model.ts';
import type { Bending } from './bending.ts';
import type { SelfCollision } from './self-collision.ts';

/** Named pin presets for a cloth. "Top" is the last row (j = ny − 1). */
export type ClothPinPreset = 'none' | 'top-corners' | 'top-edge' | 'corners';

/** Options of {@link buildCloth}. Every field has a default; units are SI. */
export interface ClothOptions {
  /** Particles along x. Default 16. */
  nx?: number;
  /** Particles along the second axis (z when horizontal, y when vertical). Default 16. */
  ny?: number;
  /** Distance between neighbouring particles, m. Default 0.1. */
  spacing?: number;
  /** Mass of each particle, kg. Default 0.1. */
  particleMass?: number;
  /** Stiffness of structural springs (i,j)–(i+1,j) and (i,j)–(i,j+1), N/m. Default 1000. */
  structuralStiffness?: number;
  /** Stiffness of shear springs along both diagonals, N/m; 0 leaves them out. Default 1000. */
  shearStiffness?: number;
  /** Stiffness of bend springs (i,j)–(i+2,j) and (i,j)–(i,j+2), N/m; 0 leaves them out. Default 1000. */
  bendStiffness?: number;
  /** Damping of every spring along its length, N·s/m. Default 0. */
  damping?: number;
  /** Fixed particles: a preset or explicit particle indices (index = j * nx + i). Default 'top-corners'. */
  pins?: ClothPinPreset | readonly number[];
  /** 'horizontal' lays the cloth in the x–z plane, 'vertical' hangs it in the x–y plane. Default 'horizontal'. */
  orientation?: 'horizontal' | 'vertical';
  /** Position of particle (0, 0), m. Default [0, 0, 0]. */
  origin?: readonly [number, number, number];
  /** Gravitational acceleration, m/s². Default [0, -9.81, 0]. */
  gravity?: readonly [number, number, number];
  /**
   * Dihedral bending on the cloth's triangles (src/model/bending.ts), besides or instead of the
   * bend springs (set `bendStiffness: 0` for bending alone). Default: none.
   */
  bending?: Bending;
  /** Self-collision of the cloth's triangles (src/model/self-collision.ts). Default: none. */
  selfCollision?: SelfCollision;
}

function positiveInteger(field: string, value: unknown, minimum: number): number {
  if (!Number.isInteger(value) || (value as number) < minimum) {
    throw new WeftInputError(field, `must be an integer ≥ ${minimum}, got ${describeValue(value)}`);
  }
  return value as number;
}

/** A name as a message quotes it ('top-corners'), cut when long; any other value described. */
function quoted(value: unknown): string {
  if (typeof value !== 'string') return describeValue(value);
  return `'${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
}

/** A builder's options: an object (or nothing, for every default). */
function optionsObject<T>(field: string, options: T | undefined): T {
  if (options === undefined) return {} as T;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new WeftInputError(field, `options must be an object, got ${describeValue(options)}`);
  return options;
}

function finitePositive(field: string, value: unknown): number {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))
    throw new WeftInputError(field, `must be a finite number > 0, got ${describeValue(value)}`);
  return value;
}

/** A particle mass, kg: a finite number (createModel refuses one ≤ 0 on a free particle). */
function particleMass(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new WeftInputError(field, `must be a finite number, got ${describeValue(value)}`);
  return value;
}

/** x, y, z: an array of three finite numbers, or `fallback` when absent. */
function vector(
  field: string,
  value: unknown,
  fallback: readonly [number, number, number],
): readonly [number, number, number] {
  if (value === undefined) return fallback;
  if (
    !Array.isArray(value) ||
    value.length !== 3 ||
    value.some((x) => typeof x !== 'number' || !Number.isFinite(x))
  )
    throw new WeftInputError(field, `must be 3 finite numbers (x, y, z), got ${describeValue(value)}`);
  return value as unknown as readonly [number, number, number];
}

function clothPins(pins: ClothPinPreset | readonly number[], nx: number, ny: number): number[] {
  if (Array.isArray(pins)) return [...(pins as readonly number[])];
  if (typeof pins !== 'string')
    throw new WeftInputError(
      'cloth.pins',
      `must be a preset or a list of indices, got ${describeValue(pins)}`,
    );
  const top = (ny - 1) * nx;
  switch (pins) {
    case 'none':
      return [];
    case 'top-corners':
      return [top, top + nx - 1];
    case 'top-edge':
      return Array.from({ length: nx }, (_, i) => top + i);
    case 'corners':
      return [0, nx - 1, top, top + nx - 1];
    default:
      throw new WeftInputError(
        'cloth.pins',
        `unknown preset ${quoted(pins)} (use none, top-corners, top-edge, corners, or a list of indices)`,
      );
  }
}

/** The most particles a builder makes (a cloth of 4096 × 4096). */
const MAX_BUILT_PARTICLES = 4096 * 4096;

/**
 * A rectangular cloth of nx × ny particles with structural, shear and bend springs, each kind with
 * its own stiffness (the cloth model of the ODE lecture, spec/ode-lecture-mass-spring-cloth.md).
 * Rest lengths are the initial distances. Particle (i, j) has index j * nx + i. Its triangles
 * (two per cell) are the model's `triangleIndices`, for wind.
 */
export function buildCloth(given?: ClothOptions): Model {
  const options = optionsObject('cloth', given);
  const nx = positiveInteger('cloth.nx', options.nx ?? 16, 2);
  const ny = positiveInteger('cloth.ny', options.ny ?? 16, 2);
  // 4096² particles and their ~25 M springs take ~2 GB on the host: more would fail mid-allocation.
  if (nx * ny > MAX_BUILT_PARTICLES)
    throw new WeftInputError('cloth.nx', `nx × ny must be at most ${MAX_BUILT_PARTICLES.toLocaleString('en')} particles (4096²), got ${nx} × ${ny}`); // prettier-ignore
  const spacing = finitePositive('cloth.spacing', options.spacing ?? 0.1);
  const mass = particleMass('cloth.particleMass', options.particleMass ?? 0.1);
  const structural = options.structuralStiffness ?? 1000;
  const shear = options.shearStiffness ?? 1000;
  const bend = options.bendStiffness ?? 1000;
  const [ox, oy, oz] = vector('cloth.origin', options.origin, [0, 0, 0]);
  const vertical = options.orientation === 'vertical';
  if (options.orientation !== undefined && options.orientation !== 'horizontal' && !vertical) {
    throw new WeftInputError(
      'cloth.orientation',
      `must be 'horizontal' or 'vertical', got ${quoted(options.orientation)}`,
    );
  }

  const positions = new Float64Array(3 * nx * ny);
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const p = 3 * (j * nx + i);
      positions[p] = ox + i * spacing;
      positions[p + 1] = oy + (vertical ? j * spacing : 0);
      positions[p + 2] = oz + (vertical ? 0 : j * spacing);
    }
  }

  const pairs: number[] = [];
  const stiffness: number[] = [];
  const add = (i0: number, j0: number, i1: number, j1: number, k: number): void => {
    if (k === 0 || i1 < 0 || i1 >= nx || j1 >= ny) return;
    pairs.push(j0 * nx + i0, j1 * nx + i1);
    stiffness.push(k);
  };
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      add(i, j, i + 1, j, structural);
      add(i, j, i, j + 1, structural);
      add(i, j, i + 1, j + 1, shear);
      add(i, j, i - 1, j + 1, shear);
      add(i, j, i + 2, j, bend);
      add(i, j, i, j + 2, bend);
    }
  }

  // Two triangles per cell, split along the (i, j)–(i+1, j+1) diagonal: the surface wind acts on.
  const triangles = new Uint32Array(6 * (nx - 1) * (ny - 1));
  for (let j = 0, t = 0; j + 1 < ny; j++)
    for (let i = 0; i + 1 < nx; i++, t += 6) {
      const a = j * nx + i;
      triangles.set([a, a + 1, a + nx + 1, a, a + nx + 1, a + nx], t);
    }

  return createModel({
    positions,
    masses: new Float64Array(nx * ny).fill(mass),
    triangles,
    fixed: clothPins(options.pins ?? 'top-corners', nx, ny),
    springPairs: pairs,
    springStiffness: stiffness,
    springDamping: options.damping ?? 0,
    ...(options.gravity ? { gravity: options.gravity } : {}),
    ...(options.bending !== undefined ? { bending: options.bending } : {}),
    ...(options.selfCollision !== undefined ? { selfCollision: options.selfCollision } : {}),
  });
}

/** Options of {@link buildRope}. */
export interface RopeOptions {
  /** Number of particles. Default 16. */
  particles?: number;
  /** Distance between neighbours, m. Default 0.1. */
  spacing?: number;
  /** Mass of each particle, kg. Default 0.1. */
  particleMass?: number;
  /** Stiffness of each segment, N/m. Default 1000. */
  stiffness?: number;
  /** Damping of each segment, N·s/m. Default 0. */
  damping?: number;
  /** Unit direction the rope is laid out along from its first particle. Default [1, 0, 0]. */
  direction?: readonly [number, number, number];
  /** Which ends are fixed. Default 'first'. */
  pins?: 'none' | 'first' | 'both';
  /** Gravitational acceleration, m/s². Default [0, -9.81, 0]. */
  gravity?: readonly [number, number, number];
}

/** A rope (chain) of particles joined by springs between neighbours, laid out straight. */
export function buildRope(given?: RopeOptions): Model {
  const options = optionsObject('rope', given);
  const count = positiveInteger('rope.particles', options.particles ?? 16, 2);
  if (count > MAX_BUILT_PARTICLES)
    throw new WeftInputError('rope.particles', `must be at most ${MAX_BUILT_PARTICLES.toLocaleString('en')}, got ${count}`); // prettier-ignore
  const spacing = finitePositive('rope.spacing', options.spacing ?? 0.1);
  const mass = particleMass('rope.particleMass', options.particleMass ?? 0.1);
  const [dx, dy, dz] = vector('rope.direction', options.direction, [1, 0, 0]);
  const norm = Math.hypot(dx, dy, dz);
  if (!(norm > 0) || !Number.isFinite(norm))
    throw new WeftInputError('rope.direction', 'must be a non-zero vector');
  const positions = new Float64Array(3 * count);
  for (let i = 0; i < count; i++) {
    positions[3 * i] = (i * spacing * dx) / norm;
    positions[3 * i + 1] = (i * spacing * dy) / norm;
    positions[3 * i + 2] = (i * spacing * dz) / norm;
  }
  const presets = { none: [], first: [0], both: [0, count - 1] };
  const pins = options.pins ?? 'first';
  const fixed = typeof pins === 'string' && Object.hasOwn(presets, pins) ? presets[pins] : undefined;
  if (!fixed)
    throw new WeftInputError('rope.pins', `unknown preset ${quoted(pins)} (use none, first or both)`);
  return createModel({
    positions,
    masses: new Float64Array(count).fill(mass),
    fixed,
    springPairs: Array.from({ length: 2 * (count - 1) }, (_, k) => (k >> 1) + (k & 1)),
    springStiffness: options.stiffness ?? 1000,
    springDamping: options.damping ?? 0,
    ...(options.gravity ? { gravity: options.gravity } : {}),
  });
}
