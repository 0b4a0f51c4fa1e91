/**
 * Aerodynamics (issue 13 item 5): drag and lift on each triangle of the cloth against a wind field,
 * the CPU reference of shaders/aero-triangles.wgsl.
 *
 * The force model is the per-triangle one common in cloth animation (Keckeisen, Kimmerle,
 * Thomaszewski & Wacker 2004, "Modelling effects of wind fields in cloth animations", WSCG; the
 * same split into drag and lift is used by Wilson et al. 2014, "Simulating wind effects on cloth
 * and hair in Disney's Frozen"). Neither paper is in spec/, so the vector form below is written
 * out here from the description, not copied: with the triangle's unit normal n, area A, the mean
 * velocity v̄ of its vertices and the wind w at its centroid, the relative wind u = w − v̄ and
 * u_n = u·n,
 *
 *   drag  f_D = ½ ρ C_d A |u_n| u_n n                         (the normal component only),
 *   lift  f_L = ½ ρ C_l A (u_n / |u|) (|u|² n − u_n u)         (0 when u = 0),
 *
 * i.e. |f_L| = ½ ρ C_l A |u|² cos θ sin θ, θ the angle between u and n, in the plane of n and u,
 * perpendicular to u (the direction ((n × u) × u) of the usual statement, with its sign chosen
 * so that the lift does not depend on which way n points). Both are even in n: the triangle's
 * winding does not matter. A sheet facing the wind gets pure drag ½ ρ C_d A |u|²; one edge-on to
 * it gets nothing. Each vertex receives a third of the triangle's force.
 *
 * The wind is uniform plus an optional deterministic turbulence, three travelling waves
 *   w(x, t) = W + a (sin(k d₁·x − ω t), sin(k d₂·x − 1.3 ω t + 2), sin(k d₃·x − 0.7 ω t + 4)),
 * k = 2π/λ, ω = 2π/T, d_i fixed unit directions (TURBULENCE_DIRECTIONS): the same on every backend,
 * run to run, with no random numbers.
 */
import { describeValue, WeftInputError } from '../core/errors.ts';

type Vec3 = readonly [number, number, number];

/** A wind field and the air's aerodynamic coefficients; SI units. */
export interface Wind {
  /** The uniform wind velocity W, m/s. */
  readonly velocity: readonly [number, number, number];
  /** Air density ρ, kg/m³. Default 1.2. */
  readonly density?: number;
  /** Drag coefficient C_d ≥ 0 (along the triangle's normal). Default 1. */
  readonly drag?: number;
  /** Lift coefficient C_l ≥ 0. Default 0.5. */
  readonly lift?: number;
  /** Turbulence amplitude a, m/s, added to each component of W. Default 0 (none). */
  readonly turbulence?: number;
  /** Turbulence wavelength λ, m, > 0. Default 1. */
  readonly turbulenceWavelength?: number;
  /** Turbulence period T, s, > 0. Default 1. */
  readonly turbulencePeriod?: number;
}

/** A validated wind with every field present (see {@link Wind} for each field's meaning). */
export interface ResolvedWind {
  /** W, m/s. */
  readonly velocity: readonly [number, number, number];
  /** ρ, kg/m³. */
  readonly density: number;
  /** C_d. */
  readonly drag: number;
  /** C_l. */
  readonly lift: number;
  /** a, m/s. */
  readonly turbulence: number;
  /** λ, m. */
  readonly turbulenceWavelength: number;
  /** T, s. */
  readonly turbulencePeriod: number;
}

/** Defaults of the optional fields. */
export const WIND_DEFAULTS = { density: 1.2, drag: 1, lift: 0.5, turbulence: 0, turbulenceWavelength: 1, turbulencePeriod: 1 } as const; // prettier-ignore

/** Each wave's frequency factor and phase (the 1, 1.3, 0.7 and 0, 2, 4 of w(x, t) above). */
export const TURBULENCE_RATES = [1, 1.3, 0.7] as const;
export const TURBULENCE_PHASES = [0, 2, 4] as const;

/** The fixed unit directions d₁, d₂, d₃ of the turbulence's waves. */
export const TURBULENCE_DIRECTIONS: readonly Vec3[] = [
  [1, 0.5, 0.2],
  [-0.3, 1, 0.6],
  [0.4, -0.7, 1],
].map(([x, y, z]) => {
  const l = Math.hypot(x!, y!, z!);
  return [x! / l, y! / l, z! / l] as const;
});

function number(value: unknown, fallback: number, field: string, positive: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0))
    throw new WeftInputError(field, `must be a finite number ${positive ? '>' : '≥'} 0, got ${describeValue(value)}`); // prettier-ignore
  return value;
}

/** Validates a wind description (fields named `wind.…`) and resolves its defaults. */
export function resolveWind(wind: unknown): ResolvedWind {
  if (typeof wind !== 'object' || wind === null || Array.isArray(wind))
    throw new WeftInputError('wind', `must be an object { velocity, density?, drag?, lift?, turbulence?, … }, got ${describeValue(wind)}`); // prettier-ignore
  const o = wind as Record<string, unknown>;
  const known = ['velocity', ...Object.keys(WIND_DEFAULTS)];
  for (const key of Object.keys(o))
    if (!known.includes(key)) throw new WeftInputError(`wind.${key}`, `unknown field (expected one of: ${known.join(', ')})`); // prettier-ignore
  const v = o['velocity'];
  if (!Array.isArray(v) || v.length !== 3)
    throw new WeftInputError('wind.velocity', `must be three finite numbers [x, y, z], m/s, got ${describeValue(v)}`); // prettier-ignore
  v.forEach((x, d) => {
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new WeftInputError(`wind.velocity[${d}]`, `must be a finite number, got ${describeValue(x)}`);
  });
  const d = WIND_DEFAULTS;
  return {
    velocity: [v[0], v[1], v[2]],
    density: number(o['density'], d.density, 'wind.density', false),
    drag: number(o['drag'], d.drag, 'wind.drag', false),
    lift: number(o['lift'], d.lift, 'wind.lift', false),
    turbulence: number(o['turbulence'], d.turbulence, 'wind.turbulence', false),
    turbulenceWavelength: number(o['turbulenceWavelength'], d.turbulenceWavelength, 'wind.turbulenceWavelength', true), // prettier-ignore
    turbulencePeriod: number(o['turbulencePeriod'], d.turbulencePeriod, 'wind.turbulencePeriod', true),
  };
}

/** The wind velocity w(x, t), m/s. */
export function windAt(wind: ResolvedWind, x: Vec3, t: number): Vec3 {
  const a = wind.turbulence;
  if (a === 0) return wind.velocity;
  const k = (2 * Math.PI) / wind.turbulenceWavelength;
  const w = (2 * Math.PI) / wind.turbulencePeriod;
  const phase = (d: number): number => {
    const dir = TURBULENCE_DIRECTIONS[d]!;
    return k * (dir[0] * x[0] + dir[1] * x[1] + dir[2] * x[2]);
  };
  const [r, p] = [TURBULENCE_RATES, TURBULENCE_PHASES];
  return [
    wind.velocity[0] + a * Math.sin(phase(0) - r[0] * w * t + p[0]),
    wind.velocity[1] + a * Math.sin(phase(1) - r[1] * w * t + p[1]),
    wind.velocity[2] + a * Math.sin(phase(2) - r[2] * w * t + p[2]),
  ];
}

/**
 * The aerodynamic force f_D + f_L, N, on the triangle of particles a, b, c of the xyz arrays x
 * (positions, m) and v (velocities, m/s), at time t (the module's formulas), written to
 * out[at … at + 2]. A degenerate triangle gets none. Allocation-free: the CPU runs it per triangle
 * per evaluation.
 */
export function triangleAeroForce(wind: ResolvedWind, x: ArrayLike<number>, v: ArrayLike<number>, a: number, b: number, c: number, t: number, out: { [k: number]: number }, at: number): void {
  const [pa, pb, pc] = [3 * a, 3 * b, 3 * c];
  const e1x = x[pb]! - x[pa]!, e1y = x[pb + 1]! - x[pa + 1]!, e1z = x[pb + 2]! - x[pa + 2]!;
  const e2x = x[pc]! - x[pa]!, e2y = x[pc + 1]! - x[pa + 1]!, e2z = x[pc + 2]! - x[pa + 2]!;
  let nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
  const twice = Math.sqrt(nx * nx + ny * ny + nz * nz); // 2A
  if (!(twice > 0)) {
    out[at] = out[at + 1] = out[at + 2] = 0;
    return;
  }
  [nx, ny, nz] = [nx / twice, ny / twice, nz / twice];
  let [wx, wy, wz] = wind.velocity;
  if (wind.turbulence !== 0) {
    const centroid: Vec3 = [(x[pa]! + x[pb]! + x[pc]!) / 3, (x[pa + 1]! + x[pb + 1]! + x[pc + 1]!) / 3, (x[pa + 2]! + x[pb + 2]! + x[pc + 2]!) / 3];
    [wx, wy, wz] = windAt(wind, centroid, t);
  }
  const ux = wx - (v[pa]! + v[pb]! + v[pc]!) / 3;
  const uy = wy - (v[pa + 1]! + v[pb + 1]! + v[pc + 1]!) / 3;
  const uz = wz - (v[pa + 2]! + v[pb + 2]! + v[pc + 2]!) / 3;
  const un = ux * nx + uy * ny + uz * nz;
  const speed2 = ux * ux + uy * uy + uz * uz;
  const q = 0.5 * wind.density * (0.5 * twice); // ½ ρ A
  const drag = q * wind.drag * Math.abs(un) * un;
  const lift = speed2 > 0 ? (q * wind.lift * un) / Math.sqrt(speed2) : 0;
  out[at] = drag * nx + lift * (speed2 * nx - un * ux);
  out[at + 1] = drag * ny + lift * (speed2 * ny - un * uy);
  out[at + 2] = drag * nz + lift * (speed2 * nz - un * uz);
} // prettier-ignore
