import type { Model } from './model.ts';
import { bendingEnergy } from './bending.ts';

/** Mechanical energy of a state, J. */
export interface Energy {
  /** Σ ½ m |v|². */
  kinetic: number;
  /** Σ ½ k (l − L)² over springs. */
  spring: number;
  /** Σ −m g·x (zero at the origin). */
  gravity: number;
  /** Σ k c (θ − θ₀)² over hinges (src/model/bending.ts); 0 without bending. */
  bending: number;
  /** kinetic + spring + gravity + bending. */
  total: number;
}

/**
 * The mechanical energy of a state, J: kinetic Σ ½ m |v|², spring Σ ½ k (l − L)², gravitational
 * Σ −m g·x, bending Σ k c (θ − θ₀)². Fixed particles count (their v is 0). `positions` and `velocities` are xyz, [3n].
 */
export function energy(model: Model, positions: ArrayLike<number>, velocities: ArrayLike<number>): Energy {
  const [gx, gy, gz] = model.gravity;
  let kinetic = 0;
  let gravity = 0;
  for (let i = 0; i < model.particleCount; i++) {
    const m = model.particleMass[i]!;
    const p = 3 * i;
    kinetic += 0.5 * m * (velocities[p]! ** 2 + velocities[p + 1]! ** 2 + velocities[p + 2]! ** 2);
    gravity -= m * (gx * positions[p]! + gy * positions[p + 1]! + gz * positions[p + 2]!);
  }
  let spring = 0;
  for (let s = 0; s < model.springCount; s++) {
    const a = 3 * model.springIndices[2 * s]!;
    const b = 3 * model.springIndices[2 * s + 1]!;
    const length = Math.hypot(
      positions[b]! - positions[a]!,
      positions[b + 1]! - positions[a + 1]!,
      positions[b + 2]! - positions[a + 2]!,
    );
    spring += 0.5 * model.springStiffness[s]! * (length - model.springRestLength[s]!) ** 2;
  }
  const bending = model.bending ? bendingEnergy(model.bending, positions) : 0;
  return { kinetic, spring, gravity, bending, total: kinetic + spring + gravity + bending };
}

/**
 * The Hamiltonian with momenta p (variational-symplectic-implicit keeps p apart from M v):
 * Σ |p|²/(2m) over free particles + spring + gravitational + bending potential, J.
 */
export function hamiltonian(model: Model, positions: ArrayLike<number>, momenta: ArrayLike<number>): number {
  const zero = new Float64Array(positions.length);
  const potential = energy(model, positions, zero);
  let kinetic = 0;
  for (let i = 0; i < model.particleCount; i++) {
    if (model.particleInvMass[i] === 0) continue;
    const p = 3 * i;
    kinetic +=
      (0.5 * (momenta[p]! ** 2 + momenta[p + 1]! ** 2 + momenta[p + 2]! ** 2)) / model.particleMass[i]!;
  }
  return kinetic + potential.spring + potential.gravity + potential.bending;
}
