/**
 * Velocity-implicit Euler's two forms must put the turbulent wind at the same times: Drake's
 * stepper (CPU, src/backends/cpu/velocity-implicit-euler.ts: a at each Newton iterate's t + h)
 * and its program (step doubling of backward Euler, the WebGPU path; run here by the CPU executor:
 * each `rhs` at its own step's end, stage 1, ½ and 1 after scaleStep). Both are two half steps of
 * backward Euler, so with the same steps h they agree to the Newton tolerance; a stage off by h/2
 * on either side moves them apart by 1e-5 m (measured below). The accuracy tests cannot see it:
 * either time keeps the scheme first order.
 */
import { expect, test } from 'vitest';
import { buildCloth, withWind } from '../src/index.ts';
import {
  adaptiveProgram,
  CpuProgramStepper,
  resolveAdaptiveOptions,
  VelocityImplicitEulerStepper,
} from '../src/internal.ts';
import { turbulentTriangle } from './helpers/wind-triangle.ts';

const cloth = buildCloth({ nx: 6, ny: 6, spacing: 0.1, structuralStiffness: 2000, shearStiffness: 2000, bendStiffness: 500, damping: 0.5, orientation: 'vertical' }); // prettier-ignore

test.each([
  ['a free triangle', turbulentTriangle().model],
  ['a hanging cloth', withWind(cloth, { velocity: [0, 0, 4], turbulence: 2, turbulencePeriod: 0.02, turbulenceWavelength: 0.3 })], // prettier-ignore
])('%s in gusts: Drake’s stepper and the program take the wind at the same times', (_, model) => {
  const o = resolveAdaptiveOptions({ integrator: 'velocity-implicit-euler', newtonKappa: 1e-6 });
  const initial = { positions: model.particlePositions, velocities: model.particleVelocities };
  const program = new CpuProgramStepper(model, initial, adaptiveProgram(o, model), 'f64');
  const drake = new VelocityImplicitEulerStepper(model, initial, o, (n) => new Float64Array(n));
  let t = 0.013; // off the turbulence's phase 0
  for (const h of [4e-3, 4e-3, 2e-3, 4e-3]) {
    expect(program.attempt(h, t).kind).toBe('estimated');
    expect(drake.attempt(h, t).kind).toBe('estimated');
    program.accept();
    drake.accept();
    t += h;
  }
  const [p, q] = [program.current.positions, drake.current.positions];
  const apart = Math.max(...p.map((x, k) => Math.abs(x - q[k]!)));
  // Measured 4.0e-10 m (triangle) and 4.0e-13 m (cloth), the Newton tolerance; backward Euler's
  // rhs at stage 0 gave 8.5e-5 / 3.1e-5 m, the second half step without its start ½ 3.8e-5 / 1.5e-5 m.
  expect(apart).toBeLessThan(1e-8);
});
