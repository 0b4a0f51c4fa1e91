/**
 * What the renderer draws: the cloth's surface, for a builder's grid or any triangle mesh (the
 * triangles, the coordinates of the woven pattern, and each vertex's triangles for the normals),
 * and the fixed scene (floor and sphere).
 */

/** What {@link ClothRenderer.setCloth} draws. */
export interface ClothMesh {
  readonly vertexCount: number;
  /** Vertex indices, three per triangle, wound so that (b − a) × (c − a) points to the front. */
  readonly triangles: Uint32Array<ArrayBuffer>;
  /** The woven pattern's coordinates, xyz per vertex: checks of unit size. */
  readonly pattern: Float32Array<ArrayBuffer>;
  /** The triangles of vertex i: `vertexTriangles[vertexOffsets[i] .. vertexOffsets[i + 1])`. */
  readonly vertexOffsets: Uint32Array<ArrayBuffer>;
  readonly vertexTriangles: Uint32Array<ArrayBuffer>;
}

/** Each vertex's triangles in compressed-sparse-row form. */
function vertexTriangles(
  vertexCount: number,
  triangles: Uint32Array,
): Pick<ClothMesh, 'vertexOffsets' | 'vertexTriangles'> {
  const offsets = new Uint32Array(vertexCount + 1);
  for (const v of triangles) offsets[v + 1]! += 1;
  for (let v = 0; v < vertexCount; v++) offsets[v + 1]! += offsets[v]!;
  const cursor = offsets.slice(0, vertexCount);
  const list = new Uint32Array(triangles.length);
  for (let k = 0; k < triangles.length; k++) list[cursor[triangles[k]!]!++] = Math.floor(k / 3);
  return { vertexOffsets: offsets, vertexTriangles: list };
}

/**
 * A width × height grid (particle (i, j) at j·width + i, as buildCloth numbers them), two
 * triangles per cell wound so that a horizontal cloth (i along x, j along z) faces +y, with
 * `checks` × `checks` checks across it.
 */
export function gridMesh(width: number, height: number, checks = 24): ClothMesh {
  const triangles = new Uint32Array(6 * (width - 1) * (height - 1));
  let k = 0;
  for (let j = 0; j + 1 < height; j++)
    for (let i = 0; i + 1 < width; i++) {
      const a = j * width + i;
      const b = a + 1;
      const c = a + width;
      const d = c + 1;
      // Alternate the diagonal, so the folds have no preferred direction.
      if ((i + j) % 2 === 0) triangles.set([a, d, b, a, c, d], k);
      else triangles.set([a, c, b, b, c, d], k);
      k += 6;
    }
  const pattern = new Float32Array(3 * width * height);
  for (let j = 0; j < height; j++)
    for (let i = 0; i < width; i++)
      // z = 0.5 keeps floor() of the third coordinate away from a check's border.
      pattern.set([(checks * i) / (width - 1), (checks * j) / (height - 1), 0.5], 3 * (j * width + i));
  return { vertexCount: width * height, triangles, pattern, ...vertexTriangles(width * height, triangles) };
}

/**
 * Any triangle mesh, its pattern a solid checkerboard of the rest positions (no seams on a closed
 * garment), with checks `checkSize` m wide.
 */
export function triangleMesh(
  restPositions: ArrayLike<number>,
  triangles: ArrayLike<number>,
  checkSize: number,
): ClothMesh {
  const vertexCount = restPositions.length / 3;
  const indices = Uint32Array.from(triangles);
  const pattern = Float32Array.from(restPositions, (x) => x / checkSize);
  return { vertexCount, triangles: indices, pattern, ...vertexTriangles(vertexCount, indices) };
}

/** The floor (a 24 m square at y = 0, kind 0) and a unit UV sphere (kind 1): position, normal, kind. */
export function sceneMesh(): { vertices: ArrayBuffer; indices: Uint32Array<ArrayBuffer> } {
  const vertices: [number, number, number, number, number, number, number][] = [];
  const indices: number[] = [];
  const half = 12;
  for (const [x, z] of [
    [-half, -half],
    [half, -half],
    [half, half],
    [-half, half],
  ] as const)
    vertices.push([x, 0, z, 0, 1, 0, 0]);
  indices.push(0, 2, 1, 0, 3, 2);
  const [rings, segments] = [32, 64];
  const first = vertices.length;
  for (let r = 0; r <= rings; r++) {
    const theta = (Math.PI * r) / rings;
    for (let s = 0; s <= segments; s++) {
      const phi = (2 * Math.PI * s) / segments;
      const n = [Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)] as const;
      vertices.push([n[0], n[1], n[2], n[0], n[1], n[2], 1]);
    }
  }
  for (let r = 0; r < rings; r++)
    for (let s = 0; s < segments; s++) {
      const a = first + r * (segments + 1) + s;
      const b = a + segments + 1;
      indices.push(a, b, a + 1, a + 1, b, b + 1);
    }
  const bytes = new ArrayBuffer(28 * vertices.length);
  const view = new DataView(bytes);
  vertices.forEach((vertex, v) => {
    for (let c = 0; c < 6; c++) view.setFloat32(28 * v + 4 * c, vertex[c]!, true);
    view.setUint32(28 * v + 24, vertex[6]!, true);
  });
  return { vertices: bytes, indices: Uint32Array.from(indices) };
}
