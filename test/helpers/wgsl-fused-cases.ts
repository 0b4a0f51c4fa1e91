/**
 * The fused adaptive kernel (shaders/fused-*.wgsl) against a CPU path of the same algorithm, for
 * the quick cases (test/helpers/wgsl-quick-cases.ts) and so for the WGSL mutator.
 *
 * velocity-implicit-euler's CPU path is Drake's algorithm (Jacobian reuse, its own Newton test),
 * the GPU's a program (step doubling of backward Euler, Caribou's criteria): compared with each
 * other, they agree on the state only to ~1e-3 of the motion and not at all on steps or
 * iterations. Here the CPU runs the GPU's program instead — the same ops on CpuExecutor
 * (src/backends/cpu/program-stepper.ts: float32 storage, float64 arithmetic, solveLinear's PCG)
 * under the CPU's controllers (adaptive-simulation.ts stepTowards, drake-controller.ts) — so the
 * fused kernel's interpreter, its implicit ops, its CG and both of its controllers must give the
 * CPU's steps, error estimates, Newton and CG iterations, and state.
 *
 * {@link programOf} also builds programs the public options cannot ask for (plain CG, a warm
 * start: velocity-implicit-euler always solves with pcg from 0), which the fused kernel still
 * compiles: its `preconditioner == 0` and `warmStart` paths.
 *
 * No vitest here (the mutator imports this file inside its own vitest process).
 */
import type { AdaptiveOptions, Model } from '../../src/index.ts';
import {
  AdaptiveSimulation,
  compileFused,
  readBuffer,
  resolveAdaptiveOptions,
  resolveImplicitOptions,
  CpuProgramStepper,
  FusedAdaptiveStepper,
  arenaStride,
  adaptiveProgram,
  velocityImplicitProgram,
  type Program,
} from '../../src/internal.ts';

/**
 * velocity-implicit-euler's program as adaptiveProgram builds it (src/integrators/
 * adaptive-programs.ts), with `implicit` changing its backward-Euler solve's options (solver,
 * warmStart, …); without `implicit`, adaptiveProgram's own.
 */
export function programOf(options: Record<string, unknown>, implicit?: Record<string, unknown>): Program {
  const o = resolveAdaptiveOptions({ ...(options as unknown as AdaptiveOptions), precision: 'f32' });
  if (!implicit) return adaptiveProgram(o, {}); // the cases' models: no colliders, strain limit, wind or self-collision
  // adaptiveProgram's velocity-implicit-euler branch, written out, then `implicit` over it.
  const solve = resolveImplicitOptions('backward-euler', {
    solver: 'pcg',
    preconditioner: o.preconditioner,
    tolerance: Math.min(0.5, o.linearTolerance),
    maxIterations: o.linearMaxIterations,
    newtonIterations: o.maxNewtonIterations,
    jacobian: o.jacobian,
    ...implicit,
  } as never);
  return velocityImplicitProgram(o.rayleighMass, o.tolerances, solve);
}

/** A stand-in for the device AdaptiveSimulation watches (the CPU path has none). */
const NO_DEVICE = { lost: new Promise(() => {}) } as unknown as GPUDevice;

/**
 * An adaptive simulation that runs `program`: on `device`, fused (the controller on the GPU);
 * without one, on the CPU executor in float32 storage under the CPU's controller. `options` are
 * the adaptive options of both (errorControl, accuracy, initialStep, …).
 */
export function programSimulation(
  model: Model,
  options: Record<string, unknown>,
  program: Program,
  device?: GPUDevice,
): AdaptiveSimulation {
  const adaptive = { ...(options as unknown as AdaptiveOptions), precision: 'f32' as const };
  const o = resolveAdaptiveOptions(adaptive);
  const initial = { positions: model.particlePositions, velocities: model.particleVelocities };
  const stepper = device
    ? new FusedAdaptiveStepper(device, model, program, o)
    : new CpuProgramStepper(model, initial, program, 'f32');
  const release = (): void => (stepper instanceof FusedAdaptiveStepper ? stepper.destroy() : undefined);
  return new AdaptiveSimulation(model, adaptive, {
    stepper: stepper as never,
    description: device ? 'fused program' : 'CPU program',
    device: device ?? NO_DEVICE,
    release,
  });
}

/** What one accepted attempt of the fused kernel left in its buffers. */
export interface FusedAttempt {
  /** `work` (fused-common.wgsl): per particle P⁻¹ as (xx, yy, zz) and (xy, xz, yz), then per spring (n, f) and (k g, k (1 − g), c, 0). */
  work: Float32Array;
  /** A program vector (its arena slot, or x and v), xyz per particle. */
  vector(name: string): Float64Array;
  /** The controller's statistics (FusedAdaptiveStepper.stats). */
  stats: FusedAdaptiveStepper['stats'];
}

/**
 * One accepted step of `program` in the fused kernel, of `h` exactly (Drake's controller with no
 * target time proposes it and, the error being 0 or small, keeps it), then its buffers read back
 * (a test-only reach into FusedAdaptiveStepper's buffers, by label).
 */
export async function fusedAttempt(
  device: GPUDevice,
  model: Model,
  program: Program,
  options: Record<string, unknown>,
  h: number,
): Promise<FusedAttempt> {
  const o = resolveAdaptiveOptions({ ...(options as unknown as AdaptiveOptions), precision: 'f32' });
  const stepper = new FusedAdaptiveStepper(device, model, program, o);
  try {
    await stepper.advance(null, 1, h);
    const buffers = (stepper as unknown as { buffers: GPUBuffer[] }).buffers;
    const read = async (label: string): Promise<Float32Array> => {
      const buffer = buffers.find((b) => b.label === `FusedAdaptiveStepper.${label}`);
      if (!buffer) throw new Error(`FusedAdaptiveStepper has no buffer '${label}'`);
      const bytes = await readBuffer(device, buffer);
      return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice();
    };
    const [work, arena, positions, velocities] = await Promise.all(['work', 'arena', 'positions', 'velocities'].map(read)); // prettier-ignore
    const n = model.particleCount;
    const stride = arenaStride(n);
    const slots = compileFused(program).slots;
    const xyz = (data: Float32Array, first: number): Float64Array =>
      Float64Array.from({ length: 3 * n }, (_, k) => data[4 * (first + Math.floor(k / 3)) + (k % 3)]!);
    return {
      work: work!,
      stats: stepper.stats,
      vector: (name) => {
        if (name === 'x') return xyz(positions!, 0);
        if (name === 'v') return xyz(velocities!, 0);
        const slot = slots.get(name);
        if (slot === undefined) throw new Error(`the program has no vector '${name}'`);
        return xyz(arena!, slot * stride);
      },
    };
  } finally {
    stepper.destroy();
  }
}
