#!/usr/bin/env node
// Solver scaling (issue 10): CG iterations per implicit-Euler solve against the cloth's size, for
// each linear solver, at dt = 1/60 and 1/240 and relative tolerances 1e-3 and 1e-5, on the CPU
// (float64) and WebGPU. Scene: the issue's cloth (3.15 m square, 1 kg, k = 2000/500/100
// structural/shear/bend, spring damping 0.02, r_m = 0.1), two steps from rest, hanging.
// Prints a table and writes solver-scaling.csv and solver-scaling.svg (iterations against N,
// log-log) to --out. A program, not a test: figures depend on the machine.
//
// Usage: npm run bench -- --solver-scaling [--sizes 32,64,128,256,512] [--solvers pcg,multigrid]
//          [--backends cpu,webgpu] [--gpu-max 128] [--profile] [--out bench/results]
// WebGPU runs stop at --gpu-max (SwiftShader is slow); speed is reported as ms per iteration and
// dispatches per step, never as a pass/fail. --profile times each kernel on the GPU (timestamp
// queries, option `profile`: a pass per dispatch, so the ms per iteration include that overhead)
// and prints the four slowest per case.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { acquireDevice, buildCloth, createSimulation, measureCopy } from '../dist/weft-internal.js';

const { values } = parseArgs({
  options: {
    'solver-scaling': { type: 'boolean' },
    sizes: { type: 'string', default: '32,64,128,256,512' },
    solvers: { type: 'string', default: 'pcg,multigrid' },
    backends: { type: 'string', default: 'cpu,webgpu' },
    'gpu-max': { type: 'string', default: '128' },
    profile: { type: 'boolean', default: false },
    out: { type: 'string', default: join(import.meta.dirname, 'results') },
  },
});

const issueCloth = (n) =>
  buildCloth({ nx: n, ny: n, spacing: 3.15 / (n - 1), particleMass: 1 / (n * n), structuralStiffness: 2000, shearStiffness: 500, bendStiffness: 100, damping: 0.02, orientation: 'vertical' }); // prettier-ignore

const sizes = values.sizes.split(',').map(Number);
const solvers = values.solvers.split(',');
const backends = values.backends.split(',');
const gpuMax = Number(values['gpu-max']);
const acquired = backends.includes('webgpu') ? await acquireDevice() : null;
console.log(`Adapter: ${acquired?.adapterName ?? '(CPU only)'}`);
const copy = acquired ? await measureCopy(acquired.device, 1 << 20, 5, 3) : null;
if (copy) console.log(`Copy bandwidth of the adapter: ${(copy.bytesPerSecond / 1e9).toFixed(2)} GB/s`);

const rows = [];
for (const backend of backends)
  for (const n of sizes) {
    if (backend === 'webgpu' && n > gpuMax) continue;
    // Diagonal PCG's iterations double with N: past 256² it costs minutes per solve on a CPU.
    for (const solver of solvers.filter((s) => s !== 'pcg' || n <= 256)) {
      // WebGPU: compile the pipelines before the first timed case (a step of a throwaway copy), so
      // that ms/iteration is the solve's, not the shader compiler's.
      if (backend === 'webgpu') await warmUp(n, solver);
      for (const fps of [60, 240])
        for (const tolerance of [1e-3, 1e-5]) {
          const sim = await createSimulation(issueCloth(n), {
            backend,
            integrator: 'implicit-euler',
            dt: 1 / fps,
            solver,
            tolerance,
            maxIterations: 4000,
            rayleighMass: 0.1,
            ...(backend === 'webgpu'
              ? { device: acquired.device, checkEvery: 8, profile: values.profile }
              : {}),
          });
          const started = performance.now();
          await sim.advance(2);
          const ms = performance.now() - started;
          const s = await sim.readSolverStats();
          const kernels = backend === 'webgpu' && values.profile ? await sim.readProfile() : [];
          const gpuMs = kernels.reduce((sum, k) => sum + k.milliseconds, 0);
          const row = {
            backend,
            N: n,
            solver,
            dt: `1/${fps}`,
            tolerance,
            iterations: s.maxLinearIterations,
            converged: s.unconvergedSolves === 0,
            residual: s.maxResidual,
            msPerIteration: ms / Math.max(1, s.linearIterations),
            dispatchesPerStep: sim.dispatchesPerStep ?? '',
            slowestKernels: kernels.slice(0, 4).map((k) => `${k.kernel} ${((100 * k.milliseconds) / gpuMs).toFixed(0)}%`).join(' '), // prettier-ignore
          };
          rows.push(row);
          sim.destroy();
          console.log(
            `${backend.padEnd(6)} ${String(n).padStart(4)}² ${solver.padEnd(9)} dt ${row.dt.padEnd(5)} tol ${tolerance.toExponential(0)}: ` +
              `${String(row.iterations).padStart(4)} iterations${row.converged ? '' : ' (NOT converged)'}, ` +
              `residual ${row.residual.toExponential(2)}, ${row.msPerIteration.toFixed(2)} ms/iteration` +
              (row.dispatchesPerStep !== '' ? `, ${row.dispatchesPerStep} dispatches encoded per step` : '') +
              (kernels.length > 0 ? `; GPU ${gpuMs.toFixed(1)} ms: ${row.slowestKernels}` : ''),
          );
        }
    }
  }

mkdirSync(values.out, { recursive: true });
const columns = Object.keys(rows[0] ?? {});
writeFileSync(join(values.out, 'solver-scaling.csv'), [columns.join(','), ...rows.map((r) => columns.map((c) => r[c]).join(','))].join('\n') + '\n'); // prettier-ignore
writeFileSync(
  join(values.out, 'solver-scaling.svg'),
  chart(rows.filter((r) => r.tolerance === 1e-3 && r.dt === '1/60')),
);
console.log(`Wrote ${join(values.out, 'solver-scaling.csv')} and solver-scaling.svg`);
process.exit(0); // Dawn's instance would keep the process alive

/** One step of an N² cloth on WebGPU with `solver`, untimed and thrown away: it compiles the pipelines. */
async function warmUp(n, solver) {
  const sim = await createSimulation(issueCloth(n), { backend: 'webgpu', integrator: 'implicit-euler', dt: 1 / 60, solver, tolerance: 1e-3, maxIterations: 4000, rayleighMass: 0.1, device: acquired.device }); // prettier-ignore
  await sim.advance(1);
  sim.destroy();
}

/** Iterations to 1e-3 at dt = 1/60 against N, log-log, one line per backend × solver. */
function chart(points) {
  const [W, H, L, B] = [640, 400, 60, 50];
  const xs = [...new Set(points.map((p) => p.N))].sort((a, b) => a - b);
  const maxY = Math.max(2, ...points.map((p) => p.iterations));
  const x = (n) => L + ((Math.log2(n) - Math.log2(xs[0] ?? 1)) / Math.max(1, Math.log2((xs.at(-1) ?? 2) / (xs[0] ?? 1)))) * (W - L - 20); // prettier-ignore
  const y = (v) => H - B - (Math.log10(Math.max(1, v)) / Math.log10(maxY * 1.2)) * (H - B - 30);
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
  const series = [...new Set(points.map((p) => `${p.backend} ${p.solver}`))];
  const lines = series.map((name, i) => {
    const ps = points.filter((p) => `${p.backend} ${p.solver}` === name).sort((a, b) => a.N - b.N);
    const d = ps
      .map((p, k) => `${k ? 'L' : 'M'}${x(p.N).toFixed(1)},${y(p.iterations).toFixed(1)}`)
      .join(' ');
    const dots = ps.map((p) => `<circle cx="${x(p.N).toFixed(1)}" cy="${y(p.iterations).toFixed(1)}" r="3" fill="${colors[i % colors.length]}"><title>${name} ${p.N}²: ${p.iterations}</title></circle>`).join(''); // prettier-ignore
    return `<path d="${d}" fill="none" stroke="${colors[i % colors.length]}" stroke-width="2"${name.startsWith('webgpu') ? ' stroke-dasharray="6 4"' : ''}/>${dots}<text x="${W - 200}" y="${40 + 18 * i}" fill="${colors[i % colors.length]}" font-size="13">${name}</text>`; // prettier-ignore
  });
  const ticks = xs.map((n) => `<text x="${x(n)}" y="${H - B + 20}" text-anchor="middle" font-size="12">${n}²</text>`).join(''); // prettier-ignore
  const yTicks = [1, 10, 100, 1000].filter((v) => v <= maxY * 1.2).map((v) => `<text x="${L - 8}" y="${y(v) + 4}" text-anchor="end" font-size="12">${v}</text><line x1="${L}" x2="${W - 20}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`).join(''); // prettier-ignore
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/><text x="${L}" y="20" font-size="14">CG iterations per implicit-Euler solve to 1e-3, dt = 1/60, against cloth size N²</text>${yTicks}${ticks}${lines.join('')}</svg>\n`; // prettier-ignore
}
