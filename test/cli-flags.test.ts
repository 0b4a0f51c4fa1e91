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
// The built CLI without bin/weft.js's wrapper process (one Node start-up, not two): what is tested
// here is the flags. The WebGPU runs go through the wrapper (its filter drops Dawn's warnings);
// the wrapper itself is test/cli.test.ts's and test/dawn-stderr.test.ts's.
const WEFT_CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'weft.js');
const SPRING = join(import.meta.dirname, '..', 'examples', 'scenes', 'single-spring.json');
const CLOTH = join(import.meta.dirname, '..', 'examples', 'scenes', 'cloth-16.json');

interface Output {
  frames: { step: number; time: number; positions: number[]; velocities: number[]; energy: number }[];
  stats: {
    energyFinal: { kinetic: number; total: number };
    solver?: { linearIterations: number; newtonIterations: number; unconvergedSteps: number };
    adaptive?: {
      acceptedSteps: number;
      smallestStep: number;
      largestStep: number;
      minStepViolations: number;
    };
  };
}

async function weft(...args: string[]): Promise<{ code: number; output: Output | null; stderr: string }> {
  try {
    const script = args.includes('webgpu') ? WEFT : WEFT_CLI;
    const { stdout, stderr } = await run('node', [script, ...args], { maxBuffer: 1 << 26 });
    return { code: 0, output: stdout ? (JSON.parse(stdout) as Output) : null, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout ? (JSON.parse(e.stdout) as Output) : null, stderr: e.stderr };
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

// Each test runs CLI processes of its own and shares nothing: the tests run side by side.
describe.concurrent('each solver flag has its effect, and equals the library with the same option', () => {
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
    const cut = [...base, '--newton-iterations', '1'];
    const [full, one] = [await ok(...base), await ok(...cut, '--allow-unconverged')];
    expect(one.stats.solver!.newtonIterations).toBeLessThanOrEqual(4);
    expect(one.stats.solver!.newtonIterations).toBeLessThan(full.stats.solver!.newtonIterations);
    expect(one.stats.solver!.unconvergedSteps).toBeGreaterThan(0);
    // Without --allow-unconverged the same run writes the same complete output, then exits 4.
    const strict = await weft(...cut);
    expect(strict.code).toBe(4);
    const written = strict.output!;
    expect(written.frames).toEqual(one.frames);
    expect(written.stats.solver).toEqual(one.stats.solver);
    expect(strict.stderr).toMatch(
      /^weft: the Newton or corrector loops of \d+ of 4 steps stopped at their caps unconverged/m,
    );
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
    // Each equals the library with the same newtonError, and the two differ (the loose one stops early).
    for (const [output, newtonError] of [
      [tight, 1e-6],
      [loose, 1e-2],
    ] as const) {
      const reference = await library(CLOTH, { integrator: 'variational-symplectic-implicit', dt: 0.0166667, newtonError }, { steps: 4 }); // prettier-ignore
      expect(last(output).positions).toEqual(Array.from(reference));
    }
    expect(last(loose).positions).not.toEqual(last(tight).positions);
  });

  test('--max-step and --min-step bound rk45’s steps', async () => {
    const capped = await ok('run', SPRING, '--integrator', 'rk45', '--t-end', '1', '--max-step', '0.02');
    expect(capped.stats.adaptive!.largestStep).toBeLessThanOrEqual(0.02);
    expect(capped.stats.adaptive!.acceptedSteps).toBeGreaterThanOrEqual(50);
    // A minimum above what accuracy 1e-9 needs: every step sits at or above it (violations counted).
    const floored = await ok('run', SPRING, '--integrator', 'rk45', '--t-end', '1', '--accuracy', '1e-9', '--min-step', '0.05'); // prettier-ignore
    expect(floored.stats.adaptive!.smallestStep).toBeGreaterThanOrEqual(0.05 - 1e-12);
    // 1 s in steps of at least 0.05 s: at most 20 of them, each one a violation of accuracy 1e-9.
    expect(floored.stats.adaptive!.acceptedSteps).toBeLessThanOrEqual(20);
    expect(floored.stats.adaptive!.minStepViolations).toBe(floored.stats.adaptive!.acceptedSteps);
    const flooredReference = await library(SPRING, { integrator: 'rk45', accuracy: 1e-9, minStep: 0.05 }, { tEnd: 1 }); // prettier-ignore
    expect(last(floored).positions).toEqual(Array.from(flooredReference));
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
    // Each line: "p%  k/200 steps": k rises to 200 and p = 100 k / 200.
    const reports = [...loud.stderr.matchAll(/(\d+)%\s+(\d+)\/200 steps/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(reports.length).toBeGreaterThan(2);
    reports.forEach(([percent, k]) => expect(percent).toBe(Math.round((100 * k!) / 200)));
    expect(reports.map(([, k]) => k)).toEqual(reports.map(([, k]) => k).sort((a, b) => a! - b!));
    expect(reports.at(-1)![1]).toBe(200);
    // Everything but the timings is the same.
    const untimed = (o: Output | null) => ({
      ...o!,
      stats: { ...o!.stats, wallSeconds: 0, stepsPerSecond: 0 },
    });
    expect(untimed(loud.output)).toEqual(untimed(quiet.output));
  });
});

/**
 * The flags' results against recursions written here from the physics and the spec formulas (as in
 * test/cpu-recursion.test.ts and test/cpu-implicit-recursion.test.ts), not against the library: one
 * free particle 1 on a spring from the fixed particle 0 at the origin, f₁ = −(k (l − L) + c v·n) n +
 * m g with n = x₁/l, K = k (n nᵀ + g (I − n nᵀ)), g = 1 − L/l (clamped: max(g, 0)), B = c n nᵀ.
 * With one free particle the block preconditioner is A⁻¹, so each linear solve is exact after one
 * iteration and the CLI's state equals the recursion to rounding (measured ≤ 8e-15; allowed 1e-10
 * m, m/s).
 */
// Each test runs CLI processes of its own and shares nothing: the tests run side by side.
describe.concurrent('each flag against a recursion written here', () => {
  type Vec3 = [number, number, number];
  const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  /** single-spring.json: m = 0.5 kg, k = 50 N/m, L = 1 m, c = 0.3 N·s/m, g = −9.81 m/s² along y. */
  const SPRING_PHYSICS = { m: 0.5, k: 50, L: 1, c: 0.3 };
  const G: Vec3 = [0, -9.81, 0];
  type Physics = typeof SPRING_PHYSICS;
  const force = ({ m, k, L, c }: Physics, x: Vec3, v: Vec3): Vec3 => {
    const l = Math.hypot(...x);
    const n = x.map((xi) => xi / l) as Vec3;
    const tension = k * (l - L) + c * dot(v, n);
    return [0, 1, 2].map((i) => -tension * n[i]! + m * G[i]!) as Vec3;
  };
  /** A u with A = α m I + β B + γ K at x (K exact or clamped). */
  const system = ({ m, k, L, c }: Physics, x: Vec3, exact: boolean, [alpha, beta, gamma]: Vec3) => {
    const l = Math.hypot(...x);
    const n = x.map((xi) => xi / l) as Vec3;
    const geometric = exact ? 1 - L / l : Math.max(1 - L / l, 0);
    return [0, 1, 2].map((i) =>
      [0, 1, 2].map((j) => {
        const nn = n[i]! * n[j]!;
        const identity = i === j ? 1 : 0;
        return alpha * m * identity + beta * c * nn + gamma * k * (nn + geometric * (identity - nn));
      }),
    );
  };
  /** Solves the 3×3 system M u = b by Cramer's rule. */
  const solve3 = (M: number[][], b: Vec3): Vec3 => {
    const det = (a: number[][]): number =>
      a[0]![0]! * (a[1]![1]! * a[2]![2]! - a[1]![2]! * a[2]![1]!) -
      a[0]![1]! * (a[1]![0]! * a[2]![2]! - a[1]![2]! * a[2]![0]!) +
      a[0]![2]! * (a[1]![0]! * a[2]![1]! - a[1]![1]! * a[2]![0]!);
    const d = det(M);
    return [0, 1, 2].map((col) => det(M.map((row, i) => row.map((value, j) => (j === col ? b[i]! : value)))) / d) as Vec3; // prettier-ignore
  };
  const times = (M: number[][], u: Vec3): Vec3 => M.map((row) => dot(row as Vec3, u)) as Vec3;
  const state = (o: Output) => ({
    x: last(o).positions.slice(3, 6) as Vec3,
    v: last(o).velocities.slice(3, 6) as Vec3,
  });
  const expectState = (o: Output, expected: { x: Vec3; v: Vec3 }, what: string) => {
    const actual = state(o);
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(actual.x[i]! - expected.x[i]!), `${what}: x${'xyz'[i]}`).toBeLessThan(1e-10);
      expect(Math.abs(actual.v[i]! - expected.v[i]!), `${what}: v${'xyz'[i]}`).toBeLessThan(1e-10);
    }
  };
  const START: { x: Vec3; v: Vec3 } = { x: [0, -1.2, 0], v: [0.4, 0, 0] };
  const sceneFile = (
    name: string,
    edit: (scene: Record<string, Record<string, unknown>>) => void,
  ): string => {
    const scene = JSON.parse(readFileSync(SPRING, 'utf8')) as Record<string, Record<string, unknown>>;
    edit(scene);
    const file = join(mkdtempSync(join(tmpdir(), 'weft-')), `${name}.json`);
    writeFileSync(file, JSON.stringify(scene));
    return file;
  };

  test('--rayleigh-mass: symplectic Euler with the force −r_m m v (3-D spring)', async () => {
    const symplecticEuler = (rm: number, steps: number, h: number) => {
      let { x, v } = START;
      for (let n = 0; n < steps; n++) {
        const f = force(SPRING_PHYSICS, x, v);
        v = [0, 1, 2].map((i) => v[i]! + h * (f[i]! / SPRING_PHYSICS.m - rm * v[i]!)) as Vec3;
        x = [0, 1, 2].map((i) => x[i]! + h * v[i]!) as Vec3;
      }
      return { x, v };
    };
    const base = ['run', SPRING, '--integrator', 'symplectic-euler', '--dt', '0.005', '--steps', '400'];
    const [free, damped] = [await ok(...base), await ok(...base, '--rayleigh-mass', '2')];
    expectState(free, symplecticEuler(0, 400, 0.005), 'r_m = 0');
    expectState(damped, symplecticEuler(2, 400, 0.005), 'r_m = 2');
    // Not a vacuous difference: after 2 s at r_m = 2/s the two states are centimetres apart.
    expect(Math.hypot(...[0, 1, 2].map((i) => state(damped).x[i]! - state(free).x[i]!))).toBeGreaterThan(
      0.01,
    );
  });

  test('--newmark-gamma/--newmark-beta: Newmark’s recursion with γ = 0.7, β = 0.36 (1-D spring, linear)', async () => {
    // Particle 1 straight below the pin and moving along y: the spring stays stretched along y, so
    // F(y, v) = −k (|y| − L) sign(y) − c v + m g is linear and Newmark's one linearisation is exact.
    const file = sceneFile('line', (scene) => {
      scene.particles!.positions = [0, 0, 0, 0, -1.3, 0];
      scene.particles!.velocities = [0, 0, 0, 0, 0.2, 0];
    });
    const { m, k, L, c } = SPRING_PHYSICS;
    const F = (y: number, v: number): number => -k * (Math.abs(y) - L) * Math.sign(y) - c * v + m * G[1];
    // spec/sofa-ode-solvers.md §3 (cpu-implicit-recursion.test.ts), no Rayleigh damping.
    const newmark = (gamma: number, beta: number, steps: number, h: number) => {
      let [y, v, a] = [-1.3, 0.2, F(-1.3, 0.2) / m];
      const cstAcc = -h * (0.5 - beta) * k;
      const cstVel = -h * k;
      const matrix = h * h * beta * k + m + h * gamma * c;
      for (let n = 0; n < steps; n++) {
        const next = (F(y, v) + h * cstAcc * a + cstVel * v - h * (1 - gamma) * c * a) / matrix;
        const yNext = y + h * v + 0.5 * h * h * (1 - 2 * beta) * a + h * h * beta * next;
        v = v + h * (1 - gamma) * a + h * gamma * next;
        [y, a] = [yNext, next];
      }
      return { x: [0, y, 0] as Vec3, v: [0, v, 0] as Vec3 };
    };
    const base = ['run', file, '--integrator', 'newmark', '--dt', '0.05', '--steps', '80'];
    const [trapezoidal, dissipative] = [
      await ok(...base),
      await ok(...base, '--newmark-gamma', '0.7', '--newmark-beta', '0.36'),
    ];
    expectState(trapezoidal, newmark(0.5, 0.25, 80, 0.05), 'γ = ½, β = ¼');
    expectState(dissipative, newmark(0.7, 0.36, 80, 0.05), 'γ = 0.7, β = 0.36');
    expect(Math.abs(state(dissipative).x[1] - state(trapezoidal).x[1])).toBeGreaterThan(1e-3);
  });

  test('--jacobian exact: implicit Euler with K’s negative transverse term (compressed 3-D spring)', async () => {
    // Rest length 1.5 m at 1.2 m: g = 1 − L/l < 0, which 'clamped' drops and 'exact' keeps.
    const file = sceneFile('compressed', (scene) => {
      scene.springs!.restLengths = [1.5];
    });
    const physics = { ...SPRING_PHYSICS, L: 1.5 };
    // Baraff–Witkin: (m I + h B + h² K) Δv = h (f − h K v), v₊ = v + Δv, x₊ = x + h v₊.
    const implicitEuler = (exact: boolean, steps: number, h: number) => {
      let { x, v } = START;
      for (let n = 0; n < steps; n++) {
        const f = force(physics, x, v);
        const Kv = times(system(physics, x, exact, [0, 0, 1]), v);
        const A = system(physics, x, exact, [1, h, h * h]);
        const dv = solve3(A, [0, 1, 2].map((i) => h * (f[i]! - h * Kv[i]!)) as Vec3);
        v = [0, 1, 2].map((i) => v[i]! + dv[i]!) as Vec3;
        x = [0, 1, 2].map((i) => x[i]! + h * v[i]!) as Vec3;
      }
      return { x, v };
    };
    const base = ['run', file, '--integrator', 'implicit-euler', '--dt', '0.05', '--steps', '10'];
    const [clamped, exact] = [await ok(...base), await ok(...base, '--jacobian', 'exact')];
    expectState(clamped, implicitEuler(false, 10, 0.05), 'clamped');
    expectState(exact, implicitEuler(true, 10, 0.05), 'exact');
    expect(Math.abs(state(exact).x[0] - state(clamped).x[0])).toBeGreaterThan(1e-4);
  });

  test('--preconditioner: the 3×3 block is A⁻¹ on one particle (1 CG iteration per solve), the scalar one is not', async () => {
    const base = ['run', SPRING, '--integrator', 'implicit-euler', '--dt', '0.05', '--steps', '10'];
    const [block, scalar] = [await ok(...base), await ok(...base, '--preconditioner', 'scalar')];
    expect(block.stats.solver!.linearIterations).toBe(10);
    // CG on a 3×3 system whose right-hand sides lie in the xy plane: at most 2 iterations, and more
    // than 1 unless A's diagonal already inverts it (it does not: the spring is tilted).
    expect(scalar.stats.solver!.linearIterations).toBeGreaterThan(10);
    expect(scalar.stats.solver!.linearIterations).toBeLessThanOrEqual(20);
    // Both solve the same systems: the same state, to the solver's tolerance (1e-5 relative residual).
    for (let i = 0; i < 3; i++) expect(Math.abs(state(scalar).x[i]! - state(block).x[i]!)).toBeLessThan(1e-6);
  });

  test('--newton-iterations 1: one Newton iteration of backward Euler on a linear force is its closed form', async () => {
    const file = sceneFile('line', (scene) => {
      scene.particles!.positions = [0, 0, 0, 0, -1.3, 0];
      scene.particles!.velocities = [0, 0, 0, 0, 0.2, 0];
    });
    const { m, k, L, c } = SPRING_PHYSICS;
    const F0 = (y: number): number => -k * (Math.abs(y) - L) * Math.sign(y) + m * G[1];
    // m (v₊ − v)/h = F(y + h v₊, v₊): v₊ = (m v + h F(y, 0)) / (m + h c + h² k), y₊ = y + h v₊.
    let [y, v] = [-1.3, 0.2];
    for (let n = 0; n < 20; n++) {
      v = (m * v + 0.02 * F0(y)) / (m + 0.02 * c + 0.02 * 0.02 * k);
      y = y + 0.02 * v;
    }
    const one = await ok('run', file, '--integrator', 'backward-euler', '--dt', '0.02', '--steps', '20', '--newton-iterations', '1', '--allow-unconverged'); // prettier-ignore
    expectState(one, { x: [0, y, 0], v: [0, v, 0] }, 'one Newton iteration');
    expect(one.stats.solver!.newtonIterations).toBe(20);
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
