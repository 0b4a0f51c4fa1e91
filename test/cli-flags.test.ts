/**
 * Every CLI flag of the solvers does what it says, run as a user would: each changes the result in
 * the direction the physics or the numerics predict (damping removes energy, looser Newton
 * tolerances take fewer iterations, step bounds bound the steps, …) and the run with it equals the
 * library called with the same option. Plus `--progress`, and `--every`/`--out` and exit code 4 on
 * WebGPU.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { createSimulation, type SimulationOptions } from '../src/index.ts';
import { parseScene } from '../src/internal.ts';

const run = promisify(execFile);
const WEFT = join(import.meta.dirname, '..', 'bin', 'weft.js');
const SPRING = join(import.meta.dirname, '..', 'examples', 'scenes', 'single-spring.json');
const CLOTH = join(import.meta.dirname, '..', 'examples', 'scenes', 'cloth-16.json');

interface Output {
  frames: { step: number; time: number; positions: number[]; velocities: number[]; energy: number }[];
  stats: {
    energyFinal: { kinetic: number; total: number };
    solver?: { linearIterations: number; newtonIterations: number; unconvergedSteps: number };
    adaptive?: { acceptedSteps: number; smallestStep: number; largestStep: number };
  };
}

async function weft(...args: string[]): Promise<{ code: number; output: Output | null; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [WEFT, ...args], { maxBuffer: 1 << 26 });
    return { code: 0, output: stdout ? (JSON.parse(stdout) as Output) : null, stderr };
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, output: null, stderr: e.stderr };
  }
}

async function ok(...args: string[]): Promise<Output> {
  const { code, output, stderr } = await weft(...args);
  expect(code, stderr).toBe(0);
  return output!;
}

/** The library's final positions for the same scene and options (CPU, float64). */
async function library(scene: string, options: SimulationOptions, until: { steps: number } | { tEnd: number }): Promise<Float64Array> {
  const simulation = await createSimulation(parseScene(JSON.parse(readFileSync(scene, 'utf8'))), options);
  if ('tEnd' in until) await simulation.advanceTo(until.tEnd);
  else simulation.step(until.steps);
  return (await simulation.readState()).positions;
} // prettier-ignore

const last = (o: Output) => o.frames.at(-1)!;

describe('each solver flag has its effect, and equals the library with the same option', () => {
  test('--rayleigh-mass removes kinetic energy (symplectic Euler, spring, 2 s)', async () => {
    const base = ['run', SPRING, '--integrator', 'symplectic-euler', '--dt', '0.005', '--steps', '400'];
    const [free, damped] = [await ok(...base), await ok(...base, '--rayleigh-mass', '2')];
    // r_m = 2/s decays the velocity as e^(−2t): after 2 s, e^(−4) of the undamped swing's energy scale.
    expect(damped.stats.energyFinal.kinetic).toBeLessThan(0.2 * free.stats.energyFinal.kinetic);
    const reference = await library(
      SPRING,
      { integrator: 'symplectic-euler', dt: 0.005, rayleighMass: 2 },
      { steps: 400 },
    );
    expect(last(damped).positions).toEqual(Array.from(reference));
  });

  test('--newmark-gamma above ½ damps numerically (Newmark on the spring, 4 s)', async () => {
    const base = ['run', SPRING, '--integrator', 'newmark', '--dt', '0.05', '--steps', '80'];
    const trapezoidal = await ok(...base);
    // γ = 0.7, β = (γ + ½)²/4 = 0.36: unconditionally stable and dissipative (Hughes, §9.1).
    const dissipative = await ok(...base, '--newmark-gamma', '0.7', '--newmark-beta', '0.36');
    expect(dissipative.stats.energyFinal.total).toBeLessThan(trapezoidal.stats.energyFinal.total);
    const reference = await library(SPRING, { integrator: 'newmark', dt: 0.05, newmarkGamma: 0.7, newmarkBeta: 0.36 }, { steps: 80 }); // prettier-ignore
    expect(last(dissipative).positions).toEqual(Array.from(reference));
  });

  test('--jacobian exact keeps a compressed spring’s geometric term: another motion (implicit Euler)', async () => {
    // The spring scene with rest length 1.5 m at 1.2 m apart: compressed, g = 1 − L/l < 0, which
    // 'clamped' drops and 'exact' keeps; the particle's sideways velocity feels the difference.
    const scene = JSON.parse(readFileSync(SPRING, 'utf8')) as { springs: { restLengths: number[] } };
    scene.springs.restLengths = [1.5];
    const file = join(mkdtempSync(join(tmpdir(), 'weft-')), 'compressed.json');
    writeFileSync(file, JSON.stringify(scene));
    const base = ['run', file, '--integrator', 'implicit-euler', '--dt', '0.05', '--steps', '10'];
    const [clamped, exact] = [await ok(...base), await ok(...base, '--jacobian', 'exact')];
    expect(last(exact).positions).not.toEqual(last(clamped).positions);
    const reference = await library(
      file,
      { integrator: 'implicit-euler', dt: 0.05, jacobian: 'exact' },
      { steps: 10 },
    );
    expect(last(exact).positions).toEqual(Array.from(reference));
  });

  test('--preconditioner scalar preconditions worse than the 3×3 blocks: more iterations', async () => {
    const base = ['run', CLOTH, '--integrator', 'implicit-euler', '--dt', '0.0166667', '--steps', '4'];
    const [block, scalar] = [await ok(...base), await ok(...base, '--preconditioner', 'scalar')];
    expect(scalar.stats.solver!.linearIterations).toBeGreaterThan(block.stats.solver!.linearIterations);
  });

  test('--newton-iterations 1 cuts backward Euler’s Newton loops short (counted unconverged)', async () => {
    const base = ['run', CLOTH, '--integrator', 'backward-euler', '--dt', '0.0166667', '--steps', '4'];
    const [full, one] = [await ok(...base), await ok(...base, '--newton-iterations', '1')];
    expect(one.stats.solver!.newtonIterations).toBeLessThanOrEqual(4);
    expect(one.stats.solver!.newtonIterations).toBeLessThan(full.stats.solver!.newtonIterations);
    expect(one.stats.solver!.unconvergedSteps).toBeGreaterThan(0);
  });

  test('--newton-error looser takes fewer variational Newton iterations', async () => {
    const base = [
      'run',
      CLOTH,
      '--integrator',
      'variational-symplectic-implicit',
      '--dt',
      '0.0166667',
      '--steps',
      '4',
    ];
    const [tight, loose] = [
      await ok(...base, '--newton-error', '1e-6'),
      await ok(...base, '--newton-error', '1e-2'),
    ];
    expect(loose.stats.solver!.newtonIterations).toBeLessThan(tight.stats.solver!.newtonIterations);
  });

  test('--max-step and --min-step bound rk45’s steps', async () => {
    const capped = await ok('run', SPRING, '--integrator', 'rk45', '--t-end', '1', '--max-step', '0.02');
    expect(capped.stats.adaptive!.largestStep).toBeLessThanOrEqual(0.02);
    expect(capped.stats.adaptive!.acceptedSteps).toBeGreaterThanOrEqual(50);
    // A minimum above what accuracy 1e-9 needs: every step sits at or above it (violations counted).
    const floored = await ok('run', SPRING, '--integrator', 'rk45', '--t-end', '1', '--accuracy', '1e-9', '--min-step', '0.05'); // prettier-ignore
    expect(floored.stats.adaptive!.smallestStep).toBeGreaterThanOrEqual(0.05 - 1e-12);
    const reference = await library(
      SPRING,
      { integrator: 'rk45', accuracy: 1e-4, maxStep: 0.02 },
      { tEnd: 1 },
    );
    expect(last(capped).positions).toEqual(Array.from(reference));
  });

  test('--progress reports progress on stderr, the result on stdout unchanged', async () => {
    const args = ['run', SPRING, '--integrator', 'rk4', '--dt', '0.01', '--steps', '200'];
    const [quiet, loud] = [await weft(...args), await weft(...args, '--progress')];
    expect(loud.stderr).toMatch(/\d+%/);
    // Everything but the timings is the same.
    const untimed = (o: Output | null) => ({
      ...o!,
      stats: { ...o!.stats, wallSeconds: 0, stepsPerSecond: 0 },
    });
    expect(untimed(loud.output)).toEqual(untimed(quiet.output));
  });
});

describe('on WebGPU', () => {
  test('--every and --out write the frames to a file', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'weft-')), 'frames.json');
    const { code, stderr } = await weft('run', CLOTH, '--integrator', 'symplectic-euler', '--dt', '0.001', '--steps', '30', '--every', '10', '--backend', 'webgpu', '--out', out); // prettier-ignore
    expect(code, stderr).toBe(0);
    const output = JSON.parse(readFileSync(out, 'utf8')) as Output;
    expect(output.frames.map((f) => f.step)).toEqual([0, 10, 20, 30]);
    // The cloth fell: its lowest particle is below where it started.
    const lowest = (f: Output['frames'][number]) => Math.min(...f.positions.filter((_, k) => k % 3 === 1));
    expect(lowest(output.frames[3]!)).toBeLessThan(lowest(output.frames[0]!));
  });

  test('a diverging run exits 4 with one line', async () => {
    const { code, stderr } = await weft('run', SPRING, '--integrator', 'explicit-euler', '--dt', '0.5', '--steps', '2000', '--backend', 'webgpu'); // prettier-ignore
    expect(code).toBe(4);
    expect(stderr.split('\n').filter((line) => line.startsWith('weft:'))).toHaveLength(1);
  });
});
