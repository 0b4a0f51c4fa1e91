#!/usr/bin/env node
// Implicit cloth benchmark: linear-solver iterations per step at k = 1e4, steps/s on both backends,
// and the matrix-free product's bandwidth against a copy kernel measured in the same run.
// Usage: node bench/implicit.mjs [--sizes 64,128] [--steps 10] [--gpu-steps 3] [--solvers cg,pcg] [--pairs 5]
//          [--backends cpu,webgpu]
// Needs `npm run build` first (it imports dist/weft.js).
import { parseArgs } from 'node:util';
import {
  acquireDevice,
  buildCloth,
  createSimulation,
  measureCopy,
  measureProduct,
} from '../dist/weft-internal.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '64,128' },
    steps: { type: 'string', default: '10' },
    'gpu-steps': { type: 'string', default: '3' },
    solvers: { type: 'string', default: 'cg,pcg' },
    integrator: { type: 'string', default: 'implicit-euler' },
    'max-iterations': { type: 'string', default: '500' },
    pairs: { type: 'string', default: '5' },
    backends: { type: 'string', default: 'cpu,webgpu' },
  },
});
const sizes = values.sizes.split(',').map(Number);
const solvers = values.solvers.split(',');
const integrator = values.integrator;
const maxIterations = Number(values['max-iterations']);
const dt = 1 / 60;
const cloth = (n) =>
  buildCloth({
    nx: n,
    ny: n,
    spacing: 0.1,
    particleMass: 0.1,
    damping: 10,
    structuralStiffness: 1e4,
    shearStiffness: 1e4,
    bendStiffness: 1e4,
  });

const { device, adapterName } = await acquireDevice();
console.log(`Adapter: ${adapterName}`);
console.log(
  `Scene: N×N cloth, k = 1e4 N/m, spacing 0.1 m, mass 0.1 kg, damping 10, dt = 1/60 s, ${integrator}, tolerance 1e-5, maxIterations ${maxIterations}`,
);
const rows = [];
for (const n of sizes) {
  const model = cloth(n);
  for (const solver of solvers) {
    for (const backend of values.backends.split(',')) {
      const steps = Number(backend === 'cpu' ? values.steps : values['gpu-steps']);
      const sim = await createSimulation(model, {
        backend,
        integrator,
        dt,
        solver,
        maxIterations,
        ...(backend === 'webgpu' ? { device } : {}),
      });
      await sim.advance(1); // warm-up (pipelines, JIT)
      const before = await sim.readSolverStats();
      const started = performance.now();
      await sim.advance(steps); // WebGPU: convergence read back every 8 iterations (checkEvery)
      await sim.readState();
      const seconds = (performance.now() - started) / 1000;
      const after = await sim.readSolverStats();
      const solves = after.linearSolves - before.linearSolves;
      const iterations = after.linearIterations - before.linearIterations;
      rows.push({
        N: n,
        particles: model.particleCount,
        springs: model.springCount,
        solver,
        backend,
        'iterations/solve': (iterations / solves).toFixed(1),
        'max iterations': after.maxLinearIterations,
        'last residual': after.lastResidual.toExponential(2),
        'steps/s': (steps / seconds).toFixed(2),
        'ms/step': ((1000 * seconds) / steps).toFixed(1),
        'ms/iteration': ((1000 * seconds) / iterations).toFixed(2),
      });
      console.log(JSON.stringify(rows.at(-1)));
      sim.destroy();
    }
  }
  // Bandwidth of the matrix-free product against a plain copy of as many vec4 as the product moves,
  // measured in alternation (this VM's load changes within seconds): medians of both, and the
  // median of the pairs' fractions.
  const sim = await createSimulation(model, { backend: 'webgpu', integrator, dt, device, maxIterations: 1 });
  const pairs = [];
  for (let k = 0; k < Number(values.pairs); k++) {
    const product = await measureProduct(sim, 20, 3);
    const copy = await measureCopy(device, Math.ceil(product.bytesPerRun / 32), 20, 3);
    pairs.push({ product, copy, fraction: product.bytesPerSecond / copy.bytesPerSecond });
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const bytes = pairs[0].product.bytesPerRun;
  const productSeconds = median(pairs.map((p) => p.product.secondsPerRun));
  const copyRate = median(pairs.map((p) => p.copy.bytesPerSecond));
  console.log(
    `N = ${n}: product moves ${(bytes / 1e6).toFixed(2)} MB in ${(productSeconds * 1e3).toFixed(3)} ms = ${(bytes / productSeconds / 1e9).toFixed(2)} GB/s; ` +
      `copy kernel ${(copyRate / 1e9).toFixed(2)} GB/s; fraction ${median(pairs.map((p) => p.fraction)).toFixed(2)} ` +
      `(medians of ${pairs.length} alternating pairs; fractions ${pairs.map((p) => p.fraction.toFixed(2)).join(' ')})`,
  );
  sim.destroy();
}
console.table(rows);
device.destroy();
process.exit(0);
