import { createModel, type Model } from '../../src/index.ts';
/**
 * Test problems of the adaptive and multistep integrators, each with its solution computed here in
 * float64 from the closed form (independent of Weft's passes).
 */

/**
 * The undamped oscillator of test/cpu-convergence.test.ts: particle 0 fixed at the origin,
 * particle 1 (mass m) on a spring of stiffness k and rest length L along the unit axis u, no
 * gravity, started at distance L + A at rest: d(t) = L + A cos(ω t), ω = √(k/m) = 2π (T = 1 s).
 * The motion stays on the axis, where the force is linear in d.
 */
export const OSCILLATOR = {
  m: 0.25,
  k: Math.PI ** 2,
  L: 1,
  A: 0.2,
  axis: [2 / 3, -1 / 3, 2 / 3] as const,
  omega: 2 * Math.PI,
};

/**
 * One spring from a fixed anchor to a free particle of mass m, no gravity: the spring–mass(–damper)
 * every adaptive test integrates (stiffness k, damping b along the spring, rest length L).
 */
export function springMass(o: {
  anchor?: readonly number[];
  position: readonly number[];
  velocity: readonly number[];
  m: number;
  k: number;
  b?: number;
  L: number;
}): Model {
  return createModel({
    positions: [...(o.anchor ?? [0, 0, 0]), ...o.position],
    velocities: [0, 0, 0, ...o.velocity],
    masses: [o.m, o.m],
    fixed: [0],
    springPairs: [0, 1],
    springStiffness: o.k,
    springDamping: o.b ?? 0,
    springRestLengths: [o.L],
    gravity: [0, 0, 0],
  });
}

/** The oscillator model started from its exact state at time t0. */
export function oscillatorModel(t0 = 0): Model {
  const { m, k, L } = OSCILLATOR;
  const { positions, velocities } = oscillatorState(t0);
  return springMass({ position: positions, velocity: velocities, m, k, L });
}

/** Exact position and velocity of particle 1 at time t. */
export function oscillatorState(t: number): { positions: number[]; velocities: number[] } {
  const { L, A, axis, omega } = OSCILLATOR;
  const d = L + A * Math.cos(omega * t);
  const speed = -A * omega * Math.sin(omega * t);
  return { positions: axis.map((c) => d * c), velocities: axis.map((c) => speed * c) };
}

/** |x − x(t)| and |v − v(t)| of particle 1 of an oscillator state (xyz of both particles). */
export function oscillatorError(
  positions: ArrayLike<number>,
  velocities: ArrayLike<number>,
  t: number,
): { position: number; velocity: number } {
  const exact = oscillatorState(t);
  return {
    position: Math.hypot(...[0, 1, 2].map((c) => positions[3 + c]! - exact.positions[c]!)),
    velocity: Math.hypot(...[0, 1, 2].map((c) => velocities[3 + c]! - exact.velocities[c]!)),
  };
}

/**
 * Drake's stiff spring–mass–damper (implicit_integrator_test.h, SpringMassDamperStiffTest):
 * m = 2 kg, k = 1e10 N/m, b = 1e8 N·s/m (damping ratio 353: overdamped), x₀ = 1 m, v₀ = 0.1 m/s.
 * Here: particle 0 fixed at the origin, particle 1 on the x axis at 1 + x (rest length 1 m), the
 * damper along the spring; x(t) = c₁ e^{λ₁t} + c₂ e^{λ₂t}, λ = (−b ± √(b² − 4km))/(2m),
 * λ₁ ≈ −5e7 /s (fast), λ₂ = (k/m)/λ₁ ≈ −100 /s (slow; from the product, to avoid cancellation).
 */
export const SPRING_DAMPER = { m: 2, k: 1e10, b: 1e8, x0: 1, v0: 0.1 };

export function springDamperModel(): Model {
  const { m, k, b, x0, v0 } = SPRING_DAMPER;
  return springMass({ position: [1 + x0, 0, 0], velocity: [v0, 0, 0], m, k, b, L: 1 });
}

export function springDamperRates(): { fast: number; slow: number } {
  const { m, k, b } = SPRING_DAMPER;
  const fast = (-b - Math.sqrt(b * b - 4 * k * m)) / (2 * m);
  return { fast, slow: k / m / fast };
}

/** Exact displacement x (m) and velocity (m/s) of the spring–damper at t. */
export function springDamperSolution(t: number): { x: number; v: number } {
  const { x0, v0 } = SPRING_DAMPER;
  const { fast, slow } = springDamperRates();
  const c2 = (v0 - fast * x0) / (slow - fast);
  const c1 = x0 - c2;
  return {
    x: c1 * Math.exp(fast * t) + c2 * Math.exp(slow * t),
    v: c1 * fast * Math.exp(fast * t) + c2 * slow * Math.exp(slow * t),
  };
}

/**
 * Drake's stiff double spring (stiff_double_mass_spring_system.h): two 1 kg masses on a line, the
 * first tied to the world by k₁ = 750 N/m, the two joined by a stiff k₂; at rest x₁ = 0, x₂ = 1;
 * started at x₁ = 0.5, x₂ = 1.5, at rest. Drake uses k₂ = 1e20 and the rigid-body limit
 * x₁ = 0.5 cos(√(k₁/2) t); here k₂ is finite (1e10 by default: the matrix-free PCG in float64 cannot
 * resolve (M + h²K) with h²k₂ ~ 1e18) and the solution is the exact modal one: with d the
 * displacements from rest, d̈ = −K d, K = [[k₁ + k₂, −k₂], [−k₂, k₂]], d₀ = (0.5, 0.5).
 * Model: particle 0 fixed at the origin, masses at 1 + x₁ and 2 + x₂ (rest lengths 1 m).
 */
export function doubleSpringModel(k2: number): Model {
  return createModel({
    positions: [0, 0, 0, 1.5, 0, 0, 2.5, 0, 0],
    masses: [1, 1, 1],
    fixed: [0],
    springPairs: [0, 1, 1, 2],
    springStiffness: [750, k2],
    springRestLengths: [1, 1],
    gravity: [0, 0, 0],
  });
}

/** Exact (x₁, x₂) displacements and velocities of the double spring at t, and ω of the stiff mode. */
export function doubleSpringSolution(
  k2: number,
  t: number,
): { x: [number, number]; v: [number, number]; stiffOmega: number } {
  const k1 = 750;
  const trace = k1 + 2 * k2;
  const big = (trace + Math.sqrt(trace * trace - 4 * k1 * k2)) / 2;
  const small = (k1 * k2) / big;
  const x: [number, number] = [0, 0];
  const v: [number, number] = [0, 0];
  for (const lambda of [big, small]) {
    // (K − λ I) e = 0: e ∝ (k₂, k₁ + k₂ − λ).
    const n = Math.hypot(k2, k1 + k2 - lambda);
    const e = [k2 / n, (k1 + k2 - lambda) / n] as const;
    const c = 0.5 * e[0] + 0.5 * e[1];
    const w = Math.sqrt(lambda);
    for (const i of [0, 1] as const) {
      x[i] += c * Math.cos(w * t) * e[i];
      v[i] += -c * w * Math.sin(w * t) * e[i];
    }
  }
  return { x, v, stiffOmega: Math.sqrt(big) };
}

/** Least-squares slope of log(y) against log(x). */
export function logSlope(x: readonly number[], y: readonly number[]): number {
  const lx = x.map(Math.log);
  const ly = y.map(Math.log);
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < lx.length; i++) {
    num += (lx[i]! - mx) * (ly[i]! - my);
    den += (lx[i]! - mx) ** 2;
  }
  return num / den;
}
