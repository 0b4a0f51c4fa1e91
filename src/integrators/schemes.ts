import { WeftInputError } from '../errors.ts';

/**
 * The explicit integrators, with their global order of accuracy (measured in
 * test/cpu-convergence.test.ts). Formulas: spec/sofa-ode-solvers.md and
 * spec/integration-methods-lecture-de.md, with the errata of spec/README.md.
 */
export const EXPLICIT_INTEGRATORS = {
  'explicit-euler': {
    order: 1,
    summary:
      'x₊ = x + h v, v₊ = v + h a(x, v). Unstable on an undamped oscillator at every h (amplitude grows).',
  },
  'symplectic-euler': {
    order: 1,
    summary:
      'v₊ = v + h a(x, v), x₊ = x + h v₊ (SOFA EulerExplicit default). Stable for h ω < 2; energy bounded.',
  },
  rk2: {
    order: 2,
    summary: 'Midpoint: a state at t + h/2 from an Euler half step, then the full step with its derivative.',
  },
  heun: { order: 2, summary: 'Heun: k₁ = F(y), k₂ = F(y + h k₁), y₊ = y + h (k₁ + k₂)/2.' },
  rk4: { order: 4, summary: 'Classic fourth-order Runge–Kutta, weights 1/6, 1/3, 1/3, 1/6.' },
  'central-difference': {
    order: 2,
    summary:
      'Leapfrog (SOFA CentralDifference): v lives at half steps; r_m treated by the centred formula. Order 2 when the initial velocity is v(−h/2), 1 from a collocated start.',
  },
  'variational-symplectic': {
    order: 1,
    summary:
      'Explicit variational symplectic (SOFA): v₊ = (p + h (f − r_m M v))/M, p₊ = M v₊, x₊ = x + h v₊; with p = M v this is symplectic Euler.',
  },
} as const satisfies Record<string, { order: number; summary: string }>;

export type ExplicitIntegratorName = keyof typeof EXPLICIT_INTEGRATORS;
export const EXPLICIT_INTEGRATOR_NAMES = Object.keys(EXPLICIT_INTEGRATORS) as ExplicitIntegratorName[];

/**
 * A step as a list of passes shared by the CPU and GPU paths.
 *
 * `runge-kutta`: an explicit RK scheme whose stage i + 1 depends only on stage i
 * (Euler, midpoint, Heun, RK4). With k_i = (v_i, a_i) evaluated at stage state (x_i, v_i):
 *   x_{i+1} = x + c_{i+1} h v_i,  v_{i+1} = v + c_{i+1} h a_i,  y₊ = y + h Σ b_i k_i.
 *
 * `symplectic`: one force evaluation, then v₊ = α v + β a, x₊ = x + h v₊.
 */
export type StepPlan =
  | {
      readonly kind: 'runge-kutta';
      /** c_2 … c_s, in units of h. */
      readonly stageOffsets: readonly number[];
      /** b_1 … b_s. */
      readonly weights: readonly number[];
      /** r_m applied as the force −r_m M v in every evaluation, 1/s. */
      readonly rayleighMass: number;
    }
  | {
      readonly kind: 'symplectic';
      /** α in v₊ = α v + β a. */
      readonly velocityScale: number;
      /** β in v₊ = α v + β a, s. */
      readonly accelerationScale: number;
      /** r_m inside the acceleration (0 when the scheme treats it in α, β), 1/s. */
      readonly rayleighMass: number;
    };

const RUNGE_KUTTA: Record<string, { stageOffsets: number[]; weights: number[] }> = {
  'explicit-euler': { stageOffsets: [], weights: [1] },
  rk2: { stageOffsets: [0.5], weights: [0, 1] },
  heun: { stageOffsets: [1], weights: [0.5, 0.5] },
  rk4: { stageOffsets: [0.5, 0.5, 1], weights: [1 / 6, 1 / 3, 1 / 3, 1 / 6] },
};

export function planStep(name: ExplicitIntegratorName, h: number, rayleighMass: number): StepPlan {
  const tableau = RUNGE_KUTTA[name];
  if (tableau) return { kind: 'runge-kutta', ...tableau, rayleighMass };
  if (name === 'central-difference') {
    // spec/sofa-ode-solvers.md §6: v₊ = v (1/h − r_m/2)/(1/h + r_m/2) + a/(1/h + r_m/2), a = f(x)/m.
    // With r_m = 0 this is v₊ = v + h a.
    const denominator = 1 / h + rayleighMass / 2;
    return {
      kind: 'symplectic',
      velocityScale: (1 / h - rayleighMass / 2) / denominator,
      accelerationScale: 1 / denominator,
      rayleighMass: 0,
    };
  }
  // symplectic-euler and variational-symplectic: v₊ = v + h (f/m − r_m v).
  return { kind: 'symplectic', velocityScale: 1, accelerationScale: h, rayleighMass };
}

/** Options shared by every backend. Units are SI. */
export interface IntegrationOptions {
  /** Integrator name, one of {@link EXPLICIT_INTEGRATOR_NAMES}. */
  integrator: ExplicitIntegratorName;
  /** Time step h, s. Must be finite and > 0. */
  dt: number;
  /** Rayleigh mass damping r_m (force −r_m M v), 1/s. Default 0. */
  rayleighMass?: number;
  /**
   * Rayleigh stiffness damping r_k (force −r_k K v), s. Default 0. It needs the stiffness matrix,
   * which only the implicit integrators assemble; explicit integrators reject a non-zero value.
   */
  rayleighStiffness?: number;
}

export function validateIntegrationOptions(options: IntegrationOptions): Required<IntegrationOptions> {
  if (!(options.integrator in EXPLICIT_INTEGRATORS)) {
    throw new WeftInputError(
      'integrator',
      `unknown integrator '${String(options.integrator)}' (known: ${EXPLICIT_INTEGRATOR_NAMES.join(', ')})`,
    );
  }
  if (typeof options.dt !== 'number' || !Number.isFinite(options.dt) || options.dt <= 0) {
    throw new WeftInputError('dt', `must be a finite number > 0, got ${String(options.dt)}`);
  }
  const rayleighMass = options.rayleighMass ?? 0;
  if (!Number.isFinite(rayleighMass) || rayleighMass < 0) {
    throw new WeftInputError('rayleighMass', `must be a finite number ≥ 0, got ${rayleighMass}`);
  }
  const rayleighStiffness = options.rayleighStiffness ?? 0;
  if (!Number.isFinite(rayleighStiffness) || rayleighStiffness < 0) {
    throw new WeftInputError('rayleighStiffness', `must be a finite number ≥ 0, got ${rayleighStiffness}`);
  }
  if (rayleighStiffness !== 0) {
    throw new WeftInputError(
      'rayleighStiffness',
      `the explicit integrator '${options.integrator}' cannot apply stiffness damping (it needs the stiffness matrix); use an implicit integrator, rayleighMass or spring damping`,
    );
  }
  return { integrator: options.integrator, dt: options.dt, rayleighMass, rayleighStiffness };
}
