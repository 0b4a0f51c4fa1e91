/** The bumped free sheet of the adaptive bending tests. No vitest here. */
import { buildCloth, createModel, type Model } from '../../src/index.ts';

/**
 * A free 5 × 5 sheet, bumped off its flat rest shape, no springs, no gravity
 * (bending-integrators.test.ts): only its hinges (stiffness 0.05, `damping`) move it.
 */
export function bumpySheet(damping = 0): Model {
  const flat = buildCloth({ nx: 5, ny: 5, spacing: 0.1, pins: 'none', gravity: [0, 0, 0] });
  const bump = (k: number) => 0.02 * Math.sin(1.7 * k + 0.3 * k * k);
  return createModel({ positions: flat.particlePositions.map((x, k) => x + bump(k)), masses: flat.particleMass, springPairs: [], springStiffness: 0, triangles: flat.triangleIndices, gravity: [0, 0, 0], bending: { stiffness: 0.05, damping, restAngles: 'flat' } }); // prettier-ignore
}
