/** The free triangle in a steady wind of the adaptive wind tests, with its closed form. No vitest here. */
import { createModel, type Model } from '../../src/index.ts';

/**
 * One free triangle (3 × 4 g, legs 0.1 m, normal z, no springs, no gravity) in a steady wind W along
 * its normal: each corner gets a third of the drag ½ ρ C_d A (W − v)² and no lift (u ∥ n), so it
 * translates with v̇ = k (W − v)², k = ½ ρ C_d A / (3 m): v(t) = W − W / (1 + k W t),
 * z(t) = W t − ln(1 + k W t) / k.
 */
export function windTriangle(turbulence = 0): {
  model: Model;
  v: (t: number) => number;
  z: (t: number) => number;
} {
  const [W, rho, cd, m, area] = [6, 1.2, 1.1, 0.004, 0.005];
  const model = createModel({ positions: [0, 0, 0, 0.1, 0, 0, 0, 0.1, 0], masses: [m, m, m], springPairs: [], springStiffness: 0, triangles: [0, 1, 2], gravity: [0, 0, 0], wind: { velocity: [0, 0, W], density: rho, drag: cd, lift: 0.6, turbulence } }); // prettier-ignore
  const k = (0.5 * rho * cd * area) / (3 * m);
  return { model, v: (t) => W - W / (1 + k * W * t), z: (t) => W * t - Math.log(1 + k * W * t) / k };
}

/** Turbulence of the turbulent-triangle scene: a (m/s), λ (m), T (s). */
const GUST = { turbulence: 3, turbulenceWavelength: 0.5, turbulencePeriod: 0.1 };

/**
 * The same triangle in a turbulent wind (amplitude 3 m/s, wavelength 0.5 m, period 0.1 s, so the
 * wind seen by the triangle changes within a step): still no torque (each corner gets a third of
 * the force), so it translates, its velocity v and centroid g obeying
 *   ġ = v,  v̇ = F(g, v, t) / (3 m),  F = ½ ρ A (C_d |u_n| u_n n + C_l (u_n/|u|)(|u|² n − u_n u)),
 * u = w(g, t) − v, u_n = u·n, n = z, w(x, t) = W + a (sin(k d₁·x − ω t), sin(k d₂·x − 1.3 ω t + 2),
 * sin(k d₃·x − 0.7 ω t + 4)) (src/model/wind.ts's documentation, written out here), which
 * `reference` integrates by classical RK4 at `h` — the independent solution the schemes are held to.
 * Returns corner 0's position and velocity at `duration`.
 */
export function turbulentTriangle(): {
  model: Model;
  reference: (duration: number, h: number) => { x: number[]; v: number[] };
} {
  const [W, rho, cd, cl, m, area] = [6, 1.2, 1.1, 0.6, 0.004, 0.005];
  const model = createModel({ positions: [0, 0, 0, 0.1, 0, 0, 0, 0.1, 0], masses: [m, m, m], springPairs: [], springStiffness: 0, triangles: [0, 1, 2], gravity: [0, 0, 0], wind: { velocity: [0, 0, W], density: rho, drag: cd, lift: cl, ...GUST } }); // prettier-ignore
  const unit = (d: number[]) => d.map((c) => c / Math.hypot(...d));
  const directions = [unit([1, 0.5, 0.2]), unit([-0.3, 1, 0.6]), unit([0.4, -0.7, 1])];
  const [k, omega] = [(2 * Math.PI) / GUST.turbulenceWavelength, (2 * Math.PI) / GUST.turbulencePeriod];
  const [rates, phases] = [[1, 1.3, 0.7], [0, 2, 4]];
  const dot = (a: number[], b: number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
  const acceleration = (g: number[], v: number[], t: number): number[] => {
    const wind = [0, 0, W].map((w, i) => w + GUST.turbulence * Math.sin(k * dot(directions[i]!, g) - rates[i]! * omega * t + phases[i]!)); // prettier-ignore
    const u = wind.map((w, i) => w - v[i]!);
    const [un, speed] = [u[2]!, Math.hypot(...u)];
    const normal = [0, 0, 1];
    const f = normal.map((n, i) => 0.5 * rho * area * (cd * Math.abs(un) * un * n + (cl * un / speed) * (speed * speed * n - un * u[i]!))); // prettier-ignore
    return f.map((c) => c / (3 * m));
  };
  const centroid0 = [0.1 / 3, 0.1 / 3, 0];
  const reference = (duration: number, h: number) => {
    let [g, v] = [centroid0, [0, 0, 0]];
    const steps = Math.round(duration / h);
    const axpy = (a: number[], s: number, b: number[]) => a.map((c, i) => c + s * b[i]!);
    for (let n = 0; n < steps; n++) {
      const t = n * h;
      const [k1x, k1v] = [v, acceleration(g, v, t)];
      const [k2x, k2v] = [axpy(v, h / 2, k1v), acceleration(axpy(g, h / 2, k1x), axpy(v, h / 2, k1v), t + h / 2)];
      const [k3x, k3v] = [axpy(v, h / 2, k2v), acceleration(axpy(g, h / 2, k2x), axpy(v, h / 2, k2v), t + h / 2)];
      const [k4x, k4v] = [axpy(v, h, k3v), acceleration(axpy(g, h, k3x), axpy(v, h, k3v), t + h)];
      g = g.map((c, i) => c + (h / 6) * (k1x[i]! + 2 * k2x[i]! + 2 * k3x[i]! + k4x[i]!));
      v = v.map((c, i) => c + (h / 6) * (k1v[i]! + 2 * k2v[i]! + 2 * k3v[i]! + k4v[i]!));
    }
    return { x: g.map((c, i) => c - centroid0[i]!), v };
  };
  return { model, reference };
} // prettier-ignore
