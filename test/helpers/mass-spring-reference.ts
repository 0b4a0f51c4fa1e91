/**
 * A reference solution of a mass-spring model written here, independent of Weft's passes and
 * integrators: classic fourth-order Runge–Kutta in float64 with a fixed small step, on the
 * equations of motion as the model documents them (Model: Hooke plus damping along the spring,
 * gravity, fixed particles at rest). Only the model's data is read. No vitest and no Node APIs:
 * plain TypeScript.
 */
import type { Model } from '../../src/index.ts';

/** A state of the whole model, xyz interleaved, float64. */
export interface ReferenceState {
  positions: Float64Array;
  velocities: Float64Array;
  /** max over the steps t_j and coordinates q of |x_q(t_j) − x_q(0)|, m: how far the run moved. */
  largestDisplacement: number;
  /** max over the steps t_j and coordinates q of |v_q(t_j) − v_q(0)|, m/s. */
  largestVelocityChange: number;
}

/**
 * a(x, v) of `model` into `out`: for each spring (a, b), d = x_b − x_a, l = |d|, n = d / l,
 * f = (k (l − L) + c (v_b − v_a)·n) n acts on a and −f on b; a free particle's acceleration is
 * Σf / m + g, a fixed one's 0.
 */
function accelerations(
  model: Model,
  x: Float64Array,
  v: Float64Array,
  force: Float64Array,
  out: Float64Array,
): void {
  const [gx, gy, gz] = model.gravity;
  force.fill(0);
  for (let s = 0; s < model.springCount; s++) {
    const a = 3 * model.springIndices[2 * s]!;
    const b = 3 * model.springIndices[2 * s + 1]!;
    const dx = x[b]! - x[a]!;
    const dy = x[b + 1]! - x[a + 1]!;
    const dz = x[b + 2]! - x[a + 2]!;
    const length = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (length === 0) continue;
    const [nx, ny, nz] = [dx / length, dy / length, dz / length];
    const closing = (v[b]! - v[a]!) * nx + (v[b + 1]! - v[a + 1]!) * ny + (v[b + 2]! - v[a + 2]!) * nz;
    const f =
      model.springStiffness[s]! * (length - model.springRestLength[s]!) + model.springDamping[s]! * closing;
    force[a]! += f * nx;
    force[a + 1]! += f * ny;
    force[a + 2]! += f * nz;
    force[b]! -= f * nx;
    force[b + 1]! -= f * ny;
    force[b + 2]! -= f * nz;
  }
  for (let i = 0; i < model.particleCount; i++) {
    const fixed = model.particleFixed[i] !== 0;
    const m = model.particleMass[i]!;
    out[3 * i] = fixed ? 0 : force[3 * i]! / m + gx;
    out[3 * i + 1] = fixed ? 0 : force[3 * i + 1]! / m + gy;
    out[3 * i + 2] = fixed ? 0 : force[3 * i + 2]! / m + gz;
  }
}

/**
 * The state of `model` at `tEnd` by `steps` classic RK4 steps of tEnd / steps from the model's
 * initial state (x' = v, v' = a(x, v); fixed particles keep v = 0 and so stay put).
 */
export function rk4Reference(model: Model, tEnd: number, steps: number): ReferenceState {
  const size = 3 * model.particleCount;
  const h = tEnd / steps;
  const x = Float64Array.from(model.particlePositions);
  const v = Float64Array.from(model.particleVelocities);
  for (let i = 0; i < model.particleCount; i++) {
    if (model.particleFixed[i]) v.fill(0, 3 * i, 3 * i + 3);
  }
  const stage = (): { x: Float64Array; v: Float64Array } => ({
    x: new Float64Array(size),
    v: new Float64Array(size),
  });
  const k = [stage(), stage(), stage(), stage()];
  const x0 = Float64Array.from(x);
  const v0 = Float64Array.from(v);
  let largestDisplacement = 0;
  let largestVelocityChange = 0;
  const force = new Float64Array(size);
  const xs = new Float64Array(size);
  const vs = new Float64Array(size);
  for (let step = 0; step < steps; step++) {
    for (let j = 0; j < 4; j++) {
      // Stage j at y + c_j h k_{j−1}, c = (0, 1/2, 1/2, 1).
      const c = j === 0 ? 0 : j === 3 ? h : h / 2;
      for (let q = 0; q < size; q++) {
        xs[q] = j === 0 ? x[q]! : x[q]! + c * k[j - 1]!.x[q]!;
        vs[q] = j === 0 ? v[q]! : v[q]! + c * k[j - 1]!.v[q]!;
      }
      k[j]!.x.set(vs);
      accelerations(model, xs, vs, force, k[j]!.v);
    }
    for (let q = 0; q < size; q++) {
      x[q] = x[q]! + (h / 6) * (k[0]!.x[q]! + 2 * k[1]!.x[q]! + 2 * k[2]!.x[q]! + k[3]!.x[q]!);
      v[q] = v[q]! + (h / 6) * (k[0]!.v[q]! + 2 * k[1]!.v[q]! + 2 * k[2]!.v[q]! + k[3]!.v[q]!);
      largestDisplacement = Math.max(largestDisplacement, Math.abs(x[q]! - x0[q]!));
      largestVelocityChange = Math.max(largestVelocityChange, Math.abs(v[q]! - v0[q]!));
    }
  }
  return { positions: x, velocities: v, largestDisplacement, largestVelocityChange };
}
