/**
 * Per-particle list of incident springs in compressed-sparse-row form. Forces are assembled by
 * *gathering*: particle i sums the forces of springs `entries[offsets[i] .. offsets[i+1])`. WGSL
 * has no float atomics, and a fixed gather order makes the sum bit-identical from run to run.
 */
export interface Incidence {
  /** [n + 1], start of each particle's entries. */
  readonly offsets: Uint32Array;
  /**
   * [2s], `2 * spring + side`: side 0 when the particle is the spring's first endpoint (it
   * receives +f), 1 when it is the second (it receives −f). Sorted by spring within a particle.
   */
  readonly entries: Uint32Array;
}

export function buildIncidence(particleCount: number, springIndices: Uint32Array): Incidence {
  const offsets = new Uint32Array(particleCount + 1);
  for (const particle of springIndices) offsets[particle + 1]! += 1;
  for (let i = 0; i < particleCount; i++) offsets[i + 1]! += offsets[i]!;
  const cursor = offsets.slice(0, particleCount);
  const entries = new Uint32Array(springIndices.length);
  // Springs are visited in index order, so each particle's list comes out sorted by spring.
  for (let k = 0; k < springIndices.length; k++) {
    const particle = springIndices[k]!;
    entries[cursor[particle]!++] = k; // k = 2 * spring + side
  }
  return { offsets, entries };
}
