/**
 * The CLI's words and numbers (issue 12): float32 results printed with the fewest digits that
 * read back as the same float32; misspelt commands, flags and integrators answered with the
 * closest name; --version and `weft run --help`.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { shortestFloat32 } from '../src/internal.ts';
import { version } from '../package.json';

const run = promisify(execFile);
const WEFT = join(import.meta.dirname, '..', 'bin', 'weft.js');

test.each([0.3, 0.1, -1.2, 1e-7, 3.4e38, 123456.789, 0.1014314740896225, 2 ** -149])(
  'shortestFloat32(fround(%d)) reads back as the same float32 with ≤ 9 significant digits',
  (x) => {
    const f = Math.fround(x);
    const short = shortestFloat32(f);
    expect(Math.fround(short)).toBe(f);
    expect(
      String(short)
        .replace(/^-|e.*$|\./g, '')
        .replace(/^0+/, '').length,
    ).toBeLessThanOrEqual(9);
  },
);

test('shortestFloat32 leaves what is not a float32 as it is', () => {
  for (const x of [0.30000000000000004, Math.PI, NaN, Infinity, 0]) expect(shortestFloat32(x)).toBe(x);
});

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [WEFT, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test.each([
  [['rn'], /^weft: command: unknown command 'rn' \(did you mean 'run'\?\)/m],
  [['run', 'x.json', '--integrator', 'rk4', '--dtt', '1'], /^weft: unknown flag '--dtt' \(did you mean '--dt'\?\)/m],
  [['run', 'x.json', '--integrator', 'implicit-eular'], /unknown integrator 'implicit-eular' \(did you mean 'implicit-euler'\?\)/m],
  [['run', 'x.json', '--integrator', 'zzzzzzzz'], /unknown integrator 'zzzzzzzz' \(known:/m],
])('%j: the closest name is suggested, exit 2', async (args, message) => {
  const { code, stderr } = await weft(...args);
  expect(code).toBe(2);
  expect(stderr).toMatch(message);
}); // prettier-ignore

test('--version prints the package version; `weft run --help` prints the usage', async () => {
  expect((await weft('--version')).stdout.trim()).toBe(`weft ${version}`);
  const help = await weft('run', '--help');
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^Usage:\n {2}weft run <scene\.json>/);
});

test('a float32 run prints its coordinates without float64 noise: at most 9 significant digits each', async () => {
  const scene = join(import.meta.dirname, '..', 'examples', 'scenes', 'single-spring.json');
  const { stdout } = await weft('run', scene, '--integrator', 'rk4', '--dt', '0.01', '--steps', '3', '--precision', 'f32');
  const frames = (JSON.parse(stdout) as { frames: { positions: number[]; velocities: number[] }[] }).frames;
  for (const frame of frames)
    for (const x of [...frame.positions, ...frame.velocities]) {
      expect(String(x).replace(/^-|e.*$|\./g, '').replace(/^0+/, '').length).toBeLessThanOrEqual(9);
    }
}); // prettier-ignore
