/**
 * Single-particle collider scenes shared by the CPU and WebGPU collider suites: a particle dropped
 * on each shape, and one resting on an incline (Coulomb's cone: it sticks at tan θ < μ and slides
 * with a = g (sin θ − μ cos θ) beyond).
 */
import { expect } from 'vitest';
import { createModel, type Model } from '../../src/index.ts';
import { colliderDistance, type resolveCollider } from '../../src/internal.ts';

/** m: every collider's thickness here. */
export const THICKNESS = 0.01;

export type Shape = Parameters<typeof resolveCollider>[0];

/** Each shape with a start 0.2 m up, above its surface. */
export const SHAPES: [string, Shape, number[]][] = [
  ['plane', { shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }, [0.3, 0.2, 0]],
  ['sphere', { shape: 'sphere', center: [0, -1, 0], radius: 1, thickness: THICKNESS }, [0, 0.2, 0]],
  ['capsule', { shape: 'capsule', a: [-1, -0.5, 0], b: [1, -0.5, 0], radius: 0.5, thickness: THICKNESS }, [0.4, 0.2, 0]], // prettier-ignore
  ['box', { shape: 'box', center: [0, -0.5, 0], halfExtents: [1, 0.5, 1], thickness: THICKNESS }, [0.2, 0.2, 0.3]], // prettier-ignore
];

/** One free particle of mass 0.1 kg at `at`, no springs. */
export function particle(at: readonly number[], colliders: readonly Shape[], velocity = [0, 0, 0]): Model {
  return createModel({ positions: at, velocities: velocity, masses: [0.1], springPairs: [], springStiffness: 0, colliders: colliders as never }); // prettier-ignore
}

/**
 * A particle at rest on an incline through the origin rising along x, at the thickness: normal
 * (−sin θ, cos θ, 0), μ = 0.5 (tan θ* = 0.5, θ* = 26.6°); `down` the slope's downhill direction and
 * `a` = g (sin θ − μ cos θ), the acceleration down it when it slides.
 */
export function incline(degrees: number): { model: Model; down: number[]; a: number } {
  const t = (degrees * Math.PI) / 180;
  const n = [-Math.sin(t), Math.cos(t), 0];
  const model = particle(n.map((c) => c * THICKNESS), [{ shape: 'plane', point: [0, 0, 0], normal: n as never, friction: 0.5, thickness: THICKNESS }]); // prettier-ignore
  return { model, down: [-Math.cos(t), -Math.sin(t), 0], a: 9.81 * (Math.sin(t) - 0.5 * Math.cos(t)) };
}

/** How far particle 0 moved from its start along `down`, m. */
export function slide(model: Model, positions: ArrayLike<number>, down: readonly number[]): number {
  return [0, 1, 2].reduce((s, d) => s + (positions[d]! - model.particlePositions[d]!) * down[d]!, 0);
}

/** Particle 0 rests on collider 0 at the thickness (to `within` m, velocity to `still` m/s), having fallen. */
export function expectRestingOnSurface(
  model: Model,
  state: { positions: ArrayLike<number>; velocities: ArrayLike<number> },
  within: number,
  still: number,
): void {
  // prettier-ignore
  const { positions: x, velocities: v } = state;
  const { distance } = colliderDistance(model.colliders[0]!, [x[0]!, x[1]!, x[2]!]);
  expect(Math.abs(distance - THICKNESS)).toBeLessThan(within);
  expect(Math.hypot(v[0]!, v[1]!, v[2]!)).toBeLessThan(still);
  expect(x[1]).toBeLessThan(model.particlePositions[1]! - 0.1); // it did fall
}
