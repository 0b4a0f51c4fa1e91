/**
 * meshToModel: the springs of any triangle mesh (one per edge, one across each interior edge),
 * masses lumped by area (checked against areas computed by hand), pins that hold, the pin
 * presets against buildCloth's own, and every bad mesh a WeftInputError naming the field.
 */
import { describe, expect, test } from 'vitest';
import {
  WeftInputError,
  buildCloth,
  createSimulation,
  meshPins,
  meshToModel,
  type MeshMaterial,
} from '../src/index.ts';
import { meshTopology } from '../src/internal.ts';

/** Runs `make`, and fails unless it throws a WeftInputError whose `field` is `field`. */
function expectInputError(make: () => unknown, field: string): WeftInputError {
  let thrown: unknown;
  try {
    make();
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof WeftInputError))
    expect.fail(`expected a WeftInputError naming '${field}', got ${String(thrown ?? 'no error')}`);
  expect(thrown.field).toBe(field);
  return thrown;
}

/** The springs of a model as sorted "a-b" strings. */
function springSet(pairs: ArrayLike<number>): string[] {
  const out: string[] = [];
  for (let s = 0; 2 * s < pairs.length; s++) {
    const [a, b] = [pairs[2 * s]!, pairs[2 * s + 1]!];
    out.push(a < b ? `${a}-${b}` : `${b}-${a}`);
  }
  return out.sort();
}

/** An nx × ny grid in the x–z plane, every cell split along (i, j)–(i+1, j+1). */
function grid(nx: number, ny: number, spacing = 0.1): { positions: number[]; triangles: number[] } {
  const positions: number[] = [];
  for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) positions.push(i * spacing, 0, j * spacing);
  const triangles: number[] = [];
  for (let j = 0; j + 1 < ny; j++)
    for (let i = 0; i + 1 < nx; i++) {
      const a = j * nx + i;
      triangles.push(a, a + 1, a + nx + 1, a, a + nx + 1, a + nx);
    }
  return { positions, triangles };
}

// Relative rounding of a few float64 additions and products: 1e-15 is ~5 ulps.
const ROUNDING = 1e-15;

describe('springs', () => {
  test('a square of two triangles: 5 edges, and the other diagonal across the shared one', () => {
    const model = meshToModel([0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1], [0, 1, 2, 0, 2, 3], {
      stretchStiffness: 700,
      bendStiffness: 30,
      damping: 0.5,
    });
    expect(springSet(model.springIndices)).toEqual(['0-1', '0-2', '0-3', '1-2', '1-3', '2-3']);
    // Stretch springs first (edges in order of first appearance), then bending springs.
    expect(springSet(model.springIndices.slice(0, 10))).toEqual(['0-1', '0-2', '0-3', '1-2', '2-3']);
    expect([...model.springIndices.slice(10)]).toEqual([1, 3]);
    expect([...model.springStiffness]).toEqual([700, 700, 700, 700, 700, 30]);
    expect([...model.springDamping]).toEqual(new Array(6).fill(0.5));
    expect(model.springRestLength[5]).toBe(Math.SQRT2);
  });

  test.each([
    [2, 2],
    [5, 3],
    [8, 8],
  ])('a triangulated %i × %i grid: springs = edges + interior edges, counted by hand', (nx, ny) => {
    const { positions, triangles } = grid(nx, ny);
    const edges = nx * (ny - 1) + ny * (nx - 1) + (nx - 1) * (ny - 1);
    const boundary = 2 * (nx - 1) + 2 * (ny - 1);
    const topology = meshTopology(positions, triangles);
    expect(topology.edges.length / 2).toBe(edges);
    expect(topology.boundaryEdges).toBe(boundary);
    expect(topology.interiorEdges).toBe(edges - boundary);
    expect(meshToModel(positions, triangles).springCount).toBe(edges + edges - boundary);
    // Across each diagonal, the cell's other diagonal: buildCloth's second shear spring.
    const springs = new Set(springSet(meshToModel(positions, triangles).springIndices));
    for (let j = 0; j + 1 < ny; j++)
      for (let i = 0; i + 1 < nx; i++)
        expect(springs.has(`${j * nx + i + 1}-${(j + 1) * nx + i}`)).toBe(true);
  });

  test('a closed tetrahedron: every opposite pair is already an edge, so only the 6 edges', () => {
    const topology = meshTopology([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]);
    expect([topology.interiorEdges, topology.skippedBendPairs, topology.bendPairs.length]).toEqual([6, 6, 0]);
  });

  test('a non-manifold edge (three triangles on 0–1) gets its stretch spring and no bending spring', () => {
    const positions = [0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, 0, 1, 0.5, -1, 0.2];
    const model = meshToModel(positions, [0, 1, 2, 0, 1, 3, 0, 1, 4]);
    expect(meshTopology(positions, [0, 1, 2, 0, 1, 3, 0, 1, 4]).nonManifoldEdges).toBe(1);
    expect(springSet(model.springIndices)).toEqual(['0-1', '0-2', '0-3', '0-4', '1-2', '1-3', '1-4']);
  });

  test('bendStiffness 0 leaves the bending springs out', () => {
    const { positions, triangles } = grid(4, 4);
    expect(meshToModel(positions, triangles, { bendStiffness: 0 }).springCount).toBe(33);
  });
});

describe('masses, lumped by area', () => {
  // Tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1): three right triangles of area 1/2 and an
  // equilateral one of side √2, area √3/2.
  const positions = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1];
  const triangles = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3];
  const area = 1.5 + Math.sqrt(3) / 2;

  test('each vertex gets density × a third of its triangles’ area; they add up to density × area', () => {
    const density = 0.3;
    const model = meshToModel(positions, triangles, { density });
    expect(model.particleMass[0]).toBeCloseTo((density * 1.5) / 3, 15);
    for (const v of [1, 2, 3])
      expect(Math.abs(model.particleMass[v]! / ((density * (1 + Math.sqrt(3) / 2)) / 3) - 1)).toBeLessThan(
        ROUNDING,
      );
    const total = model.particleMass.reduce((sum, m) => sum + m, 0);
    expect(Math.abs(total / (density * area) - 1)).toBeLessThan(ROUNDING);
  });

  test('totalMass spreads that mass by area instead', () => {
    const model = meshToModel(positions, triangles, { totalMass: 2 });
    expect(Math.abs(model.particleMass.reduce((sum, m) => sum + m, 0) / 2 - 1)).toBeLessThan(ROUNDING);
    expect(Math.abs(model.particleMass[0]! / ((2 * 0.5) / area) - 1)).toBeLessThan(ROUNDING);
  });

  test('the default density is 0.2 kg/m²: a 0.7 m × 0.7 m grid weighs 0.098 kg', () => {
    const { positions: p, triangles: t } = grid(8, 8);
    const total = meshToModel(p, t).particleMass.reduce((sum, m) => sum + m, 0);
    expect(Math.abs(total / (0.2 * 0.7 * 0.7) - 1)).toBeLessThan(1e-14); // 0.1 spacing is inexact in binary
  });
});

describe('pins', () => {
  test('a pinned vertex stays exactly where it is while the rest falls', async () => {
    const { positions, triangles } = grid(4, 4);
    const model = meshToModel(positions, triangles, { pinned: [0, 3] });
    const simulation = await createSimulation(model, { integrator: 'implicit-euler', dt: 0.01 });
    simulation.step(20);
    const state = await simulation.readState();
    for (const v of [0, 3]) expect([...state.positions.slice(3 * v, 3 * v + 3)]).toEqual(positions.slice(3 * v, 3 * v + 3)); // prettier-ignore
    expect(state.positions[3 * 15 + 1]).toBeLessThan(-0.01);
    simulation.destroy();
  });

  test.each(['top-edge', 'top-corners', 'corners'] as const)(
    "the preset '%s' on a hanging cloth pins what buildCloth's pins",
    (preset) => {
      const cloth = buildCloth({ nx: 7, ny: 5, orientation: 'vertical', pins: preset });
      const fixed = [...cloth.particleFixed.keys()].filter((i) => cloth.particleFixed[i]);
      expect(meshPins(cloth.particlePositions, preset)).toEqual(fixed);
    },
  );

  test("'none' pins nothing; an unknown preset is an error naming the field", () => {
    expect(meshPins([0, 0, 0, 1, 1, 1], 'none')).toEqual([]);
    expectInputError(() => meshPins([0, 0, 0], 'top' as never, '--pin'), '--pin');
  });
});

describe('a bad mesh is a WeftInputError naming the field', () => {
  const square = [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1];
  test.each<[string, number[], number[], MeshMaterial, string]>([
    ['a NaN coordinate', [0, 0, 0, 1, NaN, 0, 1, 0, 1, 0, 0, 1], [0, 1, 2, 0, 2, 3], {}, 'positions[4]'],
    ['positions not in threes', [0, 0, 0, 1], [0, 1, 2], {}, 'positions'],
    ['no triangles', square, [], {}, 'triangles'],
    ['triangles not in threes', square, [0, 1, 2, 0], {}, 'triangles'],
    ['an index out of range', square, [0, 1, 4, 0, 2, 3], {}, 'triangles[2]'],
    ['a non-integer index', square, [0, 1.5, 2, 0, 2, 3], {}, 'triangles[1]'],
    ['a repeated vertex', square, [0, 1, 2, 0, 2, 2], {}, 'triangles[3]'],
    ['a zero-area triangle', [0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0, 1], [0, 1, 2, 0, 1, 3], {}, 'triangles[0]'],
    ['a triangle given twice', square, [0, 1, 2, 2, 0, 1], {}, 'triangles[3]'],
    ['a vertex in no triangle', [...square, 5, 5, 5], [0, 1, 2, 0, 2, 3], {}, 'positions[12]'],
    [
      'two triangles folded flat',
      [0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1],
      [0, 1, 2, 0, 1, 3],
      {},
      'positions[9]',
    ],
    ['density 0', square, [0, 1, 2, 0, 2, 3], { density: 0 }, 'material.density'],
    [
      'a negative stiffness',
      square,
      [0, 1, 2, 0, 2, 3],
      { stretchStiffness: -1 },
      'material.stretchStiffness',
    ],
    ['density and totalMass', square, [0, 1, 2, 0, 2, 3], { density: 1, totalMass: 1 }, 'material.totalMass'],
    ['a pinned index out of range', square, [0, 1, 2, 0, 2, 3], { pinned: [4] }, 'material.pinned[0]'],
  ])('%s', (_name, positions, triangles, material, field) => {
    expectInputError(() => meshToModel(positions, triangles, material), field);
  });

  test('a sliver just above the degenerate threshold is accepted', () => {
    // Height 1e-8 over a base of 1: area 5e-9 > 1e-9 × 1².
    expect(meshToModel([0, 0, 0, 1, 0, 0, 0.5, 1e-8, 0], [0, 1, 2]).springCount).toBe(3);
  });
});
