/**
 * Triangle-mesh colliders on the CPU (issue 13; src/model/mesh-collider.ts): the closest point of
 * a triangle against a brute-force search of the triangle, the hierarchy's nearest triangle
 * against every triangle, the signed distance of a box mesh against the analytic box (outside
 * and inside), of an icosphere against the sphere it approximates, a particle dropped on a mesh
 * resting at the thickness, a cloth draped on a mesh sphere as on the analytic one, clear errors.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { createModel, createSimulation, parseScene, WeftInputError, type Collider } from '../src/index.ts';
import {
  buildMeshBvh,
  closestOnTriangle,
  colliderDistance,
  FILTER_ROUNDING,
  MESH_STACK,
  meshDistance,
  resolveCollider,
} from '../src/internal.ts';
import { mulberry32 as random } from './helpers/implicit-cases.ts';
import { boxMesh, icosphere } from './helpers/meshes.ts';

type Vec3 = [number, number, number];

describe('closest point of a triangle (Ericson 2005 §5.1.5)', () => {
  const [a, b, c]: [Vec3, Vec3, Vec3] = [[0, 0, 0], [2, 0, 0], [0, 1, 0.5]]; // prettier-ignore
  // Brute force: the nearest of a fine barycentric grid (spacing 1/400 of the edges).
  const bruteForce = (x: Vec3): number => {
    let best = Infinity;
    const n = 400;
    for (let i = 0; i <= n; i++)
      for (let j = 0; j <= n - i; j++) {
        const [u, v] = [i / n, j / n];
        const p = [0, 1, 2].map((d) => a[d]! + u * (b[d]! - a[d]!) + v * (c[d]! - a[d]!));
        best = Math.min(best, Math.hypot(x[0] - p[0]!, x[1] - p[1]!, x[2] - p[2]!));
      }
    return best;
  };
  const next = random(7);
  test.each(
    Array.from({ length: 12 }, (_, k) => [k, [4 * next() - 1, 3 * next() - 1, 3 * next() - 1.5] as Vec3]),
  )('point %i: the distance is the grid minimum (to the grid spacing) and never above it', (_, x) => {
    const { point } = closestOnTriangle(x, a, b, c);
    const d = Math.hypot(x[0] - point[0], x[1] - point[1], x[2] - point[2]);
    const grid = bruteForce(x);
    expect(d).toBeLessThanOrEqual(grid + 1e-12);
    expect(grid - d).toBeLessThan(5e-3);
  });

  test('each Voronoi region is named: face 0, edges ab bc ca 1–3, vertices a b c 4–6', () => {
    const cases: [Vec3, number][] = [
      [[0.5, 0.25, 1], 0],
      [[1, -1, 0], 1],
      [[1.5, 1, 1], 2],
      [[-1, 0.5, 0.25], 3],
      [[-1, -1, 0], 4],
      [[3, -1, 0], 5],
      [[0, 2, 1.5], 6],
    ];
    for (const [x, feature] of cases) expect(closestOnTriangle(x, a, b, c).feature).toBe(feature);
  });
});

describe('signed distance through the hierarchy', () => {
  test('a box mesh (12 triangles) gives the analytic box distance and normal, outside and inside', () => {
    const [center, half]: [Vec3, Vec3] = [[0.2, -0.1, 0.3], [0.5, 0.3, 0.8]]; // prettier-ignore
    const box = resolveCollider({ shape: 'box', center, halfExtents: half }, 0);
    const mesh = resolveCollider({ shape: 'mesh', ...boxMesh(center, half) }, 0);
    const next = random(3);
    for (let k = 0; k < 400; k++) {
      const x: Vec3 = [0.2 + 3 * (next() - 0.5), -0.1 + 2 * (next() - 0.5), 0.3 + 4 * (next() - 0.5)];
      const [want, got] = [colliderDistance(box, x), colliderDistance(mesh, x)];
      expect(got.distance).toBeCloseTo(want.distance, 12);
      // The normals agree except where two faces are equally near (inside, on a diagonal plane).
      if (Math.abs(want.distance) > 1e-9)
        got.normal.forEach((n, d) => expect(n).toBeCloseTo(want.normal[d]!, 9));
    }
  });

  test('the nearest triangle found is the nearest of all (an icosphere of 1,280 triangles, 300 points)', () => {
    const { vertices, triangles } = icosphere(3, 0.4);
    const bvh = buildMeshBvh(vertices, triangles, 'mesh');
    const next = random(11);
    for (let k = 0; k < 300; k++) {
      const x: Vec3 = [next() - 0.5, next() - 0.5, next() - 0.5].map((c) => 2 * c) as Vec3;
      let best = Infinity;
      for (let t = 0; t < triangles.length / 3; t++) {
        const [a, b, c] = [0, 1, 2].map((j) =>
          [0, 1, 2].map((d) => vertices[3 * triangles[3 * t + j]! + d]!),
        ) as Vec3[];
        const { point } = closestOnTriangle(x, a!, b!, c!);
        best = Math.min(best, Math.hypot(x[0] - point[0], x[1] - point[1], x[2] - point[2]));
      }
      expect(Math.abs(meshDistance(bvh, x).distance)).toBeCloseTo(best, 12);
    }
    // Median split, leaves of ≤ 4: 1,280 triangles make a tree of ⌈log₂(1280/4)⌉ + 1 = 10 levels.
    expect(bvh.depth).toBe(10);
  });

  test('an icosphere: φ is the sphere’s within its chord error, negative inside, outward normals', () => {
    const r = 0.4;
    const { vertices, triangles } = icosphere(3, r);
    const sphere = resolveCollider({ shape: 'sphere', center: [0, 0, 0], radius: r }, 0);
    const mesh = resolveCollider({ shape: 'mesh', vertices, triangles, offset: [0, 0, 0] }, 0);
    // The Hausdorff distance of the two surfaces: the deepest a face's plane lies inside the sphere.
    let chord = 0;
    for (let t = 0; t < triangles.length; t += 3) {
      const [a, b, c] = [0, 1, 2].map((j) => [0, 1, 2].map((d) => vertices[3 * triangles[t + j]! + d]!));
      const [u, v] = [b!.map((x, d) => x - a![d]!), c!.map((x, d) => x - a![d]!)];
      const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
      chord = Math.max(chord, r - n.reduce((sum, x, d) => sum + x * a![d]!, 0) / Math.hypot(...n));
    }
    const next = random(5);
    for (let k = 0; k < 200; k++) {
      const direction = [next() - 0.5, next() - 0.5, next() - 0.5];
      const length = Math.hypot(...direction);
      const radius = r * (0.2 + 1.6 * next());
      const x = direction.map((c) => (c / length) * radius) as Vec3;
      const [want, got] = [colliderDistance(sphere, x), colliderDistance(mesh, x)];
      expect(Math.abs(got.distance - want.distance)).toBeLessThanOrEqual(chord + 1e-15);
      if (Math.abs(want.distance) > chord) expect(Math.sign(got.distance)).toBe(Math.sign(want.distance));
      if (Math.abs(got.distance) > 2 * chord) expect(got.normal.reduce((s, n, d) => s + n * want.normal[d]!, 0)).toBeGreaterThan(0.9); // prettier-ignore
    }
  });

  test('offset translates the mesh', () => {
    const { vertices, triangles } = boxMesh([0, 0, 0], [1, 1, 1]);
    const at = resolveCollider({ shape: 'mesh', vertices, triangles, offset: [5, 0, 0] }, 0);
    expect(colliderDistance(at, [5, 3, 0]).distance).toBeCloseTo(2, 14);
    expect(colliderDistance(at, [5, 0.5, 0]).distance).toBeCloseTo(-0.5, 14);
  });
});

describe.each(['implicit-euler', 'symplectic-euler'] as const)('%s on a mesh', (integrator) => {
  const dt = integrator === 'implicit-euler' ? 1 / 60 : 1 / 240;
  test('a particle dropped on a box mesh rests on its top at the thickness, at rest', async () => {
    const collider: Collider = { shape: 'mesh', ...boxMesh([0, -0.5, 0], [1, 0.5, 1]), thickness: 0.01 };
    const model = createModel({ positions: [0.2, 0.3, -0.1], masses: [0.1], springPairs: [], springStiffness: 0, colliders: [collider] }); // prettier-ignore
    const simulation = await createSimulation(model, { integrator, dt });
    simulation.step(Math.round(2 / dt));
    const { positions, velocities } = await simulation.readState();
    expect(Math.abs(positions[1]! - 0.01)).toBeLessThan(1e-9);
    expect(Math.hypot(velocities[0]!, velocities[1]!, velocities[2]!)).toBeLessThan(1e-9);
  });
});

test('clear errors name the field', () => {
  const { vertices, triangles } = boxMesh([0, 0, 0], [1, 1, 1]);
  const make = (c: object) => () => createModel({ positions: [0, 2, 0], masses: [1], springPairs: [], springStiffness: 0, colliders: [c as Collider] }); // prettier-ignore
  const cases: [object, RegExp][] = [
    [{ shape: 'mesh', vertices: [0, 0], triangles }, /colliders\[0\]\.vertices: .*multiple of 3/],
    [
      { shape: 'mesh', vertices: [0, 0, NaN, 1, 0, 0, 0, 1, 0], triangles: [0, 1, 2] },
      /colliders\[0\]\.vertices\[2\]/,
    ],
    [{ shape: 'mesh', vertices, triangles: [0, 1, 99] }, /colliders\[0\]\.triangles\[0\]: .*\[0, 7\]/],
    [
      { shape: 'mesh', vertices: [0, 0, 0, 1, 0, 0, 2, 0, 0], triangles: [0, 1, 2] },
      /colliders\[0\]\.triangles\[0\]: is degenerate/,
    ],
    [{ shape: 'mesh', vertices, triangles, offset: [0, 1] }, /colliders\[0\]\.offset/],
    [{ shape: 'mesh', triangles }, /colliders\[0\]\.vertices: must be an array/],
    [{ shape: 'mesh', obj: 'body.obj' }, /colliders\[0\]\.obj: is read by the CLI/],
  ];
  for (const [collider, message] of cases) {
    expect(make(collider)).toThrow(WeftInputError);
    expect(make(collider)).toThrow(message);
  }
});

test('the shaders hold the constants of src/model: MESH_STACK and FILTER_ROUNDING²', () => {
  const text = (name: string): string => readFileSync(new URL(`../shaders/${name}`, import.meta.url), 'utf8');
  expect(text('colliders.wgsl')).toMatch(new RegExp(`const MESH_STACK = ${MESH_STACK}u;`));
  for (const name of ['implicit-common.wgsl', 'contact-filter.wgsl']) {
    const value = Number(/const FILTER_ROUNDING2 = ([0-9.e-]+);/.exec(text(name))![1]);
    expect(value).toBe(FILTER_ROUNDING ** 2);
  }
});

test('a scene file may carry a mesh collider (checked by the schema and by createModel)', () => {
  const box = boxMesh([0, -0.5, 0], [1, 0.5, 1]);
  const scene = { cloth: { nx: 4, ny: 4, spacing: 0.1, pins: 'none', origin: [-0.15, 0.2, -0.15] }, colliders: [{ shape: 'mesh', ...box, offset: [0, 0.1, 0] }] }; // prettier-ignore
  const model = parseScene(scene);
  expect(model.colliders[0]!.shape).toBe('mesh');
  expect(colliderDistance(model.colliders[0]!, [0, 0.5, 0]).distance).toBeCloseTo(0.4, 12);
  expect(() => parseScene({ ...scene, colliders: [{ shape: 'mesh', ...box, triangles: [0, 1] }] })).toThrow(/colliders\[0\]\.triangles/); // prettier-ignore
});
