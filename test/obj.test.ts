/**
 * OBJ in and out: loadObj reads what 3-D tools write (triangles, quads and n-gons, every vertex
 * reference form, negative indices, the statements it skips) and names the line of anything it
 * cannot read; writeObj's text reads back bit-exactly, float64 and float32 alike.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import type { Mesh } from 'three';
import { describe, expect, test } from 'vitest';
import { WeftInputError, createSimulation, loadObj, meshPins, meshToModel, writeObj } from '../src/index.ts';

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

const GARMENT = join(import.meta.dirname, '..', 'examples', 'scenes', 'garment.obj');

describe('loadObj', () => {
  test('triangles, a quad and a pentagon, fan-triangulated from their first vertex', () => {
    const mesh = loadObj(
      ['v 0 0 0', 'v 1 0 0', 'v 1 1 0', 'v 0 1 0', 'v 0.5 2 0', 'f 1 2 3', 'f 1 2 3 4', 'f 1 2 3 5 4'].join(
        '\n',
      ),
    );
    expect([...mesh.positions]).toEqual([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 2, 0]);
    expect([...mesh.triangles]).toEqual([0, 1, 2, 0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 4, 0, 4, 3]);
    expect([...mesh.triangleLines]).toEqual([6, 7, 7, 8, 8, 8]);
    expect([...mesh.faceOffsets]).toEqual([0, 3, 7, 12]);
    expect([...mesh.faceIndices]).toEqual([0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 4, 3]);
  });

  test('v/vt, v//vn and v/vt/vn references, negative indices, and the statements it skips', () => {
    const text = [
      '\uFEFF# made by hand',
      'mtllib cloth.mtl',
      'o cloth',
      'g front',
      'v 0 0 0 1', // w, ignored
      'v 1 0 0 0.5 0.5 0.5', // a colour, ignored
      'v 1 1 0',
      'vt 0 0',
      'vn 0 0 1',
      'vp 0.5',
      'usemtl red',
      's off',
      'f 1/1 2/1/1 3//1',
      'v -1e-3 +2.5E+1 .5',
      'f -1 -3 \\',
      '  -2  # a continued line',
      '',
    ].join('\r\n');
    const mesh = loadObj(text);
    expect([...mesh.positions]).toEqual([0, 0, 0, 1, 0, 0, 1, 1, 0, -0.001, 25, 0.5]);
    expect([...mesh.triangles]).toEqual([0, 1, 2, 3, 1, 2]);
    expect([...mesh.vertexLines]).toEqual([5, 6, 7, 14]);
  });

  test.each([
    ['a bad coordinate', 'v 0 0 0\nv 1 x 0', 'line 2'],
    ['a hexadecimal coordinate', 'v 0x10 0 0', 'line 1'],
    ['too few coordinates', 'v 1 2', 'line 1'],
    ['vertex 0', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2', 'line 4'],
    ['an index past the vertices so far', 'v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0', 'line 3'],
    ['a negative index too far back', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4', 'line 4'],
    ['a face of two vertices', 'v 0 0 0\nv 1 0 0\nf 1 2', 'line 3'],
    ['a line element', 'v 0 0 0\nv 1 0 0\nl 1 2', 'line 3'],
    ['no faces', 'v 0 0 0\n', 'line 2'],
    ['no vertices', '# empty', 'line 1'],
  ])('%s: an error naming the line', (_name, text, field) => {
    expectInputError(() => loadObj(text), field);
  });

  test('with a source, the field is file:line', () => {
    expectInputError(() => loadObj('v 0 0 0\nv 1 0 0\nf 1 2 9', { source: 'skirt.obj' }), 'skirt.obj:3');
  });
});

describe('writeObj', () => {
  test('writes v x y z and 1-based faces, polygons kept', () => {
    const mesh = loadObj('v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n');
    expect(writeObj(mesh.positions, mesh, { comments: ['frame 0'], name: 'cloth' })).toBe(
      '# frame 0\no cloth\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n',
    );
    expect(writeObj([0, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 2])).toBe('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
  });

  // Values that stress a decimal printer: −0, ulps, exponents, float32's extremes.
  const HARD = [-0, 0.1 + 0.2, 1 / 3, -1e-7, 1e21, 3.4028234663852886e38, 2 ** -149, 2 ** -1074, -123456.789];

  test('float64 coordinates read back bit-exactly', () => {
    const positions = [...HARD, 0, 0, 0];
    const back = loadObj(writeObj(positions, [0, 1, 2, 0, 2, 3])).positions;
    expect(new BigUint64Array(back.buffer)).toEqual(new BigUint64Array(Float64Array.from(positions).buffer));
  });

  test('float32 coordinates are written short and read back as the same float32', () => {
    const positions = Float32Array.from([...HARD, 0.3, 1.1, 9.81]);
    const text = writeObj(positions, [0, 1, 2, 0, 2, 3], { float32: true });
    expect(text).toContain('v 0.3 1.1 9.81\n');
    const back = Float32Array.from(loadObj(text).positions);
    expect(new Uint32Array(back.buffer)).toEqual(new Uint32Array(positions.buffer));
  });

  test('a simulated skirt (f32 on the CPU) round-trips, faces and all', async () => {
    const mesh = loadObj(readFileSync(GARMENT, 'utf8'));
    const model = meshToModel(mesh.positions, mesh.triangles, {
      pinned: meshPins(mesh.positions, 'top-edge'),
    });
    const simulation = await createSimulation(model, { integrator: 'symplectic-euler', dt: 2e-4, precision: 'f32' }); // prettier-ignore
    simulation.step(10);
    const state = await simulation.readState();
    simulation.destroy();
    const back = loadObj(writeObj(state.positions, mesh, { float32: true }));
    expect(new Uint32Array(Float32Array.from(back.positions).buffer)).toEqual(
      new Uint32Array(Float32Array.from(state.positions).buffer),
    );
    expect(back.faceIndices).toEqual(mesh.faceIndices);
    expect(back.faceOffsets).toEqual(mesh.faceOffsets);
  });
});

describe('what other readers make of it', () => {
  test("three.js's OBJLoader reads an exported frame as the same triangles, float32 for float32", async () => {
    const mesh = loadObj(readFileSync(GARMENT, 'utf8'));
    const model = meshToModel(mesh.positions, mesh.triangles, {
      pinned: meshPins(mesh.positions, 'top-edge'),
    });
    const simulation = await createSimulation(model, { integrator: 'symplectic-euler', dt: 2e-4, precision: 'f32' }); // prettier-ignore
    simulation.step(5);
    const { positions } = await simulation.readState();
    simulation.destroy();
    const group = new OBJLoader().parse(writeObj(positions, mesh, { float32: true, name: 'skirt' }));
    expect(group.children.map((child) => child.name)).toEqual(['skirt']);
    // OBJLoader un-indexes: three float32 coordinates per triangle corner, in the file's order.
    const corners = (group.children[0] as Mesh).geometry.getAttribute('position').array as Float32Array;
    const flat = new Float32Array(3 * mesh.triangles.length);
    mesh.triangles.forEach((v, k) => flat.set(positions.subarray(3 * v, 3 * v + 3), 3 * k));
    expect(corners.length).toBe(3 * mesh.triangles.length);
    expect(new Uint32Array(corners.buffer, corners.byteOffset, corners.length)).toEqual(
      new Uint32Array(flat.buffer),
    );
  });

  test('examples/scenes/garment.obj is what scripts/make-garment.mjs writes (deterministic, up to date)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'weft-garment-')), 'garment.obj');
    execFileSync('node', [join(import.meta.dirname, '..', 'scripts', 'make-garment.mjs'), out]);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(GARMENT, 'utf8'));
  });
});
