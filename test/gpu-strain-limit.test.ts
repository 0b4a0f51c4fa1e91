/**
 * Strain limits on WebGPU (shaders/strain-correction.wgsl) against the CPU in float32 storage, in
 * Node (Dawn; SwiftShader here): the soft cloth of test/helpers/strain-cloth.ts stretched 30 % at
 * the start, so that every spring is past the 10 % limit by a margin and both backends correct the
 * same springs (near the limit, f32 and f64 round-off decide a spring's `excess > 0` differently,
 * and the states then part by one correction: 7e-4 m after 400 steps on the hanging cloth, whose
 * largest stretch still agrees to 1e-3).
 */
import { describe, expect, test } from 'vitest';
import { createSimulation, withStrainLimit, type Model, type SimulationOptions } from '../src/index.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { largestStretch, softCloth } from './helpers/strain-cloth.ts';

const node = useNodeDevice((device) => device);

/** The soft cloth with every position × 1.3 (all springs 30 % long), limit 10 %, 8 sweeps. */
function stretchedCloth(): Model {
  const cloth = softCloth();
  return withStrainLimit({ ...cloth, particlePositions: cloth.particlePositions.map((x) => 1.3 * x) }, { maxStretch: 0.1, iterations: 8 }); // prettier-ignore
}

async function run(options: SimulationOptions, steps: number): Promise<Float64Array> {
  const simulation = await createSimulation(stretchedCloth(), options);
  await simulation.advance(steps);
  const state = await simulation.readState();
  simulation.destroy();
  return state.positions;
}

describe('strain limits on WebGPU', () => {
  test.each([
    ['symplectic-euler', { integrator: 'symplectic-euler', dt: 1 / 2000 }, 4],
    ['implicit-euler', { integrator: 'implicit-euler', dt: 1 / 60, solver: 'pcg' }, 4],
  ] as const)('%s: the corrections pull the cloth in as on the CPU (float32), within 1e-5 of the motion', async (_name, options, steps) => {
    const cpu = await run({ ...options, precision: 'f32' } as SimulationOptions, steps);
    const gpu = await run({ ...options, backend: 'webgpu', device: node.runner() } as SimulationOptions, steps);
    const start = stretchedCloth().particlePositions;
    const moved = cpu.reduce((m, value, k) => Math.max(m, Math.abs(value - start[k]!)), 0);
    const difference = gpu.reduce((m, value, k) => Math.max(m, Math.abs(value - cpu[k]!)), 0);
    const stretch = [largestStretch(softCloth(), gpu), largestStretch(softCloth(), cpu)];
    console.log(`${_name}: moved ${moved.toExponential(2)} m, GPU vs CPU f32 ${difference.toExponential(2)} m; largest stretch GPU ${(100 * stretch[0]!).toFixed(2)} %, CPU ${(100 * stretch[1]!).toFixed(2)} %`); // prettier-ignore
    // The sweeps moved the cloth by centimetres (v += Δ/h carries the corrections on: the largest
    // stretch overshoots to ~50 % within these 4 steps, on both backends alike)…
    expect(moved).toBeGreaterThan(0.01);
    expect(Math.abs(stretch[0]! - stretch[1]!)).toBeLessThan(1e-5);
    // …and f32 round-off over 32 sweeps is ~1e-7 m (moved ~1e-1 m).
    expect(difference).toBeLessThan(1e-5 * moved);
  }, 120_000); // prettier-ignore
});
