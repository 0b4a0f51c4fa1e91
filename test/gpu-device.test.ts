import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  buildCloth,
  buildRope,
  createSimulation,
  WeftDivergenceError,
  WeftInputError,
  acquireDevice,
} from '../src/index.ts';
import { checkDeviceFits } from '../src/internal.ts';

// Device ownership, size limits and divergence on the WebGPU path, in Node through Dawn.
let device: GPUDevice;

beforeAll(async () => {
  ({ device } = await acquireDevice());
});
afterAll(() => device.destroy());

test('a borrowed device survives destroy(), and the positions buffer is STORAGE | VERTEX', async () => {
  device.pushErrorScope('validation');
  const simulation = await createSimulation(buildRope({ particles: 8 }), {
    backend: 'webgpu',
    integrator: 'rk4',
    dt: 1e-3,
    device,
  });
  simulation.step(10);
  await simulation.readState();
  const positions = (simulation as { positions?: GPUBuffer }).positions!;
  expect(positions.usage & GPUBufferUsage.VERTEX).toBeTruthy();
  expect(positions.usage & GPUBufferUsage.STORAGE).toBeTruthy();
  simulation.destroy();
  // Still usable: a second simulation on the same device runs.
  const again = await createSimulation(buildRope({ particles: 8 }), {
    backend: 'webgpu',
    integrator: 'heun',
    dt: 1e-3,
    device,
  });
  again.step(5);
  const state = await again.readState();
  expect(state.step).toBe(5);
  again.destroy();
  expect(await device.popErrorScope()).toBeNull();
});

test('a model larger than the device allows is refused before allocation, naming what does not fit', () => {
  const model = buildCloth({ nx: 32, ny: 32 });
  const limits = {
    ...device.limits,
    maxStorageBufferBindingSize: 64 * 1024,
    maxBufferSize: device.limits.maxBufferSize,
  } as GPUSupportedLimits;
  // 32×32 cloth: 5,826 springs × 20 bytes = 116,520 bytes > 64 KiB.
  expect(() => checkDeviceFits(model, limits, 64)).toThrow(WeftInputError);
  expect(() => checkDeviceFits(model, limits, 64)).toThrow(
    /model: too large for this device: springs \(Spring structs\) needs 116520 bytes/,
  );
  expect(() => checkDeviceFits(model, device.limits, 1024)).toThrow(/workgroupSize/);
  expect(() => checkDeviceFits(model, device.limits, 64)).not.toThrow();
});

// Every GPU path reads its state through the same check; each family is run to a blow-up here.
// The stiff rope has ω = 1000/s, so h = 0.01 puts hω = 10 far outside each scheme's stability:
// explicit Euler grows ×√(1 + (hω)²) ≈ 10 per step; Adams–Bashforth 2 has a root of modulus ≈ hω;
// Newmark with β = 0 (γ = ½) is the explicit central difference, stable only for hω ≤ 2.
test.each([
  ['explicit-euler', {}],
  ['adams-bashforth-2', {}],
  // A = M + hγB is diagonal here: one iteration solves it; past the blow-up (NaN) the cap stops each solve.
  ['newmark', { newmarkBeta: 0, newmarkGamma: 0.5, maxIterations: 5 }],
] as const)('divergence on the GPU (%s) is detected at readback (WeftDivergenceError), not returned as a state', async (integrator, extra) => {
  const stiff = buildRope({ particles: 2, stiffness: 1e5, particleMass: 0.1, gravity: [0, -9.81, 0] });
  const simulation = await createSimulation(stiff, { backend: 'webgpu', integrator, dt: 0.01, device, ...extra });
  simulation.step(60);
  await expect(simulation.readState()).rejects.toThrow(WeftDivergenceError);
  simulation.destroy();
}); // prettier-ignore
