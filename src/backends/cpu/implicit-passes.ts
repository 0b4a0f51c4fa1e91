/**
 * CPU reference of the implicit kernels (shaders/spring-jacobians.wgsl, implicit-rhs.wgsl,
 * system-product.wgsl, linear-solver.wgsl), pass for pass. Vectors are xyz interleaved.
 *
 * Conventions (spec/README.md): K = −∂f/∂x and B = −∂f/∂v are positive (semi-)definite. A spring s
 * joining a and b contributes a 3×3 block to each: with d = x_b − x_a, l = |d|, n = d/l,
 *   J_s = k (n nᵀ + g (I − n nᵀ)),   g = 1 − L/l (clamped: max(g, 0), Choi & Ko 2002),
 *   D_s = c n nᵀ,
 * and (K u)_a = Σ_s J_s (u_a − u_b), likewise for B. The damping force's dependence on x is
 * neglected, as is usual (Baraff & Witkin 1998).
 */
import type { Model } from '../../model/model.ts';
import type { RealArray } from './passes.ts';
import type { RhsCoefficients, SystemCoefficients } from '../../integrators/implicit-schemes.ts';
import type { CpuBending } from './bending.ts';
import type { CpuSelfContact } from './self-contact.ts';

export {
  NO_RHS_TERMS,
  type RhsCoefficients,
  type SystemCoefficients,
} from '../../integrators/implicit-schemes.ts';

/** Per-spring state at one evaluation point. */
export interface SpringStates {
  /** [3s], force on each spring's first endpoint, N. */
  force: RealArray;
  /** [6s], J_s as xx, yy, zz, xy, xz, yz, N/m. */
  jacobian: RealArray;
  /** [3s], unit direction n from a to b. */
  direction: RealArray;
  /** The hinges' states and passes when the model bends (bending.ts); their K and B join A's. */
  bending?: CpuBending | null;
  /** The step's self-contact pairs (self-contact.ts); their K and B join A's. */
  selfContact?: CpuSelfContact | null;
}

export function springStates(
  model: Model,
  positions: RealArray,
  velocities: RealArray,
  exact: boolean,
  out: SpringStates,
): void {
  const { springIndices, springRestLength, springStiffness, springDamping } = model;
  for (let s = 0; s < model.springCount; s++) {
    const a = 3 * springIndices[2 * s]!;
    const b = 3 * springIndices[2 * s + 1]!;
    const dx = positions[b]! - positions[a]!;
    const dy = positions[b + 1]! - positions[a + 1]!;
    const dz = positions[b + 2]! - positions[a + 2]!;
    const length = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const k = springStiffness[s]!;
    let nx = 0;
    let ny = 0;
    let nz = 0;
    let magnitude = 0;
    let geometric = 0;
    if (length > 0) {
      nx = dx / length;
      ny = dy / length;
      nz = dz / length;
      const closing =
        (velocities[b]! - velocities[a]!) * nx +
        (velocities[b + 1]! - velocities[a + 1]!) * ny +
        (velocities[b + 2]! - velocities[a + 2]!) * nz;
      magnitude = k * (length - springRestLength[s]!) + springDamping[s]! * closing;
      geometric = 1 - springRestLength[s]! / length;
      if (!exact) geometric = Math.max(geometric, 0);
    }
    out.force[3 * s] = magnitude * nx;
    out.force[3 * s + 1] = magnitude * ny;
    out.force[3 * s + 2] = magnitude * nz;
    out.direction[3 * s] = nx;
    out.direction[3 * s + 1] = ny;
    out.direction[3 * s + 2] = nz;
    // k (g I + (1 − g) n nᵀ)
    const kg = k * geometric;
    const kn = k * (1 - geometric);
    const j = 6 * s;
    out.jacobian[j] = kg + kn * nx * nx;
    out.jacobian[j + 1] = kg + kn * ny * ny;
    out.jacobian[j + 2] = kg + kn * nz * nz;
    out.jacobian[j + 3] = kn * nx * ny;
    out.jacobian[j + 4] = kn * nx * nz;
    out.jacobian[j + 5] = kn * ny * nz;
  }
  out.bending?.states(positions, velocities, false);
  out.selfContact?.states(positions, velocities, true, false);
}

/** Applies a symmetric 3×3 block (xx, yy, zz, xy, xz, yz) at `j` to (x, y, z). */
export function symmetric(
  block: RealArray,
  j: number,
  x: number,
  y: number,
  z: number,
): [number, number, number] {
  return [
    block[j]! * x + block[j + 3]! * y + block[j + 4]! * z,
    block[j + 3]! * x + block[j + 1]! * y + block[j + 5]! * z,
    block[j + 4]! * x + block[j + 5]! * y + block[j + 2]! * z,
  ];
}

/** shaders/implicit-rhs.wgsl. */
export function assembleRhs(
  model: Model,
  states: SpringStates,
  c: RhsCoefficients,
  velocities: RealArray,
  accelerations: RealArray,
  extra: RealArray,
  out: RealArray,
): void {
  const { offsets, entries } = model.incidence;
  const [gx, gy, gz] = model.gravity;
  for (let i = 0; i < model.particleCount; i++) {
    const p = 3 * i;
    if (model.particleInvMass[i] === 0) {
      out[p] = out[p + 1] = out[p + 2] = 0;
      continue;
    }
    const m = model.particleMass[i]!;
    let bx = c.forceScale * m * gx;
    let by = c.forceScale * m * gy;
    let bz = c.forceScale * m * gz;
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
      const entry = entries[e]!;
      const s = entry >> 1;
      const sign = entry & 1 ? -1 : 1;
      const other = 3 * model.springIndices[2 * s + 1 - (entry & 1)]!;
      bx += sign * c.forceScale * states.force[3 * s]!;
      by += sign * c.forceScale * states.force[3 * s + 1]!;
      bz += sign * c.forceScale * states.force[3 * s + 2]!;
      // K and B act on differences u_i − u_j.
      const ux =
        c.velocityStiffness * (velocities[p]! - velocities[other]!) +
        c.accelerationStiffness * (accelerations[p]! - accelerations[other]!);
      const uy =
        c.velocityStiffness * (velocities[p + 1]! - velocities[other + 1]!) +
        c.accelerationStiffness * (accelerations[p + 1]! - accelerations[other + 1]!);
      const uz =
        c.velocityStiffness * (velocities[p + 2]! - velocities[other + 2]!) +
        c.accelerationStiffness * (accelerations[p + 2]! - accelerations[other + 2]!);
      const [kx, ky, kz] = symmetric(states.jacobian, 6 * s, ux, uy, uz);
      const nx = states.direction[3 * s]!;
      const ny = states.direction[3 * s + 1]!;
      const nz = states.direction[3 * s + 2]!;
      const wx =
        c.velocityDamping * (velocities[p]! - velocities[other]!) +
        c.accelerationDamping * (accelerations[p]! - accelerations[other]!);
      const wy =
        c.velocityDamping * (velocities[p + 1]! - velocities[other + 1]!) +
        c.accelerationDamping * (accelerations[p + 1]! - accelerations[other + 1]!);
      const wz =
        c.velocityDamping * (velocities[p + 2]! - velocities[other + 2]!) +
        c.accelerationDamping * (accelerations[p + 2]! - accelerations[other + 2]!);
      const damping = model.springDamping[s]! * (nx * wx + ny * wy + nz * wz);
      bx -= kx + damping * nx;
      by -= ky + damping * ny;
      bz -= kz + damping * nz;
    }
    out[p] =
      bx +
      c.extraScale * extra[p]! +
      m * (c.velocityMass * velocities[p]! + c.accelerationMass * accelerations[p]!);
    out[p + 1] =
      by +
      c.extraScale * extra[p + 1]! +
      m * (c.velocityMass * velocities[p + 1]! + c.accelerationMass * accelerations[p + 1]!);
    out[p + 2] =
      bz +
      c.extraScale * extra[p + 2]! +
      m * (c.velocityMass * velocities[p + 2]! + c.accelerationMass * accelerations[p + 2]!);
  }
  for (const terms of [states.bending, states.selfContact]) {
    terms?.rhsTerms(c, velocities, accelerations);
    terms?.gather(out, false);
  }
}

/** shaders/system-product.wgsl: y = A u, filtered (0 on fixed particles). */
export function systemProduct(
  model: Model,
  states: SpringStates,
  a: SystemCoefficients,
  u: RealArray,
  out: RealArray,
): void {
  const { offsets, entries } = model.incidence;
  for (let i = 0; i < model.particleCount; i++) {
    const p = 3 * i;
    if (model.particleInvMass[i] === 0) {
      out[p] = out[p + 1] = out[p + 2] = 0;
      continue;
    }
    const m = a.mass * model.particleMass[i]!;
    let yx = m * u[p]!;
    let yy = m * u[p + 1]!;
    let yz = m * u[p + 2]!;
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
      const entry = entries[e]!;
      const s = entry >> 1;
      const other = 3 * model.springIndices[2 * s + 1 - (entry & 1)]!;
      const dx = u[p]! - u[other]!;
      const dy = u[p + 1]! - u[other + 1]!;
      const dz = u[p + 2]! - u[other + 2]!;
      const [kx, ky, kz] = symmetric(states.jacobian, 6 * s, dx, dy, dz);
      const nx = states.direction[3 * s]!;
      const ny = states.direction[3 * s + 1]!;
      const nz = states.direction[3 * s + 2]!;
      const damping = a.damping * model.springDamping[s]! * (nx * dx + ny * dy + nz * dz);
      yx += a.stiffness * kx + damping * nx;
      yy += a.stiffness * ky + damping * ny;
      yz += a.stiffness * kz + damping * nz;
    }
    out[p] = yx;
    out[p + 1] = yy;
    out[p + 2] = yz;
  }
  for (const terms of [states.bending, states.selfContact]) {
    terms?.productTerms(a, u);
    terms?.gather(out, false);
  }
}

/**
 * shaders/system-diagonal.wgsl: the inverse of each particle's 3×3 diagonal block of A
 * (α m I + Σ_s (β c n nᵀ + γ J_s)), or of its scalar diagonal; 0 for fixed particles.
 * Stored symmetric: xx, yy, zz, xy, xz, yz.
 */
export function diagonalInverse(
  model: Model,
  states: SpringStates,
  a: SystemCoefficients,
  block: boolean,
  out: RealArray,
): void {
  const { offsets, entries } = model.incidence;
  for (let i = 0; i < model.particleCount; i++) {
    const d = 6 * i;
    if (model.particleInvMass[i] === 0) {
      out.fill(0, d, d + 6);
      continue;
    }
    const m = a.mass * model.particleMass[i]!;
    const sum = [m, m, m, 0, 0, 0];
    for (let e = offsets[i]!; e < offsets[i + 1]!; e++) {
      const s = entries[e]! >> 1;
      const nx = states.direction[3 * s]!;
      const ny = states.direction[3 * s + 1]!;
      const nz = states.direction[3 * s + 2]!;
      const c = a.damping * model.springDamping[s]!;
      const n = [nx * nx, ny * ny, nz * nz, nx * ny, nx * nz, ny * nz];
      for (let k = 0; k < 6; k++) sum[k]! += a.stiffness * states.jacobian[6 * s + k]! + c * n[k]!;
    }
    states.bending?.addDiagonal(a, i, sum);
    states.selfContact?.addDiagonal(a, i, sum);
    const [xx, yy, zz, xy, xz, yz] = sum as [number, number, number, number, number, number];
    if (!block) {
      out[d] = 1 / xx;
      out[d + 1] = 1 / yy;
      out[d + 2] = 1 / zz;
      out[d + 3] = out[d + 4] = out[d + 5] = 0;
      continue;
    }
    // Inverse of a symmetric 3×3 by cofactors.
    const cxx = yy * zz - yz * yz;
    const cxy = xz * yz - xy * zz;
    const cxz = xy * yz - xz * yy;
    const determinant = xx * cxx + xy * cxy + xz * cxz;
    out[d] = cxx / determinant;
    out[d + 1] = (xx * zz - xz * xz) / determinant;
    out[d + 2] = (xx * yy - xy * xy) / determinant;
    out[d + 3] = cxy / determinant;
    out[d + 4] = cxz / determinant;
    out[d + 5] = (xy * xz - xx * yz) / determinant;
  }
}

/** z = P⁻¹ r with the stored inverse blocks (identity when `preconditioned` is false, but still filtered). */
export function applyPreconditioner(
  model: Model,
  inverse: RealArray,
  preconditioned: boolean,
  r: RealArray,
  out: RealArray,
): void {
  for (let i = 0; i < model.particleCount; i++) {
    const p = 3 * i;
    if (!preconditioned) {
      const keep = model.particleInvMass[i] === 0 ? 0 : 1;
      out[p] = keep * r[p]!;
      out[p + 1] = keep * r[p + 1]!;
      out[p + 2] = keep * r[p + 2]!;
      continue;
    }
    const [x, y, z] = symmetric(inverse, 6 * i, r[p]!, r[p + 1]!, r[p + 2]!);
    out[p] = x;
    out[p + 1] = y;
    out[p + 2] = z;
  }
}

export function dot(a: RealArray, b: RealArray): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum += a[k]! * b[k]!;
  return sum;
}
