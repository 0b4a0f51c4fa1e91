/**
 * A scheme as data: a short program of operations over named particle vectors, which each
 * backend's executor runs (src/backends/cpu/executor.ts interprets it; src/backends/webgpu/
 * executor.ts compiles it once into dispatches). After SOFA, whose ODE solvers are written as
 * vector operations (`b.eq(f)`, `vop.v_multiop(…)`) that every backend implements.
 *
 * Vectors are xyz per particle. `x` and `v` are the state; every other name is a work vector the
 * executor allocates. A ring is a history of vectors (`F@0` newest, `F@1` the one before, …) that
 * `rotate` shifts without copying: the oldest entry becomes the new `@0`.
 */

/** A coefficient: a number, or a function of the step h (evaluated when h is set). */
export type Coefficient = number | ((h: number) => number);

/** One output of a combination: `to = Σ c_j terms_j` (terms read before anything is written). */
export interface Output {
  readonly to: string;
  readonly terms: readonly (readonly [Coefficient, string])[];
}

export type Op =
  /** a = a(x, v) = M⁻¹ f(x, v) + g − r_m v (0 on fixed particles): the spring and gather passes. */
  | {
      readonly op: 'eval';
      readonly x: string;
      readonly v: string;
      readonly a: string;
      readonly rayleighMass: number;
    }
  /** Up to two linear combinations, computed from the old values, then written. */
  | { readonly op: 'combine'; readonly outputs: readonly Output[] }
  /** Shifts a ring: its oldest entry becomes `@0` (to be overwritten). */
  | { readonly op: 'rotate'; readonly ring: string }
  /** Runs the program's corrector (fixed-point iteration on pc.x, pc.v) to its tolerance. */
  | { readonly op: 'correct' };

/**
 * A fixed-point corrector: `body` writes the next iterate (pc.xNext, pc.vNext) from the current
 * one (pc.x, pc.v); the executor measures the change in the tolerance-scaled max-norm
 * (max |Δ| / (tol + tol |y⁽ᵏ⁺¹⁾|)), makes the next iterate current, and stops when the norm is ≤ 1
 * or after `maxIterations` sweeps.
 */
export interface Corrector {
  readonly body: readonly Op[];
  readonly tolerance: number;
  readonly maxIterations: number;
  /** false: exactly maxIterations sweeps, never counted unconverged (PECE, m = 1). */
  readonly check: boolean;
}

/** The most terms one output of a combination may have (the WGSL uniform holds eight). */
export const MAX_TERMS = 8;

/** A scheme's program. */
export interface Program {
  /** Rings and their lengths. */
  readonly rings: Readonly<Record<string, number>>;
  /** Run once, at creation (e.g. store F(y₀) in the history). */
  readonly setup: readonly Op[];
  /** Steps taken by `startup` before `step` takes over (multistep starters). */
  readonly startupSteps: number;
  readonly startup: readonly Op[];
  readonly step: readonly Op[];
  /** What `correct` runs (predictor–correctors only). */
  readonly corrector?: Corrector;
}

/** `name@j`, entry j of a ring (0 = newest). */
export const ringEntry = (ring: string, j: number): string => `${ring}@${j}`;

/** The ring and entry of a `name@j` vector name, or null for a plain vector. */
export function parseRingEntry(name: string): { ring: string; back: number } | null {
  const at = name.lastIndexOf('@');
  return at < 0 ? null : { ring: name.slice(0, at), back: Number(name.slice(at + 1)) };
}

/** Every vector name a program uses (ring entries as written, `x` and `v` included). */
export function vectorNames(program: Program): string[] {
  const names = new Set<string>(['x', 'v']);
  const all = [...program.setup, ...program.startup, ...program.step, ...(program.corrector?.body ?? [])];
  for (const op of all) {
    if (op.op === 'eval') [op.x, op.v, op.a].forEach((n) => names.add(n));
    if (op.op === 'combine')
      for (const out of op.outputs) {
        names.add(out.to);
        out.terms.forEach(([, n]) => names.add(n));
      }
  }
  return [...names];
}

/** The value of a coefficient at step h. */
export const coefficientAt = (c: Coefficient, h: number): number => (typeof c === 'number' ? c : c(h));
