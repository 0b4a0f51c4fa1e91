/**
 * The flags of `weft run` for a mesh scene (an .obj file): its material (README, "Meshes"), as rows
 * of the same shape as the options table so that `--help` lists them with the others, and their
 * conversion into a {@link MeshMaterial}.
 */
import { WeftInputError } from '../core/errors.ts';
import type { OptionSpec } from '../integrators/option-spec.ts';
import { MESH_MATERIAL_DEFAULTS, type MeshMaterial } from '../model/mesh.ts';
import { MESH_PIN_PRESETS, meshPins, type MeshPinPreset } from '../model/mesh-pins.ts';

const MESH = { integrators: 'all', backends: 'all' } as const;

/** The material flags; each applies to .obj scenes only. */
// prettier-ignore
export const MESH_FLAGS: readonly OptionSpec[] = [
  { name: 'density', type: 'number', unit: 'kg/m²', default: MESH_MATERIAL_DEFAULTS.density, range: { min: 0, minOpen: true }, appliesTo: MESH, flag: 'density', help: '.obj scenes: areal density; each vertex gets a third of the area of its triangles times this.' },
  { name: 'totalMass', type: 'number', unit: 'kg', defaultText: 'density × area', range: { min: 0, minOpen: true }, appliesTo: MESH, flag: 'mass', help: '.obj scenes: the total mass, spread by area (instead of --density).' },
  { name: 'stretchStiffness', type: 'number', unit: 'N/m', default: MESH_MATERIAL_DEFAULTS.stretchStiffness, range: { min: 0 }, appliesTo: MESH, flag: 'stretch', help: '.obj scenes: stiffness of the spring on every edge.' },
  { name: 'bendStiffness', type: 'number', unit: 'N/m', default: MESH_MATERIAL_DEFAULTS.bendStiffness, range: { min: 0 }, appliesTo: MESH, flag: 'bend', help: '.obj scenes: stiffness of the spring across every interior edge, between the two vertices opposite it (shear and bending); 0 leaves them out.' },
  { name: 'bending', type: 'number', unit: 'J', defaultText: 'none', range: { min: 0 }, appliesTo: MESH, flag: 'bending', help: '.obj scenes: dihedral bending stiffness k_B across every interior edge (discrete shells, E = Σ k_B c (θ − θ₀)², rest angles from the file); with --bend 0 it replaces the bending springs.' },
  { name: 'selfCollision', type: 'number', unit: 'm', defaultText: 'none', range: { min: 0, minOpen: true }, appliesTo: MESH, flag: 'self-collision', help: '.obj scenes: self-collision with this thickness r (at most 0.35 × the shortest edge): vertex–triangle and edge–edge pairs that share no vertex repel within r, and no step lets triangles pass through each other (implicit-euler, explicit and multistep integrators).' },
  { name: 'damping', type: 'number', unit: 'N·s/m', default: MESH_MATERIAL_DEFAULTS.damping, range: { min: 0 }, appliesTo: MESH, flag: 'damping', help: '.obj scenes: damping of every spring along its length.' },
  { name: 'pinned', type: 'choice', unit: '', default: 'none', choices: MESH_PIN_PRESETS, appliesTo: MESH, flag: 'pin', help: '.obj scenes: the vertices that never move: a preset (top-edge: the highest vertices; top-corners: their least-x and greatest-x ones; corners: nearest the bounding box’s corners), or vertex indices 0,5,9 (0-based: the OBJ vertex number − 1).' },
];

/** `--obj-sequence DIR`: one OBJ file per frame (not a material flag, but for .obj scenes only too). */
export const OBJ_SEQUENCE_FLAG = 'obj-sequence';

/** The first material flag given, or undefined. */
export function givenMeshFlag(values: Readonly<Record<string, unknown>>): string | undefined {
  const flags = [...MESH_FLAGS.map((spec) => spec.flag!), OBJ_SEQUENCE_FLAG];
  return flags.find((flag) => values[flag] !== undefined);
}

/** `--pin`'s value: a preset's vertices, or a list of 0-based indices (range-checked by meshToModel). */
function pinnedVertices(text: string, positions: ArrayLike<number>): number[] {
  const trimmed = text.trim();
  if (/^\d+(\s*,\s*\d+)*$/.test(trimmed)) return trimmed.split(',').map((part) => Number(part.trim()));
  if (!MESH_PIN_PRESETS.includes(trimmed as MeshPinPreset))
    throw new WeftInputError('--pin', `must be ${MESH_PIN_PRESETS.join(', ')} or vertex indices like 0,5,9, got '${text.slice(0, 40)}'`); // prettier-ignore
  return meshPins(positions, trimmed as MeshPinPreset, '--pin');
}

/**
 * The material given by the flags, each checked against its row (errors name the flag);
 * `flagValue` is flags.ts's conversion of a flag's text.
 */
export function materialFromFlags(
  values: Readonly<Record<string, string | boolean | undefined>>,
  positions: ArrayLike<number>,
  flagValue: (spec: OptionSpec, text: string) => unknown,
): MeshMaterial {
  const material: Record<string, unknown> = {};
  for (const spec of MESH_FLAGS) {
    const text = values[spec.flag!];
    if (typeof text !== 'string') continue;
    const value = spec.name === 'pinned' ? pinnedVertices(text, positions) : flagValue(spec, text);
    material[spec.name] =
      spec.name === 'bending'
        ? { stiffness: value }
        : spec.name === 'selfCollision'
          ? { thickness: value }
          : value;
  }
  if (material['density'] !== undefined && material['totalMass'] !== undefined)
    throw new WeftInputError('--mass', 'give --density or --mass, not both');
  return material as MeshMaterial;
}
