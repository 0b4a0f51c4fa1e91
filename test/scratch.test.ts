import { test } from 'vitest';
import { buildCloth, createSimulation } from '../src/index.ts';
test('scratch', async () => {
  const model = buildCloth({ nx: 16, ny: 16 });
  for (const integrator of ['symplectic-euler', 'rk4', 'central-difference'] as const) {
    const cpu = await createSimulation(model, { integrator, dt: 1 / 960, precision: 'f32' });
    const gpu = await createSimulation(model, { backend: 'webgpu', integrator, dt: 1 / 960 });
    cpu.step(100); gpu.step(100);
    const a = await cpu.readState(); const b = await gpu.readState();
    let err = 0; for (let k = 0; k < a.positions.length; k++) err = Math.max(err, Math.abs(a.positions[k]! - b.positions[k]!));
    console.log(integrator, gpu.description, err, a.positions[3*255+1]);
    cpu.destroy(); gpu.destroy();
  }
});
