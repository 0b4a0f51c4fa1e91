/**
 * Every WGSL kernel once, on tiny scenes, against the CPU path (float32 storage) — a GPU check
 * that takes seconds, not minutes, so that the WGSL mutator (scripts/mutate-wgsl.mjs) can run it
 * per mutant. test/gpu-kernels-quick.test.ts runs the same cases as ordinary tests.
 *
 * Scene: an 8 × 6 cloth (buildCloth: 0.1 m apart, 0.1 kg, k = 1000 N/m on every spring, two
 * corners pinned; 48 particles: the GPU's vector arena is padded to 16, so 48 leaves no padding,
 * while 32-thread workgroups run 64 threads — a kernel whose bounds check lets thread 48 through
 * writes into the next vector), every free particle given an initial velocity that is not along
 * any axis, so that every spring stretches, shears and turns in all three components at once.
 * Rayleigh damping r_m = 0.5 /s (and r_k = 2e-3 s on the implicit schemes), so the terms that
 * carry it are not multiplied by zero. The cases cover: every explicit scheme (program-forces,
 * -gather, -combine, -control, copy), every multistep scheme the GPU runs, every implicit
 * scheme with each linear solver (cg, pcg with block and scalar diagonals, jacobi, multigrid:
 * spring-jacobians, implicit-rhs, system-diagonal, system-product, cg-*, jacobi-update,
 * solver-scalars, program-dots, mg-*), and the three adaptive integrators (program-norm and the
 * error-controlled step's control kernel).
 *
 * A case passes when the GPU raised no error, and the GPU's final state is within
 * `GPU_TOLERANCE` of the CPU's, relative to how far the cloth moved (so a frozen state or a state
 * moved by another physics fails), and the cloth moved at least `MIN_MOTION`.
 *
 * No vitest here: the mutator imports this file inside one vitest process per batch of mutants.
 */
import {
  buildCloth,
  createAdaptiveSimulation,
  createSimulation,
  type Model,
  type SimulationState,
  type SolverStats,
} from '../../src/index.ts';
import { EXPLICIT_INTEGRATOR_NAMES, GPU_MULTISTEP, IMPLICIT_INTEGRATOR_NAMES } from '../../src/internal.ts';

/** One quick case; plain data. */
export interface QuickCase {
  label: string;
  /** 'fixed': createSimulation + step(steps); 'adaptive': createAdaptiveSimulation + advanceTo(tEnd). */
  kind: 'fixed' | 'adaptive';
  options: Record<string, string | number | boolean>;
  steps: number;
  tEnd: number;
}

/**
 * Largest |GPU − CPU f32| allowed, as a fraction of the largest displacement of the CPU run.
 * float32 round-off over ≤ 20 steps of this scene is ~1e-7 relative (measured below 2e-5 of the
 * displacement on every case, the iterative solvers' stopping included); 1e-3 leaves 50× for
 * another device's rounding while a wrong term of relative size 1e-3 of the motion fails.
 */
export const GPU_TOLERANCE = 1e-3;
/**
 * Linear-solver iterations of the GPU run may differ from the CPU's by this fraction (+ 1): the
 * float32 dot products are summed in another order, which moves the iteration where a solve
 * crosses its tolerance by one now and then.
 */
export const ITERATION_SLACK = 0.05; // Newton iterations too
/** Smallest displacement, m, a case must show (the initial speeds, ≥ 0.2 m/s on some particle, move it ≥ 2 mm in the shortest run). */
export const MIN_MOTION = 1e-3;

export function quickCloth(): Model {
  const model = buildCloth({ nx: 8, ny: 6, damping: 0.5 });
  // Turned by 0.7 rad about (1, 1, 1)/√3 (Rodrigues; lengths kept, so the rest lengths hold): no
  // spring lies in a coordinate plane, so every off-diagonal entry of every 3 × 3 block is non-zero.
  const [c, s] = [Math.cos(0.7), Math.sin(0.7)];
  const k = 1 / Math.sqrt(3);
  const x = model.particlePositions;
  for (let i = 0; i < x.length; i += 3) {
    const p = [x[i]!, x[i + 1]!, x[i + 2]!] as const;
    const dot = k * (p[0] + p[1] + p[2]);
    const cross = [k * (p[2] - p[1]), k * (p[0] - p[2]), k * (p[1] - p[0])] as const;
    for (let j = 0; j < 3; j++) x[i + j] = p[j]! * c + cross[j]! * s + k * dot * (1 - c);
  }
  const v = model.particleVelocities;
  for (let i = 0; i < v.length / 3; i++) {
    v[3 * i] = 0.3 * Math.sin(1.7 * i + 0.2);
    v[3 * i + 1] = 0.2 * Math.cos(0.9 * i);
    v[3 * i + 2] = 0.25 * Math.sin(0.6 * i + 1);
  }
  return model;
}

const EXPLICIT = EXPLICIT_INTEGRATOR_NAMES;
const MULTISTEP = GPU_MULTISTEP;
const IMPLICIT = IMPLICIT_INTEGRATOR_NAMES;
const SOLVERS = [
  { solver: 'cg' },
  { solver: 'pcg', preconditioner: 'block' },
  { solver: 'pcg', preconditioner: 'scalar' },
  { solver: 'jacobi', preconditioner: 'block' },
  { solver: 'multigrid' },
] as const;

const H = 1e-3;

export const QUICK_CASES: readonly QuickCase[] = [
  ...EXPLICIT.map((integrator) => ({
    label: `${integrator}`,
    kind: 'fixed' as const,
    options: { integrator, dt: H, rayleighMass: 0.5 },
    steps: 20,
    tEnd: 0,
  })),
  ...MULTISTEP.map((integrator) => ({
    label: `${integrator}`,
    kind: 'fixed' as const,
    options: { integrator, dt: H, rayleighMass: 0.5 },
    steps: 20,
    tEnd: 0,
  })),
  // Every linear solver on implicit Euler; the other schemes on pcg (their kernels differ in the
  // coefficients and the Newton loop, not in the solve), 3 steps, Newton capped at 3 iterations.
  ...IMPLICIT.flatMap((integrator) =>
    SOLVERS.filter(
      (s) => integrator === 'implicit-euler' || (s.solver === 'pcg' && s.preconditioner === 'block'),
    ).map((s) => ({
      label: `${integrator} ${Object.values(s).join(' ')}`,
      kind: 'fixed' as const,
      options: {
        integrator,
        dt: 4 * H,
        rayleighMass: 0.5,
        rayleighStiffness: 2e-3,
        tolerance: 1e-6,
        ...(integrator === 'backward-euler' || integrator === 'variational-symplectic-implicit'
          ? { newtonIterations: 3 }
          : {}),
        ...s,
      },
      steps: 3,
      tEnd: 0,
    })),
  ),
  // At h = 1/60 s, h²k/m ≈ 2.8: the off-diagonal entries of the 3 × 3 blocks are comparable to the
  // diagonal, so a wrong block inverse or a wrong coarse level changes CG's iteration count (at
  // h = 4 ms they are 6 % of it, and such mutants converge in the same count).
  ...(['pcg', 'multigrid'] as const).map((solver) => ({
    label: `implicit-euler ${solver} h = 1/60`,
    kind: 'fixed' as const,
    options: { integrator: 'implicit-euler', dt: 1 / 60, rayleighMass: 0.5, tolerance: 1e-6, solver },
    steps: 2,
    tEnd: 0,
  })),
  { label: 'rk45', kind: 'adaptive', options: { integrator: 'rk45', accuracy: 1e-4 }, steps: 0, tEnd: 0.01 },
  { label: 'step-doubling rk2', kind: 'adaptive', options: { integrator: 'step-doubling', scheme: 'rk2', accuracy: 1e-4 }, steps: 0, tEnd: 0.01 }, // prettier-ignore
  { label: 'velocity-implicit-euler', kind: 'adaptive', options: { integrator: 'velocity-implicit-euler', accuracy: 1e-3, initialStep: 2e-3 }, steps: 0, tEnd: 0.004 }, // prettier-ignore
];

interface Run {
  state: SimulationState;
  stats: SolverStats | null;
  /** Adaptive runs: accepted and rejected steps, and the last error estimate. */
  steps?: { accepted: number; rejected: number; lastError: number };
}

async function run(c: QuickCase, backend: Record<string, unknown>): Promise<Run> {
  const model = quickCloth();
  if (c.kind === 'fixed') {
    const sim = await createSimulation(model, { ...c.options, ...backend } as never);
    try {
      sim.step(c.steps);
      return { state: await sim.readState(), stats: await sim.readSolverStats() };
    } finally {
      sim.destroy();
    }
  }
  const sim = await createAdaptiveSimulation(model, { ...c.options, ...backend } as never);
  try {
    await sim.advanceTo(c.tEnd);
    const { acceptedSteps: accepted, rejectedSteps: rejected, lastErrorEstimate: lastError } = sim.readStats(); // prettier-ignore
    return { state: await sim.readState(), stats: await sim.readSolverStats(), steps: { accepted, rejected, lastError } }; // prettier-ignore
  } finally {
    sim.destroy();
  }
}

function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = a.length === b.length ? 0 : Infinity;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs((a[i] ?? NaN) - (b[i] ?? NaN));
    worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
  }
  return worst;
}

/**
 * Runs `c` on `device` (borrowed) and on the CPU (float32) inside error scopes; returns the
 * reasons it fails, empty when it passes.
 */
export async function checkQuickCase(device: GPUDevice, c: QuickCase): Promise<string[]> {
  const start = quickCloth().particlePositions;
  const { state: cpu, stats: cpuStats, steps: cpuSteps } = await run(c, { backend: 'cpu', precision: 'f32' }); // prettier-ignore
  const filters: GPUErrorFilter[] = ['validation', 'internal', 'out-of-memory'];
  for (const filter of filters) device.pushErrorScope(filter);
  const failures: string[] = [];
  let gpu: SimulationState | undefined;
  let gpuStats: SolverStats | null = null;
  let gpuSteps: Run['steps'];
  try {
    // 32 threads a workgroup on the fixed-step paths: two workgroups of particles, so that the
    // reductions combine more than one partial (adaptive runs take the default, 64).
    ({ state: gpu, stats: gpuStats, steps: gpuSteps } = await run(c, { backend: 'webgpu', device, ...(c.kind === 'fixed' ? { workgroupSize: 32 } : {}) })); // prettier-ignore
  } catch (error) {
    failures.push(`GPU run threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const filter of [...filters].reverse()) {
    const error = await device.popErrorScope();
    if (error) failures.push(`${filter}: ${error.message}`);
  }
  if (!gpu) return failures;
  const motion = maxDifference(cpu.positions, start);
  if (!(motion >= MIN_MOTION)) failures.push(`CPU run moved ${motion} m < ${MIN_MOTION} m`);
  const allowed = GPU_TOLERANCE * motion;
  const dx = maxDifference(gpu.positions, cpu.positions);
  // Velocities: the same fraction of the largest CPU speed.
  const speed = maxDifference(cpu.velocities, new Float64Array(cpu.velocities.length));
  const dv = maxDifference(gpu.velocities, cpu.velocities);
  if (!(dx <= allowed)) failures.push(`positions: |GPU − CPU| = ${dx} m > ${allowed} m`);
  if (!(dv <= GPU_TOLERANCE * speed))
    failures.push(`velocities: |GPU − CPU| = ${dv} m/s > ${GPU_TOLERANCE * speed} m/s`);
  if (gpu.time !== cpu.time) failures.push(`time: GPU ${gpu.time} s, CPU ${cpu.time} s`);
  // The solves must take the same work: a wrong preconditioner or smoother still converges to
  // the same state, in more (or fewer) iterations. Allowed: ITERATION_SLACK of the CPU's count,
  // for float32 reductions summed in another order.
  // Fixed-step schemes only: velocity-implicit-euler's CPU path is Drake's own algorithm (Jacobian
  // reuse), its GPU path a program, so their counts differ by design (measured 195 vs 178).
  if (cpuStats && gpuStats && c.kind === 'fixed') {
    const d = Math.abs(gpuStats.linearIterations - cpuStats.linearIterations);
    if (d > ITERATION_SLACK * cpuStats.linearIterations + 1)
      failures.push(`linear iterations: GPU ${gpuStats.linearIterations}, CPU ${cpuStats.linearIterations}`);
    const dn = Math.abs(gpuStats.newtonIterations - cpuStats.newtonIterations);
    if (dn > ITERATION_SLACK * cpuStats.newtonIterations + 1)
      failures.push(`Newton iterations: GPU ${gpuStats.newtonIterations}, CPU ${cpuStats.newtonIterations}`);
  }
  // Adaptive runs: the error norm decides every step, so the GPU must take the CPU's steps and
  // estimate the same last error (float32: ITERATION_SLACK relative). Not velocity-implicit-euler,
  // whose CPU path is another algorithm (see above).
  if (cpuSteps && gpuSteps && c.options['integrator'] !== 'velocity-implicit-euler') {
    if (gpuSteps.accepted !== cpuSteps.accepted || gpuSteps.rejected !== cpuSteps.rejected)
      failures.push(`steps: GPU ${gpuSteps.accepted} accepted ${gpuSteps.rejected} rejected, CPU ${cpuSteps.accepted} and ${cpuSteps.rejected}`); // prettier-ignore
    if (!(Math.abs(gpuSteps.lastError - cpuSteps.lastError) <= ITERATION_SLACK * cpuSteps.lastError))
      failures.push(`last error estimate: GPU ${gpuSteps.lastError}, CPU ${cpuSteps.lastError}`);
  }
  return failures;
}
