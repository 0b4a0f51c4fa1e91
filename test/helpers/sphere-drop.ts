/**
 * Issue 13's drop (the scene of bench/lib/contacts-scene.mjs): a 1 m × 1 m cloth of n² particles
 * (0.3 kg in all, k = 100/20/4 N/m, spring damping 0.05 N·s/m, no pins) 3 cm above a sphere at the
 * origin (r = 0.3 m, thickness 1 cm, μ = 0.5) over a floor (y = −0.3 m), reached at step 6 at
 * dt = 1/60 s. The same physical cloth at every n: refining it is what the solver must survive.
 */
import { buildCloth, withColliders, withSelfCollision, type Model } from '../../src/index.ts';

export const SPHERE_RADIUS = 0.3;
export const THICKNESS = 0.01;

export function sphereDrop(n: number, selfCollision = false): Model {
  const cloth = buildCloth({
    nx: n,
    ny: n,
    spacing: 1 / (n - 1),
    particleMass: 0.3 / (n * n),
    structuralStiffness: 100,
    shearStiffness: 20,
    bendStiffness: 4,
    damping: 0.05,
    pins: [],
    origin: [-0.5, SPHERE_RADIUS + THICKNESS + 0.03, -0.5],
  });
  const model = withColliders(cloth, [
    { shape: 'sphere', center: [0, 0, 0], radius: SPHERE_RADIUS, friction: 0.5, thickness: THICKNESS },
    { shape: 'plane', point: [0, -SPHERE_RADIUS, 0], normal: [0, 1, 0], friction: 0.5, thickness: THICKNESS },
  ]);
  return selfCollision ? withSelfCollision(model, {}) : model;
}
