/**
 * The cloth as a three.js mesh: a triangle grid whose vertex k is Weft's particle k. A TSL
 * `positionNode` loads the vertex's position from the positions texture (positions-texture.ts), and
 * its normal from its four grid neighbours, both in the vertex shader; the material is three.js's
 * own physically based one, lit by the scene's lights.
 */
import {
  BufferAttribute,
  BufferGeometry,
  DoubleSide,
  Mesh,
  MeshStandardNodeMaterial,
  type ExternalTexture,
  type Node,
} from 'three/webgpu';
import {
  faceDirection,
  int,
  ivec2,
  select,
  textureLoad,
  transformNormalToView,
  vertexIndex,
} from 'three/tsl';
import { ROW_TEXELS } from './positions-texture.ts';

/** Two triangles per grid cell (i, j)–(i+1, j+1), particles numbered k = j·nx + i as buildCloth does. */
export function gridTriangles(nx: number, ny: number): Uint32Array {
  const indices = new Uint32Array(6 * (nx - 1) * (ny - 1));
  let t = 0;
  for (let j = 0; j + 1 < ny; j++)
    for (let i = 0; i + 1 < nx; i++) {
      const k = j * nx + i;
      indices.set([k, k + nx, k + 1, k + 1, k + nx, k + nx + 1], t);
      t += 6;
    }
  return indices;
}

/**
 * A mesh of the nx × ny cloth whose positions `positions` holds. `initial` (xyz per particle) only
 * sizes the geometry (three.js counts vertices from its position attribute); the shader ignores it.
 */
export function clothMesh(
  positions: ExternalTexture,
  nx: number,
  ny: number,
  initial: Float32Array,
  color: number,
): Mesh {
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(initial, 3));
  geometry.setIndex(new BufferAttribute(gridTriangles(nx, ny), 1));

  const material = new MeshStandardNodeMaterial({ color, roughness: 0.75, side: DoubleSide });
  /** Particle k's position: texel (k mod 64, ⌊k / 64⌋). */
  const particle = (k: Node<'int'>): Node<'vec3'> =>
    textureLoad(positions, ivec2(k.mod(ROW_TEXELS), k.div(ROW_TEXELS))).xyz;
  const k = int(vertexIndex);
  const [i, j] = [k.mod(nx), k.div(nx)];
  const at = (column: Node<'int'>, row: Node<'int'>): Node<'vec3'> => particle(row.mul(nx).add(column));
  // Central differences along the grid (one-sided at its edges); their cross product is the
  // normal, +y for the cloth lying flat (z grows with j, x with i, and ẑ × x̂ = ŷ).
  const alongI = at(select(i.lessThan(nx - 1), i.add(1), i), j).sub(
    at(select(i.greaterThan(0), i.sub(1), i), j),
  );
  const alongJ = at(i, select(j.lessThan(ny - 1), j.add(1), j)).sub(
    at(i, select(j.greaterThan(0), j.sub(1), j)),
  );
  material.positionNode = particle(k);
  // Computed per vertex (the varying), interpolated, and flipped on the back face so both sides are lit.
  material.normalNode = transformNormalToView(alongJ.cross(alongI))
    .toVarying('v_clothNormal')
    .normalize()
    .mul(faceDirection);

  const mesh = new Mesh(geometry, material);
  mesh.frustumCulled = false; // the cloth leaves the bounds of its initial positions
  return mesh;
}
