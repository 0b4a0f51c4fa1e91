#!/usr/bin/env node
// `npm run bench:contacts` (issue 13): the cost of collider contacts and self-collision per step as
// a fraction of the solve. A 1 m × 1 m cloth (n² particles, no pins) dropped a few centimetres onto
// a sphere (r = 0.3 m) over a floor, implicit Euler at dt = 1/60, multigrid CG to 1e-3, in three
// variants: no contacts (the colliders removed: the cloth just falls — the solve's baseline),
// colliders only, colliders + selfCollision (a backend that refuses it reports 'not on WebGPU
// yet'). Over a window of steps in contact it prints ms per step, the split solve / collider
// contacts / self-collision (CPU f64: the simulation's own passes timed, bench/lib/contacts-timing.mjs;
// WebGPU: the `profile` option's per-kernel GPU timestamps, and wall time), CG iterations per solve, the
// pairs and the fail-safe's counts; then, at the last step, the deepest particle inside the sphere
// and the triangle pairs (sharing no vertex) that intersect, by the exact triangle–triangle test.
//
// Usage (after `npm run build`; it imports dist/weft-internal.js):
//   node bench/contacts.mjs [--sizes 64,128] [--variants none,colliders,self] [--backends cpu,webgpu]
//     [--window 20,30] [--gpu-window 20,30] [--csv reports/contacts-bench/contacts.csv]
//     [--mass 0.3] [--stiffness 100] [--damping 0.05] [--drop 0.03] [--max-pairs 32]
// --window a,b: b steps in all, steps a+1…b timed (CPU; --gpu-window for WebGPU, default the
// same). The cloth reaches the sphere at step 6; 20,30 is the drape (the most pairs), 60,120 the
// settling — 128² with self-collision takes 4–25 s a step on a 2-core VM, so keep its window
// short. A CSV goes to reports/contacts-bench/ unless --csv none.
import { mkdirSync, writeFileSync } from 'node:fs';
import { getPriority, loadavg } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { acquireDevice, createSimulation } from '../dist/weft-internal.js';
import { fmt, textTable } from './lib/output.mjs';
import { median } from './lib/timebox.mjs';
import { runLog } from './lib/run-log.mjs';
import {
  SOLVER_OPTIONS,
  VARIANTS,
  contactModel,
  intersectingPairs,
  sphereDepth,
} from './lib/contacts-scene.mjs';
import { SelfTally, instrumentCpu, profileDifference } from './lib/contacts-timing.mjs';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '64,128' },
    variants: { type: 'string', default: Object.keys(VARIANTS).join(',') },
    backends: { type: 'string', default: 'cpu' },
    window: { type: 'string', default: '20,30' },
    'gpu-window': { type: 'string' },
    mass: { type: 'string', default: '0.3' },
    stiffness: { type: 'string', default: '100' },
    damping: { type: 'string', default: '0.05' },
    drop: { type: 'string', default: '0.03' },
    csv: { type: 'string' },
    // selfCollision.maxPairsPerParticle (its default 32 refuses the 256² drape at step 8: 41 a particle).
    'max-pairs': { type: 'string', default: '32' },
  },
});
const list = (text) => text.split(',').filter(Boolean);
const sizes = list(values.sizes).map(Number);
const variants = list(values.variants);
const backends = list(values.backends);
const windowOf = (text) => {
  const [from, to] = list(text).map(Number);
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 1 && to > from))
    throw new Error(`a window is 'a,b' with 1 ≤ a < b (steps a+1…b timed), got '${text}'`);
  return { from, to };
};
const windows = { cpu: windowOf(values.window), webgpu: windowOf(values['gpu-window'] ?? values.window) };
for (const v of variants)
  if (!(v in VARIANTS)) throw new Error(`unknown variant '${v}': ${Object.keys(VARIANTS)}`);
for (const b of backends) if (!(b in windows)) throw new Error(`unknown backend '${b}': cpu, webgpu`);
const scene = {
  totalMass: Number(values.mass),
  stiffness: Number(values.stiffness),
  damping: Number(values.damping),
  drop: Number(values.drop),
  maxPairsPerParticle: Number(values['max-pairs']),
};
const solverOptions = SOLVER_OPTIONS;

let device;
let adapterName = '';
if (backends.includes('webgpu')) ({ device, adapterName } = await acquireDevice());

const { elapsed, say, progress } = runLog();
/** The step the running case is taking (for a failure's status). */
let currentStep = 0;
console.log(
  `Scene: 1 m cloth of n² particles (${scene.totalMass} kg in all, structural k = ${scene.stiffness} N/m, shear k/5, ` +
    `bending k/25, damping ${scene.damping} N·s/m, no pins) ${scene.drop * 100} cm above a sphere (r = 0.3 m, ` +
    `thickness 1 cm, μ = 0.5) on a floor (y = −0.3 m); implicit Euler, dt = 1/60 s, multigrid CG to 1e-3; ` +
    `selfCollision with its defaults (r = min(5 mm, 0.2 × spacing), k = the largest spring stiffness) but ${scene.maxPairsPerParticle} pairs a particle at most.`,
);
console.log(
  `Timed: CPU steps ${windows.cpu.from + 1}–${windows.cpu.to}` +
    (backends.includes('webgpu')
      ? `, WebGPU steps ${windows.webgpu.from + 1}–${windows.webgpu.to} (${adapterName})`
      : '') +
    `; load average ${loadavg()[0].toFixed(1)} at the start, niceness ${getPriority()}.`,
);

/** One case: the window's figures, and the final frame's checks. */
async function runCase(n, backend, variant) {
  const model = contactModel(n, variant, scene);
  const row = {
    backend: backend === 'cpu' ? 'cpu f64' : 'webgpu',
    N: n,
    particles: model.particleCount,
    variant,
    maxPairsPerParticle: model.selfCollision?.maxPairsPerParticle,
  };
  let sim;
  try {
    sim = await createSimulation(model, {
      ...solverOptions,
      backend,
      ...(backend === 'webgpu' ? { device, profile: true } : {}),
    });
  } catch (error) {
    const why =
      error?.field === 'selfCollision' && backend === 'webgpu'
        ? 'not on WebGPU yet'
        : `failed: ${error.message}`;
    return { ...row, status: why };
  }
  try {
    const run = backend === 'cpu' ? await runCpu(sim, model, n) : await runGpu(sim, model, n);
    const { positions } = await sim.readState();
    const depth = sphereDepth(positions);
    const checkStarted = performance.now();
    // A failed check keeps the case's timings: its status says why.
    let intersections;
    let status = 'ok';
    try {
      intersections = intersectingPairs(model, positions);
    } catch (error) {
      status = `ok; intersection check failed: ${error.message}`;
    }
    const checkSeconds = (performance.now() - checkStarted) / 1000;
    const solveMs = run.stepMs - run.contactsMs - (run.productMs ?? 0) - (run.selfMs ?? 0);
    return {
      ...row,
      status,
      ...run,
      solveMs,
      contactsPercent: variant === 'none' ? undefined : (100 * run.contactsMs) / solveMs,
      productPercent:
        run.productMs === undefined || variant === 'none' ? undefined : (100 * run.productMs) / solveMs,
      selfPercent: run.selfMs === undefined ? undefined : (100 * run.selfMs) / solveMs,
      insideFinal: depth.inside,
      closestFinal: depth.closest,
      intersections,
      checkSeconds,
    };
  } catch (error) {
    return { ...row, status: `failed at step ${currentStep}: ${error.message}` };
  } finally {
    sim.destroy();
  }
}

/** CPU: step by step, each step timed; its passes by category (contacts-timing.mjs). */
async function runCpu(sim, model, n) {
  const { from, to } = windows.cpu;
  const timers = instrumentCpu(sim);
  const stepMs = [];
  const tally = new SelfTally(model);
  let insideMax = 0;
  let before;
  let solverBefore;
  for (let step = 1; step <= to; step++) {
    currentStep = step;
    if (step === from + 1) {
      before = timers.snapshot();
      solverBefore = await sim.readSolverStats();
    }
    const t = performance.now();
    sim.step(1);
    const ms = performance.now() - t;
    insideMax = Math.max(insideMax, sphereDepth((await sim.readState()).positions).inside);
    progress(
      `${n}² ${variantOf(sim)}: step ${step}/${to} (${ms.toFixed(0)} ms${step > from ? ', timed' : ''})`,
    );
    if (step <= from) continue;
    stepMs.push(ms);
    tally.add(await sim.readSolverStats());
  }
  const after = timers.snapshot();
  const solver = await sim.readSolverStats();
  const steps = stepMs.length;
  const per = (category) => ((after[category] ?? 0) - (before[category] ?? 0)) / steps;
  const selfParts = ['self.detect', 'self.list', 'self.failSafe', 'self.terms'].map(per);
  const hasSelf = Boolean(sim.executor.selfContact);
  return {
    timing: 'CPU wall, performance.now()',
    steps,
    stepMs: stepMs.reduce((a, b) => a + b, 0) / steps,
    stepMsMedian: median(stepMs),
    contactsMs: per('contacts'),
    productMs: sim.executor.contacts ? per('contacts.product') : undefined,
    selfMs: hasSelf ? selfParts.reduce((a, b) => a + b, 0) : undefined,
    selfDetectMs: hasSelf ? selfParts[0] : undefined,
    selfListMs: hasSelf ? selfParts[1] : undefined,
    selfFailSafeMs: hasSelf ? selfParts[2] : undefined,
    selfTermsMs: hasSelf ? selfParts[3] : undefined,
    linearMs: per('solve.linear'),
    cgPerSolve: (solver.linearIterations - solverBefore.linearIterations) / (solver.linearSolves - solverBefore.linearSolves), // prettier-ignore
    unconverged: solver.unconvergedSolves - solverBefore.unconvergedSolves,
    ...tally.fields(),
    insideMax,
  };
}

const variantOf = (sim) =>
  sim.executor?.selfContact ? 'self' : sim.executor?.contacts ? 'colliders' : 'none';

/**
 * WebGPU: step by step, each advance(1) synchronised by readSolverStats() (a readback) for the
 * wall time; GPU time per category from the profile's kernel timestamps over the window.
 */
async function runGpu(sim, model, n) {
  const { from, to } = windows.webgpu;
  const tally = new SelfTally(model);
  const wallMs = [];
  let insideMax = 0;
  let profileBefore;
  let solverBefore;
  for (let step = 1; step <= to; step++) {
    currentStep = step;
    if (step === from + 1) {
      profileBefore = await sim.readProfile();
      solverBefore = await sim.readSolverStats();
    }
    const t = performance.now();
    await sim.advance(1);
    const stats = await sim.readSolverStats();
    const ms = performance.now() - t;
    insideMax = Math.max(insideMax, sphereDepth((await sim.readState()).positions).inside);
    progress(`${n}² webgpu: step ${step}/${to} (${ms.toFixed(0)} ms${step > from ? ', timed' : ''})`);
    if (step <= from) continue;
    wallMs.push(ms);
    tally.add(stats);
  }
  const { totals, kernels } = profileDifference(profileBefore, await sim.readProfile());
  const solver = await sim.readSolverStats();
  const steps = wallMs.length;
  const per = (category) => (totals[category] ?? 0) / steps;
  const selfParts = ['self.list', 'self.failSafe', 'self.terms'].map(per);
  const hasSelf = Boolean(model.selfCollision);
  return {
    timing: 'GPU kernel timestamps (profile: a pass per dispatch); wall: advance(1) + readSolverStats()',
    steps,
    stepMs: Object.values(totals).reduce((a, b) => a + b, 0) / steps,
    wallMs: wallMs.reduce((a, b) => a + b, 0) / steps,
    contactsMs: per('contacts'),
    selfMs: hasSelf ? selfParts.reduce((a, b) => a + b, 0) : undefined,
    selfListMs: hasSelf ? selfParts[0] : undefined,
    selfFailSafeMs: hasSelf ? selfParts[1] : undefined,
    selfTermsMs: hasSelf ? selfParts[2] : undefined,
    kernels: kernels
      .slice(0, 6)
      .map((k) => `${k.kernel} ${fmt(k.milliseconds / steps)} ms (${fmt(k.dispatches / steps)}×)`)
      .join(', '),
    cgPerSolve: (solver.linearIterations - solverBefore.linearIterations) / (solver.linearSolves - solverBefore.linearSolves), // prettier-ignore
    unconverged: solver.unconvergedSolves - solverBefore.unconvergedSolves,
    ...tally.fields(),
    insideMax,
  };
}

const rows = [];
for (const n of sizes)
  for (const backend of backends)
    for (const v of variants) {
      say(`${n}² ${backend} ${v}: start`);
      const row = await runCase(n, backend, v);
      rows.push(row);
      say(
        `${n}² ${backend} ${v}: ${row.status}` +
          (row.status.startsWith('ok')
            ? `, ${fmt(row.stepMs)} ms/step, ${row.intersections} intersecting pairs`
            : ''),
      );
    }

const ms = (value) => (value === undefined ? '' : fmt(value));
const pct = (value) => (value === undefined ? '' : `${fmt(value, 2)}%`);
const ok = rows.filter((r) => r.status.startsWith('ok'));
console.log('\nTime per step (ms; solve = the step less contacts, A Δv and self-collision; % of that solve)');
console.log(
  textTable(
    ['backend', 'N', 'variant', 'steps', 'ms/step', 'median', 'wall', 'solve', 'CG', 'contacts', 'A Δv', 'self', 'detect', 'list', 'failSafe', 'terms', 'contacts %', 'A Δv %', 'self %', 'status'], // prettier-ignore
    rows.map((r) => [
      r.backend,
      String(r.N),
      r.variant,
      r.steps === undefined ? '' : String(r.steps),
      ms(r.stepMs),
      ms(r.stepMsMedian),
      ms(r.wallMs),
      ms(r.solveMs),
      ms(r.linearMs),
      ms(r.contactsMs),
      ms(r.productMs),
      ms(r.selfMs),
      ms(r.selfDetectMs),
      ms(r.selfListMs),
      ms(r.selfFailSafeMs),
      ms(r.selfTermsMs),
      pct(r.contactsPercent),
      pct(r.productPercent),
      pct(r.selfPercent),
      r.status,
    ]),
  ),
);
console.log('\nSolver, self-collision and the final frame (pairs per particle: mean and max per step; counts: sums over the window; whole steps: steps whose every move the fail-safe undid)'); // prettier-ignore
console.log(
  textTable(
    ['backend', 'N', 'variant', 'CG it/solve', 'unconverged', 'pairs/particle', 'max', 'active', 'sweeps', 'truncated', 'undone', 'whole steps', 'frozen', 'pinched', 'inside final m', 'inside max m', 'closest m', 'intersecting'], // prettier-ignore
    ok.map((r) => [
      r.backend,
      String(r.N),
      r.variant,
      fmt(r.cgPerSolve),
      String(r.unconverged),
      ms(r.pairsPerParticle),
      ms(r.pairsPerParticleMax),
      ms(r.activePerParticle),
      ms(r.sweeps),
      r.truncated === undefined ? '' : String(r.truncated),
      r.undone === undefined ? '' : String(r.undone),
      r.stepsUndone === undefined ? '' : String(r.stepsUndone),
      r.frozen === undefined ? '' : String(r.frozen),
      r.pinched === undefined ? '' : String(r.pinched),
      // The falling cloth has no sphere to be inside of.
      r.variant === 'none' ? '' : fmt(r.insideFinal),
      r.variant === 'none' || r.insideMax === undefined ? '' : fmt(r.insideMax),
      r.variant === 'none' ? '' : fmt(r.closestFinal),
      r.intersections === undefined ? '' : String(r.intersections),
    ]),
  ),
);
for (const r of ok.filter((row) => row.kernels))
  console.log(`\nWebGPU ${r.N}² ${r.variant}, the slowest kernels per step (dispatches): ${r.kernels}`);
console.log('\nSummary (contacts: collider contacts in the colliders-only run; self-collision: in the run with it; % of the solve)'); // prettier-ignore
for (const n of sizes)
  for (const backend of backends) {
    const of = (v) =>
      ok.find((r) => r.N === n && r.variant === v && r.backend.startsWith(backend.slice(0, 3)));
    const [none, colliders, self] = ['none', 'colliders', 'self'].map(of);
    const parts = [];
    if (colliders) {
      const product =
        colliders.productPercent === undefined ? '' : ` (+ ${fmt(colliders.productPercent, 2)} % for A Δv)`;
      const vsNone = none ? `; step ${fmt(colliders.stepMs / none.stepMs, 3)}× the falling cloth's` : '';
      parts.push(`contacts ${fmt(colliders.contactsPercent, 2)} % of the solve${product}${vsNone}`);
    }
    if (self)
      parts.push(`self-collision ${fmt(self.selfPercent, 2)} % (step ${fmt(self.stepMs / (colliders?.stepMs ?? NaN), 3)}× colliders-only)`); // prettier-ignore
    else if (rows.some((r) => r.N === n && r.variant === 'self' && r.backend.startsWith(backend.slice(0, 3))))
      parts.push(`self-collision ${rows.find((r) => r.N === n && r.variant === 'self' && r.backend.startsWith(backend.slice(0, 3))).status}`); // prettier-ignore
    if (parts.length) console.log(`${n}² ${backend === 'cpu' ? 'CPU f64' : 'WebGPU'}: ${parts.join(', ')}`);
  }
console.log(`\nLoad average ${loadavg()[0].toFixed(1)} at the end; ${elapsed()} in all.`);

if (values.csv !== 'none') {
  const file =
    values.csv ?? `reports/contacts-bench/contacts-${new Date().toISOString().replace(/[:.]/g, '-')}.csv`;
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const field = (value) =>
    value === undefined ? '' : typeof value === 'number' ? String(Number(value.toPrecision(6))) : /[",\n]/.test(String(value)) ? `"${String(value).replaceAll('"', '""')}"` : String(value); // prettier-ignore
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, [columns.join(','), ...rows.map((r) => columns.map((c) => field(r[c])).join(','))].join('\n') + '\n'); // prettier-ignore
  console.log(`CSV: ${file}`);
}
device?.destroy();
process.exit(0);
