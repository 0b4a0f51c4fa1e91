/**
 * The collider tests' scene: an n × n horizontal cloth (spacing 0.06 m, 5 g per particle,
 * k = 500/100/20, spring damping 0.05, no pins) centred `height` m above a sphere at the origin of
 * radius 0.3 m, μ = 0.8, thickness 0.01 m (THICKNESS).
 */
import { buildCloth, withColliders, type Model } from '../../src/index.ts';

export const THICKNESS = 0.01;

export function clothOnSphere(n: number, height: number): Model {
  const half = (0.06 * (n - 1)) / 2;
  const cloth = buildCloth({ nx: n, ny: n, spacing: 0.06, particleMass: 0.005, structuralStiffness: 500, shearStiffness: 100, bendStiffness: 20, damping: 0.05, pins: 'none', origin: [-half, height, -half] }); // prettier-ignore
  return withColliders(cloth, [{ shape: 'sphere', center: [0, 0, 0], radius: 0.3, friction: 0.8, thickness: THICKNESS }]); // prettier-ignore
}
