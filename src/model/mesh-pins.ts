import { describeName, WeftInputError } from '../core/errors.ts';

/**
 * Named sets of vertices to pin on any mesh (y is up, as Weft's default gravity −y):
 * - 'top-edge': the vertices at the mesh's highest y (within 0.1 % of its largest extent) — a
 *   skirt's waist, a hanging cloth's top row;
 * - 'top-corners': of those, the one with the least x and the one with the greatest x;
 * - 'corners': the vertex nearest each of the 8 corners of the bounding box (a flat cloth's 4
 *   corners);
 * - 'none'.
 */
export type MeshPinPreset = 'none' | 'top-edge' | 'top-corners' | 'corners';

/** The named pin presets of {@link meshPins}, as `weft run --pin` accepts them. */
export const MESH_PIN_PRESETS: readonly MeshPinPreset[] = ['none', 'top-edge', 'top-corners', 'corners'];

/** How far below the highest y a 'top-edge' vertex may be, as a fraction of the largest extent. */
const TOP_TOLERANCE = 1e-3;

function bounds(positions: ArrayLike<number>): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    const c = i % 3;
    min[c] = Math.min(min[c]!, positions[i]!);
    max[c] = Math.max(max[c]!, positions[i]!);
  }
  return { min, max };
}

/**
 * The vertex indices (sorted, 0-based) of a {@link MeshPinPreset} on a mesh of `positions`
 * (xyz interleaved, finite). An unknown preset is a {@link WeftInputError} naming `field`.
 */
export function meshPins(positions: ArrayLike<number>, preset: MeshPinPreset, field = 'pins'): number[] {
  if (!MESH_PIN_PRESETS.includes(preset))
    throw new WeftInputError(field, `unknown preset ${describeName(preset)} (use ${MESH_PIN_PRESETS.join(', ')})`); // prettier-ignore
  const n = positions.length / 3;
  if (preset === 'none' || n === 0) return [];
  const { min, max } = bounds(positions);
  if (preset === 'corners') {
    const pinned = new Set<number>();
    for (let corner = 0; corner < 8; corner++) {
      const target = [0, 1, 2].map((c) => ((corner >> c) & 1 ? max[c]! : min[c]!));
      let [best, bestDistance] = [0, Infinity];
      for (let v = 0; v < n; v++) {
        const d = Math.hypot(...[0, 1, 2].map((c) => positions[3 * v + c]! - target[c]!));
        if (d < bestDistance) [best, bestDistance] = [v, d];
      }
      pinned.add(best);
    }
    return [...pinned].sort((a, b) => a - b);
  }
  const extent = Math.max(max[0]! - min[0]!, max[1]! - min[1]!, max[2]! - min[2]!);
  const top: number[] = [];
  for (let v = 0; v < n; v++) if (positions[3 * v + 1]! >= max[1]! - TOP_TOLERANCE * extent) top.push(v);
  if (preset === 'top-edge') return top;
  let [left, right] = [top[0]!, top[0]!];
  for (const v of top) {
    if (positions[3 * v]! < positions[3 * left]!) left = v;
    if (positions[3 * v]! > positions[3 * right]!) right = v;
  }
  return [...new Set([left, right])].sort((a, b) => a - b);
}
