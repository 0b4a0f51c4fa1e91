/**
 * The fused adaptive path on WebGPU (src/backends/webgpu/fused-stepper.ts, shaders/fused-adaptive.wgsl:
 * the step-size controller on the GPU, many attempts per dispatch, one readback per submission)
 * against the per-op WebGPU path (one readback per attempt, the controller on the CPU in float64)
 * and the CPU in float64, in Node (Dawn; SwiftShader here). The browser runs the fused path through
 * test/gpu-adaptive-browser.test.ts (fused is the default for these small models).
 */
import { describe, expect, test } from 'vitest';
import {
  createAdaptiveSimulation,
  WeftInputError,
  WeftStepSizeError,
  type AdaptiveOptions,
  type Model,
} from '../src/index.ts';
import {
  AdaptiveSimulation,
  adaptiveProgram,
  compileFused,
  FusedAdaptiveStepper,
  FusedUnsupported,
  polynomialOf,
  resolveAdaptiveOptions,
  type FusedForm,
} from '../src/internal.ts';
import { buildCloth8, buildSpring3d } from './helpers/adaptive-gpu-cases.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { shortOrLong } from './helpers/long-run.ts';

const node = useNodeDevice((device) => device);

interface Run {
  positions: Float64Array;
  velocities: Float64Array;
  time: number;
  accepted: number;
  rejected: number;
  description: string;
  submissions: number;
  attempts: number;
}

type Where = { backend: 'cpu' } | { backend: 'webgpu'; fused: boolean };

async function run(model: Model, options: AdaptiveOptions, where: Where, tEnd: number): Promise<Run> {
  const gpu = where.backend === 'webgpu' ? { device: node.runner(), fused: where.fused } : {};
  const simulation = await createAdaptiveSimulation(model, { ...options, backend: where.backend, ...gpu });
  try {
    await simulation.advanceTo(tEnd);
    const state = await simulation.readState();
    const stats = simulation.readStats();
    const fused = (simulation as unknown as { fused: FusedAdaptiveStepper | null }).fused;
    return {
      positions: state.positions,
      velocities: state.velocities,
      time: simulation.time,
      accepted: stats.acceptedSteps,
      rejected: stats.rejectedSteps,
      description: simulation.description,
      submissions: fused?.submissions ?? 0,
      attempts: fused?.stats.attempts ?? 0,
    };
  } finally {
    simulation.destroy();
  }
}

/** max_k |a_k − b_k|. */
const maxDifference = (a: Float64Array, b: Float64Array): number =>
  a.reduce((m, value, k) => Math.max(m, Math.abs(value - b[k]!)), 0);

/** max_k |a_k|. */
const maxAbs = (a: Float64Array): number => a.reduce((m, value) => Math.max(m, Math.abs(value)), 0);

/** The controller of the generated-vs-interpreted rk45 case (see there). */
const RK45_CONTROL = shortOrLong<'drake' | 'hairer'>('drake', 'hairer');

const CASES: { name: string; model: () => Model; options: AdaptiveOptions; tEnd: number }[] = [
  {
    name: 'rk45, 3-D spring',
    model: buildSpring3d,
    options: { integrator: 'rk45', accuracy: 1e-4 },
    tEnd: 0.15,
  },
  { name: 'step doubling of rk2, 8 × 8 cloth', model: () => buildCloth8(), options: { integrator: 'step-doubling', scheme: 'rk2', accuracy: 1e-3 }, tEnd: 0.06 }, // prettier-ignore
  // To 10 ms (npm run test:long: 50 ms): ~20 attempts, rejections among them, ~120 Newton
  // iterations, each a readback on the per-op path (~0.3 s an attempt on SwiftShader).
  { name: 'velocity-implicit-euler (Drake), 3-D spring', model: buildSpring3d, options: { integrator: 'velocity-implicit-euler', accuracy: 1e-3, maxStep: 0.01 }, tEnd: shortOrLong(0.01, 0.05) }, // prettier-ignore
];

describe('fused adaptive integration on WebGPU (the controller on the GPU)', () => {
  for (const c of CASES)
    test(`${c.name}: the fused run takes the per-op run's steps and lands on its state`, async () => {
      const model = c.model();
      const fused = await run(model, c.options, { backend: 'webgpu', fused: true }, c.tEnd);
      const perOp = await run(model, c.options, { backend: 'webgpu', fused: false }, c.tEnd);
      const cpu = await run(model, c.options, { backend: 'cpu' }, c.tEnd);
      expect(fused.description).toContain('fused');
      expect(perOp.description).not.toContain('fused');
      // Lands on the target exactly, as the CPU.
      expect(fused.time).toBe(c.tEnd);
      // Both GPU runs: float32 states, the controller in float32 (fused) or float64 (per-op); the
      // same accept/reject sequence unless an error lands within f32 round-off of a threshold.
      expect(Math.abs(fused.accepted - perOp.accepted)).toBeLessThanOrEqual(1);
      expect(Math.abs(fused.rejected - perOp.rejected)).toBeLessThanOrEqual(1);
      expect(Math.abs(fused.accepted - cpu.accepted)).toBeLessThanOrEqual(2);
      // The state moved, and the fused state is the CPU's within 1 % of that motion (the runs'
      // error budgets are ≥ 1e-4 relative; f32 round-off over ~100 steps is ~1e-5).
      const moved = maxDifference(cpu.positions, model.particlePositions);
      expect(moved).toBeGreaterThan(0.01);
      expect(fused.accepted).toBeGreaterThan(8); // several submissions' worth of attempts
      expect(maxDifference(fused.positions, cpu.positions)).toBeLessThan(0.01 * moved);
      expect(maxDifference(fused.positions, perOp.positions)).toBeLessThan(0.01 * moved);
      // One readback per submission of up to 8 dispatches of many attempts (per-op: one per attempt).
      expect(fused.attempts).toBe(fused.accepted + fused.rejected);
      expect(fused.submissions).toBeLessThanOrEqual(Math.ceil(fused.attempts / 8) + 1);
      expect(fused.submissions).toBeLessThan(fused.attempts);
    }, 300_000);

  // The generated form (the program's ops called in sequence, fused-blocks.ts) against the
  // interpreter (fused-interpreter.wgsl), which runs the same op functions on the same arena: the
  // same arithmetic in the same order, so the same steps, error estimates, Newton and CG iterations
  // and state. The state is compared to 1e-6 of the motion, not bitwise: a shader compiler may
  // contract a·b + c into one FMA in one kernel and not in the other (SwiftShader gives the same
  // bits). An 8 × 8 cloth with 4 threads on SwiftShader: several particles per thread, the loops
  // run more than once; velocity-implicit Euler: Newton loops, CG, Drake's controller; rk45 (eval,
  // whose pass the stage combines share). Under npm test rk45 runs under Drake's controller too:
  // the interpreter is one pipeline per controller (the override drakeControl), ~1/4 of this
  // file's time to compile on SwiftShader, and both cases then share it; the program, and so the
  // ops compared, do not depend on the controller, and Hairer's controller on the GPU is held to
  // the per-op run and the CPU by 'rk45, 3-D spring' above. npm run test:long runs rk45 under
  // Hairer's controller here, as before.
  test.each([
    // To 10 ms (npm run test:long: 20 ms): 23 steps, 4 rejected, 164 Newton iterations.
    ['velocity-implicit-euler, 8 × 8 cloth', () => buildCloth8(), { integrator: 'velocity-implicit-euler', accuracy: 1e-3 }, shortOrLong(0.01, 0.02)] as const, // prettier-ignore
    [`rk45 (${RK45_CONTROL}), 3-D spring`, buildSpring3d, { integrator: 'rk45', accuracy: 1e-4, errorControl: RK45_CONTROL }, 0.1] as const, // prettier-ignore
  ])(
    '%s: the generated form takes the interpreter’s steps and lands on its state',
    async (_, build, options, tEnd) => {
      const model = build();
      const adaptive = { ...(options as AdaptiveOptions), precision: 'f32' as const };
      const o = resolveAdaptiveOptions(adaptive);
      const device = node.runner();
      const runForm = async (form: FusedForm) => {
        const stepper = new FusedAdaptiveStepper(device, model, adaptiveProgram(o, model), o, form);
        const simulation = new AdaptiveSimulation(model, adaptive, { stepper, description: form, device, release: () => stepper.destroy() }); // prettier-ignore
        try {
          await simulation.advanceTo(tEnd);
          return { state: await simulation.readState(), stats: simulation.readStats() };
        } finally {
          simulation.destroy();
        }
      };
      const generated = await runForm('generated');
      const interpreted = await runForm('interpreted');
      const { acceptedSteps, rejectedSteps, newton, derivativeEvaluations, lastErrorEstimate } = interpreted.stats; // prettier-ignore
      expect(generated.stats.acceptedSteps).toBe(acceptedSteps);
      expect(generated.stats.rejectedSteps).toBe(rejectedSteps);
      expect(generated.stats.derivativeEvaluations).toBe(derivativeEvaluations);
      expect(generated.stats.newton.iterations).toBe(newton.iterations);
      expect(generated.stats.newton.linearIterations).toBe(newton.linearIterations);
      expect(generated.stats.newton.failedSolves).toBe(newton.failedSolves);
      expect(generated.stats.lastErrorEstimate).toBeCloseTo(lastErrorEstimate, 5);
      if (options.integrator === 'velocity-implicit-euler') {
        expect(newton.iterations).toBeGreaterThan(acceptedSteps);
        expect(rejectedSteps).toBeGreaterThan(0); // the controller rejected and retried
      }
      const moved = maxDifference(interpreted.state.positions, model.particlePositions);
      expect(moved).toBeGreaterThan(1e-3);
      expect(maxDifference(generated.state.positions, interpreted.state.positions)).toBeLessThanOrEqual(
        1e-6 * moved,
      );
      expect(maxDifference(generated.state.velocities, interpreted.state.velocities)).toBeLessThanOrEqual(1e-6 * maxAbs(interpreted.state.velocities)); // prettier-ignore
    },
    300_000,
  );

  test('advance(n) takes exactly n accepted steps; a failure at the minimum step is the CPU’s error', async () => {
    const model = buildSpring3d();
    const simulation = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-4, backend: 'webgpu', device: node.runner(), fused: true }); // prettier-ignore
    await simulation.advance(17);
    expect(simulation.stepCount).toBe(17);
    expect(simulation.time).toBeGreaterThan(0);
    simulation.destroy();
    // An accuracy no step ≥ minStep can meet, with onMinStep 'throw': both throw 'accuracy' at t = 0.
    const strict: AdaptiveOptions = { integrator: 'rk45', accuracy: 1e-12, minStep: 1e-2, initialStep: 1e-2, onMinStep: 'throw' }; // prettier-ignore
    const failure = async (where: Where): Promise<WeftStepSizeError> => {
      const gpu = where.backend === 'webgpu' ? { device: node.runner(), fused: where.fused } : {};
      const s = await createAdaptiveSimulation(model, { ...strict, backend: where.backend, ...gpu });
      try {
        await s.advanceTo(0.1);
      } catch (error) {
        // The state stays at the last accepted step, readable.
        expect(maxDifference((await s.readState()).positions, model.particlePositions)).toBeLessThan(1e-7);
        return error as WeftStepSizeError;
      } finally {
        s.destroy();
      }
      throw new Error('no step-size error');
    };
    const [gpu, cpu] = [await failure({ backend: 'webgpu', fused: true }), await failure({ backend: 'cpu' })];
    expect(gpu).toBeInstanceOf(WeftStepSizeError);
    expect(gpu.reason).toBe(cpu.reason);
    expect(gpu.time).toBe(cpu.time);
    expect(gpu.stepSize).toBeCloseTo(cpu.stepSize, 8);
  }, 120_000);

  test('`fused` must be a boolean, for WebGPU; the compiler refuses ops it has no form of', async () => {
    const model = buildSpring3d();
    const device = node.runner();
    await expect(createAdaptiveSimulation(model, { integrator: 'velocity-implicit-euler', backend: 'webgpu', device, fused: 'yes' as unknown as boolean })).rejects.toThrow(WeftInputError); // prettier-ignore
    await expect(createAdaptiveSimulation(model, { integrator: 'rk45', backend: 'cpu', fused: true })).rejects.toThrow(/fused/); // prettier-ignore
    // Every adaptive program of the catalogue has a fused form; the compiler refuses the ops it lacks.
    expect(() => compileFused({ rings: {}, setup: [], startup: [], startupSteps: 0, step: [], adaptive: { estimateOrder: 2, first: [], attempt: [{ op: 'correct' }], accept: [] } })).toThrow(/the op 'correct' has no fused form/); // prettier-ignore
  }, 60_000);
});

describe('fused-program.ts: coefficients as polynomials in h', () => {
  test('fits c₀ + c₁h + c₂h² + c₃h³ exactly and refuses what is not a polynomial', () => {
    expect(polynomialOf((h) => 1 + 0.1 * h, 'mass')).toEqual(
      [1, 0.1, 0, 0].map((c) => expect.closeTo(c, 14)),
    );
    const [c0, c1, c2, c3] = polynomialOf((h) => h * (h + 0.02) - 0.5 * h * h * h, 'stiffness');
    expect([c0, c1, c2, c3].map((c) => Number(c.toFixed(12)))).toEqual([0, 0.02, 1, -0.5]);
    expect(() => polynomialOf((h) => 2 / h, 'extraScale')).toThrow(FusedUnsupported);
    expect(() => polynomialOf((h) => h ** 4, 'quartic')).toThrow(FusedUnsupported);
    expect(() => polynomialOf(Math.sqrt, 'root')).toThrow(/not a polynomial/);
  });
});
