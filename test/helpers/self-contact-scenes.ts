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

/**
 * Newton's ClothTwist (`example_cloth_twist`): a horizontal n² cloth (2 cm cells, zero gravity,
 * r = 3 mm) whose two side columns (x = 0 and x = max) are pinned and turned about the x axis
 * through the cloth's middle at π/3 rad/s, one each way, through `setTargets`: at t s they are
 * 2π/3 t apart.
 */
export function clothTwist(n: number): {
  model: Model;
  /** The pinned side columns' particles. */
  sides: number[];
  /** Where `sides` are at time t (s), in their order: x, y, z each. */
  targets: (t: number) => number[];
} {
  const spacing = 0.02;
  const base = buildCloth({ nx: n, ny: n, spacing, pins: [], orientation: 'horizontal', gravity: [0, 0, 0], damping: 0.5 }); // prettier-ignore
  const sides = Array.from({ length: n }, (_, j) => [j * n, j * n + n - 1]).flat();
  const model = createModel({
    positions: base.particlePositions,
    masses: base.particleMass,
    fixed: sides,
    springPairs: base.springIndices,
    springStiffness: base.springStiffness,
    springDamping: base.springDamping,
    triangles: base.triangleIndices,
    gravity: [0, 0, 0],
    selfCollision: { thickness: 0.003 },
  });
  const mid = ((n - 1) * spacing) / 2;
  const x0 = base.particlePositions;
  const targets = (t: number): number[] =>
    sides.flatMap((i) => {
      const angle = (i % n === 0 ? 1 : -1) * (Math.PI / 3) * t; // about the x axis through the middle
      const [y, z] = [x0[3 * i + 1]!, x0[3 * i + 2]! - mid];
      return [x0[3 * i]!, Math.cos(angle) * y - Math.sin(angle) * z, mid + Math.sin(angle) * y + Math.cos(angle) * z]; // prettier-ignore
    });
  return { model, sides, targets };
}
