// Issue 13's contact scene: a 1 m × 1 m cloth dropped a few centimetres onto a sphere over a
// floor, and what the benchmark checks of its frames (particles inside the sphere, triangles
// through each other).
import { buildCloth, selfIntersections, withColliders, withSelfCollision } from '../../dist/weft-internal.js';

/** The sphere (centre at the origin) and the floor under it, m. */
/** How the contact benches integrate the scene: implicit Euler at 1/60 s, multigrid CG to 1e-3. */
export const SOLVER_OPTIONS = {
  integrator: 'implicit-euler',
  dt: 1 / 60,
  solver: 'multigrid',
  tolerance: 1e-3,
};
export const SPHERE = { shape: 'sphere', center: [0, 0, 0], radius: 0.3, friction: 0.5, thickness: 0.01 };
export const FLOOR = {
  shape: 'plane',
  point: [0, -0.3, 0],
  normal: [0, 1, 0],
  friction: 0.5,
  thickness: 0.01,
};

/** The cases: no contacts (the cloth just falls), the colliders, the colliders and self-collision. */
export const VARIANTS = {
  none: 'no contacts (falls)',
  colliders: 'colliders',
  self: 'colliders + selfCollision',
};

/**
 * @param {number} n particles per side
 * @param {keyof typeof VARIANTS} variant
 * @param {{ totalMass: number, stiffness: number, damping: number, drop: number, maxPairsPerParticle?: number }} o total mass
 *   (kg), structural spring stiffness (N/m; shear 1/5 of it, bending 1/25), spring damping
 *   (N·s/m), the gap between the cloth and the sphere's contact surface at the start (m), and
 *   selfCollision's maxPairsPerParticle (default 32)
 */
export function contactModel(n, variant, { totalMass, stiffness, damping, drop, maxPairsPerParticle = 32 }) {
  const cloth = buildCloth({
    nx: n,
    ny: n,
    spacing: 1 / (n - 1),
    particleMass: totalMass / (n * n),
    structuralStiffness: stiffness,
    shearStiffness: stiffness / 5,
    bendStiffness: stiffness / 25,
    damping,
    pins: [],
    origin: [-0.5, SPHERE.radius + SPHERE.thickness + drop, -0.5],
  });
  if (variant === 'none') return cloth;
  const model = withColliders(cloth, [SPHERE, FLOOR]);
  // selfCollision's defaults: r = min(5 mm, 0.2 × the spacing), k = the largest spring stiffness.
  return variant === 'self' ? withSelfCollision(model, { maxPairsPerParticle }) : model;
}

/** How deep the deepest particle is inside the sphere (m; 0 if none is) and the closest distance to its surface. */
export function sphereDepth(positions) {
  const [cx, cy, cz] = SPHERE.center;
  let closest = Infinity;
  for (let k = 0; k < positions.length; k += 3) {
    const distance =
      Math.hypot(positions[k] - cx, positions[k + 1] - cy, positions[k + 2] - cz) - SPHERE.radius;
    closest = Math.min(closest, distance);
  }
  return { inside: Math.max(0, -closest), closest };
}

/** Pairs of triangles that share no vertex and intersect (touching counts; float64, exact test). */
export function intersectingPairs(model, positions) {
  return selfIntersections(positions, model.triangleIndices).length;
}
