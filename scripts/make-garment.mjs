#!/usr/bin/env node
// Writes examples/scenes/garment.obj: a flared skirt, an irregular triangle mesh made for Weft's
// tests and demo (CC0). Rings of vertices from the waist (y = 1 m, radius 0.17 m, 24 vertices)
// to the hem (y = 0.42 m, radius 0.46 m, 46 vertices); every ring but the waist is jittered and
// the hem is wavy, and consecutive rings of different sizes are stitched by angle, so valences
// vary and nothing is a grid. Deterministic: the same file every run.
// Usage: node scripts/make-garment.mjs [out.obj]
import { writeFileSync } from 'node:fs';

const RINGS = 12;
const WAIST = { y: 1.0, radius: 0.17, count: 24 };
const HEM = { y: 0.42, radius: 0.46, count: 46 };

/** Mulberry32: a small seeded generator, so the file is the same every time. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = mulberry32(2024);
const positions = [];
const ringStart = [];
const ringCount = [];
for (let r = 0; r < RINGS; r++) {
  const s = r / (RINGS - 1);
  const count = Math.round(WAIST.count + (HEM.count - WAIST.count) * s);
  ringStart.push(positions.length);
  ringCount.push(count);
  const spacing = (WAIST.y - HEM.y) / (RINGS - 1);
  for (let k = 0; k < count; k++) {
    const jitter = r === 0 ? 0 : 1;
    const angle = (2 * Math.PI * (k + jitter * 0.3 * (random() - 0.5))) / count;
    // A-line flare, with soft folds (6 of them) that deepen towards the hem.
    const radius = (WAIST.radius + (HEM.radius - WAIST.radius) * s ** 1.3) * (1 + 0.05 * s * Math.sin(6 * angle)); // prettier-ignore
    const y = WAIST.y - s * (WAIST.y - HEM.y) + jitter * 0.25 * spacing * (random() - 0.5);
    positions.push([radius * Math.cos(angle), y, radius * Math.sin(angle)]);
  }
}

/** Triangle (a, b, c) wound so that its normal points away from the skirt's axis. */
function outward(a, b, c) {
  const [pa, pb, pc] = [positions[a], positions[b], positions[c]];
  const u = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
  const w = [pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]];
  const n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]];
  const centre = [(pa[0] + pb[0] + pc[0]) / 3, (pa[2] + pb[2] + pc[2]) / 3];
  return n[0] * centre[0] + n[2] * centre[1] >= 0 ? [a, b, c] : [a, c, b];
}

const triangles = [];
for (let r = 1; r < RINGS; r++) {
  // Walk both rings by angle: each step advances the one whose next vertex comes first.
  const [upper, lower] = [ringCount[r - 1], ringCount[r]];
  let [i, o] = [0, 0];
  while (i < upper || o < lower) {
    const a = ringStart[r - 1] + (i % upper);
    const b = ringStart[r] + (o % lower);
    if (i === upper || (o < lower && (o + 1) / lower <= (i + 1) / upper)) {
      triangles.push(outward(a, b, ringStart[r] + ((o + 1) % lower)));
      o++;
    } else {
      triangles.push(outward(a, b, ringStart[r - 1] + ((i + 1) % upper)));
      i++;
    }
  }
}

const lines = [
  '# A flared skirt for Weft (scripts/make-garment.mjs): an irregular triangle mesh, metres, y up.',
  `# ${positions.length} vertices, ${triangles.length} triangles; the waist ring (the top, y = 1 m) is the 'top-edge' pin set.`,
  '# Licence: CC0 1.0 Universal (public domain dedication), https://creativecommons.org/publicdomain/zero/1.0/',
  'o skirt',
  ...positions.map((p) => `v ${p.map((x) => Number(x.toFixed(6))).join(' ')}`),
  ...triangles.map((t) => `f ${t.map((v) => v + 1).join(' ')}`),
];
const out = process.argv[2] ?? new URL('../examples/scenes/garment.obj', import.meta.url);
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(`garment.obj: ${positions.length} vertices, ${triangles.length} triangles`);
