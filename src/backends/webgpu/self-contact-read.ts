/**
 * The debug read-back of a GPU self-collision detection (self-contact-detect.ts): the pair list in
 * the CPU's SelfPairList form (src/backends/cpu/self-contact-detect.ts), the per-particle
 * incidence, and the sticky flags, which raise errors naming what to change.
 */

import { WeftError } from '../../core/errors.ts';

/** A detection's result as read back. */
export interface GpuSelfPairs {
  /** Pairs listed: min(total, capacity). */
  readonly count: number;
  /** Pairs the count pass found (P; above the capacity on overflow). */
  readonly total: number;
  /** VT pairs (they come first). */
  readonly vertexTriangleCount: number;
  /** Per pair: 0 VT, 1 EE. */
  readonly kinds: Uint8Array;
  /** Per pair (primitive, partner): VT (vertex, triangle), EE (edge, edge'), [2 count]. */
  readonly primitives: Uint32Array;
  /** Per pair its four particles: VT p, a, b, c; EE p1, q1, p2, q2, [4 count]. */
  readonly particles: Uint32Array;
  /** CSR over particles of 4 · pair + corner, ascending per particle. */
  readonly incidence: { readonly offsets: Uint32Array; readonly entries: Uint32Array };
  /** Sticky flags: 1 query box, 2 pair capacity, 4 count mismatch. */
  readonly flags: number;
  /** The per-step maxima the query boxes used: D_max, ρ_max, λ_max, m. */
  readonly maxima: readonly [number, number, number];
  /** The cell size the detection used, m (selfPairs word 9). */
  readonly cellSize: number;
}

/** Flag bits of shaders/self-contact-common.wgsl. */
export const SELF_FLAGS = { query: 1, pairs: 2, mismatch: 4 } as const;

/** selfPairs words (self-contact-common.wgsl SCALAR_*): flags, D_max, ρ_max, λ_max, …, the cell size. */
export const SELF_SCALARS = { flags: 0, reach: 1, cellSize: 9, words: 16 } as const;

interface Sizes {
  readonly particleCount: number;
  readonly edgeCount: number;
  readonly pairCapacity: number;
  readonly spec: { readonly maxPairsPerParticle: number };
}

interface Offsets {
  readonly pairOffset: number;
  readonly pairs: number;
  readonly partners: number;
  readonly incStart: number;
  readonly incSorted: number;
}

/**
 * Errors for the flags set in `flags` (none: nothing thrown), as the CPU reports them: the pair
 * capacity (WeftError 'capacity', field selfCollision.maxPairsPerParticle, CpuSelfContact), the
 * query box (WeftError 'step-size', field dt, detectSelfPairs); a count mismatch is an internal Error.
 */
export function checkSelfFlags(
  flags: number,
  total: number,
  sizes: Sizes,
  cellSize: number,
  reach: number,
): void {
  if (flags & SELF_FLAGS.pairs)
    throw new WeftError('capacity', `self-collision listed ${total} pairs, more than selfCollision.maxPairsPerParticle × ${sizes.particleCount} particles = ${sizes.pairCapacity} (maxPairsPerParticle ${sizes.spec.maxPairsPerParticle}: raise it, or lower dt)`, 'selfCollision.maxPairsPerParticle', { pairs: total, capacity: sizes.pairCapacity }); // prettier-ignore
  if (flags & SELF_FLAGS.query)
    throw new WeftError('step-size', `selfCollision: a query box spans more than 8 cells of ${cellSize.toPrecision(3)} m on an axis: a particle moves too far in one step (its reach D is up to ${reach.toPrecision(3)} m; a non-finite one means a non-finite state) for a fixed cell size; lower dt`, 'dt', { cellSize, reach }); // prettier-ignore
  if (flags & SELF_FLAGS.mismatch)
    throw new Error('selfCollision: the narrow phase listed another number of pairs than it counted (internal error)'); // prettier-ignore
}

/** Decodes the selfPairs buffer's words. */
export function decodeSelfPairs(words: Uint32Array, sizes: Sizes, o: Offsets, unchecked: boolean): GpuSelfPairs {
  const n = sizes.particleCount;
  const float = new Float32Array(words.buffer, words.byteOffset, SELF_SCALARS.words);
  const maxima = [float[1]!, float[2]!, float[3]!] as const;
  const cellSize = float[SELF_SCALARS.cellSize]!;
  const flags = words[0]!;
  const total = words[o.pairOffset + n + sizes.edgeCount]!;
  if (!unchecked) checkSelfFlags(flags, total, sizes, cellSize, maxima[0]);
  const count = Math.min(total, sizes.pairCapacity);
  const particles = new Uint32Array(4 * count);
  const kinds = new Uint8Array(count);
  for (let k = 0; k < count; k++) {
    const first = words[o.pairs + 4 * k]!;
    kinds[k] = first >>> 31;
    particles.set([first & 0x7fffffff, words[o.pairs + 4 * k + 1]!, words[o.pairs + 4 * k + 2]!, words[o.pairs + 4 * k + 3]!], 4 * k); // prettier-ignore
  }
  const offsets = words.slice(o.incStart, o.incStart + n + 1);
  return {
    count,
    total,
    vertexTriangleCount: Math.min(words[o.pairOffset + n]!, count),
    kinds,
    primitives: words.slice(o.partners, o.partners + 2 * count),
    particles,
    incidence: { offsets, entries: words.slice(o.incSorted, o.incSorted + offsets[n]!) },
    flags,
    maxima,
    cellSize,
  };
} // prettier-ignore
