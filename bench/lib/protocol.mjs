// The benchmark protocol: scenes, integrator families, backends, and the quality figures every
// engine is judged by. Nothing here runs a simulation.
//
// Scene "warp" is NVIDIA Warp's cross-framework cloth benchmark
// (warp/examples/benchmarks/benchmark_cloth.py): an N×N grid in the x–z plane, spacing 0.1 m,
// 0.1 kg per particle, the two corners of one edge fixed, structural, shear (both diagonals) and
// bend springs (i to i + 2) of k = 1000 N/m with damping 10 N·s/m along the spring, gravity
// −9.81 m/s², 60 frames per second with 16 substeps (h = 1/960 s). Scene "stiff" is the same
// grid at k = 1e4 N/m with one implicit step of 1/60 s per frame.
import { buildCloth } from '../../dist/weft.js';

/** Simulated time after which the quality figures are taken, s. */
export const QUALITY_TIME = 2;

/** Frames per simulated second in both scenes. */
export const FRAMES_PER_SECOND = 60;

/**
 * @typedef {object} Scene
 * @property {string} name
 * @property {string} label
 * @property {number} stiffness    k of every spring, N/m
 * @property {number} damping      c along every spring, N·s/m
 * @property {number} stepsPerFrame substeps per 1/60 s frame
 */

/** @type {Record<string, Scene>} */
export const SCENES = {
  warp: {
    name: 'warp',
    label: 'Warp cloth (k = 1000 N/m, 16 substeps)',
    stiffness: 1000,
    damping: 10,
    stepsPerFrame: 16,
  },
  stiff: {
    name: 'stiff',
    label: 'stiff cloth (k = 1e4 N/m, 1 step/frame)',
    stiffness: 1e4,
    damping: 10,
    stepsPerFrame: 1,
  },
};

/** The step h of a scene, s. */
export const stepOf = (scene) => 1 / (FRAMES_PER_SECOND * scene.stepsPerFrame);

/**
 * Integrator families: which Weft integrator runs on which scene.
 * @type {Record<string, { scene: string, integrator: string, solver?: string }>}
 */
export const FAMILIES = {
  'symplectic-euler': { scene: 'warp', integrator: 'symplectic-euler' },
  rk4: { scene: 'warp', integrator: 'rk4' },
  'implicit-euler': { scene: 'warp', integrator: 'implicit-euler', solver: 'pcg' },
  'stiff-pcg': { scene: 'stiff', integrator: 'implicit-euler', solver: 'pcg' },
  'stiff-cg': { scene: 'stiff', integrator: 'implicit-euler', solver: 'cg' },
};
export const DEFAULT_FAMILIES = ['symplectic-euler', 'rk4', 'implicit-euler', 'stiff-pcg'];

/** Weft backends: createSimulation's backend and precision. */
export const BACKENDS = {
  'cpu-f64': { backend: 'cpu', precision: 'f64' },
  'cpu-f32': { backend: 'cpu', precision: 'f32' },
  webgpu: { backend: 'webgpu', precision: 'f32' },
};
export const DEFAULT_BACKENDS = ['cpu-f64', 'cpu-f32', 'webgpu'];

export const PEERS = ['jolt', 'ammo'];
export const DEFAULT_SIZES = [32, 64, 128, 256];

/** The N×N cloth of a scene, pinned at the two corners of its last row (Warp pins row 0: a mirror image). */
export function sceneModel(scene, n) {
  return buildCloth({
    nx: n,
    ny: n,
    spacing: 0.1,
    particleMass: 0.1,
    structuralStiffness: scene.stiffness,
    shearStiffness: scene.stiffness,
    bendStiffness: scene.stiffness,
    damping: scene.damping,
    pins: 'top-corners',
    orientation: 'horizontal',
  });
}

/** The free corner whose sag is reported: particle (0, 0), diagonal to nothing pinned. */
export const FREE_CORNER = 0;

/**
 * The quality figures, computed from positions alone and in the same way for every engine:
 * the sag of the free corner (its initial height minus its height now, m; negative when it has
 * swung above where it started) and the largest spring strain |l − L| / L over the model's own
 * spring list (structural, shear and bend alike).
 * @param {import('../../dist/types/index.d.ts').Model} model
 * @param {ArrayLike<number>} positions xyz per particle, m
 */
export function qualityOf(model, positions) {
  const index = model.springIndices;
  let maxStrain = 0;
  for (let s = 0; s < model.springCount; s++) {
    const a = 3 * index[2 * s];
    const b = 3 * index[2 * s + 1];
    const length = Math.hypot(
      positions[b] - positions[a],
      positions[b + 1] - positions[a + 1],
      positions[b + 2] - positions[a + 2],
    );
    const rest = model.springRestLength[s];
    maxStrain = Math.max(maxStrain, Math.abs(length - rest) / rest);
  }
  const y = 3 * FREE_CORNER + 1;
  return { sag: model.particlePositions[y] - positions[y], maxStrain };
}

/**
 * A note when the figures say the run blew up while staying finite: the free corner more than ten
 * cloth widths from where it started, or a spring stretched past a thousand rest lengths. Empty
 * otherwise. (The Warp cloth legitimately stretches its corner springs tens of times over at
 * N ≥ 128: thousands of kilograms hang from two particles.)
 */
export function blowUpNote(model, quality) {
  let width = 0;
  for (let i = 0; i < model.particleCount; i++) width = Math.max(width, model.particlePositions[3 * i]);
  if (Math.abs(quality.sag) > 10 * width) {
    return `blown up: the free corner moved ${quality.sag.toPrecision(3)} m vertically, over 10× the cloth's width`;
  }
  if (quality.maxStrain > 1000) {
    return `blown up: a spring is ${quality.maxStrain.toPrecision(3)} times longer than at rest`;
  }
  return '';
}

/** Bytes of WGSL `Spring` (two u32 endpoints, rest length, stiffness, damping; pinned by test/layout.test.ts). */
const SPRING_BYTES = 20;
const VEC4 = 16;

/**
 * Bytes an explicit WebGPU step must move at least, pass by pass as shaders/*.wgsl are written:
 * every buffer element a pass touches counted once (reads and writes), none twice.
 *   spring forces: springs, x and v read, one force per spring written     20 s + 32 n + 16 s
 *   accelerations: forces, CSR offsets and entries, 1/m, v read, a written 16 s + 8 s + 4 n + 4 n + 16 n + 16 n
 *   symplectic update: x, v read and written, a read                       80 n
 *   Runge–Kutta stages 1…4: 112 n, 160 n, 160 n, 128 n (state, stage, sums, accelerations)
 * Returns null for integrators this model does not cover (the implicit ones are measured on their
 * matrix-free product instead, with measureProduct).
 */
export function explicitStepBytes(model, integrator) {
  const n = model.particleCount;
  const s = model.springCount;
  const evaluation =
    SPRING_BYTES * s + 2 * VEC4 * n + VEC4 * s + VEC4 * s + 8 * s + 4 * (n + 1) + 4 * n + 2 * VEC4 * n;
  if (integrator === 'symplectic-euler') return evaluation + 5 * VEC4 * n;
  if (integrator === 'rk4') return 4 * evaluation + (7 + 10 + 10 + 8) * VEC4 * n;
  return null;
}
