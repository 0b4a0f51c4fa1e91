/**
 * A particle its spring holds at rest just above a surface stays there: no contact pulls it down.
 * The scene: one particle hanging on a spring (k = 100 N/m) from a pinned anchor, at rest at its
 * equilibrium 2 mm above a floor's contact surface, 1/60 s, so that free flight under gravity
 * alone, h² g = 2.7 mm, would reach the surface within the step. Its forces sum to zero, so an
 * exact step leaves it where it is (implicit Euler: A Δv = h f = 0, x₊ = x, v₊ = 0; Newmark and
 * backward Euler alike). A contact rule that predicts the approach by gravity alone catches it,
 * prescribes that it end the step on the surface (pulled 2 mm down, 1 mm for Newmark's trapezoid,
 * a force that reads as adhesion), releases it, and the spring lifts it back: the limit cycle of a
 * cloth resting on a sphere (bench/drop-check.mjs: 24 releases a step at 64², 330–430 at 128²;
 * reports/design/contact-release-cycle.md). The startup step's unconstrained solve shows it
 * staying off the floor, which flags it; a flagged particle is predicted by its last response.
 * Implicit Euler on the CPU (float64) and WebGPU; Newmark and backward Euler on the CPU (the rule
 * is the programs', the same on both backends).
 */
import { expect, test } from 'vitest';
import { createModel, createSimulation, type Model } from '../src/index.ts';
import { BACKENDS, useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);
const THICKNESS = 0.01;
/** The floor's contact surface, y (m). */
const SURFACE = THICKNESS;
const MASS = 0.3 / 1024;
const STIFFNESS = 100;
const REST_LENGTH = 0.01;
const GRAVITY = 9.81;
/** The particle's equilibrium: 2 mm above the surface, the spring stretched by m g / k. */
const HEIGHT = SURFACE + 0.002;
const ANCHOR = HEIGHT + REST_LENGTH + (MASS * GRAVITY) / STIFFNESS;

function hangingParticle(): Model {
  return createModel({
    positions: [0, HEIGHT, 0, 0, ANCHOR, 0],
    masses: [MASS, 1],
    fixed: [1],
    gravity: [0, -GRAVITY, 0],
    springPairs: [0, 1],
    springStiffness: STIFFNESS,
    springRestLengths: [REST_LENGTH],
    colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0.5, thickness: THICKNESS }],
  });
}

const CASES = [
  ['implicit-euler', 'cpu'],
  ['implicit-euler', 'webgpu'],
  ['newmark', 'cpu'],
  ['backward-euler', 'cpu'],
] as const;

test.each(CASES.filter(([, backend]) => BACKENDS.includes(backend)))(
  '%s, %s: a particle its spring holds at rest 2 mm above a floor stays there',
  async (integrator, backend) => {
    const sim = await createSimulation(hangingParticle(), {
      integrator,
      dt: 1 / 60,
      solver: 'cg',
      tolerance: 1e-6,
      ...(backend === 'webgpu' ? { backend, device: node.runner() } : { backend }),
    });
    try {
      const heights: number[] = [];
      for (let step = 0; step < 30; step++) {
        sim.step(1);
        heights.push((await sim.readState()).positions[1]!);
      }
      const worst = Math.max(...heights.map((y) => Math.abs(y - HEIGHT)));
      console.log(
        `${integrator}, ${backend}: at most ${worst.toExponential(2)} m from the equilibrium over 30 steps`,
      );
      // The equilibrium's residual force is rounding: float64 ~1e-19 N, float32 positions ~1e-9 m.
      // 1 µm is 2,000 times less than the 2 mm a contact pulls it down.
      for (const [step, y] of heights.entries())
        expect(Math.abs(y - HEIGHT), `step ${step + 1}: y = ${y} m, equilibrium ${HEIGHT} m`).toBeLessThan(
          1e-6,
        );
    } finally {
      sim.destroy();
    }
  },
);
