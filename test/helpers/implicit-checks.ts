/**
 * The implicit integrators' GPU test suite, declared once and run by test/gpu-implicit-browser.test.ts
 * (headless Chromium) and test/gpu-implicit-node.test.ts (Dawn in Node), each with its own
 * {@link ImplicitRunner}: the tolerances with the reasons for them, the assertions, and the tables
 * of the largest differences measured, printed after the suite.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { expectClose, maxAbsError } from './expect-close.ts';
import {
  INTEGRATOR_CASES,
  integratorCaseLabel,
  KERNEL_CASES,
  kernelCaseLabel,
  MIDPOINT_SPRING_STIFFNESS,
  type CgSequenceCase,
  type ComparedArray,
  type DeterminismCase,
  type ImplicitRunner,
  type IntegratorCase,
  type KernelCase,
  type KernelName,
  type StateArrays,
} from './implicit-cases.ts';
import { IMPLICIT_INTEGRATOR_NAMES } from '../../src/internal.ts';
import { shortOrLong } from './long-run.ts';

/** float32 unit roundoff, 2⁻²⁴: half an ulp of 1. */
export const U32 = 2 ** -24;

/**
 * Allowed |GPU − reference| of each kernel's arrays, in units of U32 · max|reference| of the
 * array. The references evaluate in float64 on the GPU's own float32 inputs, so the difference is
 * the kernel's float32 rounding: a few roundings per term, summed over a particle's ≤ 12 springs.
 * Each bound is 4–8× the largest difference measured (identical in Node's Dawn and in Chromium,
 * both SwiftShader), shown in brackets.
 */
const KERNEL_TOLERANCE: Readonly<Record<KernelName, Readonly<Record<string, number>>>> = {
  // k (l − L) n: l from a float32 sqrt of a sum of squares, then a cancellation against L
  // [force 7.4, direction 2.1, jacobian 5.3].
  springJacobians: { force: 32, direction: 16, jacobian: 32 },
  // ≤ 12 springs' force and K, B products, mass terms [3.1].
  implicitRhs: { rhs: 16 },
  // Cofactor inverse of a well-conditioned 3×3 block (α M dominates) [3.7].
  systemDiagonal: { 'inverse diagonal': 16 },
  // ≤ 12 springs' K and B products [2.1].
  systemProduct: { 'A p': 16 },
  // r = b is a copy, x = 0 a fill: exact. z = P⁻¹ b, one 3×3 product [1.0].
  cgStart: { 'residual r = b': 0, 'direction p = P⁻¹ b': 8, 'solution x = 0': 0 },
  // Against the CPU solver storing float32, after the same number of iterations: up to 32
  // iterations' rounding, amplified by the conditioning [7.9]. See solveTolerance for unequal counts.
  solve: { 'solution x': 64 },
};

/**
 * The relative tolerance of the linear solves (the default 1e-5, above the float32 floor of 1e-6
 * the GPU applies).
 */
const SOLVE_TOLERANCE = 1e-5;

/**
 * When the GPU and CPU solves stop one or two iterations apart, their solutions differ by the
 * solves' own truncation error, not by rounding: each is within 5e-5–8e-5 · max|x| of the
 * converged solution at residual 1e-5 (measured), so allow 2e-4 · max|x|.
 */
const SOLVE_UNEQUAL_ITERATIONS = 2e-4;

/** Relative error of the GPU's tree-ordered float32 sums r·z and b·b of 768 terms: the bound is ≲ (log₂ 768 + 1) U32 ≈ 11 U32 = 6.6e-7 for positive terms; measured 7.1e-8. */
const REDUCTION_RELATIVE = 1e-6;

/** One row of the kernel table. */
interface KernelRow {
  case: string;
  quantity: string;
  maxError: number;
  scale: number;
  allowedUlps: number;
  /** Scalars of the case, in words (iterations, residuals, reductions). */
  note: string;
}

/**
 * Allowed |GPU − CPU f32| of the integrator cases, absolute, per quantity (m, m/s, kg·m/s). The
 * CPU stores float32 but computes between stores in float64; the two paths round differently in
 * every pass and 4 implicit steps carry the differences on. Each bound is 4–8× the largest
 * difference measured over the scene's cases (in brackets); the CPU's own float32-vs-float64 gap
 * is of the same size (the table's noise columns).
 */
export function integratorTolerance(c: IntegratorCase): {
  positions: number;
  velocities: number;
  momenta: number;
} {
  if (c.scene === 'spring') {
    // Positions to an ulp at 1.1 m [1.2e-7]. Velocities come from position-like quantities
    // divided by the step: v₊ = 2 res/h (variational), v = v₀ + h a with x = x₀ + h v (backward
    // Euler), so position roundings reach them multiplied by up to 2/h = 120 [8.1e-6]; p [2.2e-6].
    return { positions: 1e-6, velocities: 5e-5, momenta: 1.5e-5 };
  }
  if (c.integrator === 'variational-symplectic-implicit') {
    // v₊ = 2 res/h multiplies the roundings of res by 120, and p₊ = (h/2) f + M v₊ adds the
    // force's, k = 1000 N/m times the position differences [6.0e-7 m, 5.7e-5 m/s, 1.25e-5 kg·m/s].
    return { positions: 4e-6, velocities: 4e-4, momenta: 1e-4 };
  }
  // Cloth at k = 1000 N/m [2.4e-7 m, 1.8e-5 m/s].
  return { positions: 2e-6, velocities: 1.5e-4, momenta: 0 };
}

/**
 * Speed no particle reaches in a bounded run, m/s. The spring's energy, ½ k (0.1 m)² + ½ m v₀² +
 * gravity's work, bounds its speed by √(2E/m) ≈ 10.1 m/s (the energy-conserving schemes reach
 * 7.4 m/s in 4 steps); the cloth falls at ≤ 0.65 m/s.
 */
const SPEED_LIMIT = { spring: 12, cloth16: 2 } as const;

interface IntegratorRow {
  case: string;
  x: number;
  v: number;
  p: number;
  noiseX: number;
  noiseV: number;
  noiseP: number;
  iterations: string;
  maxIterations: string;
  newton: string;
}

/** The fixed-width table printed after a suite. */
export function formatTable(
  title: string,
  header: readonly string[],
  body: readonly string[][],
  leftAligned: readonly number[] = [0],
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => (leftAligned.includes(i) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [title, line(header), ...body.map(line)].join('\n');
}

const e2 = (x: number): string => (Number.isFinite(x) ? x.toExponential(2) : String(x));

function maxAbs(values: ArrayLike<number>): number {
  let m = 0;
  for (let k = 0; k < values.length; k++) m = Math.max(m, Math.abs(values[k]!));
  return m;
}

/** Fails on any GPU error the run collected. */
function expectNoGpuErrors(label: string, errors: readonly string[]): void {
  expect(errors, `${label}: GPU errors (validation, internal, out-of-memory, uncaptured)`).toEqual([]);
}

function solveTolerance(result: { scalars: Record<string, number> }): number {
  const equal = result.scalars.gpuIterations === result.scalars.cpuIterations;
  return equal ? KERNEL_TOLERANCE.solve['solution x']! * U32 : SOLVE_UNEQUAL_ITERATIONS;
}

function kernelNote(c: KernelCase, s: Record<string, number>): string {
  const relative = (a: number, b: number): string => e2(Math.abs(a - b) / Math.abs(b));
  switch (c.kernel) {
    case 'springJacobians':
      return `${s.stretched} stretched, ${s.compressed} compressed springs`;
    case 'cgStart':
      return `r·z rel. err ${relative(s.gpuRz!, s.referenceRz!)}, b·b rel. err ${relative(s.gpuBb!, s.referenceBb!)}`;
    case 'solve':
      return (
        `iterations GPU ${s.gpuIterations} CPU ${s.cpuIterations}; residual GPU ${e2(s.gpuResidual!)} ` +
        `(true ${e2(s.gpuTrueResidual!)}) CPU ${e2(s.cpuResidual!)}; |x − x*|/max|x*| GPU ` +
        `${e2(s.gpuErrorVsExact!)} CPU ${e2(s.cpuErrorVsExact!)}`
      );
    default:
      return '';
  }
}

function checkKernelArrays(
  c: KernelCase,
  compared: readonly ComparedArray[],
  scalars: Record<string, number>,
  rows: KernelRow[],
): void {
  const label = kernelCaseLabel(c);
  for (const q of compared) {
    const units = KERNEL_TOLERANCE[c.kernel][q.quantity];
    if (units === undefined) throw new Error(`${label}: no tolerance for ${q.quantity}`);
    const scale = maxAbs(q.reference);
    const relative = c.kernel === 'solve' ? solveTolerance({ scalars }) : units * U32;
    rows.push({
      case: label,
      quantity: q.quantity,
      maxError: maxAbsError(q.gpu, q.reference).error,
      scale,
      allowedUlps: relative / U32,
      note: kernelNote(c, scalars),
    });
    expectClose(q.gpu, q.reference, relative * scale, `${label}: GPU vs CPU ${q.quantity} (${q.unit})`, {
      stride: q.stride,
    });
  }
}

function checkKernelScalars(c: KernelCase, s: Record<string, number>): void {
  const label = kernelCaseLabel(c);
  const relativeClose = (actual: number, expected: number, what: string): void => {
    const error = Math.abs(actual - expected) / Math.abs(expected);
    expect(
      error,
      `${label}: ${what} GPU ${actual} vs CPU ${expected}, relative error ≤ ${REDUCTION_RELATIVE}`,
    ).toBeLessThanOrEqual(REDUCTION_RELATIVE);
  };
  switch (c.kernel) {
    case 'springJacobians':
      // The scene must exercise both branches of the clamped Jacobian.
      expect(s.stretched, `${label}: stretched springs`).toBeGreaterThan(0);
      expect(s.compressed, `${label}: compressed springs`).toBeGreaterThan(0);
      break;
    case 'cgStart':
      relativeClose(s.gpuRz!, s.referenceRz!, 'r·z');
      relativeClose(s.gpuBb!, s.referenceBb!, 'b·b');
      expect(s.gpuRr, `${label}: r·r = b·b at the start`).toBe(s.gpuBb);
      break;
    case 'solve': {
      expect(
        { gpu: s.gpuConverged, cpu: s.cpuConverged },
        `${label}: both solves converge within 200 iterations`,
      ).toEqual({ gpu: 1, cpu: 1 });
      expect(
        Math.abs(s.gpuIterations! - s.cpuIterations!),
        `${label}: iterations GPU ${s.gpuIterations}, CPU ${s.cpuIterations} (±2 allowed)`,
      ).toBeLessThanOrEqual(2);
      expect(s.gpuResidual, `${label}: the GPU's own relative residual`).toBeLessThanOrEqual(SOLVE_TOLERANCE);
      // The recursively updated residual drifts from the true one in float32; measured 8.041e-6
      // true for 8.038e-6 tracked.
      expect(
        s.gpuTrueResidual,
        `${label}: ‖b − A x‖/‖b‖ of the GPU's x, in float64 (tolerance ${SOLVE_TOLERANCE} + float32 drift)`,
      ).toBeLessThanOrEqual(1.5 * SOLVE_TOLERANCE);
      break;
    }
    default:
      break;
  }
}

function compareStates(
  label: string,
  gpu: StateArrays,
  cpu: StateArrays,
  allowed: ReturnType<typeof integratorTolerance>,
): void {
  expectClose(gpu.positions, cpu.positions, allowed.positions, `${label}: GPU vs CPU f32 positions (m)`);
  expectClose(
    gpu.velocities,
    cpu.velocities,
    allowed.velocities,
    `${label}: GPU vs CPU f32 velocities (m/s)`,
  );
  expect(gpu.momenta === undefined, `${label}: momenta present on GPU iff on CPU`).toBe(
    cpu.momenta === undefined,
  );
  if (gpu.momenta && cpu.momenta) {
    expectClose(gpu.momenta, cpu.momenta, allowed.momenta, `${label}: GPU vs CPU f32 momenta (kg·m/s)`);
  }
}

/**
 * The cases of `coverage` 'plumbing': the first case of each kernel, each integrator once (cloth,
 * PCG, Rayleigh damping) and multigrid once — every kernel and every program still runs, on fewer
 * variants. The full matrix runs in Chromium, where the brief requires it; Dawn in Node then checks
 * its own path (device, buffers, readbacks, Tint's version) at a third of the cost. The CG
 * energy-norm sequence, the determinism runs and the midpoint check run in Chromium only (the same
 * WGSL on the same SwiftShader; 'plumbing' used to repeat PCG's sequence, backward Euler's
 * determinism and the midpoint check there exactly).
 */
export const PLUMBING = {
  kernels: KERNEL_CASES.filter((c, k) => KERNEL_CASES.findIndex((d) => d.kernel === c.kernel) === k),
  integrators: INTEGRATOR_CASES.filter(
    (c) =>
      c.scene === 'cloth16' &&
      c.rayleigh &&
      (c.solver === 'pcg' || (c.solver === 'multigrid' && c.integrator === 'implicit-euler')),
  ),
  cgSolvers: [] as readonly ('cg' | 'pcg')[],
  determinism: [] as readonly (typeof IMPLICIT_INTEGRATOR_NAMES)[number][],
};

/**
 * Declares the suite: kernels, integrator × solver cases, CG's energy-norm error, determinism and
 * the variational midpoint check; `coverage` 'plumbing' runs {@link PLUMBING}'s subset. `runner()`
 * is called inside each test (after the file's beforeAll made the device or page); `title` names
 * the platform in the printed tables.
 */
export function describeImplicitSuite(
  runner: () => ImplicitRunner,
  title: () => string,
  coverage: 'all' | 'plumbing' = 'all',
): void {
  const all = coverage === 'all';
  const kernelCases = all ? KERNEL_CASES : PLUMBING.kernels;
  // 2 steps each under npm test (Newton iterates twice or more per step, the state carried from
  // one step to the next), INTEGRATOR_CASES' 4 under npm run test:long.
  const integratorSteps = shortOrLong(2, 4);
  const integratorCases = (all ? INTEGRATOR_CASES : PLUMBING.integrators).map((c) => ({
    ...c,
    steps: integratorSteps,
  }));
  const cgSolvers = all ? (['cg', 'pcg'] as const) : PLUMBING.cgSolvers;
  const determinism = all ? IMPLICIT_INTEGRATOR_NAMES : PLUMBING.determinism;
  if (!all) {
    test('the plumbing subset runs every kernel and every implicit integrator', () => {
      expect(new Set(kernelCases.map((c) => c.kernel))).toEqual(new Set(KERNEL_CASES.map((c) => c.kernel)));
      expect(new Set(integratorCases.map((c) => c.integrator))).toEqual(new Set(IMPLICIT_INTEGRATOR_NAMES));
    });
  }
  const kernelRows: KernelRow[] = [];
  const integratorRows: IntegratorRow[] = [];
  const cgRows: { solver: string; errors: number[]; residuals: number[] }[] = [];
  const midpointLines: string[] = [];

  afterAll(() => {
    if (kernelRows.length) {
      console.log(
        formatTable(
          `Kernels, GPU (${title()}) vs float64 on the GPU's float32 inputs (solve: vs CPU solver storing float32)`,
          ['case', 'array', 'max |Δ|', 'max |ref|', '|Δ|/(u·max|ref|)', 'allowed', 'notes'],
          kernelRows.map((r) => [
            r.case,
            r.quantity,
            e2(r.maxError),
            e2(r.scale),
            r.scale > 0 ? (r.maxError / (U32 * r.scale)).toFixed(1) : '0',
            r.allowedUlps.toFixed(0),
            r.note,
          ]),
          [0, 1, 6],
        ),
      );
    }
    if (integratorRows.length) {
      console.log(
        formatTable(
          `Integrators, GPU (${title()}) vs CPU float32 storage; noise = CPU f32 vs CPU f64; iterations and Newton GPU/CPU`,
          [
            'case',
            'max|Δx| m',
            'max|Δv| m/s',
            'max|Δp|',
            'noise x',
            'noise v',
            'noise p',
            'lin. it.',
            'max/solve',
            'Newton',
          ],
          integratorRows.map((r) => [
            r.case,
            e2(r.x),
            e2(r.v),
            r.p >= 0 ? e2(r.p) : '-',
            e2(r.noiseX),
            e2(r.noiseV),
            r.noiseP >= 0 ? e2(r.noiseP) : '-',
            r.iterations,
            r.maxIterations,
            r.newton,
          ]),
        ),
      );
    }
    for (const line of midpointLines) console.log(line);
    for (const row of cgRows) {
      console.log(
        `CG energy-norm error on the GPU (${title()}), ${row.solver}: ‖x* − x_k‖_A / ‖x*‖_A for k = 0 … ${row.errors.length - 1}\n` +
          row.errors.map((e) => e.toExponential(2)).join(' ') +
          `\nGPU relative residual for k = 1 … ${row.residuals.length}\n` +
          row.residuals.map((r) => r.toExponential(2)).join(' '),
      );
    }
  });

  describe('single kernels (sim.kernels) on the perturbed 16×16 cloth', () => {
    test.each(kernelCases.map((c) => [kernelCaseLabel(c), c] as const))('%s', async (_label, c) => {
      const result = await runner().kernel(c);
      expectNoGpuErrors(kernelCaseLabel(c), result.errors);
      checkKernelScalars(c, result.scalars);
      checkKernelArrays(c, result.compared, result.scalars, kernelRows);
    });
  });

  describe(`integrator × solver, ${integratorSteps} steps at h = 1/60 s`, () => {
    test.each(integratorCases.map((c) => [integratorCaseLabel(c), c] as const))('%s', async (label, c) => {
      const result = await runner().integrator(c);
      expectNoGpuErrors(label, result.errors);
      const { gpu, cpu, cpu64, gpuStats: g, cpuStats: k } = result;
      integratorRows.push({
        case: label,
        x: maxAbsError(gpu.positions, cpu.positions).error,
        v: maxAbsError(gpu.velocities, cpu.velocities).error,
        p: gpu.momenta && cpu.momenta ? maxAbsError(gpu.momenta, cpu.momenta).error : -1,
        noiseX: maxAbsError(cpu.positions, cpu64.positions).error,
        noiseV: maxAbsError(cpu.velocities, cpu64.velocities).error,
        noiseP: cpu.momenta && cpu64.momenta ? maxAbsError(cpu.momenta, cpu64.momenta).error : -1,
        iterations: `${g.linearIterations}/${k.linearIterations}`,
        maxIterations: `${g.maxLinearIterations}/${k.maxLinearIterations}`,
        newton: `${g.newtonIterations}/${k.newtonIterations}`,
      });
      expectClose(
        gpu.velocities,
        new Array<number>(gpu.velocities.length).fill(0),
        SPEED_LIMIT[c.scene],
        `${label}: bounded GPU velocities (m/s)`,
      );
      // The runs moved: the CPU's speeds are far above what the comparison allows (a GPU that
      // did not step fails it).
      const still = new Array<number>(cpu.velocities.length).fill(0);
      expect(maxAbsError(cpu.velocities, still).error, `${label}: CPU speed (m/s)`).toBeGreaterThan(
        100 * integratorTolerance(c).velocities,
      );
      compareStates(label, gpu, cpu, integratorTolerance(c));
      // Statistics: the same Newton path and solves; linear iterations may differ where a
      // residual crosses the tolerance one iteration apart (measured: ≤ 2 in total per case).
      const counted = (s: typeof g) => ({
        steps: s.steps,
        linearSolves: s.linearSolves,
        newtonIterations: s.newtonIterations,
        unconvergedSteps: s.unconvergedSteps,
        unconvergedSolves: s.unconvergedSolves,
        converged: s.converged,
      });
      expect(counted(g), `${label}: GPU solver statistics vs CPU f32`).toEqual(counted(k));
      expect(
        Math.abs(g.linearIterations - k.linearIterations),
        `${label}: linear iterations GPU ${g.linearIterations}, CPU ${k.linearIterations} (at most one per solve apart)`,
      ).toBeLessThanOrEqual(k.linearSolves);
      expect(
        Math.abs(g.maxLinearIterations - k.maxLinearIterations),
        `${label}: most iterations of one solve, GPU ${g.maxLinearIterations}, CPU ${k.maxLinearIterations}`,
      ).toBeLessThanOrEqual(2);
      if (c.solver === 'jacobi') {
        expect(k.unconvergedSolves, `${label}: the case list has Jacobi only where it converges`).toBe(0);
      }
    });
  });

  describe.runIf(cgSolvers.length > 0)(
    'CG error in the energy norm decreases with the iteration count',
    () => {
      // The GPU solves to relative residual 1e-6 (its float32 floor) in 32 (CG) and 28 (PCG)
      // iterations on implicit Euler's system of the perturbed cloth; x_k for every k up to there.
      test.each(cgSolvers)('%s on implicit Euler’s system', async (solver) => {
        const c: CgSequenceCase = { solver, integrator: 'implicit-euler', maxK: 60 };
        const result = await runner().cgSequence(c);
        expectNoGpuErrors(`${solver} energy norm`, result.errors);
        const e0 = result.energyErrors[0]!;
        cgRows.push({
          solver,
          errors: result.energyErrors.map((e) => e / e0),
          residuals: result.gpuResiduals,
        });
        expect(result.sameSystem, 'every simulation assembled bit-identical A and b').toBe(1);
        expect(result.convergedAt, 'iterations of the converged GPU solve').toBeGreaterThan(10);
        const K = Math.min(result.convergedAt, c.maxK);
        expect(result.energyErrors).toHaveLength(K + 1);
        expect(result.gpuIterations, 'the run limited to k iterations stopped after k').toEqual(
          Array.from({ length: K }, (_, k) => k + 1),
        );
        // CG minimises ‖x* − x‖_A over a growing Krylov space, so ‖x* − x_k‖_A cannot increase in
        // exact arithmetic. In float32 x_k carries roundings: allow an increase of at most
        // FLOOR = 1e-6 ‖x*‖_A (~17 U32, the float32 noise floor of an A-norm of x; the sequence
        // stops at ~1e-6 where the solve converges). Measured: every step decreases, by a factor
        // ≤ 0.78.
        const floor = 1e-6 * e0;
        const increases = result.energyErrors
          .map((e, k) => ({ k, e, previous: k > 0 ? result.energyErrors[k - 1]! : Infinity }))
          .filter(({ e, previous }) => e > previous + floor)
          .map(
            ({ k, e, previous }) =>
              `k = ${k}: ${(e / e0).toExponential(3)} > ${(previous / e0).toExponential(3)}`,
          );
        expect(increases, `${solver}: increases of ‖x* − x_k‖_A/‖x*‖_A beyond ${1e-6}`).toEqual([]);
        expect(
          result.energyErrors.at(-1)! / e0,
          `${solver}: ‖x* − x_K‖_A/‖x*‖_A at the GPU's converged iterate`,
        ).toBeLessThanOrEqual(1e-5);
      });
    },
  );

  describe.runIf(determinism.length > 0)('determinism', () => {
    // Gathers in a fixed order and tree-ordered reductions: runs agree bit for bit, and advance()
    // skipping finished iterations after a readback must not change a bit either.
    test.each(determinism)(
      'cloth16 %s, 5 steps: step() twice and advance() (checkEvery 8, 3) are bit-identical',
      async (integrator) => {
        const c: DeterminismCase = { integrator, solver: 'pcg', steps: 5 };
        const result = await runner().determinism(c);
        expectNoGpuErrors(`${integrator} determinism`, result.errors);
        const [first, ...others] = result.runs;
        expect(others.length, 'runs to compare').toBeGreaterThan(0);
        for (const other of others) {
          const label = `${integrator}: ${other.how} vs ${first!.how}`;
          compareStates(label, other.state, first!.state, { positions: 0, velocities: 0, momenta: 0 });
          expect(other.stats, `${label}: solver statistics`).toEqual(first!.stats);
        }
      },
    );
  });

  describe.runIf(all)('variational-symplectic-implicit solves its midpoint equation', () => {
    // Analytic check beside the CPU comparison (which cannot see an error both paths share).
    test(`undamped spring, k = ${MIDPOINT_SPRING_STIFFNESS} N/m, h = 1/60 s: (4/h²) M res = (2/h) p₀ + f(q₀ + res)`, async () => {
      const result = await runner().midpoint();
      expectNoGpuErrors('midpoint', result.errors);
      midpointLines.push(
        `Variational midpoint equation on the GPU (${title()}): max |G| ${e2(maxAbs(result.residual))} N, ` +
          `scale ${e2(result.scale)} N, ${result.newtonIterations} Newton iterations, converged ${result.converged}`,
      );
      expect(result.converged, 'Newton loop met newtonError 1e-6 within 50 iterations').toBe(1);
      // Float32 positions resolve res to ~6e-8 m, i.e. G to (4/h²) m · 6e-8 m ≈ 4e-4 N, 1.5e-6 of
      // the scale (292 N); measured 1.8e-4 N. Newton's last correction is ≤ 1.1e-6 m and
      // converges quadratically. Allowed: 1e-5 of the scale.
      expectClose(
        result.residual,
        new Array<number>(result.residual.length).fill(0),
        1e-5 * result.scale,
        `midpoint residual G per particle (N; 0 on the fixed one), scale ${result.scale.toFixed(1)} N, after ${result.newtonIterations} Newton iterations`,
      );
    });
  });
}
