/**
 * `weft run <mesh.obj>` (README, "Meshes"): the material flags make the model (mass and spring
 * counts against a hand computation), pins hold, `--obj-sequence` writes one OBJ per frame that
 * reads back as the JSON frames' positions bit-exactly, and bad meshes or flags are one line
 * naming the file's line or the flag. Runs the built CLI on the CPU.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { loadObj } from '../src/index.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const WEFT = join(ROOT, 'bin', 'weft.js');
const GARMENT = join(ROOT, 'examples', 'scenes', 'garment.obj');
const folder = mkdtempSync(join(tmpdir(), 'weft-cli-mesh-'));

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [WEFT, ...args], { maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const weftLines = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('weft:'));

interface Output {
  frames: { step: number; positions: number[]; energy: number }[];
  stats: {
    springs: number;
    energyInitial: { gravity: number };
    mesh: { vertices: number; edges: number; interiorEdges: number; bendSprings: number; area: number; mass: number; pinned: number }; // prettier-ignore
  };
}

/**
 * A 1 m square at y = 1 m in the x–z plane: 3 × 3 vertices, 4 quads (each fan-split along its
 * (i, j)–(i+1, j+1) diagonal). Edges: 12 of the grid + 4 diagonals = 16, of which the 8 on the
 * border have one triangle and the other 8 two.
 */
const SQUARE = join(folder, 'square.obj');
writeFileSync(
  SQUARE,
  [
    '# 3 × 3 vertices, 0.5 m apart',
    ...[0, 1, 2].flatMap((j) => [0, 1, 2].map((i) => `v ${0.5 * i} 1 ${0.5 * j}`)),
    'f 1 2 5 4',
    'f 2 3 6 5',
    'f 4 5 8 7',
    'f 5 6 9 8',
    '',
  ].join('\n'),
);

const FIXED = ['--integrator', 'implicit-euler', '--dt', '0.01', '--steps', '20', '--every', '10'];

describe('weft run square.obj', () => {
  test('mass = density × area, springs = edges + interior edges, pinned corners stay put', async () => {
    const { code, stdout, stderr } = await weft('run', SQUARE, ...FIXED, '--density', '0.3', '--pin', '0,2');
    expect(weftLines(stderr)).toEqual([]);
    expect(code).toBe(0);
    const output = JSON.parse(stdout) as Output;
    const { mesh } = output.stats;
    expect(mesh).toMatchObject({ vertices: 9, edges: 16, interiorEdges: 8, bendSprings: 8, pinned: 2 });
    expect(output.stats.springs).toBe(16 + 8);
    // 0.5 and 0.25 are exact in binary: the area is exactly 1 m²; the mass a sum of thirds.
    expect(mesh.area).toBe(1);
    expect(Math.abs(mesh.mass / 0.3 - 1)).toBeLessThan(1e-15);
    // The model's masses, seen through the energy: gravity's is M g y = 0.3 × 9.81 × 1 J.
    expect(Math.abs(output.stats.energyInitial.gravity / (0.3 * 9.81) - 1)).toBeLessThan(1e-15);
    const [first, last] = [output.frames[0]!, output.frames.at(-1)!];
    expect(output.frames.map((f) => f.step)).toEqual([0, 10, 20]);
    for (const v of [0, 2]) expect(last.positions.slice(3 * v, 3 * v + 3)).toEqual(first.positions.slice(3 * v, 3 * v + 3)); // prettier-ignore
    expect(last.positions[3 * 7 + 1]).toBeLessThan(0.99); // the free far edge has fallen
  });

  test('--mass sets the total mass; --bend 0 leaves out the bending springs', async () => {
    const { stdout } = await weft('run', SQUARE, ...FIXED, '--mass', '2', '--bend', '0', '--pin', 'corners');
    const { stats } = JSON.parse(stdout) as Output;
    expect(Math.abs(stats.mesh.mass / 2 - 1)).toBeLessThan(1e-15);
    expect(stats.springs).toBe(16);
    expect(stats.mesh.pinned).toBe(4);
  });

  test('--self-collision r turns self-collision on (its statistics in the output); a thickness past 0.35 × the shortest edge is exit 2 naming it', async () => {
    const { code, stdout } = await weft(
      'run',
      SQUARE,
      ...FIXED,
      '--self-collision',
      '0.01',
      '--pin',
      'corners',
    );
    expect(code).toBe(0);
    const solver = (JSON.parse(stdout) as { stats: { solver: { selfContact: { pairs: number; undone: number } } } }).stats.solver; // prettier-ignore
    expect(solver.selfContact.undone).toBe(0);
    const wide = await weft('run', SQUARE, ...FIXED, '--self-collision', '10');
    expect(wide.code).toBe(2);
    expect(weftLines(wide.stderr)[0]).toMatch(/selfCollision\.thickness/);
  });

  test.each(['f64', 'f32'])(
    '--obj-sequence writes one OBJ per frame that reads back as the frame (%s)',
    async (precision) => {
      const directory = join(folder, `frames-${precision}`);
      const { code, stdout } = await weft('run', SQUARE, ...FIXED, '--pin', 'top-corners', '--precision', precision, '--obj-sequence', directory); // prettier-ignore
      expect(code).toBe(0);
      const output = JSON.parse(stdout) as Output;
      expect(readdirSync(directory).sort()).toEqual([
        'frame_000000.obj',
        'frame_000001.obj',
        'frame_000002.obj',
      ]);
      const input = loadObj(readFileSync(SQUARE, 'utf8'));
      output.frames.forEach((frame, f) => {
        const text = readFileSync(join(directory, `frame_00000${f}.obj`), 'utf8');
        const mesh = loadObj(text);
        // The JSON and the OBJ print the same numbers: the float64 (or shortest float32) of the state.
        expect([...mesh.positions]).toEqual(frame.positions);
        expect(mesh.faceIndices).toEqual(input.faceIndices);
        expect(text).toMatch(/^# weft square\.obj: frame \d, step \d+, t = [\d.]+ s\no weft\nv /);
        // float32 values printed shortest: at most 9 significant digits each (float64 noise has 17).
        const digits = [...text.matchAll(/^v (.*)$/gm)].flatMap((m) => m[1]!.split(' ')).map((x) => x.replace(/^-|e.*$|\./g, '').replace(/^0+/, '').length); // prettier-ignore
        if (precision === 'f32') expect(Math.max(...digits)).toBeLessThanOrEqual(9);
      });
    },
  );
});

describe('weft run garment.obj', () => {
  test('the skirt hangs from its waist: waist fixed, hem lower, energy down', async () => {
    const { code, stdout } = await weft('run', GARMENT, '--integrator', 'implicit-euler', '--dt', '0.01', '--steps', '20', '--pin', 'top-edge', '--damping', '0.05'); // prettier-ignore
    expect(code).toBe(0);
    const output = JSON.parse(stdout) as Output;
    const { mesh } = output.stats;
    // scripts/make-garment.mjs: 12 rings of 24 to 46 vertices (420); a tube has two border loops.
    expect(mesh).toMatchObject({ vertices: 420, pinned: 24 });
    expect(output.stats.springs).toBe(mesh.edges + mesh.interiorEdges);
    const [first, last] = [output.frames[0]!.positions, output.frames.at(-1)!.positions];
    for (let v = 0; v < 24; v++) expect(last.slice(3 * v, 3 * v + 3)).toEqual(first.slice(3 * v, 3 * v + 3));
    const hemY = (p: number[]): number => p.slice(3 * 374).filter((_, k) => k % 3 === 1).reduce((a, b) => a + b, 0); // prettier-ignore
    expect(hemY(last)).toBeLessThan(hemY(first));
    expect(output.frames.at(-1)!.energy).toBeLessThan(output.frames[0]!.energy);
  });
});

describe('bad meshes and flags: one line naming the line or the flag, exit 2', () => {
  const bad = (name: string, text: string): string => {
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };
  test.each([
    ['a bad vertex', () => [bad('v.obj', 'v 0 0 0\nv 1 nope 0\nv 0 1 0\nf 1 2 3\n')], /^weft: .*v\.obj:2: vertex coordinate 'nope'/], // prettier-ignore
    ['a degenerate triangle', () => [bad('d.obj', 'v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 0 1\nf 1 2 4\nf 1 2 3\n')], /^weft: .*d\.obj:6: triangle 1 \(0, 1, 2\) has zero area/], // prettier-ignore
    ['an unused vertex', () => [bad('u.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 9 9 9\nf 1 2 3\n')], /^weft: .*u\.obj:4: vertex 3 belongs to no triangle/], // prettier-ignore
    ['a pinned index out of range', () => [SQUARE, '--pin', '0,9'], /^weft: --pin: vertex index 9 is out of range \[0, 8\]$/], // prettier-ignore
    ['an unknown pin preset', () => [SQUARE, '--pin', 'waist'], /^weft: --pin: must be none, top-edge/],
    ['a negative density', () => [SQUARE, '--density=-1'], /^weft: --density: must be a finite number > 0/],
    [
      'density and mass',
      () => [SQUARE, '--density', '1', '--mass', '1'],
      /^weft: --mass: give --density or --mass/,
    ],
    ['a material flag on a JSON scene', () => [join(ROOT, 'examples', 'scenes', 'cloth-16.json'), '--stretch', '10'], /^weft: --stretch: applies to \.obj scenes only/], // prettier-ignore
    ['--obj-sequence on a JSON scene', () => [join(ROOT, 'examples', 'scenes', 'cloth-16.json'), '--obj-sequence', folder], /^weft: --obj-sequence: applies to \.obj scenes only/], // prettier-ignore
  ])('%s', async (_name, args, message) => {
    const { code, stderr } = await weft('run', ...args(), ...FIXED);
    expect(weftLines(stderr)).toEqual([expect.stringMatching(message)]);
    expect(code).toBe(2);
  });
});

test('weft run --help and the README list every mesh flag', async () => {
  const { stdout } = await weft('run', '--help');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const meshes = readme.split('## Meshes')[1]?.split('\n## ')[0] ?? '';
  for (const flag of ['density', 'mass', 'stretch', 'bend', 'damping', 'pin', 'obj-sequence']) {
    expect(stdout).toContain(`--${flag} `);
    expect(meshes, `README "Meshes" mentions --${flag}`).toContain(`--${flag}`);
  }
});
