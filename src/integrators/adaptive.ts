/** The adaptive (error-controlled) integrators: records of the catalog. */
/** The error-controlled integrators, with the order of the solution they propagate. */
export const ADAPTIVE_INTEGRATORS = {
  rk45: {
    order: 5,
    summary:
      'Embedded Runge–Kutta, Cash–Karp coefficients (spec/ode-lecture-mass-spring-cloth.md): 6 evaluations per step; propagates the 5th-order solution, error estimate y⁵ − y⁴ (local extrapolation). Explicit: the step is bounded by stability on stiff systems.',
  },
  'step-doubling': {
    order: 0,
    summary:
      'Any explicit scheme (option `scheme`) with step doubling: one step h and two steps h/2, error = their difference (O(h^(p+1))), the two half steps propagated (optionally Richardson-extrapolated). Order = the scheme’s.',
  },
  'velocity-implicit-euler': {
    order: 1,
    summary:
      'Implicit Euler with Newton in the velocities only (Drake VelocityImplicitEulerIntegrator): v₊ = v + h M⁻¹ f(x + h v₊, v₊), x₊ = x + h v₊; error from one full step vs two half steps (order 2), half steps propagated. L-stable: the step follows accuracy, not stiffness.',
  },
} as const satisfies Record<string, { order: number; summary: string }>;

/** The error-controlled integrators: rk45, step-doubling, velocity-implicit-euler. */
export type AdaptiveIntegratorName = keyof typeof ADAPTIVE_INTEGRATORS;
export const ADAPTIVE_INTEGRATOR_NAMES = Object.keys(ADAPTIVE_INTEGRATORS) as AdaptiveIntegratorName[];
