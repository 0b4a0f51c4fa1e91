/**
 * The assertions and the error summary of test/gpu-browser.test.ts: one case's GPU state against
 * the CPU float32 path, within the tolerances below, and a table of the largest differences
 * measured.
 */
import { expect } from 'vitest';
import { createSimulation } from '../../src/index.ts';
import { expectClose, maxAbsError } from './expect-close.ts';
import { buildScene, integrationOf, type GpuCase, type GpuCaseResult, type SceneName } from './gpu-cases.ts';

/** Time step and step count per scene. */
export const SCENE_TIMING: Readonly<Record<SceneName, { dt: number; steps: number }>> = {
  // 0.2 s: about a third of the spring's stretch period (2π √(m/k) = 0.63 s).
  spring: { dt: 1e-3, steps: 200 },
  // 0.125 s of the cloth falling and swinging from its pins. Explicit Euler stays bounded here:
  // on the float64 CPU path its largest speed (1.23 m/s) and displacement (0.076 m) are those of
  // RK4 (1.23 m/s, 0.077 m), though it gains 0.16 J where RK4 loses 0.007 J, so its rounding
  // differences grow more (see the velocity tolerance below).
  cloth16: { dt: 1 / 960, steps: 120 },
};

/** r_m, 1/s, of the Rayleigh-damping cases; ≠ 0 makes central-difference's α = (1/h − r_m/2)/(1/h + r_m/2) ≠ 1. */
export const RAYLEIGH_MASS = 2;

/** Both schemes that treat r_m differently from the Runge–Kutta path. */
export const RAYLEIGH_INTEGRATORS = ['central-difference', 'variational-symplectic'] as const;

/**
 * Speed no particle reaches in a bounded run, m/s: the spring's peaks at 0.9 m/s, the cloth's
 * free fall reaches g t = 1.23 m/s. A blown-up run fails here before the comparison.
 */
const SPEED_LIMIT: Readonly<Record<SceneName, number>> = { spring: 3, cloth16: 5 };

/**
 * Allowed |GPU − CPU f32| per entry, absolute, in m and m/s. The GPU computes in f32; the CPU
 * stores in f32 but computes between stores in f64, so the two round differently in every pass
 * and the dynamics amplify the difference. Each bound is about 4–8× the largest difference
 * measured (identical in Node's Dawn and in Chromium 156, both on SwiftShader; see the summary
 * table each test file prints).
 */
export function tolerance(c: GpuCase): { positions: number; velocities: number } {
  if (c.scene === 'spring') {
    // Measured ≤ 1.2e-7 m (1 ulp at 1.2 m) and ≤ 7.8e-7 m/s.
    return { positions: 1e-6, velocities: 4e-6 };
  }
  // The cloth is stiff (k/m = 10⁴ s⁻²). One ulp of position near 1.5 m (1.2e-7 m) in a spring's
  // length is 1.2e-4 N of force, 1.2e-3 m/s² on a 0.1 kg particle, ~1.5e-4 m/s over the 0.125 s
  // run: velocities differ by ~1e-4 m/s while positions stay within a few ulp. The CPU's own
  // f32-vs-f64 gap is of the same size (the table's noise columns).
  if (c.integrator === 'explicit-euler') {
    // Explicit Euler amplifies every mode a little each step (|1 + i h ω| > 1), and rounding
    // differences with it: measured 2.3e-6 m and 6.1e-4 m/s.
    return { positions: 1e-5, velocities: 2.5e-3 };
  }
  // Measured ≤ 8.4e-7 m and ≤ 1.2e-4 m/s.
  return { positions: 5e-6, velocities: 5e-4 };
}

/** One row of the summary: the largest differences of one case. */
export interface ErrorRow {
  case: string;
  positions: number;
  velocities: number;
  /** Largest |CPU f32 − CPU f64| of positions and velocities: the float32 noise of this run. */
  f32Positions: number;
  f32Velocities: number;
}

export function caseLabel(c: GpuCase): string {
  return `${c.scene} ${c.integrator}${c.rayleighMass ? ` r_m=${c.rayleighMass}` : ''}`;
}

/** The Rayleigh-damping case of `integrator`: the spring scene with r_m = {@link RAYLEIGH_MASS}. */
export function rayleighCase(integrator: (typeof RAYLEIGH_INTEGRATORS)[number]): GpuCase {
  return { scene: 'spring', integrator, ...SCENE_TIMING.spring, rayleighMass: RAYLEIGH_MASS };
}

/**
 * Asserts that a case ran without GPU errors, stayed bounded and matches the CPU float32 path
 * within {@link tolerance}; appends its largest differences to `rows`.
 */
export async function checkGpuAgainstCpu(c: GpuCase, result: GpuCaseResult, rows: ErrorRow[]): Promise<void> {
  // The float64 CPU run is only for the summary's noise column.
  const f64 = await createSimulation(buildScene(c.scene), integrationOf(c));
  f64.step(c.steps);
  const reference = await f64.readState();
  rows.push({
    case: caseLabel(c),
    positions: maxAbsError(result.gpuPositions, result.cpuPositions).error,
    velocities: maxAbsError(result.gpuVelocities, result.cpuVelocities).error,
    f32Positions: maxAbsError(result.cpuPositions, reference.positions).error,
    f32Velocities: maxAbsError(result.cpuVelocities, reference.velocities).error,
  });

  expect(result.errors, `${caseLabel(c)}: GPU errors`).toEqual([]);
  const limit = SPEED_LIMIT[c.scene];
  expectClose(
    result.gpuVelocities,
    new Array<number>(result.gpuVelocities.length).fill(0),
    limit,
    `${caseLabel(c)}: bounded GPU velocities (m/s)`,
  );
  const allowed = tolerance(c);
  expectClose(
    result.gpuPositions,
    result.cpuPositions,
    allowed.positions,
    `${caseLabel(c)}: GPU vs CPU f32 positions (m)`,
  );
  expectClose(
    result.gpuVelocities,
    result.cpuVelocities,
    allowed.velocities,
    `${caseLabel(c)}: GPU vs CPU f32 velocities (m/s)`,
  );
}

/** The rows as a fixed-width table, for console.log in afterAll. */
export function formatErrorTable(title: string, rows: readonly ErrorRow[]): string {
  const e = (x: number): string => x.toExponential(2);
  const header = ['case', 'max |Δx| m', 'max |Δv| m/s', 'f32 noise x', 'f32 noise v'];
  const body = rows.map((r) => [
    r.case,
    e(r.positions),
    e(r.velocities),
    e(r.f32Positions),
    e(r.f32Velocities),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [
    title,
    '(GPU vs CPU float32 storage; "f32 noise" = CPU float32 vs CPU float64 on the same run)',
    line(header),
    ...body.map(line),
  ].join('\n');
}
