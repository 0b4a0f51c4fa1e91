/**
 * Self-collision detection on the CPU (design: reports/design/self-collision.md §2): the pairs of
 * primitives — a particle and a triangle (VT), two edges (EE) — that share no particle and lie
 * within r_q = r + D_P₁ + D_P₂ (D_P the largest reach of the primitive's particles), sorted. The
 * same algorithm as the WGSL kernels, run sequentially:
 *
 * - items: triangles (kind 0, ids 0 … t−1) keyed by centroid g_T with radius ρ_T (largest
 *   corner–centroid distance), edges (kind 1, ids t … t+e−1) keyed by midpoint g_e, half-length λ_e;
 * - Teschner et al. 2003 ("Optimized spatial hashing for collision detection of deformable
 *   objects", VMV): cell (i, j, k) = ⌊g / c_s⌋, H = ((73856093 i) ^ (19349663 j) ^ (83492791 k)) mod T
 *   in wrapping u32 arithmetic, key 2H + kind; a counting sort of the items by key;
 * - queries: x_p ± (r + D_p + D_max + ρ_max) for a particle, g_e ± (r + D_e + D_max + λ_e + λ_max)
 *   for an edge (any partner's key point lies inside: dist < r_q and every point of a primitive lies
 *   within ρ or λ of its key point), their cells walked in z, y, x order; an item counts only in its
 *   own cell, which drops hash collisions and buckets two cells of the box share;
 * - the exact distance (self-contact-geometry.ts) decides; each primitive's partners are sorted.
 *
 * The list is therefore a pure function of positions and reach: the cell and table sizes change
 * only the work.
 */
import { WeftError } from '../../core/errors.ts';
import type { ResolvedSelfCollision } from '../../model/self-collision.ts';
import { edgeEdgeClosest, vertexTriangleClosest } from '../../model/self-contact-geometry.ts';
import { PairBuffer } from './pair-buffer.ts';

export interface SelfPairList {
  /** Number of pairs. */
  count: number;
  /** [count]: 0 vertex–triangle, 1 edge–edge. */
  kinds: Uint8Array;
  /** [2·count]: (vertex, triangle) for VT, (edge, edge') with edge < edge' for EE. */
  primitives: Uint32Array;
  /** [4·count]: VT (p, a, b, c) with (a, b, c) the triangle's indices in order; EE (p1, q1, p2, q2), each edge's ends as stored. */
  particles: Uint32Array;
}

/** Cells a query box may span per axis (design §2); more is an error (lower dt). */
export const SELF_QUERY_CELLS = 8;

/** Teschner et al. 2003: H = ((73856093 i) ^ (19349663 j) ^ (83492791 k)) mod T, in wrapping u32 arithmetic. */
export function selfCellHash(i: number, j: number, k: number, tableSize: number): number {
  const hash = Math.imul(i, 73856093) ^ Math.imul(j, 19349663) ^ Math.imul(k, 83492791);
  // A power of two takes the low bits (an integer op; % on a u32 above 2³¹ is a float fmod in V8).
  return (tableSize & (tableSize - 1)) === 0 ? hash & (tableSize - 1) : (hash >>> 0) % tableSize;
}

/** Doubles per slot of the sorted items: item id, cell (i, j, k), key point (x, y, z), D_P + radius. */
const RECORD = 8;

/** The items (triangles, then edges) hashed and counting-sorted by key 2H + kind. */
interface SelfGrid {
  readonly cellSize: number;
  readonly tableSize: number;
  readonly triangleCount: number;
  /** [2T + 1]: bucket `key` holds slots start[key] … start[key + 1] − 1. */
  readonly start: Uint32Array;
  /** [RECORD (t + e)], by slot (ascending item id within a bucket): one cache line per candidate. */
  readonly slots: Float64Array;
  /** By item id: key point (centroid or midpoint) [3(t + e)], radius ρ_T or λ_e, reach D_P (the largest of its particles'). */
  readonly keyPoint: Float64Array;
  readonly radius: Float64Array;
  readonly itemReach: Float64Array;
  readonly reachMax: number;
  readonly triangleRadiusMax: number;
  readonly edgeRadiusMax: number;
  /** |x|∞ (at least 1), for rounding slack. */
  readonly scale: number;
}

/** Key points, radii ρ_T / λ_e and reaches D_P of the items into the arrays; returns max(ρ), max(λ). */
function itemGeometry(
  self: ResolvedSelfCollision,
  x: ArrayLike<number>,
  reach: ArrayLike<number>,
  keyPoint: Float64Array,
  radius: Float64Array,
  itemReach: Float64Array,
): [number, number] {
  const [tri, edges] = [self.triangleIndices, self.edgeIndices];
  const t = tri.length / 3;
  let [triangleMax, edgeMax] = [0, 0];
  for (let T = 0; T < t; T++) {
    const a = tri[3 * T]!;
    const b = tri[3 * T + 1]!;
    const c = tri[3 * T + 2]!;
    let rho2 = 0;
    for (let axis = 0; axis < 3; axis++)
      keyPoint[3 * T + axis] = (x[3 * a + axis]! + x[3 * b + axis]! + x[3 * c + axis]!) / 3;
    for (let corner = 0; corner < 3; corner++) {
      const i = 3 * (corner === 0 ? a : corner === 1 ? b : c);
      const dx = x[i]! - keyPoint[3 * T]!;
      const dy = x[i + 1]! - keyPoint[3 * T + 1]!;
      const dz = x[i + 2]! - keyPoint[3 * T + 2]!;
      rho2 = Math.max(rho2, dx * dx + dy * dy + dz * dz);
    }
    radius[T] = Math.sqrt(rho2);
    triangleMax = Math.max(triangleMax, radius[T]!);
    itemReach[T] = Math.max(reach[a]!, reach[b]!, reach[c]!);
  }
  for (let e = 0; 2 * e < edges.length; e++) {
    const item = t + e;
    const p = edges[2 * e]!;
    const q = edges[2 * e + 1]!;
    let length2 = 0;
    for (let axis = 0; axis < 3; axis++) {
      keyPoint[3 * item + axis] = 0.5 * (x[3 * p + axis]! + x[3 * q + axis]!);
      const d = x[3 * q + axis]! - x[3 * p + axis]!;
      length2 += d * d;
    }
    radius[item] = 0.5 * Math.sqrt(length2);
    edgeMax = Math.max(edgeMax, radius[item]!);
    itemReach[item] = Math.max(reach[p]!, reach[q]!);
  }
  return [triangleMax, edgeMax];
}

/** Scratch kept between calls for one ResolvedSelfCollision (detection runs every step). */
interface Workspace {
  readonly keyPoint: Float64Array;
  readonly radius: Float64Array;
  readonly itemReach: Float64Array;
  readonly slots: Float64Array;
  readonly keys: Uint32Array;
  start: Uint32Array;
  cursor: Uint32Array;
  readonly buffer: PairBuffer;
}

const workspaces = new WeakMap<ResolvedSelfCollision, Workspace>();

function workspaceOf(self: ResolvedSelfCollision): Workspace {
  const m = self.triangleIndices.length / 3 + self.edgeIndices.length / 2;
  let work = workspaces.get(self);
  if (!work) {
    const [keyPoint, radius, itemReach] = [new Float64Array(3 * m), new Float64Array(m), new Float64Array(m)];
    const [slots, keys, empty] = [new Float64Array(RECORD * m), new Uint32Array(m), new Uint32Array(0)];
    work = {
      keyPoint,
      radius,
      itemReach,
      slots,
      keys,
      start: empty,
      cursor: empty,
      buffer: new PairBuffer(),
    };
    workspaces.set(self, work);
  }
  work.buffer.count = 0;
  return work;
}

/** Bucket starts and cursors for a table of T entries per kind. */
function workspaceTable(work: Workspace, tableSize: number): void {
  if (work.start.length === 2 * tableSize + 1) return;
  work.start = new Uint32Array(2 * tableSize + 1);
  work.cursor = new Uint32Array(2 * tableSize);
}

/**
 * Cells ⌊g / c_s⌋ and keys 2H + kind of the items, then a counting sort by key (stable: ascending
 * item id within a bucket) into `slots`; returns the bucket starts [2T + 1].
 */
function sortItems(grid: Omit<SelfGrid, 'start'>, work: Workspace): Uint32Array {
  const { cellSize, tableSize, triangleCount, slots, keyPoint, radius, itemReach } = grid;
  const m = radius.length;
  const { keys, start, cursor } = work;
  start.fill(0);
  for (let item = 0; item < m; item++) {
    const i = Math.floor(keyPoint[3 * item]! / cellSize);
    const j = Math.floor(keyPoint[3 * item + 1]! / cellSize);
    const k = Math.floor(keyPoint[3 * item + 2]! / cellSize);
    keys[item] = 2 * selfCellHash(i, j, k, tableSize) + (item < triangleCount ? 0 : 1);
    start[keys[item]! + 1]!++;
  }
  for (let key = 0; key < 2 * tableSize; key++) start[key + 1] = start[key + 1]! + start[key]!;
  cursor.set(start.subarray(0, 2 * tableSize));
  for (let item = 0; item < m; item++) {
    const at = RECORD * cursor[keys[item]!]!++;
    slots[at] = item;
    for (let axis = 0; axis < 3; axis++) {
      slots[at + 1 + axis] = Math.floor(keyPoint[3 * item + axis]! / cellSize) | 0; // as Int32, as the WGSL's i32
      slots[at + 4 + axis] = keyPoint[3 * item + axis]!;
    }
    slots[at + 7] = itemReach[item]! + radius[item]!;
  }
  return start;
}

/** The grid of the items at x (design §2). */
function selfGrid(
  self: ResolvedSelfCollision,
  x: ArrayLike<number>,
  reach: ArrayLike<number>,
  options: { cellSize?: number; tableSize?: number },
  work: Workspace,
): SelfGrid {
  const triangleCount = self.triangleIndices.length / 3;
  const m = triangleCount + self.edgeIndices.length / 2;
  const [keyPoint, radius, itemReach] = [work.keyPoint, work.radius, work.itemReach];
  const [triangleRadiusMax, edgeRadiusMax] = itemGeometry(self, x, reach, keyPoint, radius, itemReach);
  let [reachMax, scale] = [0, 1];
  for (let i = 0; i < reach.length; i++) reachMax = Math.max(reachMax, reach[i]!);
  for (let i = 0; i < x.length; i++) scale = Math.max(scale, Math.abs(x[i]!));
  const extent = Math.max(triangleRadiusMax, edgeRadiusMax);
  const cellSize = options.cellSize ?? 2 * (self.thickness + reachMax + extent);
  const tableSize = options.tableSize ?? 2 ** Math.ceil(Math.log2(Math.max(1, m)));
  if (!(cellSize > 0 && Number.isFinite(cellSize)) || !(Number.isInteger(tableSize) && tableSize > 0))
    throw new Error(`detectSelfPairs: cell size ${cellSize} and table size ${tableSize} must be finite and > 0 (the table size an integer)`); // prettier-ignore
  workspaceTable(work, tableSize);
  const grid = { cellSize, tableSize, triangleCount, slots: work.slots, keyPoint, radius, itemReach, reachMax, triangleRadiusMax, edgeRadiusMax, scale }; // prettier-ignore
  return { ...grid, start: sortItems(grid, work) };
}

/**
 * The cells of the box center ± (halfWidth + slack) on each axis, written as (lo, span) to box [6];
 * the slack 1e-4 c_s + 1e-6 |center|∞ (as the WGSL's) only adds cells. More than SELF_QUERY_CELLS
 * on an axis throws: a particle's reach is too large for the grid.
 */
function queryBox(
  grid: SelfGrid,
  cx: number,
  cy: number,
  cz: number,
  halfWidth: number,
  box: Int32Array,
): void {
  const size = grid.cellSize;
  const w = halfWidth + 1e-4 * size + 1e-6 * Math.max(Math.abs(cx), Math.abs(cy), Math.abs(cz));
  for (let axis = 0; axis < 3; axis++) {
    const c = axis === 0 ? cx : axis === 1 ? cy : cz;
    const lo = Math.floor((c - w) / size);
    const span = Math.floor((c + w) / size) - lo + 1;
    if (!(span <= SELF_QUERY_CELLS))
      throw new WeftError('step-size', `selfCollision: a query box spans ${span} cells of ${size.toPrecision(3)} m on an axis, more than ${SELF_QUERY_CELLS}: a particle moves too far in one step (its reach D = 2h|v| + h²|g| + r/2 is up to ${grid.reachMax.toPrecision(3)} m); lower dt`, 'dt', { cells: span, cellSize: size, reach: grid.reachMax }); // prettier-ignore
    box[axis] = lo;
    box[3 + axis] = span;
  }
}

/** Particle p's VT pairs, appended in triangle order: T ∌ p with dist(x_p, T) < r + D_p + D_T. */
function vertexPairs(
  self: ResolvedSelfCollision,
  grid: SelfGrid,
  x: ArrayLike<number>,
  reach: ArrayLike<number>,
  p: number,
  buffer: PairBuffer,
  box: Int32Array,
  bary: Float64Array,
): void {
  const tri = self.triangleIndices;
  const { start, slots, itemReach, tableSize } = grid;
  const px = x[3 * p]!;
  const py = x[3 * p + 1]!;
  const pz = x[3 * p + 2]!;
  const own = self.thickness + reach[p]!;
  queryBox(grid, px, py, pz, own + grid.reachMax + grid.triangleRadiusMax, box);
  const slack = 1e-12 * grid.scale;
  const from = buffer.count;
  const i1 = box[0]! + box[3]!;
  const j1 = box[1]! + box[4]!;
  const k1 = box[2]! + box[5]!;
  for (let k = box[2]!; k < k1; k++)
    for (let j = box[1]!; j < j1; j++)
      for (let i = box[0]!; i < i1; i++) {
        const key = 2 * selfCellHash(i, j, k, tableSize);
        const end = RECORD * start[key + 1]!;
        for (let at = RECORD * start[key]!; at < end; at += RECORD) {
          if (slots[at + 1] !== i || slots[at + 2] !== j || slots[at + 3] !== k) continue;
          // dist(p, T) ≥ |x_p − g_T| − ρ_T: beyond r + D_p + D_T + ρ_T (with rounding slack) it cannot pass.
          const dx = px - slots[at + 4]!;
          const dy = py - slots[at + 5]!;
          const dz = pz - slots[at + 6]!;
          const bound = (own + slots[at + 7]!) * (1 + 1e-9) + slack;
          if (dx * dx + dy * dy + dz * dz > bound * bound) continue;
          const T = slots[at]!;
          const a = tri[3 * T]!;
          const b = tri[3 * T + 1]!;
          const c = tri[3 * T + 2]!;
          if (a === p || b === p || c === p) continue;
          if (vertexTriangleClosest(x, p, a, b, c, bary) < own + itemReach[T]!) buffer.push(p, T);
        }
      }
  buffer.sortFrom(from);
}

/** Edge e's EE pairs with e′ > e, appended in e′ order: no shared particle, dist(e, e′) < r + D_e + D_e′. */
function edgePairs(
  self: ResolvedSelfCollision,
  grid: SelfGrid,
  x: ArrayLike<number>,
  e: number,
  buffer: PairBuffer,
  box: Int32Array,
  st: Float64Array,
): void {
  const edges = self.edgeIndices;
  const { start, slots, keyPoint, itemReach, tableSize } = grid;
  const t = grid.triangleCount;
  const p1 = edges[2 * e]!;
  const q1 = edges[2 * e + 1]!;
  const item = t + e;
  const gx = keyPoint[3 * item]!;
  const gy = keyPoint[3 * item + 1]!;
  const gz = keyPoint[3 * item + 2]!;
  const own = self.thickness + grid.itemReach[item]!;
  const lambda = grid.radius[item]!;
  queryBox(grid, gx, gy, gz, own + grid.reachMax + lambda + grid.edgeRadiusMax, box);
  const slack = 1e-12 * grid.scale;
  const from = buffer.count;
  const i1 = box[0]! + box[3]!;
  const j1 = box[1]! + box[4]!;
  const k1 = box[2]! + box[5]!;
  for (let k = box[2]!; k < k1; k++)
    for (let j = box[1]!; j < j1; j++)
      for (let i = box[0]!; i < i1; i++) {
        const key = 2 * selfCellHash(i, j, k, tableSize) + 1;
        // Items ascend within a bucket (a stable counting sort): walk down to the first e′ ≤ e.
        const first = RECORD * start[key]!;
        for (let at = RECORD * (start[key + 1]! - 1); at >= first && slots[at]! > item; at -= RECORD) {
          if (slots[at + 1] !== i || slots[at + 2] !== j || slots[at + 3] !== k) continue;
          // dist(e, e′) ≥ |g_e − g_e′| − λ_e − λ_e′.
          const dx = gx - slots[at + 4]!;
          const dy = gy - slots[at + 5]!;
          const dz = gz - slots[at + 6]!;
          const bound = (own + lambda + slots[at + 7]!) * (1 + 1e-9) + slack;
          if (dx * dx + dy * dy + dz * dz > bound * bound) continue;
          const other = slots[at]! - t;
          const p2 = edges[2 * other]!;
          const q2 = edges[2 * other + 1]!;
          if (p1 === p2 || p1 === q2 || q1 === p2 || q1 === q2) continue;
          if (edgeEdgeClosest(x, p1, q1, p2, q2, st) < own + itemReach[t + other]!) buffer.push(e, other);
        }
      }
  buffer.sortFrom(from);
}

/**
 * Every pair of primitives that share no particle and lie within r + D_P₁ + D_P₂: VT when
 * dist(x_p, T) < r + D_p + max(D_a, D_b, D_c), p ∉ T (every particle p against every triangle);
 * EE when dist(e, e′) < r + max(D over e) + max(D over e′), e < e′, no shared end. VT pairs first,
 * by particle then triangle; then EE pairs by edge then edge′. The list is a pure function of
 * positions and reach: `cellSize` (default 2 (r + D_max + max(ρ_max, λ_max)), from the current
 * positions) and `tableSize` (default nextPow2(t + e)) change only the work.
 */
export function detectSelfPairs(
  self: ResolvedSelfCollision,
  x: ArrayLike<number>,
  reach: ArrayLike<number>,
  options?: { cellSize?: number; tableSize?: number },
): SelfPairList {
  const work = workspaceOf(self);
  const grid = selfGrid(self, x, reach, options ?? {}, work);
  const buffer = work.buffer;
  const [box, scratch] = [new Int32Array(6), new Float64Array(3)];
  const n = x.length / 3;
  for (let p = 0; p < n; p++) vertexPairs(self, grid, x, reach, p, buffer, box, scratch);
  const vertexTriangle = buffer.count;
  for (let e = 0; 2 * e < self.edgeIndices.length; e++) edgePairs(self, grid, x, e, buffer, box, scratch);
  const count = buffer.count;
  const kinds = new Uint8Array(count).fill(1, vertexTriangle);
  const primitives = new Uint32Array(2 * count);
  const particles = new Uint32Array(4 * count);
  const [tri, edges] = [self.triangleIndices, self.edgeIndices];
  for (let k = 0; k < count; k++) {
    const first = buffer.first[k]!;
    const second = buffer.second[k]!;
    primitives[2 * k] = first;
    primitives[2 * k + 1] = second;
    const vt = k < vertexTriangle;
    particles[4 * k] = vt ? first : edges[2 * first]!;
    particles[4 * k + 1] = vt ? tri[3 * second]! : edges[2 * first + 1]!;
    particles[4 * k + 2] = vt ? tri[3 * second + 1]! : edges[2 * second]!;
    particles[4 * k + 3] = vt ? tri[3 * second + 2]! : edges[2 * second + 1]!;
  }
  return { count, kinds, primitives, particles };
}
