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

test('divergence on the GPU is detected at readback (WeftDivergenceError), not returned as a state', async () => {
  // Explicit Euler amplifies an undamped oscillation by √(1 + (hω)²) per step; with ω = 1000/s
  // and h = 0.01 that is ×10 per step, past float32's range within 40 steps.
  const stiff = buildRope({ particles: 2, stiffness: 1e5, particleMass: 0.1, gravity: [0, -9.81, 0] });
  const simulation = await createSimulation(stiff, {
    backend: 'webgpu',
    integrator: 'explicit-euler',
    dt: 0.01,
    device,
  });
  simulation.step(200);
  await expect(simulation.readState()).rejects.toThrow(WeftDivergenceError);
  simulation.destroy();
});
