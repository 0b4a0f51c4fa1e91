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
import type { ErrorTolerances } from './adaptive-options.ts';
import type { ResolvedImplicitOptions } from './implicit-options.ts';
import type { RhsCoefficients, SystemCoefficients } from './implicit-schemes.ts';

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
      /**
       * c: the evaluation's time is t_n + c h (a Runge–Kutta stage's c_i; 1 for a state at the
       * step's end). Only time-dependent forces read it (the wind's turbulence); absent: 0.
       */
      readonly stage?: number;
    }
  /** Up to two linear combinations, computed from the old values, then written. */
  | { readonly op: 'combine'; readonly outputs: readonly Output[] }
  /** Shifts a ring: its oldest entry becomes `@0` (to be overwritten). */
  | { readonly op: 'rotate'; readonly ring: string }
  /** Runs the program's corrector (fixed-point iteration on pc.x, pc.v) to its tolerance. */
  | { readonly op: 'correct' }
  /**
   * The tolerance-scaled norm of the error (e_x, e_v) against the start state y and the end
   * state ŷ (Hairer's sc = a + r max(|y|, |ŷ|); src/backends/cpu/error-norm.ts): the attempt's
   * result, which the executor hands to the step-size controller.
   */
  | {
      readonly op: 'norm';
      readonly error: readonly [string, string];
      readonly start: readonly [string, string];
      readonly end: readonly [string, string];
      readonly tolerances: ErrorTolerances;
    }
  /** The spring states at (x, v): forces, Jacobian blocks K_s, directions (implicit-passes.ts). */
  | { readonly op: 'jacobians'; readonly x: string; readonly v: string }
  /**
   * `to` = the implicit right-hand side, one linear form over f, M, K, B applied to v, a and an
   * extra vector w (src/integrators/implicit-schemes.ts), at the last `jacobians`.
   */
  | {
      readonly op: 'rhs';
      readonly to: string;
      readonly v: string;
      readonly a: string;
      readonly extra: string;
      readonly coefficients: (h: number) => RhsCoefficients;
      /** c: the force term's time is t_n + c h (as `eval`'s; time-dependent forces only); absent: 0. */
      readonly stage?: number;
      /**
       * The state the wind's force in this right-hand side is taken at (src/integrators/wind-programs.ts),
       * as combinations of the program's vectors; absent: the last `jacobians`' x and this op's v.
       */
      readonly windAt?: { readonly x: Output['terms']; readonly v: Output['terms'] };
    }
  /**
   * `to` = A⁻¹ `rhs` by the program's linear solver, A = α M + β B + γ K at the last `jacobians`.
   * With `resume`, the last solve continues after `contactForces` released contacts: from `to` as
   * it is, to the last solve's reference (so it takes no iteration and is not counted when nothing
   * was released).
   */
  | {
      readonly op: 'solve';
      readonly rhs: string;
      readonly to: string;
      readonly system: (h: number) => SystemCoefficients;
      readonly resume?: boolean;
    }
  /**
   * Contacts (src/model/colliders.ts) constrain the next `solve` (Baraff & Witkin 1998 §5.3). With
   * `detect`, the contacts of the step are found at (x, v), each with the normal velocity T the
   * particle must end the step with (it ends on the surface); then, detect or not, the solve's
   * unknown s is constrained so that the end-of-step velocity v₊ = `base` + c s meets it:
   * n·s = z = (T − n·base)/c, c = `scale`, and CG runs filtered from x₀ = z n. Implicit Euler:
   * s = Δv, base = v, c = 1; the other schemes' c and base are in contact-programs.ts.
   */
  | {
      readonly op: 'contacts';
      readonly x: string;
      readonly v: string;
      readonly solution: string;
      readonly base: string;
      readonly scale: Coefficient;
      readonly detect: boolean;
      /**
       * Static friction inside the solve: a detected contact on a collider with friction > 0
       * starts out sticking, held in all three directions (v₊ = the surface's velocity, less the
       * gap's closing speed along n: Baraff & Witkin 1998 §5.3, S = 0), until its constraint
       * force leaves the friction cone (`contactForces` with `release`).
       */
      readonly stick?: boolean;
    }
  /**
   * After a constrained solve: each contact's constraint force λ n = (A s − b)·n n; a contact whose
   * force pulls inwards (λ < 0) is released for the next step — with `release`, at once, so that a
   * `solve` with `resume` solves again without it; a particle behind a surface is moved onto it once
   * (`x`, before the position update); with `friction`, as `contactFriction` then.
   */
  | {
      readonly op: 'contactForces';
      readonly solution: string;
      readonly rhs: string;
      readonly base: string;
      readonly x: string;
      readonly scale: Coefficient;
      readonly impulse: Coefficient;
      readonly friction: boolean;
      readonly release?: boolean;
    }
  /**
   * Coulomb friction of the last `contactForces`' λ: removes up to μ ι λ / m of the tangential part
   * of v₊ = `base` + c s (c = `scale`; ι = `impulse`, the velocity change per unit λ/m) and writes
   * the result back into s (`solution`).
   */
  | {
      readonly op: 'contactFriction';
      readonly solution: string;
      readonly base: string;
      readonly x: string;
      readonly scale: Coefficient;
      readonly impulse: Coefficient;
    }
  /**
   * u ← S w on the last `contacts` op's constrained particles (S = I − n nᵀ; w = `from`, or u
   * itself), u unchanged elsewhere: Newmark's carried acceleration (src/integrators/contact-programs.ts).
   */
  | { readonly op: 'contactFilter'; readonly vector: string; readonly from?: string }
  /**
   * Explicit integrators' contacts, after the step: a particle behind a surface (with `onSurface`,
   * or on it to rounding, SURFACE_SLACK (1 + |x|∞): explicit Euler's x₊ = x + h v lags its v₊, so a
   * resting step ends there moving inwards) is moved onto it, its inward normal velocity removed,
   * and friction applied with that velocity change. With
   * `slack`, only one behind it by more than rounding (gap < −SURFACE_SLACK (1 + |x|∞)): the
   * implicit schemes' constrained contacts end the step on the surface moving inwards at max(g, 0)/h,
   * and projecting them or not would hang on the rounding of g ≈ 0. Friction's velocity change Δv
   * is taken back from the positions as the scheme's own step would carry it, x += drift · h Δv
   * (the scheme's `drift`, src/integrators/schemes.ts; default 1: x₊ = x + h v₊). `restart`: on a
   * particle whose velocity the projection changed, the projected v is written into these vectors
   * too (a multistep scheme's velocity history, restarted at the contact: contact-programs.ts).
   */
  | { readonly op: 'project'; readonly x: string; readonly v: string; readonly slack?: boolean; readonly onSurface?: boolean; readonly drift?: number; readonly restart?: readonly string[] } // prettier-ignore
  /**
   * Kinematic colliders: each collider advances by h u over the step, u its velocity
   * (src/backends/common/collider-poses.ts; 0 for a collider at rest).
   */
  | { readonly op: 'moveColliders' }
  /**
   * Wind (src/model/wind.ts): `to`_i += c(h) f_i, or c(h) f_i / m_i with `perMass`, on free
   * particles, f_i the aerodynamic force on particle i at (x, v) — a third of each of its
   * triangles' drag and lift, with the wind at time t_n + `stage` h (t_n: the step's start).
   */
  | {
      readonly op: 'aero';
      readonly x: string;
      readonly v: string;
      readonly to: string;
      readonly scale: Coefficient;
      readonly perMass: boolean;
      readonly stage: number;
    }
  /** The wind's clock advances by one step (its turbulence depends on the time). */
  | { readonly op: 'windClock' }
  /**
   * Strain limiting (Provot 1995, as a Jacobi sweep): `to` = each particle's mean correction over
   * its incident springs longer than (1 + maxStretch) L, a spring's excess split by inverse masses
   * (src/integrators/strain-programs.ts applies it to x and v).
   */
  | { readonly op: 'strainCorrection'; readonly x: string; readonly to: string; readonly maxStretch: number }
  /**
   * Self-collision (src/model/self-collision.ts), at the step's start: the pairs of primitives
   * within reach of each other at (x, v); their repulsion joins every `eval`, `jacobians`, `rhs`
   * and system product of the step.
   */
  | { readonly op: 'selfContacts'; readonly x: string; readonly v: string }
  /**
   * Self-collision's fail-safe, after the step: each particle's move from `start` is shortened so
   * that it crosses no listed pair's separating plane (planar truncation), v scaled with it;
   * `restart`: a shortened particle's new v is written to each of these too (a multistep scheme's
   * velocity history restarted: self-contact-programs.ts).
   */
  | { readonly op: 'selfFailSafe'; readonly x: string; readonly v: string; readonly start: string; readonly restart?: readonly string[] } // prettier-ignore
  /** Squared norms ‖vector‖² of the Newton loop's measured quantities. */
  | { readonly op: 'measure'; readonly quantities: Readonly<Partial<Record<NewtonQuantity, string>>> }
  /**
   * Newton's loop: `begin`, then for i = 0, 1, …: `residual`, the criterion's check (stop when
   * met, or unconverged at i = maxIterations), `update`.
   */
  | {
      readonly op: 'newton';
      readonly criterion: NewtonCriterion;
      /** Counted apart as the error estimator's work (velocity-implicit Euler's full step). */
      readonly estimator?: boolean;
      /** The loop's step as a fraction of the program's h (a step-doubling half: ½); default 1. */
      readonly stepFraction?: number;
      readonly begin: readonly Op[];
      readonly residual: readonly Op[];
      readonly update: readonly Op[];
    };

/**
 * How a Newton loop stops (thresholds from the program's implicit options):
 * - 'caribou' (backward-euler, spec/caribou-backward-euler.md): at i = 0 when ‖R‖ ≤ tol_a; later
 *   when ‖δa‖ < tol_c ‖Σδa‖, ‖R‖ < tol_r ‖R₁‖ or ‖R‖ < tol_a, R₁ the residual at i = 1;
 *   unconverged on a NaN or Σδa = 0. Weft adds a round-off floor (not in Caribou): converged when
 *   the last correction moved the positions by at most their storage's rounding,
 *   (f h)² ‖δa‖ ≤ u ‖x₀‖ (f the loop's `stepFraction`, u the unit round-off: 2⁻²⁴ in float32,
 *   2⁻⁵³ in float64); at an equilibrium float32's ‖R‖ is round-off far above tol_a and Σδa ≈ 0,
 *   so no other test can end the loop. Reads `residual` (‖R‖²), `correction`, `total`, `start`
 *   (‖x₀‖²).
 * - 'variational' (SOFA VariationalSymplecticSolver): goes on while (i < max and
 *   ‖Δq‖/‖q₀‖ > newtonError) or i = 0. Reads `start` (‖q₀‖²) and `change` (‖Δq‖²).
 */
export type NewtonCriterion = 'caribou' | 'variational';
export type NewtonQuantity = 'residual' | 'correction' | 'total' | 'start' | 'change';

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
  /** How `solve` solves and what `newton` stops by (implicit programs only). */
  readonly implicit?: ResolvedImplicitOptions;
  /** The vector holding the momenta p, reported with the state (variational schemes). */
  readonly momenta?: string;
  /**
   * Adaptive schemes: `first` runs once per accepted state (work an attempt can reuse when it is
   * retried from the same state), `attempt` computes the candidate (cand.x, cand.v) of a step h
   * and ends with a `norm`, `accept` makes the candidate the state. The error estimate is
   * O(h^estimateOrder).
   */
  readonly adaptive?: {
    readonly estimateOrder: number;
    readonly first: readonly Op[];
    readonly attempt: readonly Op[];
    readonly accept: readonly Op[];
  };
}

/** The op lists of a program, by name. */
export type Block = 'setup' | 'startup' | 'step' | 'first' | 'attempt' | 'accept';

export function blockOps(program: Program, block: Block): readonly Op[] {
  if (block === 'setup' || block === 'startup' || block === 'step') return program[block];
  return program.adaptive?.[block] ?? [];
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
  // The GPU's corrector measures each sweep's change d = next − current in these.
  if (program.corrector?.check) ['pc.dx', 'pc.dv'].forEach((n) => names.add(n));
  // A linear solver's own vectors (the GPU's live in the arena): residual r, direction p, s = A p,
  // u = P⁻¹ r, w = A u (Chronopoulos–Gear CG).
  if (program.implicit) ['cg.r', 'cg.p', 'cg.s', 'cg.u', 'cg.w'].forEach((n) => names.add(n));
  // … and the multigrid V-cycle's two iterates on the particles.
  if (program.implicit?.solver === 'multigrid') ['mg.x', 'mg.y'].forEach((n) => names.add(n));
  const all = [
    ...program.setup,
    ...program.startup,
    ...program.step,
    ...(program.corrector?.body ?? []),
    ...(program.adaptive
      ? [...program.adaptive.first, ...program.adaptive.attempt, ...program.adaptive.accept]
      : []),
  ];
  for (const op of flatOps(all)) opVectors(op).forEach((n) => names.add(n));
  return [...names];
}

/** `ops` with the blocks of every `newton` spliced in (recursively). */
export function flatOps(ops: readonly Op[]): Op[] {
  return ops.flatMap((op) =>
    op.op === 'newton' ? [op, ...flatOps([...op.begin, ...op.residual, ...op.update])] : [op],
  );
}

/** The vectors one op names (not those of a newton's blocks). */
function opVectors(op: Op): string[] {
  switch (op.op) {
    case 'eval':
      return [op.x, op.v, op.a];
    case 'combine':
      return op.outputs.flatMap((out) => [out.to, ...out.terms.map(([, n]) => n)]);
    case 'norm':
      return [...op.error, ...op.start, ...op.end];
    case 'jacobians':
      return [op.x, op.v];
    case 'rhs':
      return [op.to, op.v, op.a, op.extra];
    case 'solve':
      return [op.rhs, op.to];
    case 'measure':
      return Object.values(op.quantities);
    case 'contactFilter':
      return [op.vector, ...(op.from ? [op.from] : [])];
    case 'contacts':
      return [op.x, op.v, op.solution, op.base];
    case 'project':
      return [op.x, op.v, ...(op.restart ?? [])];
    case 'selfContacts':
      return [op.x, op.v];
    case 'selfFailSafe':
      return [op.x, op.v, op.start, ...(op.restart ?? [])];
    case 'contactForces':
      return [op.solution, op.rhs, op.base, op.x];
    case 'contactFriction':
      return [op.solution, op.base, op.x];
    case 'aero':
      return [op.x, op.v, op.to];
    case 'strainCorrection':
      return [op.x, op.to];
    default:
      return [];
  }
}

/** The value of a coefficient at step h. */
export const coefficientAt = (c: Coefficient, h: number): number => (typeof c === 'number' ? c : c(h));

export { renameOps, scaleStep } from './program-transforms.ts';
