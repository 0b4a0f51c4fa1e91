/**
 * The mesh colliders' hierarchies and triangles packed for shaders/colliders.wgsl's `meshData`
 * (its layout comment is the reference): every mesh's nodes, then every mesh's triangles; node
 * and triangle indices made absolute (a mesh's nodes start at its root, its triangles at its
 * first), the u32s `first` and `count` stored in the w lanes' bits.
 */
import type { ResolvedCollider } from '../../model/colliders.ts';

/** vec4s a node takes in meshData: (lower, first), (upper, count). */
const NODE_VEC4S = 2;
/** vec4s a triangle takes: corners a, b, c; pseudonormals face, ab, bc, ca, a, b, c. */
export const TRIANGLE_VEC4S = 10;

export interface PackedMeshes {
  /** meshData's bytes (at least one vec4). */
  readonly bytes: ArrayBuffer;
  /** The root node of each collider (0 for the analytic shapes). */
  readonly roots: readonly number[];
  /** The vec4 at which the triangles start (override meshTriangleBase). */
  readonly triangleBase: number;
}

export function packMeshes(colliders: readonly ResolvedCollider[]): PackedMeshes {
  const meshes = colliders.map((c) => c.mesh ?? null);
  const nodeCount = meshes.reduce((n, m) => n + (m ? m.first.length : 0), 0);
  const triangleCount = meshes.reduce((n, m) => n + (m ? m.corners.length / 9 : 0), 0);
  const triangleBase = NODE_VEC4S * nodeCount;
  const bytes = new ArrayBuffer(16 * Math.max(1, triangleBase + TRIANGLE_VEC4S * triangleCount));
  const [f32, u32] = [new Float32Array(bytes), new Uint32Array(bytes)];
  const roots: number[] = [];
  let [node, triangle] = [0, 0];
  for (const mesh of meshes) {
    roots.push(mesh ? node : 0);
    if (!mesh) continue;
    const { bounds, first, count, corners, normals } = mesh;
    for (let k = 0; k < first.length; k++) {
      const at = 4 * NODE_VEC4S * (node + k);
      f32.set(bounds.subarray(6 * k, 6 * k + 3), at);
      f32.set(bounds.subarray(6 * k + 3, 6 * k + 6), at + 4);
      u32[at + 3] = count[k]! > 0 ? triangle + first[k]! : node + first[k]!;
      u32[at + 7] = count[k]!;
    }
    for (let t = 0; t < corners.length / 9; t++) {
      const at = 4 * (triangleBase + TRIANGLE_VEC4S * (triangle + t));
      for (let c = 0; c < 3; c++) f32.set(corners.subarray(9 * t + 3 * c, 9 * t + 3 * c + 3), at + 4 * c);
      for (let n = 0; n < 7; n++)
        f32.set(normals.subarray(21 * t + 3 * n, 21 * t + 3 * n + 3), at + 4 * (3 + n));
    }
    node += first.length;
    triangle += corners.length / 9;
  }
  return { bytes, roots, triangleBase };
}
