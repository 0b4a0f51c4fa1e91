#!/usr/bin/env node
// Where an implicit step's wall time goes on WebGPU: wall ms per step of `advance()` against the
// GPU's own time for it (timestamp queries, option `profile`), dispatches encoded and readbacks
// (checkpoints) per step, and the round trip of one empty submission and of one 16-byte readback
// on this adapter. Scene: the solver-scaling cloth (bench/solver-scaling.mjs), dt = 1/60.
// Usage (after `npm run build`): node bench/step-latency.mjs [--sizes 256] [--solver multigrid]
//          [--steps 5] [--tolerance 1e-3] [--modes advance,profiled,step] [--cap 100]
// Modes: `advance` (checkpoints every 8 iterations, what advance() does), `profiled` (the same with
// timestamp queries), `step` (step(): every iteration up to the cap `--cap` encoded, none read
// back — the demo's path, sim.encode() once a substep).
/* global GPUBufferUsage, GPUMapMode -- Dawn defines them when acquireDevice loads it */
import { parseArgs } from 'node:util';
import { acquireDevice, buildCloth, createSimulation } from '../dist/weft-internal.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '256' },
    solver: { type: 'string', default: 'multigrid' },
    steps: { type: 'string', default: '5' },
    tolerance: { type: 'string', default: '1e-3' },
    modes: { type: 'string', default: 'advance,profiled' },
    cap: { type: 'string', default: '100' },
  },
});
const steps = Number(values.steps);
const { device, adapterName } = await acquireDevice();
console.log(`Adapter: ${adapterName}`);

/** Median ms of `runs` calls of `once`. */
async function medianMs(runs, once) {
  const times = [];
  for (let k = 0; k < runs; k++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}
const staging = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const source = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_SRC });
const submitMs = await medianMs(30, async () => {
  device.queue.submit([]);
  await device.queue.onSubmittedWorkDone();
});
const readbackMs = await medianMs(30, async () => {
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(source, 0, staging, 0, 16);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  staging.unmap();
});
console.log(
  `Round trips (median of 30): empty submit ${submitMs.toFixed(3)} ms, 16-byte readback ${readbackMs.toFixed(3)} ms`,
);

for (const n of values.sizes.split(',').map(Number)) {
  const model = buildCloth({ nx: n, ny: n, spacing: 3.15 / (n - 1), particleMass: 1 / (n * n), structuralStiffness: 2000, shearStiffness: 500, bendStiffness: 100, damping: 0.02, orientation: 'vertical' }); // prettier-ignore
  for (const mode of values.modes.split(',')) {
    const [profile, capped] = [mode === 'profiled', mode === 'step'];
    const createStarted = performance.now();
    const sim = await createSimulation(model, { backend: 'webgpu', device, integrator: 'implicit-euler', dt: 1 / 60, solver: values.solver, tolerance: Number(values.tolerance), maxIterations: capped ? Number(values.cap) : 4000, rayleighMass: 0.1, checkEvery: capped ? 0 : 8, profile }); // prettier-ignore
    const createMs = performance.now() - createStarted;
    await sim.advance(1); // pipelines compiled, first solve
    await sim.readState();
    const before = { stats: await sim.readSolverStats(), encoded: sim.dispatchesEncoded };
    const started = performance.now();
    if (capped) sim.step(steps);
    else await sim.advance(steps);
    await sim.readState();
    const wallMs = (performance.now() - started) / steps;
    const stats = await sim.readSolverStats();
    const iterations = (stats.linearIterations - before.stats.linearIterations) / steps;
    const encoded = (sim.dispatchesEncoded - before.encoded) / steps;
    let gpu = '';
    if (profile) {
      const kernels = await sim.readProfile();
      const total = kernels.reduce((sum, k) => sum + k.milliseconds, 0);
      gpu = `; GPU (a pass per dispatch) ${(total / (steps + 1)).toFixed(2)} ms/step: ${kernels.slice(0, 5).map((k) => `${k.kernel} ${((100 * k.milliseconds) / total).toFixed(0)}%`).join(' ')}`; // prettier-ignore
    }
    console.log(
      `${n}² ${values.solver} ${capped ? `step(), cap ${values.cap}` : mode}: created in ${createMs.toFixed(0)} ms; ${wallMs.toFixed(2)} ms/step wall ` +
        `(${(1000 / wallMs).toFixed(1)} steps/s), ${iterations.toFixed(1)} iterations/step, ${encoded.toFixed(0)} dispatches encoded/step, ` +
        `${stats.unconvergedSolves} unconverged, residual ${stats.maxResidual.toExponential(2)}${gpu}`,
    );
    sim.destroy();
  }
}
process.exit(0);
