#!/usr/bin/env node
// `npm run bench:adaptive`: the adaptive integrators on Drake's spring–mass (k = 300 N/m, m = 2 kg,
// x₀ = 0.1 m, v₀ = 0.01 m/s; accuracy 5e-5, maxStep 0.1 s, minStep 1e-6 s) for --t-end seconds of
// simulated time, on the CPU (float64) and on WebGPU fused (the step-size controller on the GPU,
// one readback per submission) and per op (one readback per attempted step, run for a tenth of the
// time: it is slow). Prints wall time per simulated second, its ratio to the CPU's, steps,
// attempts and readbacks; and the adapter. Issue 10 asks ≤ 10× the CPU on SwiftShader.
//
// Usage (after `npm run build`; it imports dist/weft.js):
//   node bench/adaptive.mjs [--t-end 10] [--integrators velocity-implicit-euler,rk45] [--repeat 2]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { acquireDevice, createAdaptiveSimulation, createModel } from '../dist/weft.js';

const { values } = parseArgs({
  options: {
    't-end': { type: 'string', default: '10' },
    integrators: { type: 'string', default: 'velocity-implicit-euler,rk45' },
    repeat: { type: 'string', default: '2' },
  },
});
const tEnd = Number(values['t-end']);
const repeat = Number(values.repeat);
const model = createModel({
  positions: [-1, 0, 0, 0.1, 0, 0],
  velocities: [0, 0, 0, 0.01, 0, 0],
  masses: [2, 2],
  fixed: [0],
  springPairs: [0, 1],
  springStiffness: 300,
  springRestLengths: [1],
  gravity: [0, 0, 0],
});
const { device, adapterName } = await acquireDevice();
console.log(`adapter: ${adapterName}; load average ${loadavg()[0].toFixed(1)} on this machine`);

/** Wall seconds per simulated second of one run, and its statistics. */
async function run(integrator, where, until) {
  const gpu = where === 'cpu' ? { backend: 'cpu' } : { backend: 'webgpu', device, fused: where === 'fused' };
  const options = { integrator, accuracy: 5e-5, maxStep: 0.1, minStep: 1e-6 };
  const simulation = await createAdaptiveSimulation(model, { ...options, ...gpu });
  const start = performance.now();
  await simulation.advanceTo(until);
  const seconds = (performance.now() - start) / 1000;
  const stats = simulation.readStats();
  const fused = simulation.fused;
  simulation.destroy();
  const attempts = stats.acceptedSteps + stats.rejectedSteps;
  const readbacks = where === 'fused' ? fused.submissions : where === 'per-op' ? `≥ ${attempts}` : '—';
  return { perSecond: seconds / until, seconds, accepted: stats.acceptedSteps, attempts, readbacks };
}

const rows = [['integrator', 'backend', 'simulated s', 'wall s', 'wall s / simulated s', '× CPU', 'steps', 'attempts', 'readbacks']]; // prettier-ignore
for (const integrator of values.integrators.split(',')) {
  for (let r = 0; r < repeat; r++) {
    const cpu = await run(integrator, 'cpu', tEnd);
    for (const [where, until] of [
      ['cpu', tEnd],
      ['fused', tEnd],
      ['per-op', tEnd / 10],
    ]) {
      const result = where === 'cpu' ? cpu : await run(integrator, where, until);
      rows.push([integrator, where === 'cpu' ? 'CPU f64' : `WebGPU ${where}`, until, result.seconds.toFixed(3), result.perSecond.toFixed(4), (result.perSecond / cpu.perSecond).toFixed(1), result.accepted, result.attempts, result.readbacks]); // prettier-ignore
      process.stderr.write('.');
    }
  }
}
process.stderr.write('\n');
const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)));
for (const row of rows) console.log(row.map((cell, c) => String(cell).padStart(widths[c])).join('  '));
device.destroy();
process.exit(0);
