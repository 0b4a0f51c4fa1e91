#!/usr/bin/env node
// `npm run bench:adaptive`: the adaptive integrators on Drake's spring–mass (k = 300 N/m, m = 2 kg,
// x₀ = 0.1 m, v₀ = 0.01 m/s; accuracy 5e-5, maxStep 0.1 s, minStep 1e-6 s) for --t-end seconds of
// simulated time, on the CPU (float64) and on WebGPU fused (the step-size controller on the GPU,
// one readback per submission; the program's blocks generated as WGSL, or with `interpreted` the
// interpreter kernel, fused-interpreter.wgsl) and per op (one readback per attempted step, run for
// a tenth of the time: it is slow). Prints the creation time (the first fused simulation of a
// program compiles its kernel), wall time per simulated second, its ratio to the CPU's of the same
// repeat, the process's CPU time over the run (on a CPU adapter the GPU's work is in it, and so
// is Dawn's polling while a readback is pending), the CPU time of SwiftShader's worker threads
// (Linux: their names start with "Thread<"; the GPU's work alone, steadier than the wall time on a
// loaded machine), steps, attempts and readbacks; and the adapter. Issue 10 asks ≤ 10× the CPU on
// SwiftShader.
//
// Usage (after `npm run build`; it imports dist/weft.js and dist/weft-internal.js):
//   node bench/adaptive.mjs [--t-end 10] [--integrators velocity-implicit-euler,rk45] [--repeat 2]
//     [--backends cpu,fused,per-op]   (any of cpu, fused, interpreted, per-op; cpu always runs)
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { acquireDevice, createAdaptiveSimulation, createModel } from '../dist/weft.js';
import {
  AdaptiveSimulation,
  FusedAdaptiveStepper,
  adaptiveProgram,
  resolveAdaptiveOptions,
} from '../dist/weft-internal.js';

const { values } = parseArgs({
  options: {
    't-end': { type: 'string', default: '10' },
    integrators: { type: 'string', default: 'velocity-implicit-euler,rk45' },
    repeat: { type: 'string', default: '2' },
    backends: { type: 'string', default: 'cpu,fused,per-op' },
  },
});
const tEnd = Number(values['t-end']);
const repeat = Number(values.repeat);
const backends = values.backends.split(',').filter((b) => b !== 'cpu');
for (const b of backends)
  if (!['fused', 'interpreted', 'per-op'].includes(b)) throw new Error(`--backends: unknown '${b}'`);
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

/** The fused stepper running the interpreter kernel, as createAdaptiveSimulation would make it fused. */
function interpreted(options) {
  const adaptive = { ...options, precision: 'f32' };
  const o = resolveAdaptiveOptions(adaptive);
  const stepper = new FusedAdaptiveStepper(device, model, adaptiveProgram(o), o, 'interpreted');
  return new AdaptiveSimulation(model, adaptive, {
    stepper,
    description: `WebGPU: ${adapterName}, fused, interpreted`,
    device,
    release: () => stepper.destroy(),
  });
}

/** CPU seconds of this process's SwiftShader worker threads so far (null where /proc has none). */
function workerSeconds() {
  try {
    let ticks = 0;
    for (const id of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
      if (!stat.slice(stat.indexOf('(') + 1).startsWith('Thread<')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (clock ticks, 100 a second)
    }
    return ticks / 100;
  } catch {
    return null;
  }
}

/** Wall seconds per simulated second of one run, and its statistics. */
async function run(integrator, where, until) {
  const options = { integrator, accuracy: 5e-5, maxStep: 0.1, minStep: 1e-6 };
  const gpu = where === 'cpu' ? { backend: 'cpu' } : { backend: 'webgpu', device, fused: where === 'fused' };
  const created = performance.now();
  const simulation =
    where === 'interpreted'
      ? interpreted(options)
      : await createAdaptiveSimulation(model, { ...options, ...gpu });
  await device.queue.onSubmittedWorkDone();
  const start = performance.now();
  const cpuBefore = process.cpuUsage();
  const workerBefore = workerSeconds();
  await simulation.advanceTo(until);
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const worker = workerBefore === null ? null : workerSeconds() - workerBefore;
  const stats = simulation.readStats();
  const fused = simulation.fused;
  simulation.destroy();
  const attempts = stats.acceptedSteps + stats.rejectedSteps;
  const readbacks = fused ? fused.submissions : where === 'per-op' ? `≥ ${attempts}` : '—';
  return {
    create: (start - created) / 1000,
    perSecond: seconds / until,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    workerSeconds: where === 'cpu' || worker === null ? '—' : worker.toFixed(2),
    accepted: stats.acceptedSteps,
    attempts,
    readbacks,
  };
}

const LABELS = { fused: 'WebGPU fused', interpreted: 'WebGPU fused, interpreted', 'per-op': 'WebGPU per op' };
const rows = [['integrator', 'backend', 'create s', 'simulated s', 'wall s', 'wall s / simulated s', '× CPU', 'process CPU s', 'worker CPU s', 'steps', 'attempts', 'readbacks']]; // prettier-ignore
for (const integrator of values.integrators.split(',')) {
  for (let r = 0; r < repeat; r++) {
    const cpu = await run(integrator, 'cpu', tEnd);
    for (const where of ['cpu', ...backends]) {
      const until = where === 'per-op' ? tEnd / 10 : tEnd;
      const result = where === 'cpu' ? cpu : await run(integrator, where, until);
      rows.push([integrator, LABELS[where] ?? 'CPU f64', result.create.toFixed(2), until, result.seconds.toFixed(3), result.perSecond.toFixed(4), (result.perSecond / cpu.perSecond).toFixed(1), result.cpuSeconds.toFixed(2), result.workerSeconds, result.accepted, result.attempts, result.readbacks]); // prettier-ignore
      process.stderr.write('.');
    }
  }
}
process.stderr.write('\n');
const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)));
for (const row of rows) console.log(row.map((cell, c) => String(cell).padStart(widths[c])).join('  '));
device.destroy();
process.exit(0);
