/**
 * Drake's spring–mass tests of its implicit integrators, as Weft runs them on either backend:
 * drake/systems/analysis/test_utilities/implicit_integrator_test.h (ImplicitIntegratorTest),
 * instantiated for VelocityImplicitEulerIntegrator in
 * systems/analysis/test/velocity_implicit_euler_integrator_test.cc, with the closed forms of
 * test_utilities/spring_mass_system.h and spring_mass_damper_system.h, computed here in float64.
 * No vitest and no Node APIs here: the CPU and GPU test files both use it.
 *
 * Drake's SpringMassSystem has a third state, the conservative work z (ż = −k x v), which its
 * error norm (CalcStateChangeNorm) includes with weight 1; Weft's particles have positions and
 * velocities only, so Weft's norm is Drake's over q and v, and its steps are not Drake's.
 *
 * The mass: a particle on a spring of rest length 1 m to a fixed particle at (−1, 0, 0), moving on
 * the x axis, where the spring force is −k x (linear): x is the particle's x coordinate itself, so
 * float32 stores x, not 1 + x.
 */
import {
  createAdaptiveSimulation,
  type AdaptiveOptions,
  type AdaptiveStats,
  type Model,
} from '../../src/index.ts';
import { springMass } from './adaptive-problems.ts';

/** implicit_integrator_test.h: mass_ 2 kg; large_h_ 0.1 s, small_h_ 1e-6 s. */
export const DRAKE_MASS = 2;
export const DRAKE_LARGE_H = 0.1;
export const DRAKE_SMALL_H = 1e-6;

/** The 1-D spring(–damper)–mass: k N/m, b N·s/m, m = 2 kg, from x0 m, v0 m/s. */
export function drakeSpringModel(k: number, x0: number, v0: number, b = 0): Model {
  return springMass({
    anchor: [-1, 0, 0],
    position: [x0, 0, 0],
    velocity: [v0, 0, 0],
    m: DRAKE_MASS,
    k,
    b,
    L: 1,
  });
}

/** spring_mass_system.h GetClosedFormSolution: x = c₁ cos ωt + c₂ sin ωt, ω = √(k/m), c₁ = x₀, c₂ = v₀/ω. */
export function springMassSolution(k: number, x0: number, v0: number, t: number): { x: number; v: number } {
  const omega = Math.sqrt(k / DRAKE_MASS);
  const c2 = v0 / omega;
  return {
    x: x0 * Math.cos(omega * t) + c2 * Math.sin(omega * t),
    v: -x0 * omega * Math.sin(omega * t) + c2 * omega * Math.cos(omega * t),
  };
}

/**
 * spring_mass_damper_system.h GetClosedFormSolution (not underdamped): x = c₁ e^{rt} + c₂ e^{st},
 * r, s the roots of m z² + b z + k = 0 (SolveRestrictedQuadratic: r = (−b − √(b² − 4mk))/(2m),
 * s = k/(m r), free of cancellation), c₁ = −(v₀ + s x₀)/(r − s), c₂ = −(v₀ − r x₀)/(r − s).
 */
export function springMassDamperSolution(
  k: number,
  b: number,
  x0: number,
  v0: number,
  t: number,
): { x: number; v: number } {
  const m = DRAKE_MASS;
  const r = (-b - Math.sqrt(b * b - 4 * m * k)) / (2 * m);
  const s = k / (m * r);
  const c1 = -(v0 + s * x0) / (r - s);
  const c2 = -(v0 - r * x0) / (r - s);
  return {
    x: c1 * Math.exp(r * t) + c2 * Math.exp(s * t),
    v: r * c1 * Math.exp(r * t) + s * c2 * Math.exp(s * t),
  };
}

/**
 * SpringMassDamperStiffTest: stiff_spring_k_ = 1e10 N/m, stiff_damping_b_ = 1e8 N·s/m (damping
 * ratio 353), x₀ = 1 m, v₀ = 0.1 m/s; maximum step large_h_, minimum 10 small_h_ = 1e-5 s, no
 * throw, accuracy xtol = 1e-6, to t = 2 s. Drake asserts |t − 2| ≤ 100 ε, |x − x_true| ≤ xtol,
 * |v − v_true| ≤ vtol = 100 xtol, and that error control shrank a step below large_h_.
 */
export const SPRING_MASS_DAMPER_STIFF = {
  k: 1e10,
  b: 1e8,
  x0: 1,
  v0: 0.1,
  tEnd: 2,
  xtol: 1e-6,
  vtol: 1e-4,
  options: {
    integrator: 'velocity-implicit-euler',
    maxStep: DRAKE_LARGE_H,
    minStep: 10 * DRAKE_SMALL_H,
    onMinStep: 'accept',
    accuracy: 1e-6,
  },
} as const satisfies { options: AdaptiveOptions; [key: string]: unknown };

/**
 * The options of SpringMassStepTest: error control from an initial step of large_h_ = 0.1 s (also
 * the maximum), accuracy 5e-5, minimum step 1e-6 s, Drake's default of throwing at a minimum-step
 * violation; k = 300 N/m, x₀ = 0.1 m, v₀ = 0.01 m/s, to t = 1 s. Drake asserts
 * |x(1) − x_true(1)| ≤ 5e-3 m ("the same tolerance as the explicit Euler integrator").
 */
export const SPRING_MASS_STEP = {
  k: 300,
  x0: 0.1,
  v0: 0.01,
  tEnd: 1,
  positionBound: 5e-3,
  options: {
    integrator: 'velocity-implicit-euler',
    maxStep: DRAKE_LARGE_H,
    initialStep: DRAKE_LARGE_H,
    accuracy: 5e-5,
    minStep: 1e-6,
    onMinStep: 'throw',
  },
} as const satisfies { options: AdaptiveOptions; [key: string]: unknown };

/**
 * SpringMassStepAccuracyEffectsTest: maximum step large_h_, minimum small_h_, no throw, one
 * IntegrateWithMultipleStepsToTime(large_h_) at accuracy 1e-4, then at a looser accuracy (Drake
 * sets 100, which VelocityImplicitEulerIntegrator::DoInitialize clamps to kLoosestAccuracy = 0.5;
 * Weft's accuracy must be < 1, and takes 0.5 too); the looser run's |x − x_true| must be larger.
 */
export const ACCURACY_EFFECTS = {
  k: 300,
  x0: 0.1,
  v0: 0.01,
  tEnd: DRAKE_LARGE_H,
  accuracies: [1e-4, 0.5],
  options: {
    integrator: 'velocity-implicit-euler',
    maxStep: DRAKE_LARGE_H,
    minStep: DRAKE_SMALL_H,
    onMinStep: 'accept',
  },
} as const satisfies { options: AdaptiveOptions; [key: string]: unknown };

/**
 * ErrorEstimationTest: one fixed step h from each initial condition (k = 300 N/m); Drake asserts
 * |x − x_true| ≤ atol and ||x − x_true| − |ε*_x|| ≤ atol, atol = 1e-14, 1e-6, 1e-4, 1e-2 for
 * h = 1e-8, 1e-4, 1e-3, 1e-2 s ("a quadratic reduction in error").
 */
export const ERROR_ESTIMATION = {
  k: 300,
  initialConditions: [
    [0.1, 0.01],
    [1, 1],
    [0, -10],
  ],
  steps: [
    { h: 1e-8, atol: 1e-14 },
    { h: 1e-4, atol: 1e-6 },
    { h: 1e-3, atol: 1e-4 },
    { h: 1e-2, atol: 1e-2 },
  ],
} as const;

/** Where a run goes: CPU float64 (default), CPU float32 storage, or WebGPU on a device. */
export type DrakeBackend =
  { backend?: 'cpu'; precision?: 'f64' | 'f32' } | { backend: 'webgpu'; device: GPUDevice };

/** The end of a run: x (m) and v (m/s) of the mass, the time reached, the statistics. */
export interface DrakeRun {
  x: number;
  v: number;
  time: number;
  stats: AdaptiveStats;
}

/** advanceTo(tEnd) from the model's state with `options` on `backend`. */
export async function runDrake(
  model: Model,
  options: AdaptiveOptions,
  tEnd: number,
  backend: DrakeBackend = {},
): Promise<DrakeRun> {
  const simulation = await createAdaptiveSimulation(model, { ...options, ...backend });
  try {
    await simulation.advanceTo(tEnd);
    const state = await simulation.readState();
    return {
      x: state.positions[3]!,
      v: state.velocities[3]!,
      time: simulation.time,
      stats: simulation.readStats(),
    };
  } finally {
    simulation.destroy();
  }
}

/**
 * One fixed step h of ErrorEstimationTest (minStep = maxStep = initialStep = h: the controller
 * accepts its first attempt), returning |x − x_true| and |ε*_x|. The norm is read with
 * velocityWeight 0 and accuracy 0.1 (Drake's kDefaultAccuracy, the test sets none), so
 * lastErrorEstimate · 0.1 = max_i |ε*_i| over the position components = |ε*_x|.
 */
export async function errorEstimationStep(
  x0: number,
  v0: number,
  h: number,
  backend: DrakeBackend = {},
  extra: Partial<AdaptiveOptions> = {},
): Promise<{ error: number; estimate: number; steps: number }> {
  const { k } = ERROR_ESTIMATION;
  const accuracy = 0.1;
  const options: AdaptiveOptions = {
    integrator: 'velocity-implicit-euler',
    accuracy,
    velocityWeight: 0,
    minStep: h,
    maxStep: h,
    initialStep: h,
    ...extra,
  };
  const run = await runDrake(drakeSpringModel(k, x0, v0), options, h, backend);
  return {
    error: Math.abs(run.x - springMassSolution(k, x0, v0, h).x),
    estimate: run.stats.lastErrorEstimate * accuracy,
    steps: run.stats.acceptedSteps + run.stats.rejectedSteps,
  };
}
