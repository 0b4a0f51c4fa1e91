/**
 * The programs of the explicit and multistep integrators, built from their records and
 * coefficients (src/integrators/tableaux.ts). Each backend runs them unchanged.
 */
import { ADAMS_WEIGHTS, RUNGE_KUTTA_TABLEAUX, type ButcherTableau } from './tableaux.ts';
import { STARTUP_STEPS, type MultistepIntegratorName } from './multistep.ts';
import { tableauOf, type ExplicitIntegratorName } from './schemes.ts';
import {
  ringEntry,
  type Coefficient,
  type Corrector,
  type Op,
  type Output,
  type Program,
} from './program.ts';

/** `to = base + h Σ w_j terms_j` (zero weights dropped). */
function step(to: string, base: string | null, weights: readonly number[], terms: readonly string[]): Output {
  const sum: [Coefficient, string][] = [];
  if (base) sum.push([1, base]);
  weights.forEach((w, j) => {
    if (w !== 0) sum.push([(h: number) => w * h, terms[j]!]);
  });
  return { to, terms: sum };
}

/** a(x, v) into `a`, at time t_n + `stage` h (ops of {@link Op} 'eval'). */
const evaluate = (x: string, v: string, a: string, rayleighMass: number, stage = 0): Op => ({
  op: 'eval',
  x,
  v,
  a,
  rayleighMass,
  ...(stage !== 0 ? { stage } : {}),
});

/**
 * One explicit Runge–Kutta step of `tableau` on (x, v), F(y) = (v, a(x, v)):
 *   X_i = x + h Σ_j a_ij V_j,  V_i = v + h Σ_j a_ij A_j,  A_i = a(X_i, V_i)   (V₁ = v, X₁ = x),
 *   x₊ = x + h Σ_j b_j V_j,  v₊ = v + h Σ_j b_j A_j.
 * `firstDerivative` names a vector already holding a(x, v) (the multistep starter reuses F_n).
 */
export function rungeKuttaOps(
  tableau: ButcherTableau,
  rayleighMass: number,
  firstDerivative?: string,
  out: readonly [string, string] = ['x', 'v'],
): Op[] {
  const velocities = ['v'];
  const accelerations = [firstDerivative ?? 'rk.a1'];
  const ops: Op[] = firstDerivative ? [] : [evaluate('x', 'v', 'rk.a1', rayleighMass)];
  for (let i = 1; i < tableau.b.length; i++) {
    const row = tableau.a[i]!;
    velocities.push(`rk.v${i + 1}`);
    accelerations.push(`rk.a${i + 1}`);
    ops.push(
      {
        op: 'combine',
        outputs: [step('rk.x', 'x', row, velocities), step(velocities[i]!, 'v', row, accelerations)],
      },
      evaluate('rk.x', velocities[i]!, accelerations[i]!, rayleighMass, tableau.c[i]),
    );
  }
  ops.push({
    op: 'combine',
    outputs: [step(out[0], 'x', tableau.b, velocities), step(out[1], 'v', tableau.b, accelerations)],
  });
  return ops;
}

/**
 * The symplectic family, one evaluation and v₊ = α v + β a, x₊ = x + h v₊ = x + hα v + hβ a:
 * symplectic Euler and the explicit variational scheme α = 1, β = h (r_m inside a); central
 * difference (SOFA, spec/sofa-ode-solvers.md §6) α = (1/h − r_m/2)/(1/h + r_m/2),
 * β = 1/(1/h + r_m/2) with r_m outside a.
 */
function symplecticOps(centred: boolean, rayleighMass: number): Op[] {
  const r = rayleighMass;
  const alpha = (h: number): number => (centred ? (1 / h - r / 2) / (1 / h + r / 2) : 1);
  const beta = (h: number): number => (centred ? 1 / (1 / h + r / 2) : h);
  return [
    evaluate('x', 'v', 'a', centred ? 0 : r),
    {
      op: 'combine',
      outputs: [
        {
          to: 'v',
          terms: [
            [alpha, 'v'],
            [beta, 'a'],
          ],
        },
        {
          to: 'x',
          terms: [
            [1, 'x'],
            [(h) => h * alpha(h), 'v'],
            [(h) => h * beta(h), 'a'],
          ],
        },
      ],
    },
  ];
}

/** The program of an explicit integrator with Rayleigh mass damping r_m (1/s). */
export function explicitProgram(name: ExplicitIntegratorName, rayleighMass: number): Program {
  const tableau = tableauOf(name);
  const ops = tableau
    ? rungeKuttaOps(tableau, rayleighMass)
    : symplecticOps(name === 'central-difference', rayleighMass);
  return { rings: {}, setup: [], startupSteps: 0, startup: [], step: ops };
}

/** History rings of the multistep schemes: F_{n−j} = (Fv@j, Fa@j), three kept (AB3 reads three). */
const HISTORY = { Fv: 3, Fa: 3 };
const history = (ring: 'Fv' | 'Fa', count: number): string[] =>
  Array.from({ length: count }, (_, j) => ringEntry(ring, j));

/** Stores F(y) of the (new) state, at the step's end t_n + h, as the newest history entry. */
function pushDerivative(rayleighMass: number): Op[] {
  return [
    { op: 'rotate', ring: 'Fv' },
    { op: 'rotate', ring: 'Fa' },
    { op: 'combine', outputs: [{ to: ringEntry('Fv', 0), terms: [[1, 'v']] }] },
    evaluate('x', 'v', ringEntry('Fa', 0), rayleighMass, 1),
  ];
}

/** y_out = y + h Σ w_j F_{n−j}. */
function adams(weights: readonly number[], out: readonly [string, string]): Op {
  return {
    op: 'combine',
    outputs: [
      step(out[0], 'x', weights, history('Fv', weights.length)),
      step(out[1], 'v', weights, history('Fa', weights.length)),
    ],
  };
}

/** The corrector of a multistep integrator, or null for Adams–Bashforth. */
export function correctorOf(
  name: MultistepIntegratorName,
  rayleighMass: number,
  tolerance: number,
  maxIterations: number,
): Corrector | null {
  if (name === 'adams-bashforth-2' || name === 'adams-bashforth-3') return null;
  // AM3: y + h (5/12 F(y⁽ᵏ⁾) + 8/12 F_n − 1/12 F_{n−1}); implicit Euler: y + h F(y⁽ᵏ⁾);
  // implicit Heun: y + h (F(y⁽ᵏ⁾) + F_n)/2.
  const weights =
    name === 'adams-moulton-pc' ? ADAMS_WEIGHTS.moulton3 : name === 'implicit-euler-pc' ? [1, 0] : [0.5, 0.5];
  const terms = (first: string, ring: 'Fv' | 'Fa'): string[] => [first, ...history(ring, weights.length - 1)];
  return {
    body: [
      evaluate('pc.x', 'pc.v', 'pc.a', rayleighMass, 1),
      {
        op: 'combine',
        outputs: [
          step('pc.xNext', 'x', weights, terms('pc.v', 'Fv')),
          step('pc.vNext', 'v', weights, terms('pc.a', 'Fa')),
        ],
      },
    ],
    tolerance,
    maxIterations,
    check: name !== 'adams-moulton-pc' || maxIterations > 1,
  };
}

/** The predictor of a predictor–corrector, into (pc.x, pc.v). */
function predictorOps(name: MultistepIntegratorName, rayleighMass: number): Op[] {
  const out = ['pc.x', 'pc.v'] as const;
  if (name === 'adams-moulton-pc') return [adams(ADAMS_WEIGHTS.bashforth3, out)];
  const euler = adams([1], out);
  if (name === 'implicit-euler-pc') return [euler];
  // Explicit Heun: y + h (F_n + F(y + h F_n))/2.
  return [
    euler,
    evaluate('pc.x', 'pc.v', 'pc.a', rayleighMass, 1),
    {
      op: 'combine',
      outputs: [
        step('pc.x', 'x', [0.5, 0.5], [ringEntry('Fv', 0), 'pc.v']),
        step('pc.v', 'v', [0.5, 0.5], [ringEntry('Fa', 0), 'pc.a']),
      ],
    },
  ];
}

/**
 * The program of a multistep integrator (spec/integration-methods-lecture-de.md): F(y₀) opens the
 * history; `startupSteps` RK4 steps (their first stage reuses F_n); then Adams–Bashforth
 * y₊ = y + h Σ β_j F_{n−j}, or a predictor, the corrector (op `correct`, run by the executor),
 * and y₊ = the last iterate; every step ends by storing F(y₊).
 */
export function multistepProgram(
  name: MultistepIntegratorName,
  rayleighMass: number,
  correctorTolerance: number,
  maxCorrectorIterations: number,
): Program {
  const push = pushDerivative(rayleighMass);
  const setup: Op[] = [
    { op: 'combine', outputs: [{ to: ringEntry('Fv', 0), terms: [[1, 'v']] }] },
    evaluate('x', 'v', ringEntry('Fa', 0), rayleighMass),
  ];
  const startup = [...rungeKuttaOps(RUNGE_KUTTA_TABLEAUX.rk4, rayleighMass, ringEntry('Fa', 0)), ...push];
  let body: Op[];
  if (name === 'adams-bashforth-2') body = [adams(ADAMS_WEIGHTS.bashforth2, ['x', 'v'])];
  else if (name === 'adams-bashforth-3') body = [adams(ADAMS_WEIGHTS.bashforth3, ['x', 'v'])];
  else
    body = [
      ...predictorOps(name, rayleighMass),
      { op: 'correct' },
      {
        op: 'combine',
        outputs: [
          { to: 'x', terms: [[1, 'pc.x']] },
          { to: 'v', terms: [[1, 'pc.v']] },
        ],
      },
    ];
  const corrector = correctorOf(name, rayleighMass, correctorTolerance, maxCorrectorIterations);
  return {
    rings: HISTORY,
    setup,
    startupSteps: STARTUP_STEPS[name],
    startup,
    step: [...body, ...push],
    ...(corrector ? { corrector } : {}),
  };
}
