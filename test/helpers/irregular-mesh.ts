/**
 * An irregular triangle mesh for solver tests: a disk of `rings` concentric rings (ring r has 6r
 * particles at radius r·spacing, each jittered by up to 20 % of the spacing), triangulated between
 * consecutive rings by angle, hanging in the x–y plane from three particles of its outer ring.
 * Springs: every triangle edge, plus a bending spring across each interior edge (the two
 * opposite corners). Valences vary from 4 to 8 and nothing is a grid, so an aggregation that
 * assumed one would show it.
 */
import { createModel, type Model } from '../../src/index.ts';
import { mulberry32 } from './implicit-cases.ts';

export function buildDiskMesh(rings: number, options: { spacing?: number; seed?: number } = {}): Model {
  const spacing = options.spacing ?? 0.05;
  const random = mulberry32(options.seed ?? 11);
  const positions: number[] = [0, 0, 0];
  const ringStart: number[] = [0];
  for (let r = 1; r <= rings; r++) {
    ringStart.push(positions.length / 3);
    for (let k = 0; k < 6 * r; k++) {
      const angle = (2 * Math.PI * (k + 0.4 * (random() - 0.5))) / (6 * r);
      const radius = spacing * (r + 0.4 * (random() - 0.5));
      positions.push(radius * Math.cos(angle), radius * Math.sin(angle), 0.2 * spacing * (random() - 0.5));
    }
  }
  const count = (r: number): number => (r === 0 ? 1 : 6 * r);
  const triangles: [number, number, number][] = [];
  for (let r = 1; r <= rings; r++) {
    // Walk both rings by angle: each step advances the one whose next point comes first.
    const [inner, outer] = [count(r - 1), count(r)];
    let [i, o] = [0, 0];
    while (i < inner || o < outer) {
      const a = ringStart[r - 1]! + (i % inner);
      const b = ringStart[r]! + (o % outer);
      if (r === 1 || (o < outer && (o + 1) / outer <= (i + 1) / inner)) {
        triangles.push([a, b, ringStart[r]! + ((o + 1) % outer)]);
        o++;
      } else {
        triangles.push([a, b, ringStart[r - 1]! + ((i + 1) % inner)]);
        i++;
      }
      if (r === 1 && o === outer) break;
    }
  }
  const edges = new Map<string, number[]>(); // edge → opposite corners
  for (const [a, b, c] of triangles)
    for (const [p, q, opposite] of [
      [a, b, c],
      [b, c, a],
      [c, a, b],
    ] as const) {
      const key = p < q ? `${p},${q}` : `${q},${p}`;
      edges.set(key, [...(edges.get(key) ?? []), opposite]);
    }
  const pairs: number[] = [];
  const stiffness: number[] = [];
  for (const [key, opposite] of edges) {
    pairs.push(...key.split(',').map(Number));
    stiffness.push(2000);
    if (opposite.length === 2) {
      pairs.push(opposite[0]!, opposite[1]!);
      stiffness.push(100);
    }
  }
  const n = positions.length / 3;
  const outer = ringStart[rings]!;
  const fixed = [
    outer + Math.floor(1.5 * rings),
    outer + Math.floor(2.5 * rings),
    outer + Math.floor(2 * rings),
  ];
  return createModel({ positions, masses: new Array<number>(n).fill(1 / n), fixed, springPairs: pairs, springStiffness: stiffness, springDamping: 0.02 }); // prettier-ignore
}
