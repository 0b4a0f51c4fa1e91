/**
 * Wind on WebGPU (Node, SwiftShader): a sheet facing a uniform wind gets the analytic drag
 * ½ ρ C_d A W² (float32), and a flag pinned along one edge in a turbulent wind matches the CPU
 * reference in float32 storage (symplectic Euler, implicit Euler with PCG); each stage sees the
 * wind of its own time (a free triangle in turbulence against test/helpers/wind-triangle.ts's
 * independent solution, fixed-step RK4 and rk45 on the per-op stepper).
 */
import { expect, test } from 'vitest';
import {
  buildCloth,
  createAdaptiveSimulation,
  createSimulation,
  withWind,
  type Model,
  type Simulation,
  type FixedStepSimulationOptions,
  type GpuSimulation,
} from '../src/index.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { shortOrLong } from './helpers/long-run.ts';
import { turbulentTriangle } from './helpers/wind-triangle.ts';

const node = useNodeDevice((device) => device);

test('a sheet facing a 6 m/s wind: Σ m Δv / h = ½ ρ C_d A W² on the GPU', async () => {
  const [nx, ny, spacing, mass, W, h] = [9, 7, 0.05, 0.004, 6, 1e-3];
  const cloth = buildCloth({ nx, ny, spacing, particleMass: mass, orientation: 'vertical', pins: 'none', gravity: [0, 0, 0] }); // prettier-ignore
  const model = withWind(cloth, { velocity: [0, 0, W], density: 1.2, drag: 1.1, lift: 0.6 });
  const sim = await createSimulation(model, { integrator: 'symplectic-euler', dt: h, backend: 'webgpu', device: node.runner() }); // prettier-ignore
  try {
    sim.step(1);
    const { velocities } = await sim.readState();
    const total = [0, 1, 2].map((d) =>
      velocities.reduce((s, v, k) => s + (k % 3 === d ? (mass * v) / h : 0), 0),
    );
    const expected = 0.5 * 1.2 * 1.1 * ((nx - 1) * spacing * (ny - 1) * spacing) * W * W;
    // float32: each triangle's force to ~1e-7 relative, the velocities stored as f32.
    expect(Math.abs(total[2]! / expected - 1)).toBeLessThan(1e-5);
    expect(Math.hypot(total[0]!, total[1]!)).toBeLessThan(1e-5 * expected);
  } finally {
    sim.destroy();
  }
}, 60_000);

/** A 12 × 8 flag in the x–y plane pinned along its left edge, in a 5 m/s wind along x (and a little z). */
function flag(turbulent: boolean): Model {
  const nx = 12;
  const pins = Array.from({ length: 8 }, (_, j) => j * nx);
  const cloth = buildCloth({ nx, ny: 8, spacing: 0.05, particleMass: 0.002, structuralStiffness: 200, shearStiffness: 50, bendStiffness: 5, damping: 0.01, orientation: 'vertical', pins }); // prettier-ignore
  const turbulence = turbulent ? { turbulence: 1.5, turbulenceWavelength: 0.4, turbulencePeriod: 0.3 } : {};
  return withWind(cloth, { velocity: [5, 0, 1], ...turbulence });
}

type FlagState = Awaited<ReturnType<Simulation['readState']>>;

/**
 * The flag on WebGPU and on the CPU in float32 with `options`, stepped by `run`; their final
 * states, once the wind has blown the GPU's out of plane (z) by more than `outOfPlane` m.
 */
async function flagOnBoth(
  turbulent: boolean,
  options: Omit<FixedStepSimulationOptions, 'backend' | 'device' | 'precision'>,
  run: (gpu: GpuSimulation, cpu: Simulation) => Promise<void>,
  outOfPlane: number,
): Promise<[FlagState, FlagState]> {
  const model = flag(turbulent);
  const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device: node.runner() });
  const cpu = await createSimulation(model, { ...options, precision: 'f32' });
  try {
    await run(gpu, cpu);
    const [a, b] = [await gpu.readState(), await cpu.readState()];
    expect(Math.max(...a.positions.filter((_, k) => k % 3 === 2).map(Math.abs))).toBeGreaterThan(outOfPlane);
    return [a, b];
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}

/**
 * Measured over 0.5 s (max |Δx|, m): uniform wind 3.5e-7 (symplectic), 2.2e-7 (implicit) — as
 * without wind; turbulent 2.9e-6 and 7.5e-7 (with WGSL's own sin(), which need only be within 2⁻¹¹
 * on [−π, π], they were 3.2e-5 and 1.4e-5: aero-triangles.wgsl has a sine of its own). npm test
 * runs 0.2 s (0.5 s under npm run test:long): the flag is out of plane by 0.085–0.09 m then (CPU
 * f32), by 0.027–0.042 m at 0.1 s, and the differences only grow with time, so the bounds measured
 * over 0.5 s hold over 0.2 s.
 */
const SECONDS = shortOrLong(0.2, 0.5);

test.each([
  ['symplectic-euler', 1 / 1200, undefined, false, 1e-6],
  ['implicit-euler', 1 / 120, 'pcg', false, 1e-6],
  ['symplectic-euler', 1 / 1200, undefined, true, 1e-5],
  ['implicit-euler', 1 / 120, 'pcg', true, 1e-5],
  // Its wind at the predicted end state (a combination, then the aero pass at stage 1).
  ['newmark', 1 / 120, 'pcg', true, 1e-5],
  // 0.1 s (0.5 s under npm run test:long): each step is a Newton loop of PCG solves.
  ['backward-euler', 1 / 60, 'pcg', false, 1e-5, shortOrLong(0.1, 0.5)],
  ['adams-bashforth-2', 1 / 2400, undefined, false, 1e-5],
  // The corrector’s sweeps evaluate the wind too (0.1 s at h = 1/1200 s: its sweeps are slow on
  // SwiftShader).
  ['heun-implicit', 1 / 1200, undefined, false, 1e-5, 0.1],
] as const)(
  `%s (dt %s, solver %s, turbulent %s): a flag in a wind, GPU vs CPU f32 over ${SECONDS} s (or as given)`,
  async (integrator, dt, solver, turbulent, tolerance, duration?: number) => {
    const steps = Math.round((duration ?? SECONDS) / dt);
    const options = { integrator, dt, ...(solver ? { solver } : {}) } as const;
    // Implicit Euler through advance(): as step() (bit-identical: test/gpu-cg-dispatches.test.ts),
    // skipping what is left of each converged solve, where step() encodes every iteration up to
    // the cap. Backward Euler's Newton loop through step(): advance() reads back more than it
    // skips there (measured: 6 steps 39 s through advance(), 15 steps 25 s through step()).
    const [a, b] = await flagOnBoth(turbulent, options, async (gpu, cpu) => {
      if (integrator === 'backward-euler') gpu.step(steps);
      else await gpu.advance(steps);
      cpu.step(steps);
    }, 0.02); // prettier-ignore
    const diff = Math.max(...a.positions.map((x, k) => Math.abs(x - b.positions[k]!)));
    // The wind blew the free edge downstream (+x beyond the cloth's 0.55 m) and out of plane (z).
    const tip = 3 * (8 * 12 - 1);
    console.log(`${integrator}${turbulent ? ', turbulent' : ''}: flag GPU vs CPU f32 max |Δx| ${diff.toExponential(2)} m; top free corner at (${a.positions[tip]!.toFixed(3)}, ${a.positions[tip + 1]!.toFixed(3)}, ${a.positions[tip + 2]!.toFixed(3)})`); // prettier-ignore
    expectClose(a.positions, b.positions, tolerance, `${integrator}: flag positions GPU vs CPU f32 (m)`);
  },
  120_000,
);

test('a turbulent wind at each stage’s time on the GPU: a free triangle by RK4 and rk45 follows the independent solution', async () => {
  const { model, reference } = turbulentTriangle();
  const duration = 0.2;
  const exact = reference(duration, 1e-5);
  const errorOf = (positions: Float64Array) =>
    Math.hypot(...[0, 1, 2].map((d) => positions[d]! - exact.x[d]!));
  const device = node.runner();
  const rk4 = await createSimulation(model, {
    integrator: 'rk4',
    dt: duration / 40,
    backend: 'webgpu',
    device,
  });
  const rk45 = await createAdaptiveSimulation(model, {
    integrator: 'rk45',
    accuracy: 1e-6,
    backend: 'webgpu',
    device,
  });
  try {
    await rk4.advance(40);
    await rk45.advanceTo(duration);
    const [fixed, adaptive] = [errorOf((await rk4.readState()).positions), errorOf((await rk45.readState()).positions)]; // prettier-ignore
    console.log(`turbulent triangle (moved ${exact.x[2]!.toFixed(3)} m): RK4 h = T/40 GPU error ${fixed.toExponential(2)} m; rk45 (1e-6) ${adaptive.toExponential(2)} m`); // prettier-ignore
    // CPU f64: RK4 4.4e-8 m, rk45 1.5e-7 m; float32 storage adds ~1e-7 m (0.23 m × 2⁻²⁴ per step).
    // A wind frozen over each step missed by 2.3e-3 m (RK4) and 1.2e-2 m (rk45).
    expect(fixed).toBeLessThan(2e-6);
    expect(adaptive).toBeLessThan(5e-6);
    // Velocity-implicit Euler's wind times: test/vie-wind-stage-times.test.ts (CPU) and
    // test/gpu-program-implicit.test.ts (its program on the GPU = the CPU's executor).
  } finally {
    rk4.destroy();
    rk45.destroy();
  }
}, 60_000);

test('a turbulent wind 2²² steps in (9.7 h at 1/120 s): 12 more steps of the flag on the GPU = CPU f32, the clock folded into the phases in float64', async () => {
  // Both step counts set to 2²² steps taken (internal fields: no public API starts a fixed-step run
  // late). The GPU folds the time so far into the waves' phases in float64 at each step() or
  // advance() (GpuAero.fold) and counts only the steps since in float32, as the CPU's float64
  // clock reads the same t. Measured: 6.0e-8 m, as from t = 0; the code before (its float32 clock
  // written to 2²² steps: this test's count never reached it) 2.9e-4 m; no fold at all 2.6e-2 m.
  const steps = 2 ** 22;
  const options = { integrator: 'implicit-euler', dt: 1 / 120, solver: 'pcg' } as const;
  const [a, b] = await flagOnBoth(true, options, async (gpu, cpu) => {
    (gpu as unknown as { steps: number }).steps = steps;
    (cpu as unknown as { executor: { aero: { steps: number } } }).executor.aero.steps = steps;
    await gpu.advance(12);
    cpu.step(12);
  }, 0.005); // prettier-ignore
  // float32 storage over 12 steps, as the flag's runs from t = 0 above (7.5e-7 m over 0.5 s).
  expectClose(a.positions, b.positions, 1e-6, 'flag positions at t ≈ 35,000 s, GPU vs CPU f32 (m)');
}, 60_000);

test('encode(): two batches in one submission keep the wind on the CPU f32 clock (no fold there)', async () => {
  // step() and advance() fold with queue writes, which precede every later submission; encode()
  // does not, since a caller may encode several calls before submitting (a fold there ran every
  // batch at the last one's time: 2.7e-3 m here).
  const options = { integrator: 'symplectic-euler', dt: 1 / 1200 } as const;
  const [a, b] = await flagOnBoth(true, options, async (gpu, cpu) => {
    gpu.step(6); // a fold first: the batches start at 6 h
    const encoder = node.runner().createCommandEncoder();
    gpu.encode(encoder, 30);
    gpu.encode(encoder, 30);
    node.runner().queue.submit([encoder.finish()]);
    cpu.step(66);
  }, 1e-4); // prettier-ignore
  expectClose(
    a.positions,
    b.positions,
    1e-6,
    'flag after step(6) and two encoded batches, GPU vs CPU f32 (m)',
  );
}, 60_000);
