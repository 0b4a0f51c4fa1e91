/**
 * The CPU reference, pass for pass the same as the WGSL kernels in shaders/, so that a failing
 * GPU-vs-CPU comparison points at one kernel. Vectors are xyz interleaved (3 per particle);
 * `Real` arrays are Float64Array, or Float32Array to reproduce the GPU's storage precision.
 */
import type { Model } from '../../model/model.ts';
import type { RealArray } from '../common/stepper.ts';

export type { RealArray };

/**
 * shaders/program-forces.wgsl. Force on the first endpoint a of each spring (b receives −f):
 *   d = x_b − x_a, l = |d|, n = d / l,
 *   f = (k (l − L) + c (v_b − v_a)·n) n          (Hooke + damping along the spring).
 * A spring of zero length has no direction and exerts no force.
 */
export function springForces(
  model: Model,
  positions: RealArray,
  velocities: RealArray,
  out: RealArray,
): void {
  const { springIndices, springRestLength, springStiffness, springDamping } = model;
  for (let s = 0; s < model.springCount; s++) {
    const a = 3 * springIndices[2 * s]!;
    const b = 3 * springIndices[2 * s + 1]!;
    const dx = positions[b]! - positions[a]!;
    const dy = positions[b + 1]! - positions[a + 1]!;
    const dz = positions[b + 2]! - positions[a + 2]!;
    const length = Math.sqrt(dx * dx + dy * dy + dz * dz);
    let magnitude = 0;
    if (length > 0) {
      const closing =
        (velocities[b]! - velocities[a]!) * dx +
        (velocities[b + 1]! - velocities[a + 1]!) * dy +
        (velocities[b + 2]! - velocities[a + 2]!) * dz;
      magnitude =
        (springStiffness[s]! * (length - springRestLength[s]!) + (springDamping[s]! * closing) / length) /
        length;
    }
    out[3 * s] = magnitude * dx;
    out[3 * s + 1] = magnitude * dy;
    out[3 * s + 2] = magnitude * dz;
  }
}

/**
 * shaders/program-gather.wgsl. Gathers each particle's spring forces over its incident list (in
 * list order, as the GPU does) and forms a = f/m + g − r_m v for free particles, a = 0 for fixed.
 */
export function accelerations(
  model: Model,
  springForce: RealArray,
  velocities: RealArray,
  rayleighMass: number,
  out: RealArray,
): void {
  const { offsets, entries } = model.incidence;
  const [gx, gy, gz] = model.gravity;
  for (let i = 0; i < model.particleCount; i++) {
    const invMass = model.particleInvMass[i]!;
    let fx = 0;
    let fy = 0;
    let fz = 0;
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
      const entry = entries[e]!;
      const s = 3 * (entry >> 1);
      const sign = entry & 1 ? -1 : 1;
      fx += sign * springForce[s]!;
      fy += sign * springForce[s + 1]!;
      fz += sign * springForce[s + 2]!;
    }
    const p = 3 * i;
    if (invMass === 0) {
      out[p] = out[p + 1] = out[p + 2] = 0;
      continue;
    }
    out[p] = fx * invMass + gx - rayleighMass * velocities[p]!;
    out[p + 1] = fy * invMass + gy - rayleighMass * velocities[p + 1]!;
    out[p + 2] = fz * invMass + gz - rayleighMass * velocities[p + 2]!;
  }
}

/** a(x, v) into `out`: the spring pass, then the gather pass (gravity and −r_m v included). */
export function derivative(
  model: Model,
  positions: RealArray,
  velocities: RealArray,
  rayleighMass: number,
  springForce: RealArray,
  out: RealArray,
): void {
  springForces(model, positions, velocities, springForce);
  accelerations(model, springForce, velocities, rayleighMass, out);
}
