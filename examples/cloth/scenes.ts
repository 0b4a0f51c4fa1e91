/**
 * The demo's cloths: a square built by buildCloth (3.15 m, 1 kg, `size`² particles; in the
 * 'character' scene draped over Weft's capsule colliders, examples/cloth/world.ts), a skirt read
 * from examples/scenes/garment.obj by loadObj and made a model by meshToModel, hung from its waist
 * above the sphere, and a flag (2.4 × 1.6 m, 0.4 kg) pinned along its pole in Weft's wind. Each
 * comes with the surface the renderer draws.
 */
import {
  buildCloth,
  createModel,
  loadObj,
  meshPins,
  meshToModel,
  type Model,
  type SimulationState,
} from '../../src/index.ts';
import garmentObj from '../scenes/garment.obj?raw';
import { gridMesh, triangleMesh, type ClothMesh } from './cloth-mesh.ts';

export type SceneName = 'square' | 'garment' | 'flag' | 'character';
export type Pins = 'top-corners' | 'top-edge' | 'none';

/** The panel's settings that make the cloth; SI units. */
export interface SceneSettings {
  scene: SceneName;
  /** Particles along each side of the square. */
  size: number;
  pins: Pins;
  /** The square's structural springs; the skirt's edge (stretch) springs, N/m. */
  structural: number;
  /** The square's shear springs, N/m (the skirt's bending springs do their work). */
  shear: number;
  /** The square's bend springs; the skirt's bending springs, N/m. */
  bend: number;
  /** Dihedral bending stiffness k_B on every hinge (Weft's `bending`), J; 0: none. */
  bending: number;
  /** Self-collision thickness r (Weft's `selfCollision`), m; 0: none. */
  selfCollision: number;
  damping: number;
  gravity: number;
}

/** The square: this side, m, and this mass, kg, whatever its number of particles. */
export const CLOTH_WIDTH = 3.15;
const CLOTH_MASS = 1;
/** Height at which the square starts, flat, m. */
const CLOTH_HEIGHT = 2.1;
/**
 * The skirt (waist y = 1 m, radius 0.17 m in the file) is scaled 2.2× about its waist and worn by
 * the sphere: its waist ring (radius 0.37 m) at y = 1.85 m, above the sphere's top (1.8 m); its
 * flare starts at most 3 cm inside the sphere, which the contacts push it out of.
 */
const GARMENT_SCALE = 2.2;
const GARMENT_WAIST = [0, 1.85, 0.1] as const;
/** The skirt's areal density, kg/m² (1.2 kg in all, at 2.2² × 1.24 m²). */
const GARMENT_DENSITY = 0.2;
/** Side of the skirt's checks, m. */
const GARMENT_CHECK = 0.1;

/** The flag: width along x, m (its height is 2/3 of it), mass, kg, and the foot of its pole. */
const FLAG_WIDTH = 2.4;
const FLAG_MASS = 0.4;
const FLAG_ORIGIN = [-1.2, 1.3, 0] as const;
/** The flag's particles along its height for `size` along its width. */
const flagRows = (size: number): number => Math.max(2, Math.round((2 * size) / 3));

/** The skirt's rest positions (placed) and triangles, read once. */
let garment: { positions: Float64Array; triangles: Uint32Array; longestEdge: number } | null = null;
function garmentMesh(): NonNullable<typeof garment> {
  if (garment) return garment;
  const { positions, triangles } = loadObj(garmentObj, { source: 'garment.obj' });
  // The file's waist centre is (0, 1, 0).
  positions.forEach(
    (x, k) => (positions[k] = GARMENT_WAIST[k % 3]! + GARMENT_SCALE * (k % 3 === 1 ? x - 1 : x)),
  );
  let longestEdge = 0;
  for (let t = 0; t < triangles.length; t += 3)
    for (let c = 0; c < 3; c++) {
      const [a, b] = [triangles[t + c]!, triangles[t + ((c + 1) % 3)]!];
      longestEdge = Math.max(longestEdge, Math.hypot(...[0, 1, 2].map((k) => positions[3 * a + k]! - positions[3 * b + k]!))); // prettier-ignore
    }
  garment = { positions, triangles, longestEdge };
  return garment;
}

/** The cloth of `settings` at rest. The square lies flat above the sphere, pinned on its far edge. */
function restModel(settings: SceneSettings): Model {
  const gravity = [0, -settings.gravity, 0] as const;
  const optional = {
    ...(settings.bending > 0 ? { bending: { stiffness: settings.bending } } : {}),
    ...(settings.selfCollision > 0 ? { selfCollision: { thickness: settings.selfCollision } } : {}),
  };
  if (settings.scene === 'garment') {
    const { positions, triangles } = garmentMesh();
    return meshToModel(positions, triangles, {
      density: GARMENT_DENSITY,
      stretchStiffness: settings.structural,
      bendStiffness: settings.bend,
      damping: settings.damping,
      ...optional,
      pinned: meshPins(positions, settings.pins),
      gravity,
    });
  }
  const n = settings.size;
  // The material both scenes take from the controls.
  const material = {
    structuralStiffness: settings.structural,
    shearStiffness: settings.shear,
    bendStiffness: settings.bend,
    damping: settings.damping,
    ...optional,
  };
  if (settings.scene === 'flag') {
    const rows = flagRows(n);
    return buildCloth({
      nx: n,
      ny: rows,
      spacing: FLAG_WIDTH / (n - 1),
      particleMass: FLAG_MASS / (n * rows),
      ...material,
      pins: Array.from({ length: rows }, (_, j) => j * n), // along the pole
      orientation: 'vertical',
      origin: FLAG_ORIGIN,
      gravity,
    });
  }
  return buildCloth({
    nx: n,
    ny: n,
    spacing: CLOTH_WIDTH / (n - 1),
    particleMass: CLOTH_MASS / (n * n),
    ...material,
    pins: settings.pins,
    orientation: 'horizontal',
    origin: [-CLOTH_WIDTH / 2, CLOTH_HEIGHT, -CLOTH_WIDTH / 2],
    gravity,
  });
}

/**
 * The cloth of `settings`. With `from` (a state of the same cloth), the same springs and rest
 * lengths carry on from that state.
 */
export function buildModel(settings: SceneSettings, from?: SimulationState): Model {
  const cloth = restModel(settings);
  if (!from) return cloth;
  const fixed: number[] = [];
  const velocities = Float64Array.from(from.velocities);
  cloth.particleFixed.forEach((isFixed, i) => {
    if (!isFixed) return;
    fixed.push(i);
    velocities.fill(0, 3 * i, 3 * i + 3);
  });
  // The hinges keep the rest cloth's angles and coefficients, and self-collision its thickness
  // (checked against the rest edges), not those of the state carried on.
  const model = createModel({
    positions: from.positions,
    velocities,
    masses: cloth.particleMass,
    fixed,
    springPairs: cloth.springIndices,
    springStiffness: cloth.springStiffness,
    springRestLengths: cloth.springRestLength,
    springDamping: cloth.springDamping,
    triangles: cloth.triangleIndices,
    gravity: cloth.gravity,
  });
  return { ...model, bending: cloth.bending, selfCollision: cloth.selfCollision };
}

/**
 * The largest step at which the explicit schemes stay stable on this cloth, s: h < 2/ω_max, with
 * ω_max² ≤ max over particles of 2 Σ k / m (Gershgorin's bound on M⁻¹K). The square's particles
 * have 12 springs at most; the skirt's are counted.
 */
export function explicitStepLimit(settings: SceneSettings): number {
  if (settings.scene === 'square' || settings.scene === 'character') {
    const mass = CLOTH_MASS / settings.size ** 2;
    const stiffness = 4 * (settings.structural + settings.shear + settings.bend);
    return 2 / Math.sqrt((2 * stiffness) / mass);
  }
  const model = restModel(settings);
  const { offsets, entries } = model.incidence;
  let omega2 = 0;
  for (let i = 0; i < model.particleCount; i++) {
    let stiffness = 0;
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) stiffness += model.springStiffness[entries[e]! >> 1]!;
    omega2 = Math.max(omega2, (2 * stiffness) / model.particleMass[i]!);
  }
  return 2 / Math.sqrt(omega2);
}

/**
 * The step the character scene takes at most, s: 1/240 s at 32², scaled with the spacing,
 * (1/240) × 31/(size − 1); no limit in the other scenes. It was made for a contact fault now fixed
 * (Weft's implicit contacts pulled a particle within one step's reach *by its whole speed* onto a
 * surface at −gap/h, its force read as adhesion released it, and it ended the next step up to
 * h |v| behind: at 1/240 s 48² spiked to 445 J of spring energy and 64² to 1,098 J; contacts are
 * now taken where free flight's *normal* approach reaches the surface,
 * reports/design/contact-release-cycle.md). Measured since (CPU, implicit Euler, multigrid CG to
 * 1e-3, to 1.5 s): 48² at 1/240 s peaks at 14.9 J, as at this limit (15.3 J); 64² at 1/240 s at
 * 67.5 J and at 0.0031 s at 79.6 J (a friction snag on the left arm at 0.92–0.94 s, then ≤ 10 J),
 * at this limit, 0.00205 s, at 29.2 J; 128² at 1/240 s reaches 238 J at 1.0 s (145 J at 1.2 s).
 * What remains grows with h |v| / l, l = 3.15 m/(size − 1) the rest length: a particle its springs
 * carry behind a surface faster than free flight ends the step up to h |v| behind it (10 mm at
 * 128²) and is moved out by the next, a jump its springs never saw. So the limit stays.
 */
export function contactStepLimit(settings: SceneSettings): number {
  return settings.scene === 'character' ? (1 / 240) * (31 / (settings.size - 1)) : Infinity;
}

/** Drawn surfaces, made once per scene and size (the renderer keeps their buffers while they stay). */
const meshes = new Map<string, ClothMesh>();

/** The surface the renderer draws for `settings`, and the longest edge that is not yet a blow-up, m. */
export function sceneSurface(
  settings: SceneSettings,
  maxStretch: number,
): { mesh: ClothMesh; maxEdge: number } {
  const rows = settings.scene === 'flag' ? flagRows(settings.size) : settings.size;
  const key = settings.scene === 'garment' ? 'garment' : `grid-${settings.size}-${rows}`;
  let mesh = meshes.get(key);
  if (settings.scene === 'garment') {
    const { positions, triangles, longestEdge } = garmentMesh();
    mesh ??= triangleMesh(positions, triangles, GARMENT_CHECK);
    meshes.set(key, mesh);
    return { mesh, maxEdge: maxStretch * longestEdge };
  }
  mesh ??= gridMesh(settings.size, rows);
  meshes.set(key, mesh);
  const width = settings.scene === 'flag' ? FLAG_WIDTH : CLOTH_WIDTH;
  return { mesh, maxEdge: (maxStretch * width) / (settings.size - 1) };
}

/** How the statistics name the cloth. */
export function sceneLabel(settings: SceneSettings): string {
  if (settings.scene === 'flag') return `${settings.size}×${flagRows(settings.size)} flag`;
  const suffix = settings.scene === 'character' ? ' on a character' : '';
  return settings.scene === 'garment'
    ? 'skirt (garment.obj)'
    : `${settings.size}×${settings.size} cloth${suffix}`;
}
