import { describeValue, WeftInputError } from '../core/errors.ts';
import { meshTopology } from './mesh-topology.ts';
import { createModel, type Model } from './model.ts';
import type { Bending } from './bending.ts';
import type { SelfCollision } from './self-collision.ts';

/** The material of {@link meshToModel}: one for the whole mesh; SI units; every field has a default. */
export interface MeshMaterial {
  /**
   * Areal density, kg/m². Each vertex gets a third of the area of every triangle it belongs to,
   * times this (lumped mass). Default 0.2 (a cotton shirt is about 0.15). Not with `totalMass`.
   */
  density?: number;
  /** Total mass, kg, spread by area as `density` is (density = totalMass / area). */
  totalMass?: number;
  /** Stiffness of the spring on every edge of the mesh, N/m. Default 1000. */
  stretchStiffness?: number;
  /**
   * Stiffness of the bending spring across every interior edge, between the two vertices opposite
   * it, N/m; 0 leaves them out. Default 100.
   */
  bendStiffness?: number;
  /** Damping of every spring along its length, N·s/m. Default 0. */
  damping?: number;
  /** Indices of the vertices that never move (0-based: an OBJ file's vertex number − 1). Default none. */
  pinned?: ArrayLike<number>;
  /** Initial velocities, xyz per vertex, m/s. Default: all zero. */
  velocities?: ArrayLike<number>;
  /** Gravitational acceleration, m/s². Default [0, -9.81, 0]. */
  gravity?: readonly [number, number, number];
  /**
   * Dihedral bending across every interior edge (src/model/bending.ts), the alternative to the
   * bending springs (set `bendStiffness: 0` for bending alone). Default: none.
   */
  bending?: Bending;
  /** Self-collision of the mesh's triangles (src/model/self-collision.ts). Default: none. */
  selfCollision?: SelfCollision;
}

/** The defaults of {@link MeshMaterial} (the CLI's flags document the same values). */
export const MESH_MATERIAL_DEFAULTS = {
  density: 0.2,
  stretchStiffness: 1000,
  bendStiffness: 100,
  damping: 0,
} as const;

function nonNegative(field: string, value: unknown, fallback: number, positive = false): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (positive && v === 0))
    throw new WeftInputError(field, `must be a finite number ${positive ? '>' : '≥'} 0, got ${describeValue(v)}`); // prettier-ignore
  return v;
}

function arrayOfNumbers(field: string, value: unknown): ArrayLike<number> {
  const length = (value as { length?: unknown } | null)?.length;
  if (typeof value !== 'object' || value === null || !Number.isSafeInteger(length))
    throw new WeftInputError(field, `must be an array of numbers, got ${describeValue(value)}`);
  return value as ArrayLike<number>;
}

/** The lumped masses: a third of each triangle's mass to each of its vertices, kg. */
function lumpedMasses(
  vertexCount: number,
  triangles: ArrayLike<number>,
  areas: Float64Array,
  density: number,
): Float64Array {
  const masses = new Float64Array(vertexCount);
  areas.forEach((area, t) => {
    for (let corner = 0; corner < 3; corner++) masses[triangles[3 * t + corner]!]! += (density * area) / 3;
  });
  return masses;
}

/**
 * A mass-spring model of any triangle mesh (a garment, a flag, a sail), in the mesh's units
 * (metres). Springs, in this order:
 *
 * - stretch: one per unique edge (stiffness `stretchStiffness`), in order of first appearance;
 * - bend: one per interior edge — an edge shared by exactly two triangles — joining the two
 *   vertices opposite it (stiffness `bendStiffness`). On a triangulated grid these are the other
 *   diagonal of each cell (shear) and the springs that span two cells (bending), so they do the
 *   work of buildCloth's shear and bend springs on any mesh. A pair already joined by an edge or
 *   an earlier bend spring is not joined again.
 *
 * Border edges (one triangle) and non-manifold edges (three or more) get their stretch spring
 * only. Rest lengths are the initial distances. Masses are lumped by area: vertex i gets
 * Σ density · area(t) / 3 over its triangles t, so they add up to density × the mesh's area.
 *
 * Every problem is a {@link WeftInputError} naming the field: `positions[i]` (NaN/Inf, a vertex
 * in no triangle), `triangles[k]` (index out of range, a vertex repeated, zero area — at most
 * 1e-9 × the longest edge² —, a triangle given twice), `material.…` (a negative stiffness, a
 * density ≤ 0, both density and totalMass, a pinned index out of range).
 *
 * @param positions Vertex positions, xyz interleaved, [3n], m.
 * @param triangles Vertex indices, three per triangle, [3t], 0-based; any winding.
 */
export function meshToModel(
  positions: ArrayLike<number>,
  triangles: ArrayLike<number>,
  material: MeshMaterial = {},
): Model {
  arrayOfNumbers('positions', positions);
  arrayOfNumbers('triangles', triangles);
  if (typeof material !== 'object' || material === null)
    throw new WeftInputError('material', `must be an object, got ${describeValue(material)}`);
  if (positions.length % 3 !== 0)
    throw new WeftInputError('positions', `length ${positions.length} is not a multiple of 3 (x, y, z per vertex)`); // prettier-ignore
  if (positions.length === 0) throw new WeftInputError('positions', 'there are no vertices');
  for (let i = 0; i < positions.length; i++) {
    const x = positions[i];
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new WeftInputError(`positions[${i}]`, `must be a finite number, got ${describeValue(x)}`);
  }
  const stretch = nonNegative('material.stretchStiffness', material.stretchStiffness, MESH_MATERIAL_DEFAULTS.stretchStiffness); // prettier-ignore
  const bend = nonNegative('material.bendStiffness', material.bendStiffness, MESH_MATERIAL_DEFAULTS.bendStiffness); // prettier-ignore
  const damping = nonNegative('material.damping', material.damping, MESH_MATERIAL_DEFAULTS.damping);
  if (material.density !== undefined && material.totalMass !== undefined)
    throw new WeftInputError('material.totalMass', 'give density or totalMass, not both');
  const pinned = arrayOfNumbers('material.pinned', material.pinned ?? []);
  const vertexCount = positions.length / 3;
  for (let k = 0; k < pinned.length; k++) {
    const v = pinned[k];
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) >= vertexCount)
      throw new WeftInputError(`material.pinned[${k}]`, `vertex index ${describeValue(v)} is out of range [0, ${vertexCount - 1}]`); // prettier-ignore
  }

  const topology = meshTopology(positions, triangles);
  const area = topology.triangleAreas.reduce((sum, a) => sum + a, 0);
  const density =
    material.totalMass !== undefined
      ? nonNegative('material.totalMass', material.totalMass, 0, true) / area
      : nonNegative('material.density', material.density, MESH_MATERIAL_DEFAULTS.density, true);
  const masses = lumpedMasses(vertexCount, triangles, topology.triangleAreas, density);

  const bendPairs = bend > 0 ? topology.bendPairs : new Uint32Array(0);
  for (let s = 0; s < bendPairs.length / 2; s++) {
    const [c, d] = [bendPairs[2 * s]!, bendPairs[2 * s + 1]!];
    const p = (v: number, axis: number): number => positions[3 * v + axis]!;
    if (p(c, 0) === p(d, 0) && p(c, 1) === p(d, 1) && p(c, 2) === p(d, 2))
      throw new WeftInputError(`positions[${3 * d}]`, `vertices ${c} and ${d}, opposite across an edge, are at one point (the two triangles are folded flat onto each other), so the bending spring between them has no rest length`); // prettier-ignore
  }
  const edgeCount = topology.edges.length / 2;
  const springPairs = new Uint32Array(topology.edges.length + bendPairs.length);
  springPairs.set(topology.edges);
  springPairs.set(bendPairs, topology.edges.length);
  const stiffness = new Float64Array(springPairs.length / 2).fill(stretch, 0, edgeCount).fill(bend, edgeCount); // prettier-ignore

  return createModel({
    positions,
    masses,
    triangles,
    fixed: pinned,
    springPairs,
    springStiffness: stiffness,
    springDamping: damping,
    ...(material.velocities !== undefined ? { velocities: material.velocities } : {}),
    ...(material.gravity !== undefined ? { gravity: material.gravity } : {}),
    ...(material.bending !== undefined ? { bending: material.bending } : {}),
    ...(material.selfCollision !== undefined ? { selfCollision: material.selfCollision } : {}),
  });
}
