/**
 * Every coefficient of Weft's Runge–Kutta and Adams schemes, in one place. The CPU and WebGPU
 * executors, step doubling and the multistep starters all read them from here.
 */

/**
 * An explicit Runge–Kutta tableau (Butcher): stage i is evaluated at t + c_i h on
 * y + h Σ_{j<i} a_ij k_j, and y₊ = y + h Σ_j b_j k_j. An embedded pair also has b̂ (the
 * lower-order weights of the error estimate y − ŷ = h Σ (b_j − b̂_j) k_j).
 */
export interface ButcherTableau {
  /** c_i, stage times in units of h (c₁ = 0). */
  readonly c: readonly number[];
  /** a_ij, j < i: row i lists a_i1 … a_i,i−1 (row 1 is empty). */
  readonly a: readonly (readonly number[])[];
  /** b_j, weights of the propagated solution. */
  readonly b: readonly number[];
  /** b̂_j, weights of the embedded solution (embedded pairs only). */
  readonly bEmbedded?: readonly number[];
}

/**
 * The explicit Runge–Kutta tableaux. Sources: spec/sofa-ode-solvers.md §5 (midpoint, RK4),
 * spec/integration-methods-lecture-de.md §3.6 (Heun), Ralston, Math. Comp. 16 (1962) (the
 * second-order pair with the smallest error bound: c₂ = 2/3, b = ¼, ¾), and Cash & Karp, ACM TOMS
 * 16 (1990), as printed in spec/ode-lecture-mass-spring-cloth.md with its a₆₃ sign corrected:
 * the lecture prints −575/13824; only +575/13824 makes row 6 sum to c₆ = 7/8.
 */
export const RUNGE_KUTTA_TABLEAUX = {
  'explicit-euler': { c: [0], a: [[]], b: [1] },
  rk2: { c: [0, 1 / 2], a: [[], [1 / 2]], b: [0, 1] },
  heun: { c: [0, 1], a: [[], [1]], b: [1 / 2, 1 / 2] },
  ralston: { c: [0, 2 / 3], a: [[], [2 / 3]], b: [1 / 4, 3 / 4] },
  rk4: {
    c: [0, 1 / 2, 1 / 2, 1],
    a: [[], [1 / 2], [0, 1 / 2], [0, 0, 1]],
    b: [1 / 6, 1 / 3, 1 / 3, 1 / 6],
  },
  'cash-karp': {
    c: [0, 1 / 5, 3 / 10, 3 / 5, 1, 7 / 8],
    a: [
      [],
      [1 / 5],
      [3 / 40, 9 / 40],
      [3 / 10, -9 / 10, 6 / 5],
      [-11 / 54, 5 / 2, -70 / 27, 35 / 27],
      [1631 / 55296, 175 / 512, 575 / 13824, 44275 / 110592, 253 / 4096],
    ],
    b: [37 / 378, 0, 250 / 621, 125 / 594, 0, 512 / 1771],
    bEmbedded: [2825 / 27648, 0, 18575 / 48384, 13525 / 55296, 277 / 14336, 1 / 4],
  },
} as const satisfies Record<string, ButcherTableau>;

export type TableauName = keyof typeof RUNGE_KUTTA_TABLEAUX;

/**
 * Adams weights (spec/integration-methods-lecture-de.md, "explizite Mehrschritt-Verfahren"):
 * Adams–Bashforth β_j of F_{n−j}, and the two-step Adams–Moulton corrector (order 3) with the
 * weights of F_{n+1}, F_n, F_{n−1}.
 */
export const ADAMS_WEIGHTS = {
  bashforth2: [3 / 2, -1 / 2],
  bashforth3: [23 / 12, -16 / 12, 5 / 12],
  moulton3: [5 / 12, 8 / 12, -1 / 12],
} as const;
