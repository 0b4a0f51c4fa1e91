/**
 * The programs of the error-controlled schemes: embedded Runge–Kutta (Cash–Karp RK45), step
 * doubling of any fixed-step scheme, and velocity-implicit Euler as step doubling of backward
 * Euler (the WebGPU path), built from the same ops as the fixed-step programs, so both backends
 * run them unchanged.
 */
import type { ErrorTolerances, ResolvedAdaptiveOptions } from './adaptive-options.ts';
import type { ResolvedImplicitOptions } from './implicit-options.ts';
import { resolveImplicitOptions } from './options.ts';
import { implicitProgram } from './implicit-programs.ts';
import { withContacts } from './contact-programs.ts';
import { withStrainLimitOps } from './strain-programs.ts';
import type { ResolvedStrainLimit } from '../model/strain-limit.ts';
import type { ResolvedWind } from '../model/wind.ts';
import { withWindOps } from './wind-programs.ts';
import { withSelfContact } from './self-contact-programs.ts';
import { renameOps, scaleStep, type Op, type Output, type Program } from './program.ts';
import { explicitProgram, rungeKuttaOps } from './programs.ts';
import { EXPLICIT_INTEGRATORS, STEP_DOUBLING_ORDER, type ExplicitIntegratorName } from './schemes.ts';
import { RUNGE_KUTTA_TABLEAUX } from './tableaux.ts';

/** (to.x, to.v) = (from.x, from.v). */
export const copyPair = (to: readonly [string, string], from: readonly [string, string]): Op => ({
  op: 'combine',
  outputs: [
    { to: to[0], terms: [[1, from[0]]] },
    { to: to[1], terms: [[1, from[1]]] },
  ],
});

/** A program that only attempts and accepts (no fixed step): on accept, `accepted` becomes the state. */
export function adaptiveOnly(
  estimateOrder: number,
  first: Op[],
  attempt: Op[],
  accepted: readonly [string, string] = ['cand.x', 'cand.v'],
): Program {
  const accept = [copyPair(['x', 'v'], accepted)];
  return {
    rings: {},
    setup: [],
    startupSteps: 0,
    startup: [],
    step: [],
    adaptive: { estimateOrder, first, attempt, accept },
  };
}

/**
 * Cash–Karp RK45 (src/integrators/tableaux.ts): the 5th-order solution is propagated, the error
 * is e = y⁵ − y⁴ = h Σ (b_j − b̂_j) k_j, O(h⁵). k₁ = F(y_n) is evaluated once per accepted state
 * (`first`), so a retry from the same state costs five evaluations, not six.
 */
export function rk45Program(rayleighMass: number, tolerances: ErrorTolerances): Program {
  const tableau = RUNGE_KUTTA_TABLEAUX['cash-karp'];
  const errorWeights = tableau.b.map((b, j) => b - tableau.bEmbedded[j]!);
  const velocities = ['v', 'rk.v2', 'rk.v3', 'rk.v4', 'rk.v5', 'rk.v6'];
  const accelerations = ['rk.a1', 'rk.a2', 'rk.a3', 'rk.a4', 'rk.a5', 'rk.a6'];
  const error = (to: string, terms: string[]) => ({
    to,
    terms: errorWeights.flatMap((w, j) => (w === 0 ? [] : [[(h: number) => w * h, terms[j]!] as const])),
  });
  return adaptiveOnly(
    5,
    [{ op: 'eval', x: 'x', v: 'v', a: 'rk.a1', rayleighMass }],
    [
      ...rungeKuttaOps(tableau, rayleighMass, 'rk.a1', ['cand.x', 'cand.v']),
      { op: 'combine', outputs: [error('err.x', velocities), error('err.v', accelerations)] },
      { op: 'norm', error: ['err.x', 'err.v'], start: ['x', 'v'], end: ['cand.x', 'cand.v'], tolerances },
    ],
  );
}

/**
 * Step doubling ("Automatic step-size", spec/ode-lecture-mass-spring-cloth.md) of any fixed-step
 * explicit scheme of order p (as a one-step map, {@link STEP_DOUBLING_ORDER}): one step h gives
 * y₁, two steps h/2 give y½; e = y₁ − y½ = (2^p − 1)·(error of y½) + O(h^(p+2)), the estimate,
 * O(h^(p+1)). y½ is propagated, or with `extrapolate` the Richardson value
 * y½ + (y½ − y₁)/(2^p − 1) (order p + 1; e, now an over-estimate, is still what the controller sees).
 */
export function stepDoublingProgram(
  scheme: ExplicitIntegratorName,
  rayleighMass: number,
  tolerances: ErrorTolerances,
  extrapolate: boolean,
): Program {
  const step = explicitProgram(scheme, rayleighMass).step;
  return stepDoublingOf(step, STEP_DOUBLING_ORDER[scheme], tolerances, extrapolate);
}

/**
 * Velocity-implicit Euler as the WebGPU path runs it: step doubling of backward Euler (Newton on
 * the acceleration, Caribou's criteria; a one-step map of order 1, so the estimate is O(h²)). A
 * Newton loop that ends unconverged fails the attempt. The full step's loop is the error
 * estimator's (its iterations are counted apart, as Drake counts them).
 */
export function velocityImplicitProgram(
  rayleighMass: number,
  tolerances: ErrorTolerances,
  options: ResolvedImplicitOptions,
): Program {
  const step = implicitProgram('backward-euler', rayleighMass, 0, options).step;
  return { ...stepDoublingOf(step, 1, tolerances, false), implicit: options };
}

/** Step doubling of one step of a fixed-step program (`step`, its map of order `mapOrder`). */
function stepDoublingOf(
  step: readonly Op[],
  mapOrder: number,
  tolerances: ErrorTolerances,
  extrapolate: boolean,
): Program {
  // The scheme's step, on its own copy of the state (x → prefix.x, work vectors prefixed too).
  const on = (prefix: string, ops: readonly Op[]): Op[] => renameOps(ops, (name) => `${prefix}.${name}`);
  const [firstHalf, secondHalf] = [scaleStep(step, 0.5), scaleStep(step, 0.5, 0.5)];
  const scale = 1 / (2 ** mapOrder - 1);
  const estimator = on('full', step).map((op): Op => (op.op === 'newton' ? { ...op, estimator: true } : op));
  const difference = (to: string, of: string): Output => ({ to, terms: [[1, `full.${of}`], [-1, `cand.${of}`]] });
  const attempt: Op[] = [
    copyPair(['full.x', 'full.v'], ['x', 'v']),
    ...estimator,
    copyPair(['cand.x', 'cand.v'], ['x', 'v']),
    ...on('cand', firstHalf),
    ...on('cand', secondHalf),
    { op: 'combine', outputs: [difference('err.x', 'x'), difference('err.v', 'v')] },
    { op: 'norm', error: ['err.x', 'err.v'], start: ['x', 'v'], end: ['cand.x', 'cand.v'], tolerances },
  ];
  if (extrapolate)
    attempt.push({ op: 'combine', outputs: [
      { to: 'cand.x', terms: [[1, 'cand.x'], [-scale, 'err.x']] },
      { to: 'cand.v', terms: [[1, 'cand.v'], [-scale, 'err.v']] },
    ] });
  return adaptiveOnly(mapOrder + 1, [], attempt);
} // prettier-ignore

/** What of a model changes an adaptive program: its colliders, strain limit and wind. */
export interface AdaptiveFeatures {
  readonly colliders?: readonly unknown[];
  readonly strainLimit?: ResolvedStrainLimit | null;
  readonly wind?: ResolvedWind | null;
  readonly selfCollision?: unknown;
}

/**
 * The program of an adaptive integrator, with the strain-limit sweeps
 * (src/integrators/strain-programs.ts) and then the contacts (contact-programs.ts) of `model` after
 * each accepted step, in the fixed-step programs' order. velocity-implicit-euler's is the WebGPU
 * path's (step doubling of backward Euler; its trial steps stop by Caribou's criteria with a fresh
 * Jacobian each iteration); the CPU runs Drake's algorithm instead (backends/cpu/velocity-implicit-euler.ts).
 * Wind adds `aero` after each `eval` and implicit `rhs` (wind-programs.ts); hinges (dihedral bending) need
 * no op: every `eval` includes them.
 */
export function adaptiveProgram(o: ResolvedAdaptiveOptions, model: AdaptiveFeatures): Program {
  const limited = withStrainLimitOps(schemeProgram(o), model.strainLimit ?? null);
  const contacts = withContacts(limited, o.integrator, model.colliders?.length ?? 0, acceptedDrift(o));
  const winds = withWindOps(contacts, model.wind ?? null);
  return withSelfContact(winds, Boolean(model.selfCollision));
}

/**
 * Velocity-implicit Euler's accepted state is two half steps of backward Euler (x₊ = x + h v₊ =
 * x + h v + h² a: drift 1), so (2 · 1 + 1)/4 = ¾, as for step doubling below; the CPU's Drake
 * stepper projects its accepted steps with it too.
 */
export const VELOCITY_IMPLICIT_DRIFT = 3 / 4;

/**
 * The `drift` of the accepted step (x₊ = x + h v + drift · h² a under a constant a;
 * src/integrators/schemes.ts): ½ for rk45; for step doubling, two half steps of a scheme of drift
 * d carry (2d + 1)/4 (h v/2 + d h² a/4, then h (v + h a/2)/2 + d h² a/4), and the Richardson value
 * (2^p y½ − y₁)/(2^p − 1) carries ½ for p = 1 and for every d = ½ scheme.
 */
function acceptedDrift(o: ResolvedAdaptiveOptions): number {
  if (o.integrator === 'velocity-implicit-euler') return VELOCITY_IMPLICIT_DRIFT;
  if (o.integrator !== 'step-doubling') return 0.5;
  const d = EXPLICIT_INTEGRATORS[o.scheme].drift;
  const half = (2 * d + 1) / 4;
  const p = STEP_DOUBLING_ORDER[o.scheme];
  return o.extrapolate ? (2 ** p * half - d) / (2 ** p - 1) : half;
}

function schemeProgram(o: ResolvedAdaptiveOptions): Program {
  switch (o.integrator) {
    case 'rk45':
      return rk45Program(o.rayleighMass, o.tolerances);
    case 'step-doubling':
      return stepDoublingProgram(o.scheme, o.rayleighMass, o.tolerances, o.extrapolate);
    case 'velocity-implicit-euler': {
      const implicit = resolveImplicitOptions('backward-euler', {
        solver: 'pcg',
        preconditioner: o.preconditioner,
        tolerance: Math.min(0.5, o.linearTolerance),
        maxIterations: o.linearMaxIterations,
        newtonIterations: o.maxNewtonIterations,
        jacobian: o.jacobian,
      });
      return velocityImplicitProgram(o.rayleighMass, o.tolerances, implicit);
    }
  }
}
