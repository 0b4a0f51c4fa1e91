/**
 * Dihedral bending in scenes, meshes and builders, and its clear errors (src/model/bending.ts;
 * the physics: bending.test.ts).
 */
import { describe, expect, test } from 'vitest';
import { createModel, meshToModel, parseScene, WeftInputError } from '../src/index.ts';

describe('scenes and errors', () => {
  test('a scene with bending: cloth and explicit particles', () => {
    const cloth = parseScene({ cloth: { nx: 4, ny: 3 }, bending: { stiffness: 0.2, damping: 0.01 } });
    expect(cloth.bending!.hingeCount).toBe(3 * 3 * 2 - 3 - 2);
    const explicit = parseScene({
      particles: { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0], masses: [1, 1, 1, 1] },
      springs: { pairs: [0, 1], stiffness: 10 },
      triangles: [0, 1, 3, 0, 3, 2],
      bending: { stiffness: 0.5, restAngles: 'flat' },
    });
    expect(Array.from(explicit.bending!.hingeIndices)).toEqual([3, 0, 1, 2]);
    // c = 3 ‖ē‖² / (Ā₁ + Ā₂) = 3 · 2 / 1: k c = 3.
    expect(explicit.bending!.hingeStiffness[0]).toBeCloseTo(3, 14);
  });

  test('meshToModel takes bending as a material field', () => {
    const model = meshToModel([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0], [0, 1, 3, 0, 3, 2], { bendStiffness: 0, bending: { stiffness: 1 } }); // prettier-ignore
    expect(model.bending!.hingeCount).toBe(1);
  });

  test.each([
    [{ stiffness: -1 }, /bending\.stiffness\[0\]: must be a finite number ≥ 0/],
    [{ stiffness: [1, 2] }, /bending\.stiffness: must have 1 entries \(one per hinge\)/],
    [{ stiffness: 1, damping: Number.NaN }, /bending\.damping\[0\]: must be a finite number ≥ 0/],
    [{ stiffness: 1, restAngles: [4] }, /bending\.restAngles\[0\]: must be an angle in \(−π, π\]/],
    [{ stiffness: 1, restAngles: 'bent' }, /bending\.restAngles: must be 'initial', 'flat' or an array/],
    [{ stiffness: 1, bend: 2 }, /bending\.bend: unknown field/],
    [{}, /bending\.stiffness: missing/],
    ['stiff', /bending: must be an object/],
  ])('bad bending %j: a clear error', (bending, message) => {
    const square = { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0], masses: [1, 1, 1, 1], springPairs: [0, 1], springStiffness: 1, triangles: [0, 1, 3, 0, 3, 2] }; // prettier-ignore
    expect(() => createModel({ ...square, bending: bending as never })).toThrow(WeftInputError);
    expect(() => createModel({ ...square, bending: bending as never })).toThrow(message);
  });

  test('no triangles, a rope scene: clear errors', () => {
    expect(() => createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], springPairs: [0, 1], springStiffness: 1, bending: { stiffness: 1 } })).toThrow(/bending: acts on the hinges between triangles/); // prettier-ignore
    expect(() => parseScene({ rope: { particles: 4 }, bending: { stiffness: 1 } })).toThrow(
      /bending: unknown field/,
    );
  });
});
