/**
 * Self-collision test scenes shared by the CPU and GPU tests: a vertical cloth (2.5 cm cells)
 * tilted 0.3 rad about x, its lower edge 3 cm above a floor, so that it folds over itself as it
 * collapses.
 */
import { buildCloth, createModel, type Model, type SelfCollision } from '../../src/index.ts';

/** The collapsing n² cloth, with `selfCollision` (or none). */
export function collapsingCloth(n: number, selfCollision?: SelfCollision): Model {
  const base = buildCloth({ nx: n, ny: n, spacing: 0.025, pins: [], orientation: 'vertical', origin: [0, 0.03, 0], damping: 0.2 }); // prettier-ignore
  const positions = Float64Array.from(base.particlePositions);
  for (let i = 0; i < base.particleCount; i++) {
    const [y, z] = [positions[3 * i + 1]! - 0.03, positions[3 * i + 2]!];
    positions[3 * i + 1] = 0.03 + Math.cos(0.3) * y - Math.sin(0.3) * z;
    positions[3 * i + 2] = Math.sin(0.3) * y + Math.cos(0.3) * z;
  }
  return createModel({
    positions,
    masses: base.particleMass,
    springPairs: base.springIndices,
    springStiffness: base.springStiffness,
    springDamping: base.springDamping,
    triangles: base.triangleIndices,
    colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0.5 }],
    ...(selfCollision ? { selfCollision } : {}),
  });
}
