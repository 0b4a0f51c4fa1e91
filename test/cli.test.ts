import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  AdaptiveSimulation,
  CpuMultistepSimulation,
  CpuSimulation,
  parseScene,
  type AdaptiveStats,
  type ExplicitIntegratorName,
} from '../src/internal.ts';

// Runs the built CLI as a user would (`npm test` builds first).
const run = promisify(execFile);
const WEFT = join(import.meta.dirname, '..', 'bin', 'weft.js');
// The built CLI itself, without bin/weft.js's wrapper process (one Node start-up, not two): for the
// bad-input cases, which check the CLI's own validation; the wrapper's exit codes and stderr
// filter are checked by every other test here (and test/dawn-stderr.test.ts), exit 2 by the
// 'unknown option' case, which still runs through it.
const WEFT_CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'weft.js');
const SPRING_SCENE = join(import.meta.dirname, '..', 'examples', 'scenes', 'single-spring.json');
const CLOTH_SCENE = join(import.meta.dirname, '..', 'examples', 'scenes', 'cloth-16.json');

interface Output {
  integrator: string;
  backend: string;
  dt: number;
  frames: {
    step: number;
    time: number;
    positions: number[];
    velocities: number[];
    energy: number;
    hamiltonian?: number;
  }[];
  stats: Record<string, unknown>;
}

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return spawnWeft(WEFT, args);
}

/** `node dist/cli/weft.js …`: the CLI without its wrapper. */
const weftCli = (...args: string[]): ReturnType<typeof weft> => spawnWeft(WEFT_CLI, args);

async function spawnWeft(
  script: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [script, ...args], { maxBuffer: 1 << 26 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Dawn and SwiftShader print warnings of their own on stderr; the CLI's own lines start with "weft:". */
const weftLines = (stderr: string): string[] => stderr.split('\n').filter((line) => line.startsWith('weft:'));

beforeAll(() => {
  if (!existsSync(join(import.meta.dirname, '..', 'dist', 'cli', 'weft.js'))) {
    throw new Error('dist/cli/weft.js is missing: run `npm run build` (npm test does it first)');
  }
});

describe('weft run', () => {
  test('a scene round-trip: frames at 0, every k steps and the end, equal to the library on the CPU', async () => {
    const { code, stdout } = await weft(
      'run',
      SPRING_SCENE,
      '--integrator',
      'rk4',
      '--dt',
      '0.01',
      '--steps',
      '50',
      '--every',
      '20',
    );
    expect(code).toBe(0);
    const output = JSON.parse(stdout) as Output;
    expect(output.integrator).toBe('rk4');
    expect(output.backend).toBe('cpu');
    expect(output.frames.map((f) => f.step)).toEqual([0, 20, 40, 50]);
    expect(output.frames.map((f) => f.time)).toEqual([0, 0.2, 0.4, 0.5].map((t) => (t / 0.01) * 0.01));
    const model = parseScene(JSON.parse(readFileSync(SPRING_SCENE, 'utf8')));
    const reference = new CpuSimulation(model, { integrator: 'rk4', dt: 0.01 });
    reference.step(50);
    const state = await reference.readState();
    expect(output.frames.at(-1)!.positions).toEqual(Array.from(state.positions));
    expect(output.frames.at(-1)!.velocities).toEqual(Array.from(state.velocities));
    expect(output.frames[0]!.positions).toEqual(Array.from(model.particlePositions));
    expect(output.stats['particles']).toBe(2);
    expect(output.stats['springs']).toBe(1);
  });

  test('--out writes the same JSON to a file', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'weft-cli-')), 'out.json');
    const { code, stdout } = await weft(
      'run',
      SPRING_SCENE,
      '--integrator',
      'heun',
      '--dt',
      '0.01',
      '--steps',
      '5',
      '--out',
      out,
    );
    expect(code).toBe(0);
    expect(stdout).toBe('');
    const output = JSON.parse(readFileSync(out, 'utf8')) as Output;
    expect(output.frames.map((f) => f.step)).toEqual([0, 5]);
  });

  // The cloth after 100 steps: WebGPU (Node, Dawn) against the CPU float32 path, through the CLI.
  // Tolerance 2e-5 m on a 1.5 m cloth: float32 rounding differences (≈ 1e-7 relative per
  // operation) amplified over 100 steps; explicit Euler grows errors fastest (measured 7e-6).
  // One explicit integrator checks the CLI's WebGPU path (runFixed does not depend on the
  // integrator: createSimulation takes its name); every explicit integrator's GPU step against the
  // CPU is test/gpu-browser.test.ts's (Chromium) and test/gpu-kernels-quick.test.ts's (Node).
  test.each(['rk4'] satisfies ExplicitIntegratorName[])(
    '%s: --backend webgpu agrees with --backend cpu --precision f32',
    async (integrator) => {
      const common = [CLOTH_SCENE, '--integrator', integrator, '--dt', '0.001', '--steps', '100'];
      // The two runs are two processes: they run side by side.
      const [cpu, gpu] = await Promise.all([
        weft('run', ...common, '--precision', 'f32'),
        weft('run', ...common, '--backend', 'webgpu'),
      ]);
      expect(cpu.code, cpu.stderr).toBe(0);
      expect(gpu.code, gpu.stderr).toBe(0);
      const [a, b] = [JSON.parse(cpu.stdout) as Output, JSON.parse(gpu.stdout) as Output];
      expect(b.backend).toBe('webgpu');
      expect(String(b.stats['device'])).toMatch(/WebGPU/);
      const [pa, pb] = [a.frames.at(-1)!.positions, b.frames.at(-1)!.positions];
      let worst = 0;
      pa.forEach((x, k) => (worst = Math.max(worst, Math.abs(x - pb[k]!))));
      expect(worst).toBeLessThan(2e-5);
      // And the cloth moved: a comparison of two frozen states would prove nothing.
      expect(Math.abs(pa[1]! - a.frames[0]!.positions[1]!)).toBeGreaterThan(1e-3);
    },
  );
});

describe('weft run with the implicit integrators', () => {
  // Stiff cloth (k = 1e4 N/m would need dt ≈ 1e-3 explicitly) at dt = 1/60 s, 4 steps: WebGPU
  // against CPU float32 through the CLI. Tolerance 1e-4 m: each step's CG stops at a relative
  // residual of 1e-5, and the two paths' float32 roundings differ (measured below 2e-6 m).
  // One implicit integrator, with Newton loops and a Hamiltonian in its frames, checks the CLI's
  // plumbing of the solver flags and stats on WebGPU; every implicit integrator's GPU step against
  // the CPU is test/gpu-implicit-node.test.ts's (Node) and test/gpu-implicit-browser.test.ts's.
  test.each(['variational-symplectic-implicit'] as const)(
    '%s: webgpu agrees with cpu f32, and stats report the solves',
    async (integrator) => {
      const common = [
        CLOTH_SCENE,
        '--integrator',
        integrator,
        '--dt',
        String(1 / 60),
        '--steps',
        '4',
        '--solver',
        'pcg',
        '--max-iterations',
        '60',
        '--rayleigh-stiffness',
        '0.01',
      ];
      // The two runs are two processes: they run side by side.
      const [cpu, gpu] = await Promise.all([
        weft('run', ...common, '--precision', 'f32'),
        weft('run', ...common, '--backend', 'webgpu'),
      ]);
      expect(cpu.code, cpu.stderr).toBe(0);
      expect(gpu.code, gpu.stderr).toBe(0);
      const [a, b] = [JSON.parse(cpu.stdout) as Output, JSON.parse(gpu.stdout) as Output];
      const [pa, pb] = [a.frames.at(-1)!.positions, b.frames.at(-1)!.positions];
      let worst = 0;
      pa.forEach((x, k) => (worst = Math.max(worst, Math.abs(x - pb[k]!))));
      expect(worst).toBeLessThan(1e-4);
      expect(Math.abs(pa[1]! - a.frames[0]!.positions[1]!)).toBeGreaterThan(1e-3);
      for (const output of [a, b]) {
        const solver = output.stats['solver'] as {
          steps: number;
          linearSolves: number;
          linearIterations: number;
          converged: boolean;
        };
        expect(solver.steps).toBe(4);
        expect(solver.linearSolves).toBeGreaterThanOrEqual(4);
        expect(solver.linearIterations).toBeGreaterThan(solver.linearSolves);
        expect(solver.converged).toBe(true);
      }
      for (const output of [a, b]) expect(typeof output.frames.at(-1)!.hamiltonian).toBe('number');
    },
  );
});

// Each case is a process of its own that fails within its first second: they run side by side.
describe.concurrent('bad input: exit code 2 and one line naming the field, no stack trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-cli-bad-'));
  const scene = (name: string, content: string): string => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const good = ['--integrator', 'rk4', '--dt', '0.01', '--steps', '3'];
  test.for<[string, string[], RegExp]>([
    ['missing scene file', ['run', join(dir, 'nope.json'), ...good], /scene: cannot read/],
    ['invalid JSON', ['run', scene('bad.json', '{ "particles": '), ...good], /scene: .* not valid JSON/],
    [
      'unknown integrator',
      ['run', SPRING_SCENE, '--integrator', 'leapfrog', '--dt', '0.01', '--steps', '1'],
      /--integrator: unknown integrator 'leapfrog' \(known: explicit-euler/,
    ],
    [
      'dt = 0',
      ['run', SPRING_SCENE, '--integrator', 'rk4', '--dt', '0', '--steps', '1'],
      /^weft: --dt: must be a number in \(0, 1000000000\]/,
    ],
    [
      'dt < 0',
      ['run', SPRING_SCENE, '--integrator', 'rk4', '--dt=-0.1', '--steps', '1'],
      /^weft: --dt: must be a number in \(0, 1000000000\], got -0.1/,
    ],
    [
      'dt not a number',
      ['run', SPRING_SCENE, '--integrator', 'rk4', '--dt', 'fast', '--steps', '1'],
      /--dt: must be a finite decimal number, got 'fast'/,
    ],
    [
      'steps not an integer',
      ['run', SPRING_SCENE, '--integrator', 'rk4', '--dt', '0.1', '--steps', '1.5'],
      /--steps: must be an integer/,
    ],
    [
      'negative mass',
      [
        'run',
        scene(
          'mass.json',
          JSON.stringify({
            particles: { positions: [0, 0, 0, 1, 0, 0], masses: [1, -2] },
            springs: { pairs: [0, 1], stiffness: 1 },
          }),
        ),
        ...good,
      ],
      /particles\.masses\[1\]: must be > 0/,
    ],
    [
      'spring index out of range',
      [
        'run',
        scene(
          'index.json',
          JSON.stringify({
            particles: { positions: [0, 0, 0, 1, 0, 0], masses: [1, 1] },
            springs: { pairs: [0, 5], stiffness: 1 },
          }),
        ),
        ...good,
      ],
      /springs\.pairs\[1\]: particle index 5 is out of range/,
    ],
    [
      'zero rest length',
      [
        'run',
        scene(
          'rest.json',
          JSON.stringify({
            particles: { positions: [0, 0, 0, 1, 0, 0], masses: [1, 1] },
            springs: { pairs: [0, 1], stiffness: 1, restLengths: [0] },
          }),
        ),
        ...good,
      ],
      /springs\.restLengths\[0\]: must be > 0/,
    ],
    [
      'unknown scene field',
      ['run', scene('field.json', JSON.stringify({ cloth: { nx: 4 }, gust: 3 })), ...good],
      /gust: unknown field/,
    ],
    [
      'unknown option',
      ['run', SPRING_SCENE, ...good, '--turbo'],
      /^weft: unknown flag '--turbo' \(weft --help lists them\)/,
    ],
    [
      'unknown backend',
      ['run', SPRING_SCENE, ...good, '--backend', 'cuda'],
      /--backend: must be cpu or webgpu/,
    ],
    [
      'f64 on webgpu',
      ['run', SPRING_SCENE, ...good, '--backend', 'webgpu', '--precision', 'f64'],
      /precision: the webgpu backend computes in f32/,
    ],
    [
      'stiffness damping on an explicit integrator',
      ['run', SPRING_SCENE, ...good, '--rayleigh-stiffness', '0.1'],
      /--rayleigh-stiffness: does not apply to 'rk4' on cpu \(it applies to: implicit\)/,
    ],
    ['unknown command', ['simulate'], /command: unknown command 'simulate'/],
    [
      'unknown linear solver',
      [
        'run',
        SPRING_SCENE,
        '--integrator',
        'implicit-euler',
        '--dt',
        '0.01',
        '--steps',
        '1',
        '--solver',
        'lu',
      ],
      /--solver: must be one of auto, cg, pcg, jacobi, multigrid, got 'lu'/,
    ],
    [
      'tolerance ≥ 1',
      ['run', SPRING_SCENE, '--integrator', 'newmark', '--dt', '0.01', '--steps', '1', '--tolerance', '2'],
      /tolerance: must be a number in \(0, 1\)/,
    ],
    [
      'max-iterations 0',
      [
        'run',
        SPRING_SCENE,
        '--integrator',
        'backward-euler',
        '--dt',
        '0.01',
        '--steps',
        '1',
        '--max-iterations',
        '0',
      ],
      /--max-iterations: must be an integer ≥ 1/,
    ],
  ])('%s', async ([name, args, message], { expect }) => {
    // Through bin/weft.js where a device may be requested (its filter drops Dawn's warnings, which
    // name C++ frames) and for one case of exit 2; the CLI itself otherwise.
    const through = name === 'unknown option' || args.includes('webgpu') ? weft : weftCli;
    const { code, stdout, stderr } = await through(...args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = weftLines(stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(stderr).not.toMatch(/^\s+at /m);
  });
});

test('weft info names the adapter and its limits', async () => {
  const { code, stdout } = await weft('info');
  expect(code).toBe(0);
  expect(stdout).toMatch(/^Node v\d+/);
  expect(stdout).toMatch(/WebGPU adapter: \S+/);
  expect(stdout).toMatch(/maxStorageBufferBindingSize: \d+/);
});

test('a diverging run is reported (exit 4), not printed as a result', async () => {
  // Explicit Euler on a stiff spring at a large step grows without bound until it overflows.
  const path = join(mkdtempSync(join(tmpdir(), 'weft-cli-div-')), 'stiff.json');
  writeFileSync(
    path,
    JSON.stringify({
      particles: { positions: [0, 0, 0, 1.1, 0, 0], masses: [1, 1], fixed: [0] },
      springs: { pairs: [0, 1], stiffness: 1e6, restLengths: [1] },
      gravity: [0, 0, 0],
    }),
  );
  const { code, stdout, stderr } = await weft(
    'run',
    path,
    '--integrator',
    'explicit-euler',
    '--dt',
    '0.01',
    '--steps',
    '2000',
  );
  expect(code).toBe(4);
  // The document still ends: the frame before the run (a finite one) and the error, no stats.
  const output = JSON.parse(stdout) as {
    frames: unknown[];
    stats?: unknown;
    error: { name: string; message: string };
  };
  expect(output.frames).toHaveLength(1);
  expect(output.stats).toBeUndefined();
  expect(output.error.name).toBe('WeftDivergenceError');
  expect(output.error.message).toMatch(/particle 1 is not finite at step 2000/);
  expect(weftLines(stderr)[0]).toMatch(/diverged: particle 1 is not finite at step 2000/);
});

test('an adaptive run that cannot meet its accuracy at the minimum step: one line, exit 4, no stack', async () => {
  // rk45 on a spring with ω = 1e5 rad/s held at steps ≥ 0.01 s (ω h = 1000, far past RK45's
  // stability bound): the state grows by orders of magnitude each step until it overflows, and
  // a non-finite step at minStep is a WeftStepSizeError.
  const path = join(mkdtempSync(join(tmpdir(), 'weft-cli-minstep-')), 'stiff.json');
  writeFileSync(
    path,
    JSON.stringify({
      particles: { positions: [0, 0, 0, 1.1, 0, 0], masses: [1, 1], fixed: [0] },
      springs: { pairs: [0, 1], stiffness: 1e10, restLengths: [1] },
      gravity: [0, 0, 0],
    }),
  );
  const { code, stdout, stderr } = await weft(
    'run',
    path,
    '--integrator',
    'rk45',
    '--t-end',
    '10',
    '--min-step',
    '0.01',
  );
  expect(code).toBe(4);
  const output = JSON.parse(stdout) as { frames: unknown[]; stats?: unknown; error: { name: string } };
  expect([output.frames.length, output.stats, output.error.name]).toEqual([1, undefined, 'WeftStepSizeError']); // prettier-ignore
  const lines = weftLines(stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^weft: adaptive step at t = [\d.e+-]+ s: the step produced NaN or Inf .* minimum step 0\.01 s/,
  );
  expect(stderr).not.toMatch(/internal error|at \S+ \(/);
});

describe('weft run with the adaptive and multistep integrators', () => {
  interface AdaptiveOutput extends Omit<Output, 'dt'> {
    tEnd: number;
    stats: Record<string, unknown> & { adaptive: AdaptiveStats };
  }
  const dir = mkdtempSync(join(tmpdir(), 'weft-cli-adaptive-'));
  // An 8 × 8 cloth (k = 1000 N/m, 0.1 kg particles, top corners pinned): small enough for
  // SwiftShader, stiff enough that the controller has work to do.
  const CLOTH8_SCENE = join(dir, 'cloth-8.json');
  writeFileSync(CLOTH8_SCENE, JSON.stringify({ cloth: { nx: 8, ny: 8, damping: 0.5 } }));
  const worst = (a: readonly number[], b: readonly number[]): number =>
    a.reduce((m, x, k) => Math.max(m, Math.abs(x - b[k]!)), 0);
  const largest = (a: readonly number[]): number => a.reduce((m, x) => Math.max(m, Math.abs(x)), 0);

  test('rk45 --t-end --frames 3: frames at exactly k·t_end/3, equal to the library on the CPU', async () => {
    const tEnd = 0.3;
    const { code, stdout, stderr } = await weft(
      'run',
      SPRING_SCENE,
      '--integrator',
      'rk45',
      '--t-end',
      String(tEnd),
      '--accuracy',
      '1e-6',
      '--frames',
      '3',
    );
    expect(code, stderr).toBe(0);
    const output = JSON.parse(stdout) as AdaptiveOutput;
    expect(output.integrator).toBe('rk45');
    expect(output.backend).toBe('cpu');
    expect(output.tEnd).toBe(tEnd);
    // The initial frame and one per --frames; each target is computed as tEnd·k/frames and
    // advanceTo lands on it exactly.
    expect(output.frames).toHaveLength(4);
    expect(output.frames.map((f) => f.time)).toEqual([0, 1, 2, 3].map((k) => (tEnd * k) / 3));
    const stats = output.stats.adaptive;
    expect(stats.acceptedSteps).toBeGreaterThan(0);
    expect(stats.accuracyMet).toBe(true);
    expect(stats.minStepViolations).toBe(0);
    expect(output.frames.at(-1)!.step).toBe(stats.acceptedSteps);
    expect(output.stats['order']).toBe(5);
    // The library, advanced to the same targets in turn, gives the same frames to the bit.
    const model = parseScene(JSON.parse(readFileSync(SPRING_SCENE, 'utf8')));
    const reference = new AdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-6 });
    for (const frame of output.frames.slice(1)) {
      await reference.advanceTo(frame.time);
      const state = await reference.readState();
      expect(frame.step).toBe(state.step);
      expect(frame.positions).toEqual(Array.from(state.positions));
      expect(frame.velocities).toEqual(Array.from(state.velocities));
    }
    expect(reference.readStats().acceptedSteps).toBe(stats.acceptedSteps);
    expect(reference.readStats().rejectedSteps).toBe(stats.rejectedSteps);
  });

  // Step doubling of RK4 on the 8 × 8 cloth to 0.3 s at accuracy 1e-3, through the CLI: WebGPU
  // (Node, Dawn) against the CPU storing float32. The error estimates sit far above float32
  // noise at this accuracy, so both take the same steps (measured: 35 accepted, 5 rejected) and
  // their states differ by rounding alone: allowed 0.1 of a step's tolerance accuracy ·
  // (1 + max|y|), i.e. 1.7e-4 m and 3.9e-4 m/s (measured 2.4e-7 m, 2.6e-5 m/s; see
  // test/helpers/adaptive-gpu-checks.ts for the GPU suite's bounds).
  test('step-doubling --scheme rk4: --backend webgpu agrees with --backend cpu --precision f32', async () => {
    const accuracy = 1e-3;
    const common = [
      CLOTH8_SCENE,
      '--integrator',
      'step-doubling',
      '--scheme',
      'rk4',
      '--t-end',
      '0.3',
      '--accuracy',
      String(accuracy),
      '--frames',
      '3',
    ];
    // The two runs are two processes: they run side by side.
    const [cpu, gpu] = await Promise.all([
      weft('run', ...common, '--precision', 'f32'),
      weft('run', ...common, '--backend', 'webgpu'),
    ]);
    expect(cpu.code, cpu.stderr).toBe(0);
    expect(gpu.code, gpu.stderr).toBe(0);
    const [a, b] = [JSON.parse(cpu.stdout) as AdaptiveOutput, JSON.parse(gpu.stdout) as AdaptiveOutput];
    expect(b.backend).toBe('webgpu');
    expect(String(b.stats['device'])).toMatch(/^WebGPU: .*step-doubling\(rk4\)/);
    expect(a.stats['precision']).toBe('f32');
    expect(b.stats['precision']).toBe('f32');
    expect(b.frames.map((f) => f.time)).toEqual(a.frames.map((f) => f.time));
    const [sa, sb] = [a.stats.adaptive, b.stats.adaptive];
    expect(sa.acceptedSteps).toBeGreaterThan(10);
    expect(Math.abs(sb.acceptedSteps - sa.acceptedSteps)).toBeLessThanOrEqual(1);
    expect(Math.abs(sb.rejectedSteps - sa.rejectedSteps)).toBeLessThanOrEqual(2);
    expect(sb.accuracyMet).toBe(true);
    const [fa, fb] = [a.frames.at(-1)!, b.frames.at(-1)!];
    expect(worst(fb.positions, fa.positions)).toBeLessThanOrEqual(
      0.1 * accuracy * (1 + largest(fa.positions)),
    );
    expect(worst(fb.velocities, fa.velocities)).toBeLessThanOrEqual(
      0.1 * accuracy * (1 + largest(fa.velocities)),
    );
    // And the cloth moved: a comparison of two frozen states would prove nothing.
    expect(worst(fa.positions, a.frames[0]!.positions)).toBeGreaterThan(0.1);
  });

  test('adams-bashforth-3 --dt --steps: a round trip equal to CpuMultistepSimulation', async () => {
    const { code, stdout, stderr } = await weft(
      'run',
      SPRING_SCENE,
      '--integrator',
      'adams-bashforth-3',
      '--dt',
      '0.01',
      '--steps',
      '50',
      '--every',
      '20',
    );
    expect(code, stderr).toBe(0);
    const output = JSON.parse(stdout) as Output;
    expect(output.integrator).toBe('adams-bashforth-3');
    expect(output.backend).toBe('cpu');
    expect(output.dt).toBe(0.01);
    expect(output.stats['order']).toBe(3);
    expect(output.frames.map((f) => f.step)).toEqual([0, 20, 40, 50]);
    const model = parseScene(JSON.parse(readFileSync(SPRING_SCENE, 'utf8')));
    const reference = new CpuMultistepSimulation(model, { integrator: 'adams-bashforth-3', dt: 0.01 });
    expect(output.frames[0]!.positions).toEqual(Array.from(model.particlePositions));
    let done = 0;
    for (const frame of output.frames.slice(1)) {
      reference.step(frame.step - done);
      done = frame.step;
      const state = await reference.readState();
      expect(frame.time).toBe(state.time);
      expect(frame.positions).toEqual(Array.from(state.positions));
      expect(frame.velocities).toEqual(Array.from(state.velocities));
    }
    // And it moved.
    expect(Math.abs(output.frames.at(-1)!.positions[4]! - output.frames[0]!.positions[4]!)).toBeGreaterThan(
      1e-3,
    );
  });

  // Each case is a process of its own that fails within its first second: they run side by side.
  test.concurrent.for<[string, string[], RegExp]>([
    ['rk45 without --t-end', ['--integrator', 'rk45'], /^weft: --t-end: is required/],
    [
      'rk4 with --t-end',
      ['--integrator', 'rk4', '--dt', '0.01', '--steps', '3', '--t-end', '1'],
      /^weft: --t-end: 'rk4' takes fixed steps/,
    ],
    [
      'unknown --scheme',
      ['--integrator', 'step-doubling', '--t-end', '0.1', '--scheme', 'leapfrog'],
      /^weft: --scheme: must be one of explicit-euler, .*got 'leapfrog'/,
    ],
    [
      '--scheme with rk45',
      ['--integrator', 'rk45', '--t-end', '0.1', '--scheme', 'heun'],
      /^weft: --scheme: does not apply to 'rk45'/,
    ],
    [
      'heun-implicit on webgpu with --max-corrector-iterations 0',
      [
        '--integrator',
        'heun-implicit',
        '--dt',
        '0.01',
        '--steps',
        '3',
        '--backend',
        'webgpu',
        '--max-corrector-iterations',
        '0',
      ],
      /^weft: --max-corrector-iterations: must be an integer ≥ 1, got 0/,
    ],
    [
      'velocity-implicit-euler on webgpu in f64',
      [
        '--integrator',
        'velocity-implicit-euler',
        '--t-end',
        '0.1',
        '--backend',
        'webgpu',
        '--precision',
        'f64',
      ],
      /^weft: precision: the webgpu backend computes in f32/,
    ],
    ['--t-end 0', ['--integrator', 'rk45', '--t-end', '0'], /^weft: --t-end: must be a finite number > 0/],
    [
      '--accuracy ≥ 1',
      ['--integrator', 'rk45', '--t-end', '0.1', '--accuracy', '2'],
      /^weft: --accuracy: must be a number in \(0, 1\)/,
    ],
    [
      '--frames 0',
      ['--integrator', 'rk45', '--t-end', '0.1', '--frames', '0'],
      /^weft: --frames: must be an integer ≥ 1/,
    ],
  ])('bad input, %s: exit code 2 and one line naming the field', async ([, args, message], { expect }) => {
    // The CLI itself (see WEFT_CLI); Dawn's warnings, if a device was requested, would not be lines
    // starting "weft:", and the stack check below names JavaScript frames only.
    const { code, stdout, stderr } = await weftCli('run', SPRING_SCENE, ...args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = weftLines(stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    // No JavaScript stack frame. (Dawn's own warnings, printed when a device was requested before
    // the bad option was found, name C++ frames: "at InitializeImpl (…/PhysicalDeviceVk.cpp:257)".)
    expect(stderr).not.toMatch(/^\s+at .*\.[cm]?[jt]s:\d+:\d+\)?$/m);
  });
});
