/**
 * GPU-vs-CPU cases of the adaptive integrators (createAdaptiveSimulation with backend 'webgpu'),
 * shared by test/gpu-adaptive-node.test.ts (Dawn through the `webgpu` package) and the browser
 * harness test/browser/adaptive-harness.ts (served by Vite to headless Chromium). Each runner takes
 * a device, runs one case on it and on the CPU, and returns plain data (arrays of numbers, no
 * Infinity or NaN), so that a result can cross from a page to the test. No vitest and no Node APIs
 * here: this file runs in both places. The assertions are in adaptive-gpu-checks.ts.
 */
import { mulberry32, runScoped, type WithErrors } from './implicit-cases.ts';
import {
  createAdaptiveSimulation,
  type AdaptiveSimulation,
  type AdaptiveIntegratorName,
  type AdaptiveOptions,
  type AdaptiveStats,
  WeftInputError,
  type ExplicitIntegratorName,
  buildCloth,
  createModel,
  type Model,
  createSimulation,
  type SimulationOptions,
} from '../../src/index.ts';

// ---------------------------------------------------------------------------------------------
// Scenes

export const ADAPTIVE_SCENES = ['spring', 'cloth8'] as const;
export type AdaptiveScene = (typeof ADAPTIVE_SCENES)[number];

/**
 * A single spring moving in 3-D: k = 2000 N/m, c = 0.2 N·s/m, rest length 1 m; particle 0 fixed
 * at the origin, particle 1 (0.5 kg) at (0.2, −1.05, 0.1) m, stretched 0.074 m, moving at
 * (0.6, 0.2, −0.4) m/s (not in the plane of the spring and gravity). ω = √(k/m) = 63 rad/s: the
 * step follows its oscillation (three periods in 0.3 s).
 */
export function buildSpring3d(): Model {
  return createModel({
    positions: [0, 0, 0, 0.2, -1.05, 0.1],
    velocities: [0, 0, 0, 0.6, 0.2, -0.4],
    masses: [0.5, 0.5],
    fixed: [0],
    springPairs: [0, 1],
    springStiffness: 2000,
    springRestLengths: [1],
    springDamping: 0.2,
  });
}

/**
 * An 8 × 8 horizontal cloth (0.1 m spacing, 0.1 kg particles, k = 1000 N/m, c = 0.5 N·s/m, top
 * corners pinned), at its rest lengths, with every free particle given a seeded velocity of up to
 * ±0.3 m/s per coordinate: it falls and ripples in all three directions.
 */
export function buildCloth8(seed = 8_2024): Model {
  const cloth = buildCloth({ nx: 8, ny: 8, damping: 0.5 });
  const random = mulberry32(seed);
  const velocities = Array.from(cloth.particlePositions, (_, k) =>
    cloth.particleFixed[Math.floor(k / 3)] ? 0 : 0.3 * (2 * random() - 1),
  );
  const fixed: number[] = [];
  cloth.particleFixed.forEach((flag, i) => flag && fixed.push(i));
  return createModel({
    positions: cloth.particlePositions,
    velocities,
    masses: cloth.particleMass,
    fixed,
    springPairs: cloth.springIndices,
    springStiffness: cloth.springStiffness,
    springRestLengths: cloth.springRestLength,
    springDamping: cloth.springDamping,
    gravity: cloth.gravity,
  });
}

export function buildAdaptiveScene(scene: AdaptiveScene): Model {
  return scene === 'spring' ? buildSpring3d() : buildCloth8();
}

// ---------------------------------------------------------------------------------------------
// Cases

/**
 * The schemes doubled in the GPU-vs-CPU cases: the Runge–Kutta family and two of the symplectic
 * one (every explicit scheme is a program both executors run; these cover both kinds of update).
 */
export const GPU_DOUBLED_SCHEMES = [
  'explicit-euler',
  'rk2',
  'heun',
  'rk4',
  'symplectic-euler',
  'central-difference',
] as const;

/** One GPU-vs-CPU run to `tEnd`; plain data. */
export interface AdaptiveCase {
  scene: AdaptiveScene;
  integrator: AdaptiveIntegratorName;
  /** step-doubling only. */
  scheme?: ExplicitIntegratorName;
  /** step-doubling only: propagate the Richardson extrapolation. */
  extrapolate?: boolean;
  /** Relative (and, by default, absolute) tolerance of each step's error estimate. */
  accuracy: number;
  /** s; advanceTo(tEnd) from 0. */
  tEnd: number;
  /** velocity-implicit-euler: most PCG iterations per solve. */
  linearMaxIterations?: number;
}

export function adaptiveCaseLabel(c: AdaptiveCase): string {
  const what =
    c.integrator === 'step-doubling'
      ? `step-doubling(${c.scheme}${c.extrapolate ? ', extrapolated' : ''})`
      : c.integrator;
  return `${c.scene} ${what} accuracy ${c.accuracy} to ${c.tEnd} s`;
}

/** The options both backends get (the CPU adds precision 'f32', the GPU its device). */
export function adaptiveOptions(c: AdaptiveCase): AdaptiveOptions {
  return {
    integrator: c.integrator,
    accuracy: c.accuracy,
    ...(c.scheme === undefined ? {} : { scheme: c.scheme }),
    ...(c.extrapolate === undefined ? {} : { extrapolate: c.extrapolate }),
    ...(c.linearMaxIterations === undefined ? {} : { linearMaxIterations: c.linearMaxIterations }),
  };
}

/**
 * s of the explicit cases. The spring's fast mode (ω = 63 rad/s, period ≈ 0.1 s) carries its
 * whole velocity range (±4.4 m/s): 0.125 s is 1¼ periods, where the final state is far from the
 * initial one in both positions (0.086 m of the run's largest 0.142 m) and velocities (4.1 of
 * 4.4 m/s), so a state left near the start fails the checks on both (the spring is nearly back at
 * its start after whole periods: at 0.3 s, 3 periods, its velocity change was 0.86 m/s). The
 * cloth falls and ripples monotonically: 0.2 s (0.24 m, 2.3 m/s).
 */
const EXPLICIT_END = { spring: 0.125, cloth8: 0.2 } as const;

/**
 * s of explicit Euler, the one first-order explicit scheme: its global error falls only ∝ h, so
 * its runs stop where it is still within 5 % of the motion in a few hundred steps: on the spring
 * 5/8 of a period (0.0625 s: 0.12 of 0.14 m, 3.3 of 4.3 m/s moved; 128 attempts at 1e-4), on the
 * cloth the full 0.2 s (427 attempts; it has no shorter run of that error, its initial fast
 * ripples carry the velocity error).
 */
const EULER_END = { spring: 0.0625, cloth8: 0.2 } as const;

/**
 * velocity-implicit-euler: its GPU stepper runs three backward-Euler Newton solves per attempt,
 * each reading convergence back several times, ~0.1–0.3 s per attempt on SwiftShader (measured;
 * more while other processes share the CPU), so its runs are short, ~30 attempts each under its
 * default errorControl 'drake' (max_i |e_i| ≤ accuracy, in m and m/s). The spring at 3e-3 to
 * 0.02 s (a fifth of a period: 0.052 m and 4.1 m/s moved; 27 attempts); the cloth at 1e-2 to
 * 0.08 s (34 attempts): tighter would cost ~√10× the attempts per decade of accuracy (first order),
 * and backward Euler's damping of the cloth's fast ripples, its largest error, falls only ∝ h.
 * Its error estimate also carries each Newton solve's truncation (GPU: backward-Euler criteria
 * 1e-4 relative; CPU: η ‖Δ‖∞ ≤ κ · accuracy, κ = 0.05), so a GPU/CPU step flip is likelier than
 * for the explicit schemes; none happens in these two runs (see the table).
 */
const IMPLICIT = {
  spring: { accuracy: 3e-3, tEnd: 0.02 },
  cloth8: { accuracy: 1e-2, tEnd: 0.08 },
} as const;

/**
 * Accuracy of each explicit scheme: the loosest of 1e-2, 3e-3, 1e-3, 3e-4, 1e-4 at which the run
 * stays within about half its stated error of the reference solution (adaptive-gpu-checks.ts,
 * allowedError), measured on the CPU in float64 against test/helpers/mass-spring-reference.ts, as
 * a fraction of the run's largest displacement / velocity change, spring and cloth (the
 * second-order schemes' phase error on the spring needs them tight: rk2 and heun at 1e-2 were off
 * by 21 % of the velocity range, at 1e-3 by 3.5–5 %):
 *   rk45 3e-4: 0.01/0.25 %, 0.02/0.71 %         explicit-euler 1e-4: 1.13/2.57 %, 0.21/2.32 %
 *   rk2, heun 3e-4: 0.51/0.02 %, 0.02/0.41 %     rk4 1e-3: 0.05/0.02 %, 0.00/0.07 %
 *   symplectic-euler, central-difference 3e-4: 0.68/1.23 %, 0.25/0.34 %
 *   heun extrapolated 3e-3: 0.05/0.74 %, 0.04/0.85 %
 * GPU and CPU take the same steps unless an estimate lies within float32 noise of 1. The estimates
 * are differences of float32 states (step doubling: y₁ − y½; rk45: h Σ (b⁵ − b⁴)_j k_j), whose
 * rounding is ~1e-7 (1 + |y|) per component after a few roundings, i.e. ~1e-3 of the tolerance
 * accuracy · (1 + |y|) at 1e-4, so a flip is rare (none in these cases, see the table); at 1e-6
 * it would be ~0.1 and flips would be common. Steps per case stay ≤ ~430 (explicit Euler on the
 * cloth), each ~5–10 ms on SwiftShader.
 */
const ACCURACY = {
  rk45: 3e-4,
  'explicit-euler': 1e-4,
  rk2: 3e-4,
  heun: 3e-4,
  'heun-extrapolated': 3e-3,
  rk4: 1e-3,
  'symplectic-euler': 3e-4,
  'central-difference': 3e-4,
} as const;

/**
 * PCG iterations per solve of velocity-implicit-euler: 25, above what the scenes need (1 on the
 * spring's single 3×3 block, ~10 on the cloth), because the GPU encodes every allowed iteration
 * (skipped ones still cost a dispatch): the default 1000 makes a cloth step ~3× slower.
 */
const LINEAR_MAX_ITERATIONS = 25;

/** rk45, step doubling of each GPU scheme and velocity-implicit-euler, on both scenes. */
export const ADAPTIVE_CASES: readonly AdaptiveCase[] = ADAPTIVE_SCENES.flatMap((scene) => [
  { scene, integrator: 'rk45' as const, accuracy: ACCURACY.rk45, tEnd: EXPLICIT_END[scene] },
  ...GPU_DOUBLED_SCHEMES.map((scheme) => ({
    scene,
    integrator: 'step-doubling' as const,
    scheme,
    accuracy: ACCURACY[scheme],
    tEnd: scheme === 'explicit-euler' ? EULER_END[scene] : EXPLICIT_END[scene],
  })),
  {
    scene,
    integrator: 'step-doubling' as const,
    scheme: 'heun' as const,
    extrapolate: true,
    accuracy: ACCURACY['heun-extrapolated'],
    tEnd: EXPLICIT_END[scene],
  },
  {
    scene,
    integrator: 'velocity-implicit-euler' as const,
    ...IMPLICIT[scene],
    linearMaxIterations: LINEAR_MAX_ITERATIONS,
  },
]);

/** What the checks read of {@link AdaptiveStats}, finite numbers only (they cross into a page). */
export interface StatsSummary {
  acceptedSteps: number;
  rejectedSteps: number;
  shrinksFromErrorControl: number;
  shrinksFromNewtonFailure: number;
  /** 1 when every accepted step met the accuracy. */
  accuracyMet: number;
  minStepViolations: number;
  maxErrorEstimate: number;
  largestStep: number;
  derivativeEvaluations: number;
  /** readStats().newton.iterations. */
  newtonIterations: number;
  /** readStats().newton.linearSolves. */
  linearSolves: number;
  /** readSolverStats().newtonIterations (the shape the CLI prints as `stats.solver`). */
  solverNewtonIterations: number;
}

function summary(s: AdaptiveStats, solverNewtonIterations: number): StatsSummary {
  return {
    acceptedSteps: s.acceptedSteps,
    rejectedSteps: s.rejectedSteps,
    shrinksFromErrorControl: s.shrinksFromErrorControl,
    shrinksFromNewtonFailure: s.shrinksFromNewtonFailure,
    accuracyMet: s.accuracyMet ? 1 : 0,
    minStepViolations: s.minStepViolations,
    maxErrorEstimate: s.maxErrorEstimate,
    largestStep: s.largestStep,
    derivativeEvaluations: s.derivativeEvaluations,
    newtonIterations: s.newton.iterations,
    linearSolves: s.newton.linearSolves,
    solverNewtonIterations,
  };
}

/** One run's end: the state (xyz interleaved, float64), the time reached, the statistics. */
export interface AdaptiveRun {
  positions: number[];
  velocities: number[];
  /** `sim.time` after advanceTo(tEnd). */
  time: number;
  /** `readState().time`. */
  stateTime: number;
  stats: StatsSummary;
  /** Wall time of advanceTo and readState, ms. */
  milliseconds: number;
}

export interface AdaptiveResult {
  gpu: AdaptiveRun;
  /** CPU, same options, precision 'f32': the reference of the comparison. */
  cpu: AdaptiveRun;
  /** CPU, same options, float64: how far float32 alone moves the CPU (the report's noise column). */
  cpu64: AdaptiveRun;
  /**
   * velocity-implicit-euler only: CPU f32 with each Newton solve converged tightly (κ = 1e-3, a
   * fresh Jacobian per solve), the GPU's own equations solved to rounding.
   */
  tightNewton?: AdaptiveRun;
}

/**
 * Newton options of {@link AdaptiveResult.tightNewton}. The CPU's default stops a Newton solve at
 * η ‖Δ‖∞ ≤ κ · accuracy, κ = 0.05 (errorControl 'drake'), and reuses Jacobians: its solutions are
 * off by up to a few thousandths of the step's tolerance (measured 2.2e-3 on the cloth, ~4× the
 * float32 noise; a few hundredths, ~100× the noise, with the RMS-scaled test of 'hairer').
 */
export const TIGHT_NEWTON = { newtonKappa: 1e-3, reuseJacobian: false } as const;

async function finish(sim: AdaptiveSimulation, tEnd: number): Promise<AdaptiveRun> {
  const started = performance.now();
  try {
    await sim.advanceTo(tEnd);
    const state = await sim.readState();
    return {
      positions: Array.from(state.positions),
      velocities: Array.from(state.velocities),
      time: sim.time,
      stateTime: state.time,
      stats: summary(sim.readStats(), (await sim.readSolverStats()).newtonIterations),
      milliseconds: performance.now() - started,
    };
  } finally {
    sim.destroy();
  }
}

/** Runs a case on `device` (borrowed), on the CPU with float32 storage and with float64. */
export async function runAdaptiveCase(device: GPUDevice, c: AdaptiveCase): Promise<AdaptiveResult> {
  const model = buildAdaptiveScene(c.scene);
  const options = adaptiveOptions(c);
  const gpu = await finish(
    await createAdaptiveSimulation(model, { ...options, backend: 'webgpu', device }),
    c.tEnd,
  );
  const cpu = await finish(await createAdaptiveSimulation(model, { ...options, precision: 'f32' }), c.tEnd);
  const cpu64 = await finish(await createAdaptiveSimulation(model, options), c.tEnd);
  const tightNewton =
    c.integrator === 'velocity-implicit-euler'
      ? await finish(
          await createAdaptiveSimulation(model, {
            ...options,
            precision: 'f32',
            ...TIGHT_NEWTON,
          }),
          c.tEnd,
        )
      : undefined;
  return { gpu, cpu, cpu64, ...(tightNewton ? { tightNewton } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Bad input on the GPU

/** One call that must throw a WeftInputError naming `field`; plain data. */
export interface BadInputCase {
  label: string;
  /** 'adaptive': createAdaptiveSimulation(spring, options + backend webgpu + the device); 'fixed': createSimulation. */
  call: 'adaptive' | 'fixed';
  options: Record<string, string | number | boolean>;
  field: string;
}

export const BAD_INPUT_CASES: readonly BadInputCase[] = [
  ...(['rk45', 'step-doubling', 'velocity-implicit-euler'] as const).map((integrator) => ({
    label: `${integrator} with precision 'f64'`,
    call: 'adaptive' as const,
    options: { integrator, precision: 'f64' },
    field: 'precision',
  })),
  {
    label: 'createSimulation(rk4) on webgpu with workgroupSize 0',
    call: 'fixed' as const,
    options: { integrator: 'rk4', dt: 0.01, workgroupSize: 0 },
    field: 'workgroupSize',
  },
  {
    label: 'createSimulation(heun-implicit) on webgpu with maxCorrectorIterations 0',
    call: 'fixed' as const,
    options: { integrator: 'heun-implicit', dt: 0.01, maxCorrectorIterations: 0 },
    field: 'maxCorrectorIterations',
  },
];

/** What a bad call threw (or `threw: 0` when it did not). */
export interface BadInputResult {
  threw: number;
  /** 1 when the error is a WeftInputError. */
  inputError: number;
  name: string;
  field: string;
  message: string;
}

/** Makes the call of `c` on `device` (borrowed) and reports what it threw. */
export async function runBadInput(device: GPUDevice, c: BadInputCase): Promise<BadInputResult> {
  const model = buildSpring3d();
  try {
    const made =
      c.call === 'adaptive'
        ? await createAdaptiveSimulation(model, {
            ...(c.options as unknown as AdaptiveOptions),
            backend: 'webgpu',
            device,
          })
        : await createSimulation(model, {
            ...(c.options as unknown as SimulationOptions),
            backend: 'webgpu',
            device,
          });
    made.destroy();
    return { threw: 0, inputError: 0, name: '', field: '', message: '' };
  } catch (error) {
    const e = error as Error;
    return {
      threw: 1,
      inputError: error instanceof WeftInputError ? 1 : 0,
      name: e.name,
      field: error instanceof WeftInputError ? error.field : '',
      message: e.message,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// A device's runner

export interface AdaptiveRunner {
  run(c: AdaptiveCase): Promise<WithErrors<AdaptiveResult>>;
  badInput(c: BadInputCase): Promise<WithErrors<BadInputResult>>;
}

/**
 * The runners on one device (borrowed: nothing here destroys it), each inside its own error
 * scopes; `uncaptured` is the device's uncaptured-error listener's list (watchUncapturedErrors).
 */
export function adaptiveRunner(device: GPUDevice, uncaptured: string[]): AdaptiveRunner {
  return {
    run: (c) => runScoped(device, uncaptured, () => runAdaptiveCase(device, c)),
    badInput: (c) => runScoped(device, uncaptured, () => runBadInput(device, c)),
  };
}
