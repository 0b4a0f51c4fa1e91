/**
 * Colliders with the explicit adaptive integrators on WebGPU (Node, SwiftShader) against the CPU
 * reference in float32 storage: each accepted step is projected (shaders/contact-project.wgsl with
 * the accepted step's drift, src/integrators/adaptive-programs.ts). The fused kernel has no
 * contact pass, so these run on the per-op stepper (src/backends/webgpu/program-stepper.ts).
 */
import { expect, test } from 'vitest';
import {
  buildCloth,
  createAdaptiveSimulation,
  createModel,
  withColliders,
  WeftInputError,
  type AdaptiveOptions,
  type Model,
} from '../src/index.ts';
import { colliderDistance } from '../src/internal.ts';
import { expectClose } from './helpers/expect-close.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { runBoth } from './helpers/adaptive-both.ts';
import { incline, slide, THICKNESS } from './helpers/collider-scenes.ts';

const node = useNodeDevice((device) => device);

const both = (model: Model, options: AdaptiveOptions, tEnd: number) =>
  runBoth(node.runner(), model, options, tEnd);

test.each([
  ['step doubling (heun)', { integrator: 'step-doubling', scheme: 'heun' }, 0.5],
  // Two half steps of backward Euler carry a constant acceleration with drift ¾ (adaptive-colliders.test.ts).
  ['velocity-implicit Euler', { integrator: 'velocity-implicit-euler' }, 0.75],
] as const)(
  '%s on a 35° incline, μ = 0.5: the GPU slides by ½ a T² + (d − ½) a h T, as the CPU',
  async (_, scheme, d) => {
    const { model, down, a } = incline(35);
    const [T, h] = [0.5, 1 / 240];
    // Gravity alone has (nearly) no error to estimate: every step is maxStep.
    const { gpu, cpu, description } = await both(model, { ...scheme, accuracy: 1e-4, maxStep: h } as AdaptiveOptions, T); // prettier-ignore
    expect(description).not.toMatch(/fused/);
    const along = slide(model, gpu.positions, down);
    // Friction taken back at the map's drift d: the closed form to round-off (CPU f64: to 1e-12);
    // float32 over 120 steps: ~120 roundings of ~6e-8 relative.
    expect(Math.abs(along / (0.5 * a * T * T + (d - 0.5) * a * h * T) - 1)).toBeLessThan(2e-5);
    expectClose(gpu.positions, cpu.positions, 1e-5 * along, 'incline: positions GPU vs CPU f32 (m)');
  },
  60_000,
);

test('rk45: an 8² cloth falling on a sphere, GPU = CPU f32, no particle inside', async () => {
  const cloth = buildCloth({ nx: 8, ny: 8, spacing: 0.08, particleMass: 0.01, structuralStiffness: 200, shearStiffness: 50, bendStiffness: 10, damping: 0.05, pins: 'none', origin: [-0.28, 0.35, -0.28] }); // prettier-ignore
  const model = withColliders(cloth, [{ shape: 'sphere', center: [0, 0, 0], radius: 0.25, friction: 0.5, thickness: THICKNESS }]); // prettier-ignore
  // 0.5 s: it drapes to y ≈ 0 (CPU f32: 58 steps accepted, 13 rejected; GPU 59 and 12).
  const { gpu, cpu, steps } = await both(model, { integrator: 'rk45', accuracy: 1e-3 }, 0.5);
  let closest = Infinity;
  for (let i = 0; i < model.particleCount; i++) {
    const x = [gpu.positions[3 * i]!, gpu.positions[3 * i + 1]!, gpu.positions[3 * i + 2]!] as const;
    closest = Math.min(closest, colliderDistance(model.colliders[0]!, x).distance);
  }
  expect(closest).toBeGreaterThan(THICKNESS - 1e-6); // float32: the thickness to a few ulps
  expect(Math.min(...gpu.positions.filter((_, k) => k % 3 === 1))).toBeLessThan(0.1); // draped
  // The step sequences may part by a step where an estimate lies within float32 noise of the
  // tolerance, and contacts switch on thresholds: compare to 1 mm of the cloth's ~0.35 m fall
  // (measured 0.24 mm).
  expect(Math.abs(steps[0]! - steps[1]!)).toBeLessThanOrEqual(3);
  expectClose(gpu.positions, cpu.positions, 1e-3, 'rk45 cloth on a sphere: positions GPU vs CPU f32 (m)');
}, 60_000);

test('step doubling (heun): a particle rides a plane that setColliderPose lifts at 0.5 m/s, on the GPU as on the CPU', async () => {
  const u = 0.5;
  const model = createModel({ positions: [0, THICKNESS, 0], masses: [0.1], springPairs: [], springStiffness: 0, colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], thickness: THICKNESS }] }); // prettier-ignore
  const options = { integrator: 'step-doubling', scheme: 'heun', accuracy: 1e-4, maxStep: 1 / 240 } as const;
  const gpu = await createAdaptiveSimulation(model, { ...options, backend: 'webgpu', device: node.runner() });
  const cpu = await createAdaptiveSimulation(model, { ...options, precision: 'f32' });
  try {
    for (let call = 1; call <= 4; call++) {
      const t = 0.05 * call;
      for (const simulation of [gpu, cpu]) {
        simulation.setColliderPose(0, { point: [0, u * t, 0] });
        await simulation.advanceTo(t);
      }
      const [g, c] = [await gpu.readState(), await cpu.readState()];
      // The plane's height is u t: the particle at u t + thickness, moving up at u — to float32's
      // rounding of ~0.1 m over ~12 steps a call (CPU f64: round-off).
      expect(Math.abs(g.positions[1]! - (u * t + THICKNESS))).toBeLessThan(1e-6);
      expect(Math.abs(g.velocities[1]! - u)).toBeLessThan(1e-5);
      expectClose(g.positions, c.positions, 1e-6, `riding the plane at ${t} s: positions GPU vs CPU f32 (m)`);
    }
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}, 60_000);

test('fused: true with colliders is an input error naming `fused` (the fused kernel has no contact pass)', async () => {
  const model = createModel({ positions: [0, 1, 0], masses: [0.1], springPairs: [], springStiffness: 0, colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] }] }); // prettier-ignore
  const error = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-3, backend: 'webgpu', device: node.runner(), fused: true }).catch((e: unknown) => e); // prettier-ignore
  expect(error).toBeInstanceOf(WeftInputError);
  expect((error as WeftInputError).field).toBe('fused');
  expect((error as Error).message).toMatch(/moveColliders/); // the accepted step's first contact op
});
