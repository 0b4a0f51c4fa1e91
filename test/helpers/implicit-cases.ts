/**
 * GPU-vs-CPU cases of the implicit integrators, shared by test/gpu-implicit-node.test.ts (Dawn
 * through the `webgpu` package) and the browser harness test/browser/implicit-harness.ts (served
 * by Vite to headless Chromium). Each runner takes a device, runs one case on it and on the CPU
 * reference, and returns plain data (arrays of numbers), so that a result can cross from a page to
 * the test. No vitest and no Node APIs here: this file runs in both places. The assertions are in
 * implicit-checks.ts.
 */
import { buildScene, withErrorScopes } from './gpu-cases.ts';
import {
  type ImplicitIntegratorName,
  type ImplicitOptions,
  type LinearSolverName,
  type SolverStats,
  createModel,
  type Model,
  buildCloth,
} from '../../src/index.ts';
import {
  assembleRhs,
  diagonalInverse,
  springStates,
  systemProduct,
  type SpringStates,
  type SystemCoefficients,
  CpuImplicitSimulation,
  solveLinear,
  IMPLICIT_INTEGRATOR_NAMES,
  resolveImplicitOptions,
  WebGpuImplicitSimulation,
  type WebGpuImplicitOptions,
  applyPreconditioner,
  dot,
  NO_RHS_TERMS,
  type SolverWorkspace,
  type RealArray,
  FLOAT32_TOLERANCE_FLOOR,
} from '../../src/internal.ts';

import { expectedRhs, expectedSystem } from './implicit-coefficients.ts';

// ---------------------------------------------------------------------------------------------
// Scenes

/** h, s, of every case: a frame at 60 Hz, large against the stiff springs' periods. */
export const DT = 1 / 60;

/** Rayleigh damping of the damped cases: r_m in 1/s, r_k in s. Every rhs and system coefficient is ≠ 0 with them. */
export const RAYLEIGH = { rayleighMass: 1, rayleighStiffness: 1e-3 } as const;

/** Seeded PRNG (mulberry32): uniform in [0, 1), the same sequence in Node and in a browser. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `length` values uniform in (−amplitude, amplitude), rounded to float32 (what the GPU holds). */
export function randomVector(random: () => number, length: number, amplitude: number): Float64Array {
  return Float64Array.from({ length }, () => Math.fround(amplitude * (2 * random() - 1)));
}

/**
 * A stiff single spring: k = 5000 N/m, c = 0.3 N·s/m, rest length 1 m; particle 0 fixed at the
 * origin, particle 1 (0.5 kg) at (0, −1.1, 0), stretched 0.1 m, moving at (0.5, 0, 0.3) m/s so the
 * motion is not confined to a plane. ω = √(k/m) = 100 rad/s, so h ω = 1.7 at h = 1/60 s.
 */
export function buildStiffSpring(stiffness = 5000, damping = 0.3): Model {
  return createModel({
    positions: [0, 0, 0, 0, -1.1, 0],
    velocities: [0, 0, 0, 0.5, 0, 0.3],
    masses: [0.5, 0.5],
    fixed: [0],
    springPairs: [0, 1],
    springStiffness: stiffness,
    springRestLengths: [1],
    springDamping: damping,
  });
}

/**
 * The 16 × 16 cloth (0.1 m spacing, 0.1 kg particles, k = 1000 N/m, c = 0.5 N·s/m, top corners
 * pinned) with every free particle moved by up to ±0.02 m per coordinate and given a velocity of
 * up to ±0.5 m/s per coordinate (seeded), rest lengths kept: structural springs are strained by up
 * to about ±40 %, so there are stretched and compressed springs (the clamped and exact Jacobians
 * differ) and every term of every kernel is exercised.
 */
export function buildPerturbedCloth(seed = 20240611): Model {
  const cloth = buildCloth({ nx: 16, ny: 16, damping: 0.5 });
  const random = mulberry32(seed);
  const free = (k: number): boolean => cloth.particleFixed[Math.floor(k / 3)] === 0;
  const positions = Array.from(cloth.particlePositions, (x, k) =>
    free(k) ? x + 0.02 * (2 * random() - 1) : x,
  );
  const velocities = Array.from(cloth.particlePositions, (_, k) => (free(k) ? 0.5 * (2 * random() - 1) : 0));
  const fixed: number[] = [];
  cloth.particleFixed.forEach((flag, i) => flag && fixed.push(i));
  return createModel({
    positions,
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

/**
 * The model as the GPU holds it: every real rounded to float32. The kernel references evaluate
 * in float64 on these exact inputs, so what remains is the GPU's own float32 arithmetic.
 */
export function float32Model(model: Model): Model {
  const round = (values: Float64Array): Float64Array => Float64Array.from(values, Math.fround);
  const [gx, gy, gz] = model.gravity;
  return {
    ...model,
    particlePositions: round(model.particlePositions),
    particleVelocities: round(model.particleVelocities),
    particleMass: round(model.particleMass),
    springRestLength: round(model.springRestLength),
    springStiffness: round(model.springStiffness),
    springDamping: round(model.springDamping),
    gravity: [Math.fround(gx), Math.fround(gy), Math.fround(gz)],
  };
}

// ---------------------------------------------------------------------------------------------
// Running on a device

/** A runner's value with the GPU errors it raised (validation, internal, out-of-memory, uncaptured). */
export type WithErrors<T> = T & { errors: string[] };

/**
 * Runs `run` inside validation, internal and out-of-memory error scopes, waits for the queue, and
 * adds the errors the scopes caught and those `uncaptured` (a device's listener, see
 * watchUncapturedErrors) received meanwhile.
 */
export async function runScoped<T extends object>(
  device: GPUDevice,
  uncaptured: string[],
  run: () => Promise<T>,
): Promise<WithErrors<T>> {
  const before = uncaptured.length;
  const { value, errors } = await withErrorScopes(device, run);
  await device.queue.onSubmittedWorkDone();
  // uncapturederror is dispatched as a task: let it arrive.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { ...value, errors: [...errors, ...uncaptured.slice(before)] };
}

function newStates(springCount: number): SpringStates {
  return {
    force: new Float64Array(3 * springCount),
    jacobian: new Float64Array(6 * springCount),
    direction: new Float64Array(3 * springCount),
  };
}

function workspace(n3: number, real: (length: number) => RealArray): SolverWorkspace {
  return {
    residual: real(n3),
    direction: real(n3),
    product: real(n3),
    preconditioned: real(n3),
    inverseDiagonal: real(2 * n3),
  };
}

function maxAbs(values: ArrayLike<number>): number {
  let m = 0;
  for (let k = 0; k < values.length; k++) m = Math.max(m, Math.abs(values[k]!));
  return m;
}

/** ‖b − A x‖ / ‖b‖ in float64. */
function relativeResidual(
  model: Model,
  states: SpringStates,
  system: SystemCoefficients,
  b: ArrayLike<number>,
  x: RealArray,
): number {
  const product = new Float64Array(x.length);
  systemProduct(model, states, system, x, product);
  const r = Float64Array.from(product, (q, k) => b[k]! - q);
  return Math.sqrt(dot(r, r) / dot(b as RealArray, b as RealArray));
}

// ---------------------------------------------------------------------------------------------
// 1. Single kernels

export const KERNELS = [
  'springJacobians',
  'implicitRhs',
  'systemDiagonal',
  'systemProduct',
  'cgStart',
  'solve',
] as const;
export type KernelName = (typeof KERNELS)[number];

/** One kernel run through `sim.kernels` on {@link buildPerturbedCloth}; plain data. */
export interface KernelCase {
  kernel: KernelName;
  /** Whose coefficients the simulation bakes into its uniforms (rhs, system, Newmark's a₀). */
  integrator: ImplicitIntegratorName;
  solver: LinearSolverName;
  preconditioner: 'block' | 'scalar';
  jacobian: 'clamped' | 'exact';
  /** With {@link RAYLEIGH} damping. */
  rayleigh: boolean;
}

export function kernelCaseLabel(c: KernelCase): string {
  const parts: string[] = [c.kernel];
  if (c.kernel === 'springJacobians') parts.push(c.jacobian);
  if (c.kernel === 'implicitRhs' || c.kernel === 'systemDiagonal' || c.kernel === 'systemProduct')
    parts.push(c.integrator);
  if (c.kernel === 'systemDiagonal') parts.push(c.preconditioner);
  if (c.kernel === 'cgStart' || c.kernel === 'solve') {
    parts.push(c.solver === 'pcg' ? `pcg-${c.preconditioner}` : c.solver);
    if (c.kernel === 'solve') parts.push(c.integrator);
  }
  if (c.rayleigh && c.kernel !== 'springJacobians') parts.push('rayleigh');
  return parts.join(' ');
}

function kernelCase(kernel: KernelName, fields: Partial<Omit<KernelCase, 'kernel'>> = {}): KernelCase {
  return {
    kernel,
    integrator: 'implicit-euler',
    solver: 'pcg',
    preconditioner: 'block',
    jacobian: 'clamped',
    rayleigh: true,
    ...fields,
  };
}

/**
 * Every kernel case: spring Jacobians (clamped, exact); right-hand side of each scheme with and
 * without Rayleigh damping; diagonal (block, scalar) and product of each scheme's system; the
 * start of CG (plain, block and scalar preconditioner); and whole solves: CG and PCG on implicit
 * Euler's and Newmark's systems, Jacobi on Newmark's and the variational scheme's (diagonally
 * dominant enough for it to converge; implicit and backward Euler's are not, see
 * {@link INTEGRATOR_CASES}).
 */
export const KERNEL_CASES: readonly KernelCase[] = [
  kernelCase('springJacobians', { jacobian: 'clamped', rayleigh: false }),
  kernelCase('springJacobians', { jacobian: 'exact', rayleigh: false }),
  ...IMPLICIT_INTEGRATOR_NAMES.flatMap((integrator) =>
    [true, false].map((rayleigh) => kernelCase('implicitRhs', { integrator, rayleigh })),
  ),
  ...IMPLICIT_INTEGRATOR_NAMES.flatMap((integrator) =>
    (['block', 'scalar'] as const).map((preconditioner) =>
      kernelCase('systemDiagonal', { integrator, preconditioner }),
    ),
  ),
  ...IMPLICIT_INTEGRATOR_NAMES.map((integrator) => kernelCase('systemProduct', { integrator })),
  kernelCase('cgStart', { solver: 'cg' }),
  kernelCase('cgStart', { solver: 'pcg', preconditioner: 'block' }),
  kernelCase('cgStart', { solver: 'pcg', preconditioner: 'scalar' }),
  ...(['implicit-euler', 'newmark'] as const).flatMap((integrator) => [
    kernelCase('solve', { integrator, solver: 'cg' }),
    kernelCase('solve', { integrator, solver: 'pcg', preconditioner: 'block' }),
    kernelCase('solve', { integrator, solver: 'pcg', preconditioner: 'scalar' }),
  ]),
  kernelCase('solve', { integrator: 'newmark', solver: 'jacobi', preconditioner: 'block' }),
  kernelCase('solve', {
    integrator: 'variational-symplectic-implicit',
    solver: 'jacobi',
    preconditioner: 'block',
  }),
];

/** One array the GPU produced and its reference. */
export interface ComparedArray {
  quantity: string;
  unit: string;
  /** Values per item (3: xyz per particle or spring; 6: a symmetric 3×3 block). */
  stride: number;
  gpu: number[];
  reference: number[];
}

export interface KernelResult {
  compared: ComparedArray[];
  /** Scalars of the case (see each kernel's runner): GPU and reference values, counts. */
  scalars: Record<string, number>;
}

/** Linear-solver settings of the kernel cases: tolerance 1e-5 (the default), room to converge. */
const KERNEL_SOLVE = { maxIterations: 200, tolerance: 1e-5 } as const;

function kernelSimOptions(c: KernelCase, device: GPUDevice): WebGpuImplicitOptions {
  return {
    device,
    integrator: c.integrator,
    dt: DT,
    solver: c.solver,
    preconditioner: c.preconditioner,
    jacobian: c.jacobian,
    ...KERNEL_SOLVE,
    ...(c.rayleigh ? RAYLEIGH : {}),
  };
}

/**
 * Runs one kernel through `sim.kernels` and its CPU mirror. The reference of each kernel takes
 * the GPU's own inputs (the spring states the GPU computed, read back) and the float32-rounded
 * model, and computes in float64, so a difference is the kernel's own rounding (or its bug), not
 * an upstream kernel's. The solve is compared with the CPU solver storing float32 (the CPU path
 * that mirrors the GPU's), and with a converged float64 solve for the report.
 */
export async function runKernelCase(device: GPUDevice, c: KernelCase): Promise<KernelResult> {
  const model = buildPerturbedCloth();
  const m32 = float32Model(model);
  const n3 = 3 * model.particleCount;
  const random = mulberry32(7);
  const sim = await WebGpuImplicitSimulation.create(model, kernelSimOptions(c, device));
  try {
    const rm = c.rayleigh ? RAYLEIGH.rayleighMass : 0;
    const rk = c.rayleigh ? RAYLEIGH.rayleighStiffness : 0;
    const scheme = { h: DT, rm, rk, gamma: sim.options.newmarkGamma, beta: sim.options.newmarkBeta };
    const system = expectedSystem(c.integrator, scheme);
    await sim.kernels.run('springJacobians');
    const states = await sim.kernels.readSpringStates();
    const array = (
      quantity: string,
      unit: string,
      stride: number,
      gpu: ArrayLike<number>,
      ref: ArrayLike<number>,
    ) => ({
      quantity,
      unit,
      stride,
      gpu: Array.from(gpu),
      reference: Array.from(ref),
    });

    switch (c.kernel) {
      case 'springJacobians': {
        const reference = newStates(model.springCount);
        springStates(m32, m32.particlePositions, m32.particleVelocities, c.jacobian === 'exact', reference);
        let stretched = 0;
        let compressed = 0;
        for (let s = 0; s < model.springCount; s++) {
          const a = 3 * model.springIndices[2 * s]!;
          const b = 3 * model.springIndices[2 * s + 1]!;
          const p = m32.particlePositions;
          const length = Math.hypot(p[b]! - p[a]!, p[b + 1]! - p[a + 1]!, p[b + 2]! - p[a + 2]!);
          if (length > m32.springRestLength[s]!) stretched++;
          else if (length < m32.springRestLength[s]!) compressed++;
        }
        return {
          compared: [
            array('force', 'N', 3, states.force, reference.force),
            array('direction', '1', 3, states.direction, reference.direction),
            array('jacobian', 'N/m', 6, states.jacobian, reference.jacobian),
          ],
          scalars: { stretched, compressed },
        };
      }
      case 'implicitRhs': {
        // Random a and w (momenta), so every coefficient's term is exercised.
        const accelerations = randomVector(random, n3, 10);
        const extra = randomVector(random, n3, 0.1);
        sim.kernels.write('accelerations', accelerations);
        sim.kernels.write('momenta', extra);
        await sim.kernels.run('implicitRhs');
        const gpu = await sim.kernels.read('rhs');
        const reference = new Float64Array(n3);
        const coefficients = expectedRhs(c.integrator, scheme);
        assembleRhs(m32, states, coefficients, m32.particleVelocities, accelerations, extra, reference);
        return { compared: [array('rhs', 'N', 3, gpu, reference)], scalars: {} };
      }
      case 'systemDiagonal': {
        await sim.kernels.run('systemDiagonal');
        const gpu = await sim.kernels.readInverseDiagonal();
        const reference = new Float64Array(6 * model.particleCount);
        diagonalInverse(m32, states, system, c.preconditioner === 'block', reference);
        return { compared: [array('inverse diagonal', '1/kg', 6, gpu, reference)], scalars: {} };
      }
      case 'systemProduct': {
        const direction = randomVector(random, n3, 1);
        sim.kernels.write('direction', direction);
        await sim.kernels.run('systemProduct');
        const gpu = await sim.kernels.read('product');
        const reference = new Float64Array(n3);
        systemProduct(m32, states, system, direction, reference);
        return { compared: [array('A p', 'N for p in m/s²', 3, gpu, reference)], scalars: {} };
      }
      case 'cgStart': {
        const preconditioned = c.solver !== 'cg';
        if (preconditioned) await sim.kernels.run('systemDiagonal');
        // Random b, non-zero on the pinned particles too: plain CG must filter them out of z.
        const b = randomVector(random, n3, 1);
        sim.kernels.write('rhs', b);
        await sim.kernels.run('cgStart');
        const control = await sim.kernels.readControl();
        const inverse = await sim.kernels.readInverseDiagonal();
        const z = new Float64Array(n3);
        applyPreconditioner(m32, inverse, preconditioned, b, z);
        return {
          compared: [
            array('residual r = b', 'N', 3, await sim.kernels.read('residual'), b),
            array('direction p = P⁻¹ b', 'm/s²', 3, await sim.kernels.read('direction'), z),
            array('solution x = 0', 'm/s²', 3, await sim.kernels.read('solution'), new Float64Array(n3)),
          ],
          scalars: {
            gpuRz: control.rz!,
            referenceRz: dot(b, z),
            gpuBb: control.bb!,
            referenceBb: dot(b, b),
            gpuRr: control.rr!,
          },
        };
      }
      case 'solve': {
        // b: the scheme's own right-hand side at the perturbed state, as the GPU assembled it.
        await sim.kernels.run('implicitRhs');
        const b = await sim.kernels.read('rhs');
        await sim.kernels.run('solve');
        const x = await sim.kernels.read('solution');
        const control = await sim.kernels.readControl();
        const options = {
          solver: c.solver,
          preconditioner: c.preconditioner,
          maxIterations: KERNEL_SOLVE.maxIterations,
          tolerance: Math.max(KERNEL_SOLVE.tolerance, FLOAT32_TOLERANCE_FLOOR),
        };
        const f32 = (length: number): Float32Array => new Float32Array(length);
        const x32 = f32(n3);
        const cpu = solveLinear(
          m32,
          {
            force: Float32Array.from(states.force),
            jacobian: Float32Array.from(states.jacobian),
            direction: Float32Array.from(states.direction),
          },
          system,
          options,
          Float32Array.from(b),
          x32,
          workspace(n3, f32),
        );
        // The exact solution, for the report: float64 CG to 1e-13.
        const exact = new Float64Array(n3);
        const f64 = (length: number): Float64Array => new Float64Array(length);
        solveLinear(
          m32,
          states,
          system,
          { solver: 'cg', preconditioner: 'block', maxIterations: 10_000, tolerance: 1e-13 },
          b,
          exact,
          workspace(n3, f64),
        );
        const xScale = maxAbs(exact);
        const distance = (y: ArrayLike<number>): number =>
          maxAbs(Float64Array.from(exact, (e, k) => e - y[k]!)) / xScale;
        return {
          compared: [array('solution x', 'm/s, m/s² or m', 3, x, x32)],
          scalars: {
            gpuIterations: control.cgIterations!,
            cpuIterations: cpu.iterations,
            gpuConverged: control.cgConverged!,
            cpuConverged: cpu.converged ? 1 : 0,
            gpuResidual: control.bb! > 0 ? Math.sqrt(control.rr! / control.bb!) : 0,
            cpuResidual: cpu.relativeResidual,
            gpuTrueResidual: relativeResidual(m32, states, system, b, x),
            cpuTrueResidual: relativeResidual(m32, states, system, b, Float64Array.from(x32)),
            gpuErrorVsExact: distance(x),
            cpuErrorVsExact: distance(x32),
          },
        };
      }
    }
  } finally {
    sim.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Whole steps of every integrator × solver

export const IMPLICIT_SCENES = ['spring', 'cloth16'] as const;
export type ImplicitScene = (typeof IMPLICIT_SCENES)[number];

export function buildImplicitScene(scene: ImplicitScene): Model {
  // cloth16: the 16 × 16 cloth of test/helpers/gpu-cases.ts at rest (k = 1000 N/m, h²k/m = 2.8).
  return scene === 'spring' ? buildStiffSpring() : buildScene('cloth16');
}

export interface IntegratorCase {
  scene: ImplicitScene;
  integrator: ImplicitIntegratorName;
  solver: LinearSolverName;
  rayleigh: boolean;
  steps: number;
}

export function integratorCaseLabel(c: IntegratorCase): string {
  return `${c.scene} ${c.integrator} ${c.solver}${c.rayleigh ? ' rayleigh' : ''}`;
}

/**
 * Solver options of the integrator cases: the defaults (linear tolerance 1e-5, backward Euler's
 * correction and residual tolerances 1e-4, newtonError 1e-5), except the iteration limits. Every
 * step encodes all its Newton iterations' and linear iterations' passes (those after convergence
 * launch no workgroups but still cost a dispatch each on SwiftShader), so the limits sit just
 * above what the cases use: ≤ 4 Newton iterations per step, ≤ 38 linear iterations per solve on
 * the cloth (Jacobi on Newmark's system; CG and PCG ≤ 31: the table's max column).
 */
export function integratorOptions(c: IntegratorCase): ImplicitOptions & {
  integrator: ImplicitIntegratorName;
  dt: number;
  rayleighMass?: number;
  rayleighStiffness?: number;
} {
  return {
    integrator: c.integrator,
    dt: DT,
    solver: c.solver,
    // The spring's system is one 3×3 block: CG needs 2 iterations, PCG 1, Jacobi 2.
    maxIterations: c.scene === 'spring' ? 10 : 50,
    newtonIterations: 5,
    ...(c.rayleigh ? RAYLEIGH : {}),
  };
}

/**
 * Every integrator × solver on both scenes, with and without Rayleigh damping, 4 steps. Jacobi on
 * the cloth only where it converges within 50 iterations (Newmark's β = ¼ and the variational
 * scheme's 4M/h² make the system diagonally dominant enough; implicit and backward Euler's are not:
 * Jacobi stops at the iteration limit with relative residuals ~7e-4 there after 40 iterations, in
 * float32 and float64 alike).
 */
export const INTEGRATOR_CASES: readonly IntegratorCase[] = IMPLICIT_SCENES.flatMap((scene) =>
  IMPLICIT_INTEGRATOR_NAMES.flatMap((integrator) =>
    (['cg', 'pcg', 'jacobi', 'multigrid'] as const)
      .filter(
        (solver) =>
          solver !== 'jacobi' ||
          scene === 'spring' ||
          integrator === 'newmark' ||
          integrator === 'variational-symplectic-implicit',
      )
      .flatMap((solver) =>
        [false, true].map((rayleigh) => ({ scene, integrator, solver, rayleigh, steps: 4 })),
      ),
  ),
);

export interface StateArrays {
  positions: number[];
  velocities: number[];
  /** variational-symplectic-implicit only. */
  momenta?: number[];
}

export interface IntegratorResult {
  gpu: StateArrays;
  /** CPU, float32 storage: the reference. */
  cpu: StateArrays;
  /** CPU, float64: for the report's float32-noise column. */
  cpu64: StateArrays;
  gpuStats: SolverStats;
  cpuStats: SolverStats;
}

function stateArrays(state: {
  positions: Float64Array;
  velocities: Float64Array;
  momenta?: Float64Array;
}): StateArrays {
  return {
    positions: Array.from(state.positions),
    velocities: Array.from(state.velocities),
    ...(state.momenta ? { momenta: Array.from(state.momenta) } : {}),
  };
}

/** Steps a case on `device` (borrowed), on the CPU with float32 storage and with float64. */
export async function runIntegratorCase(device: GPUDevice, c: IntegratorCase): Promise<IntegratorResult> {
  const model = buildImplicitScene(c.scene);
  const options = integratorOptions(c);
  const gpu = await WebGpuImplicitSimulation.create(model, { ...options, device });
  try {
    const cpu = new CpuImplicitSimulation(model, { ...options, precision: 'f32' });
    const cpu64 = new CpuImplicitSimulation(model, options);
    // advance(): skips what is left of converged Newton and CG loops, ending bit-identically to
    // step(), which encodes every iteration up to the caps (test/gpu-cg-dispatches.test.ts;
    // step() itself: the determinism cases below).
    await gpu.advance(c.steps);
    cpu.step(c.steps);
    cpu64.step(c.steps);
    return {
      gpu: stateArrays(await gpu.readState()),
      cpu: stateArrays(await cpu.readState()),
      cpu64: stateArrays(await cpu64.readState()),
      gpuStats: await gpu.readSolverStats(),
      cpuStats: (await cpu.readSolverStats())!,
    };
  } finally {
    gpu.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// 3. CG's error in the energy norm, iteration by iteration

export interface CgSequenceCase {
  solver: 'cg' | 'pcg';
  integrator: ImplicitIntegratorName;
  /** Most iterations looked at (the sequence stops earlier where the GPU solve converges). */
  maxK: number;
}

export interface CgSequenceResult {
  /** Iterations the GPU solve takes to converge at relative tolerance 1e-6 (its float32 floor). */
  convergedAt: number;
  /** ‖x* − x_k‖_A for k = 0 … K (x_0 = 0), x_k the GPU's iterate after k iterations, float64. */
  energyErrors: number[];
  /** The GPU's own relative residual √(r·r / b·b) after k iterations, k = 1 … K. */
  gpuResiduals: number[];
  /** Iterations the GPU counted in the run limited to k, k = 1 … K (should be k). */
  gpuIterations: number[];
  /** Bit-identical rhs and spring states in every simulation (1) or not (0). */
  sameSystem: number;
}

/**
 * For k = 1 … K, a fresh simulation with maxIterations = k on the same device solves A x = b
 * (A, b: the scheme's system and rhs at {@link buildPerturbedCloth}); the error of x_k in the
 * energy norm ‖e‖_A = √(eᵀ A e) is computed in float64 against x* from a float64 CG solve to
 * 1e-13, with A built from the GPU's own spring states.
 */
export async function runCgSequence(device: GPUDevice, c: CgSequenceCase): Promise<CgSequenceResult> {
  const model = buildPerturbedCloth();
  const m32 = float32Model(model);
  const n3 = 3 * model.particleCount;
  const options = (maxIterations: number): WebGpuImplicitOptions => ({
    device,
    integrator: c.integrator,
    dt: DT,
    solver: c.solver,
    maxIterations,
    tolerance: FLOAT32_TOLERANCE_FLOOR,
  });
  const solveOn = async (
    maxIterations: number,
  ): Promise<{ x: Float64Array; b: Float64Array; states: SpringStates; control: Record<string, number> }> => {
    const sim = await WebGpuImplicitSimulation.create(model, options(maxIterations));
    try {
      await sim.kernels.run('springJacobians');
      await sim.kernels.run('implicitRhs');
      const b = await sim.kernels.read('rhs');
      await sim.kernels.run('solve');
      return {
        x: await sim.kernels.read('solution'),
        b,
        states: await sim.kernels.readSpringStates(),
        control: await sim.kernels.readControl(),
      };
    } finally {
      sim.destroy();
    }
  };

  const converged = await solveOn(100);
  const convergedAt = converged.control.cgIterations!;
  const { states } = converged;
  const defaults = resolveImplicitOptions(c.integrator, {});
  const system = expectedSystem(c.integrator, {
    h: DT,
    rm: 0,
    rk: 0,
    gamma: defaults.newmarkGamma,
    beta: defaults.newmarkBeta,
  });
  const b = converged.b;
  const exact = new Float64Array(n3);
  solveLinear(
    m32,
    states,
    system,
    { solver: 'cg', preconditioner: 'block', maxIterations: 10_000, tolerance: 1e-13 },
    b,
    exact,
    workspace(n3, (length) => new Float64Array(length)),
  );
  const product = new Float64Array(n3);
  const energyError = (x: ArrayLike<number>): number => {
    const e = Float64Array.from(exact, (value, k) => value - x[k]!);
    systemProduct(m32, states, system, e, product);
    return Math.sqrt(Math.max(0, dot(e, product)));
  };
  const energyErrors = [energyError(new Float64Array(n3))];
  const gpuResiduals: number[] = [];
  const gpuIterations: number[] = [];
  let sameSystem = 1;
  const bitsEqual = (p: ArrayLike<number>, q: ArrayLike<number>): boolean =>
    p.length === q.length &&
    Array.prototype.every.call(p, (value: number, k: number) => Object.is(value, q[k]));
  for (let k = 1; k <= Math.min(convergedAt, c.maxK); k++) {
    const run = await solveOn(k);
    if (!bitsEqual(run.b, b) || !bitsEqual(run.states.jacobian, states.jacobian)) sameSystem = 0;
    energyErrors.push(energyError(run.x));
    gpuResiduals.push(Math.sqrt(run.control.rr! / run.control.bb!));
    gpuIterations.push(run.control.cgIterations!);
  }
  return { convergedAt, energyErrors, gpuResiduals, gpuIterations, sameSystem };
}

// ---------------------------------------------------------------------------------------------
// 4. Determinism

export interface DeterminismCase {
  integrator: ImplicitIntegratorName;
  solver: LinearSolverName;
  steps: number;
}

/** One GPU run of a determinism case: how it was stepped, its final state and statistics. */
export interface DeterminismRun {
  how: string;
  state: StateArrays;
  stats: SolverStats;
}

/**
 * GPU runs of the same case on {@link buildImplicitScene}('cloth16'), each on a fresh simulation
 * of one device: step() twice, then advance() with convergence read back every 8 (the default)
 * and every 3 linear-solver iterations, which skips what is no longer needed and is documented to
 * give the same bits as step().
 */
export async function runImplicitDeterminism(
  device: GPUDevice,
  c: DeterminismCase,
): Promise<{ runs: DeterminismRun[] }> {
  const run = async (how: string, checkEvery: number | undefined): Promise<DeterminismRun> => {
    const options = integratorOptions({ scene: 'cloth16', rayleigh: false, ...c });
    const sim = await WebGpuImplicitSimulation.create(buildImplicitScene('cloth16'), {
      ...options,
      device,
      ...(checkEvery === undefined ? {} : { checkEvery }),
    });
    try {
      if (checkEvery === undefined) sim.step(c.steps);
      else await sim.advance(c.steps);
      return { how, state: stateArrays(await sim.readState()), stats: await sim.readSolverStats() };
    } finally {
      sim.destroy();
    }
  };
  return {
    runs: [
      await run('step()', undefined),
      await run('step() again', undefined),
      await run('advance(), checkEvery 8', 8),
      await run('advance(), checkEvery 3', 3),
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// 5. The variational scheme's defining equation

export interface MidpointResult {
  converged: number;
  newtonIterations: number;
  /** G = (4/h²) M res − (2/h) p₀ − f(q₀ + res), N, xyz per particle (0 on the fixed one), res = (x₊ − q₀)/2. */
  residual: number[];
  /** max of |(4/h²) M res|, |(2/h) p₀|, |f| over the components, N: what G is small against. */
  scale: number;
}

/**
 * The spring of the midpoint check: {@link buildStiffSpring} undamped (so f depends on positions
 * alone), k = 5000 N/m, h²k/m = 2.8. (With the sign of K res flipped, as before commit dd94f8d,
 * the iteration's fixed point was not the midpoint solution: G was 20 % of its scale at
 * k = 1000 N/m, and at 5000 N/m the iteration did not settle within 50 iterations.)
 */
export const MIDPOINT_SPRING_STIFFNESS = 5000;

/**
 * One variational-symplectic-implicit step of an undamped single spring on the GPU, Newton run to
 * newtonError 1e-6 (50 iterations allowed). The scheme's step is defined by the implicit midpoint
 * equation (4/h²) M res = (2/h) p₀ + f(q₀ + res) (spec/README.md; its linear-spring solution
 * v₊ = 2 (h f + 2p)/(4m + h²K) is this equation's), which the converged Newton iterate must satisfy.
 */
export async function runMidpointCheck(device: GPUDevice): Promise<MidpointResult> {
  const model = buildStiffSpring(MIDPOINT_SPRING_STIFFNESS, 0);
  const sim = await WebGpuImplicitSimulation.create(model, {
    device,
    integrator: 'variational-symplectic-implicit',
    dt: DT,
    solver: 'pcg',
    maxIterations: 10,
    newtonIterations: 50,
    newtonError: 1e-6,
  });
  try {
    sim.step(1);
    const state = await sim.readState();
    const stats = await sim.readSolverStats();
    const q0 = model.particlePositions;
    const res = Float64Array.from(state.positions, (x, k) => (x - q0[k]!) / 2);
    const midpoint = Float64Array.from(q0, (q, k) => q + res[k]!);
    const states = newStates(model.springCount);
    springStates(model, midpoint, model.particleVelocities, false, states);
    const force = new Float64Array(midpoint.length);
    const zero = new Float64Array(midpoint.length);
    assembleRhs(model, states, { ...NO_RHS_TERMS, forceScale: 1 }, zero, zero, zero, force);
    const h = DT;
    const residual: number[] = [];
    let scale = 0;
    for (let k = 0; k < res.length; k++) {
      // Fixed particles have no equation (and do not move): 0.
      if (model.particleFixed[Math.floor(k / 3)]) {
        residual.push(0);
        continue;
      }
      const m = model.particleMass[Math.floor(k / 3)]!;
      const inertia = (4 / (h * h)) * m * res[k]!;
      const momentum = (2 / h) * m * model.particleVelocities[k]!;
      residual.push(inertia - momentum - force[k]!);
      scale = Math.max(scale, Math.abs(inertia), Math.abs(momentum), Math.abs(force[k]!));
    }
    return { converged: stats.converged ? 1 : 0, newtonIterations: stats.newtonIterations, residual, scale };
  } finally {
    sim.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// A device's runner

/** Every case runner, each returning its errors too: what a test file drives. */
export interface ImplicitRunner {
  kernel(c: KernelCase): Promise<WithErrors<KernelResult>>;
  integrator(c: IntegratorCase): Promise<WithErrors<IntegratorResult>>;
  cgSequence(c: CgSequenceCase): Promise<WithErrors<CgSequenceResult>>;
  determinism(c: DeterminismCase): Promise<WithErrors<{ runs: DeterminismRun[] }>>;
  midpoint(): Promise<WithErrors<MidpointResult>>;
}

/**
 * The runners on one device (borrowed: nothing here destroys it), each inside its own error
 * scopes; `uncaptured` is the device's uncaptured-error listener's list (watchUncapturedErrors).
 */
export function deviceRunner(device: GPUDevice, uncaptured: string[]): ImplicitRunner {
  const scoped = <T extends object>(run: () => Promise<T>) => runScoped(device, uncaptured, run);
  return {
    kernel: (c) => scoped(() => runKernelCase(device, c)),
    integrator: (c) => scoped(() => runIntegratorCase(device, c)),
    cgSequence: (c) => scoped(() => runCgSequence(device, c)),
    determinism: (c) => scoped(() => runImplicitDeterminism(device, c)),
    midpoint: () => scoped(() => runMidpointCheck(device)),
  };
}
