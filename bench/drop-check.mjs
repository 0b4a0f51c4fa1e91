#!/usr/bin/env node
// `npm run check:drop` (issue 13): the cloth dropped on a sphere, checked. A 1 m cloth of n²
// particles (0.3 kg, k = 100/20/4 N/m, no pins) 3 cm above a sphere (r = 0.3 m, thickness 1 cm,
// μ = 0.5) on a floor (y = −0.3 m) — bench/lib/contacts-scene.mjs's scene, with colliders and
// selfCollision (its defaults) — implicit Euler at dt = 1/60 s, multigrid CG to 1e-3, for `--steps`
// steps; the last `--rest` of them are the resting part. Not part of `npm test`: 64² takes minutes
// on a 2-core VM, 128² tens of minutes.
//
// It asserts, per size and backend, and exits 1 naming each failure:
// - the final frame has no particle inside the sphere (distance to its centre < 0.3 m);
// - the final frame has no two triangles (sharing no vertex) through each other (the exact
//   triangle–triangle test of src/model/self-intersection.ts, float64 over the positions);
// - the cloth rests: over the resting part its particles move less than --rest-move (m, rms over
//   the particles of |x(end) − x(start)|) and its centre of mass less than --rest-drift (m) — it
//   keeps its shape and place (the particles' rms speed is printed, not asserted: a few edge
//   particles still move at up to 0.15 m/s at moments, see the README);
// - its energy does not grow there: the least-squares trend of E = kinetic + springs + gravity +
//   the self-contact pairs' ½ k (r − d)², times the resting part's length, is at most --drift
//   (a fraction) of the energy the drop released, E(0) − E(start of the resting part);
// and prints the penetration depths (sphere, its contact shell, floor, self-contact thickness),
// the energy's drift and fluctuation at rest, and what contacts cost a step as a fraction of the
// step: CPU, the simulation's own passes timed (bench/lib/contacts-timing.mjs); WebGPU, the
// `profile` option's kernel timestamps (a fraction of the GPU time).
//
// Usage (after `npm run build`; it imports dist/weft-internal.js):
//   node bench/drop-check.mjs [--sizes 64,128] [--backends cpu,webgpu] [--steps 360] [--rest 120]
//     [--rest-move 0.002] [--rest-drift 0.001] [--drift 0.005] [--max-pairs 64] [--trace 10]
// (--trace k: every k steps a line on stderr with the speeds and the energy.)
import { getPriority, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { acquireDevice, createSimulation, CpuSelfContact, energy, selfIntersections, withSelfCollision } from '../dist/weft-internal.js'; // prettier-ignore
import { runLog } from './lib/run-log.mjs';
import { SOLVER_OPTIONS, contactModel, FLOOR, SPHERE } from './lib/contacts-scene.mjs';
import { instrumentCpu, profileDifference } from './lib/contacts-timing.mjs';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '64,128' },
    backends: { type: 'string', default: 'cpu' },
    steps: { type: 'string', default: '360' },
    rest: { type: 'string', default: '120' },
    'rest-move': { type: 'string', default: '0.002' },
    'rest-drift': { type: 'string', default: '0.001' },
    drift: { type: 'string', default: '0.005' },
    'max-pairs': { type: 'string', default: '64' },
    trace: { type: 'string', default: '0' },
  },
});
const list = (text) => text.split(',').filter(Boolean);
const sizes = list(values.sizes).map(Number);
const backends = list(values.backends);
const steps = Number(values.steps);
const rest = Number(values.rest);
/** Every this many steps (0: never) a line of speeds and energy on stderr. */
const trace = Number(values.trace);
const limits = {
  move: Number(values['rest-move']),
  comDrift: Number(values['rest-drift']),
  drift: Number(values.drift),
};
for (const b of backends)
  if (b !== 'cpu' && b !== 'webgpu') throw new Error(`unknown backend '${b}': cpu, webgpu`);
if (!(Number.isInteger(steps) && Number.isInteger(rest) && rest >= 10 && steps > rest))
  throw new Error(`--steps and --rest are whole numbers with 10 ≤ rest < steps (got ${steps}, ${rest})`);
if (sizes.some((n) => !(Number.isInteger(n) && n >= 4))) throw new Error(`--sizes: whole numbers ≥ 4`);

const scene = { totalMass: 0.3, stiffness: 100, damping: 0.05, drop: 0.03 };
const { dt } = SOLVER_OPTIONS;
const solverOptions = SOLVER_OPTIONS;

let device;
let adapterName = '';
if (backends.includes('webgpu')) ({ device, adapterName } = await acquireDevice());

const { elapsed, say, progress } = runLog();

/** Distances of the particles to the colliders' surfaces (m; negative: inside). */
function depths(x) {
  let [sphere, floor] = [Infinity, Infinity];
  for (let k = 0; k < x.length; k += 3) {
    const d = Math.hypot(x[k] - SPHERE.center[0], x[k + 1] - SPHERE.center[1], x[k + 2] - SPHERE.center[2]); // prettier-ignore
    sphere = Math.min(sphere, d - SPHERE.radius);
    floor = Math.min(floor, x[k + 1] - FLOOR.point[1]);
  }
  return { sphere, floor };
}

/** The self-contact pairs at x: their energy Σ ½ k (r − d)² (d < r) and the closest pair's d. */
function selfPairs(model, x) {
  const probe = new CpuSelfContact(model, (n) => new Float64Array(n));
  probe.detect(x, new Float64Array(x.length), dt);
  const { thickness: r, stiffness: k } = model.selfCollision;
  let [sum, closest] = [0, Infinity];
  for (let e = 0; e < probe.count; e++) {
    const d = probe.pairGeometry(x, e);
    closest = Math.min(closest, d);
    sum += 0.5 * k * Math.max(r - d, 0) ** 2;
  }
  return { energy: sum, closest, count: probe.count };
}

/** Speeds at v: rms, the fastest particle's, and the mean velocity's magnitude (m/s). */
function speeds(v) {
  const n = v.length / 3;
  let [sum, most] = [0, 0];
  const mean = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const s2 = v[3 * i] ** 2 + v[3 * i + 1] ** 2 + v[3 * i + 2] ** 2;
    sum += s2;
    most = Math.max(most, s2);
    for (let c = 0; c < 3; c++) mean[c] += v[3 * i + c] / n;
  }
  return { rms: Math.sqrt(sum / n), max: Math.sqrt(most), mean: Math.hypot(...mean) };
}

/** How far the particles moved from a to b (m): rms, most, and the centre of mass (equal masses). */
function displacement(a, b) {
  const n = a.length / 3;
  let [sum, most, which] = [0, 0, 0];
  const centre = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const d = [0, 1, 2].map((c) => b[3 * i + c] - a[3 * i + c]);
    const d2 = d[0] ** 2 + d[1] ** 2 + d[2] ** 2;
    if (d2 > most) [most, which] = [d2, i];
    sum += d2;
    for (let c = 0; c < 3; c++) centre[c] += d[c] / n;
  }
  const at = [0, 1, 2].map((c) => b[3 * which + c]);
  return { rms: Math.sqrt(sum / n), max: Math.sqrt(most), which, at, centre: Math.hypot(...centre) };
}

/** Least-squares slope of ys against xs. */
function slope(xs, ys) {
  const n = xs.length;
  const [mx, my] = [xs.reduce((a, b) => a + b, 0) / n, ys.reduce((a, b) => a + b, 0) / n];
  let [sxy, sxx] = [0, 0];
  for (let i = 0; i < n; i++) [sxy, sxx] = [sxy + (xs[i] - mx) * (ys[i] - my), sxx + (xs[i] - mx) ** 2];
  return sxy / sxx;
}

/** Time spent per step in contacts, as fractions of the step; `timers` read before and after. */
function cpuCost(before, after, wallMs, count) {
  const per = (category) => ((after[category] ?? 0) - (before[category] ?? 0)) / count;
  const colliders = per('contacts') + per('contacts.product');
  const self = ['self.detect', 'self.list', 'self.failSafe', 'self.terms'].map(per).reduce((a, b) => a + b, 0); // prettier-ignore
  const step = wallMs / count;
  return { stepMs: step, colliders: colliders / step, self: self / step };
}

function gpuCost(profileBefore, profileAfter, count) {
  const { totals } = profileDifference(profileBefore, profileAfter);
  const all = Object.values(totals).reduce((a, b) => a + b, 0);
  const self = (totals['self.list'] ?? 0) + (totals['self.failSafe'] ?? 0) + (totals['self.terms'] ?? 0);
  return { stepMs: all / count, colliders: (totals.contacts ?? 0) / all, self: self / all };
}

async function runCase(n, backend) {
  // selfCollision's defaults but for the pair capacity: the 128² drape lists 32.3 pairs a particle
  // at step ~11 (its edges fall ~2.5 cm a step past those stopped on the sphere), over the default 32.
  const model = withSelfCollision(contactModel(n, 'colliders', scene), { maxPairsPerParticle: Number(values['max-pairs']) }); // prettier-ignore
  const label = `${n}² ${backend === 'cpu' ? 'CPU f64' : 'WebGPU'}`;
  const sim = await createSimulation(model, {
    ...solverOptions,
    backend,
    ...(backend === 'webgpu' ? { device, profile: true } : {}),
  });
  try {
    const restFrom = steps - rest; // steps restFrom+1 … steps are the resting part
    const timers = backend === 'cpu' ? instrumentCpu(sim) : undefined;
    const readCost = async () => (timers ? timers.snapshot() : await sim.readProfile());
    const costs = [await readCost()];
    const walls = [0, 0];
    const energy0 = energy(model, model.particlePositions, model.particleVelocities).total;
    const worst = { sphere: Infinity, floor: Infinity, sphereStep: 0 };
    const restSpeeds = { rms: 0, max: 0, mean: 0 };
    let restStart;
    const [times, energies] = [[], []];
    let state;
    for (let step = 1; step <= steps; step++) {
      const t = performance.now();
      if (backend === 'cpu') sim.step(1);
      else {
        await sim.advance(1);
        await sim.readSolverStats(); // the step's end, for its wall time
      }
      const ms = performance.now() - t;
      walls[step > restFrom ? 1 : 0] += ms;
      state = await sim.readState();
      const d = depths(state.positions);
      if (d.sphere < worst.sphere) Object.assign(worst, { sphere: d.sphere, sphereStep: step });
      worst.floor = Math.min(worst.floor, d.floor);
      if (step === restFrom) {
        costs.push(await readCost());
        restStart = Float64Array.from(state.positions);
      }
      const traced = trace > 0 && step % trace === 0;
      if (step > restFrom || traced) {
        const s = speeds(state.velocities);
        const e = energy(model, state.positions, state.velocities).total + selfPairs(model, state.positions).energy; // prettier-ignore
        if (step > restFrom) {
          for (const key of ['rms', 'max', 'mean']) restSpeeds[key] = Math.max(restSpeeds[key], s[key]);
          times.push(step * dt);
          energies.push(e);
        }
        if (traced)
          say(`${label} step ${step}: rms ${s.rms.toFixed(4)} m/s, mean ${s.mean.toFixed(4)} m/s, fastest ${s.max.toFixed(3)} m/s, E ${e.toFixed(5)} J, sphere ${(1000 * d.sphere).toFixed(2)} mm`); // prettier-ignore
      }
      progress(`${label}: step ${step}/${steps} (${ms.toFixed(0)} ms)`);
    }
    costs.push(await readCost());
    const cost = (a, b, wall, count) =>
      backend === 'cpu' ? cpuCost(a, b, wall, count) : gpuCost(a, b, count);
    const drape = cost(costs[0], costs[1], walls[0], restFrom);
    const resting = cost(costs[1], costs[2], walls[1], rest);
    const final = depths(state.positions);
    const insideCount = (() => {
      let count = 0;
      const x = state.positions;
      for (let k = 0; k < x.length; k += 3)
        if (Math.hypot(x[k] - SPHERE.center[0], x[k + 1] - SPHERE.center[1], x[k + 2] - SPHERE.center[2]) < SPHERE.radius) count++; // prettier-ignore
      return count;
    })();
    const intersections = selfIntersections(state.positions, model.triangleIndices).length;
    const pairs = selfPairs(model, state.positions);
    const released = energy0 - energies[0];
    const trend = slope(times, energies) * (times.at(-1) - times[0]);
    const meanE = energies.reduce((a, b) => a + b, 0) / energies.length;
    const fluctuation = Math.sqrt(energies.reduce((a, b) => a + (b - meanE) ** 2, 0) / energies.length);
    const solver = await sim.readSolverStats();
    const failures = [];
    if (insideCount > 0)
      failures.push(`${insideCount} particles inside the sphere in the final frame, the deepest ${(-final.sphere).toExponential(2)} m`); // prettier-ignore
    if (intersections > 0) failures.push(`${intersections} intersecting triangle pairs in the final frame`);
    const moved = displacement(restStart, state.positions);
    if (moved.rms > limits.move)
      failures.push(`not at rest: the particles moved ${(1000 * moved.rms).toFixed(2)} mm rms over the resting part (limit ${1000 * limits.move} mm)`); // prettier-ignore
    if (moved.centre > limits.comDrift)
      failures.push(`not at rest: the centre of mass moved ${(1000 * moved.centre).toFixed(2)} mm over the resting part (limit ${1000 * limits.comDrift} mm)`); // prettier-ignore
    if (trend > limits.drift * released)
      failures.push(`energy grows at rest: trend +${trend.toExponential(2)} J over ${rest} steps, more than ${limits.drift} of the ${released.toFixed(3)} J the drop released`); // prettier-ignore
    return {
      label,
      failures,
      n,
      particles: model.particleCount,
      selfThickness: model.selfCollision.thickness,
      worst,
      final,
      insideCount,
      intersections,
      pairs,
      restSpeeds,
      moved,
      energies: { first: energies[0], last: energies.at(-1), trend, fluctuation, released },
      drape,
      resting,
      unconverged: solver.unconvergedSolves,
      cgPerSolve: solver.linearIterations / solver.linearSolves,
      seconds: (walls[0] + walls[1]) / 1000,
    };
  } finally {
    sim.destroy();
  }
}

console.log(
  `Scene: 1 m cloth of n² particles (0.3 kg, k = 100/20/4 N/m, damping 0.05 N·s/m, no pins) 3 cm above a sphere ` +
    `(r = 0.3 m, thickness 1 cm, μ = 0.5) on a floor (y = −0.3 m), selfCollision's defaults (r = min(5 mm, 0.2 × spacing)); ` +
    `implicit Euler, dt = 1/60 s, multigrid CG to 1e-3; ${steps} steps, the last ${rest} the resting part. ` +
    `Load average ${loadavg()[0].toFixed(1)} at the start, niceness ${getPriority()}` +
    (adapterName ? `; WebGPU adapter ${adapterName}.` : '.'),
);
const results = [];
for (const n of sizes)
  for (const backend of backends) {
    say(`${n}² ${backend}: start`);
    let result;
    try {
      result = await runCase(n, backend);
    } catch (error) {
      result = { label: `${n}² ${backend}`, failures: [`failed: ${error.message}`] };
    }
    results.push(result);
    say(`${result.label}: ${result.failures.length ? result.failures.join('; ') : 'ok'}`);
  }

const mm = (m) => `${(m * 1000).toFixed(2)} mm`;
const pct = (f) => `${(100 * f).toFixed(1)} %`;
for (const r of results) {
  console.log(`\n${r.label}${r.particles ? ` (${r.particles} particles, ${r.seconds.toFixed(0)} s)` : ''}: ${r.failures.length ? 'FAILED' : 'ok'}`); // prettier-ignore
  if (!r.particles) {
    for (const f of r.failures) console.log(`  ✗ ${f}`);
    continue;
  }
  const shell = SPHERE.thickness;
  console.log(`  final frame: ${r.insideCount} particles inside the sphere (closest ${mm(r.final.sphere)} from its surface, ${mm(Math.max(0, shell - r.final.sphere))} into its ${mm(shell)} contact shell); floor closest ${mm(r.final.floor)} (shell ${mm(FLOOR.thickness)}); ${r.intersections} intersecting triangle pairs`); // prettier-ignore
  console.log(`  deepest in the run: ${r.worst.sphere < 0 ? `${mm(-r.worst.sphere)} inside the sphere` : `${mm(r.worst.sphere)} from the sphere (never inside)`} at step ${r.worst.sphereStep}, ${mm(Math.max(0, shell - r.worst.sphere))} into its shell; floor ${r.worst.floor < 0 ? `${mm(-r.worst.floor)} below it` : `closest ${mm(r.worst.floor)}`}`); // prettier-ignore
  console.log(`  self-contact, final frame: ${r.pairs.count} pairs listed, closest ${mm(r.pairs.closest)}, ${mm(Math.max(0, r.selfThickness - r.pairs.closest))} into the thickness r = ${mm(r.selfThickness)}`); // prettier-ignore
  console.log(`  at rest (last ${rest} steps): the particles moved ${mm(r.moved.rms)} rms (at most ${mm(r.moved.max)}: particle ${r.moved.which}, row ${Math.floor(r.moved.which / r.n)} column ${r.moved.which % r.n}, now at (${r.moved.at.map((c) => c.toFixed(3)).join(', ')}) m), the centre of mass ${mm(r.moved.centre)}; rms speed ≤ ${r.restSpeeds.rms.toFixed(4)} m/s, mean velocity ≤ ${r.restSpeeds.mean.toFixed(4)} m/s, fastest particle ≤ ${r.restSpeeds.max.toFixed(3)} m/s`); // prettier-ignore
  console.log(`  energy at rest: ${r.energies.first.toFixed(5)} → ${r.energies.last.toFixed(5)} J, trend ${r.energies.trend >= 0 ? '+' : ''}${r.energies.trend.toExponential(2)} J over the part (${(r.energies.trend / r.energies.released).toExponential(2)} of the ${r.energies.released.toFixed(3)} J the drop released), fluctuation (std) ${r.energies.fluctuation.toExponential(2)} J`); // prettier-ignore
  console.log(`  contacts per step (${r.label.includes('CPU') ? 'wall time of their passes' : 'GPU kernel time'}): drape (steps 1–${steps - rest}) ${r.drape.stepMs.toFixed(1)} ms a step, colliders ${pct(r.drape.colliders)}, self-collision ${pct(r.drape.self)}; rest ${r.resting.stepMs.toFixed(1)} ms a step, colliders ${pct(r.resting.colliders)}, self-collision ${pct(r.resting.self)} of the step`); // prettier-ignore
  console.log(
    `  solver: ${r.cgPerSolve.toFixed(1)} CG iterations a solve, ${r.unconverged} solves above 1e-3`,
  );
  for (const f of r.failures) console.log(`  ✗ ${f}`);
}
console.log(`\nLoad average ${loadavg()[0].toFixed(1)} at the end; ${elapsed()} in all.`);
device?.destroy();
const failed = results.filter((r) => r.failures.length > 0);
if (failed.length > 0) {
  console.error(`\ncheck:drop FAILED: ${failed.map((r) => `${r.label} (${r.failures.join('; ')})`).join(', ')}`); // prettier-ignore
  process.exit(1);
}
process.exit(0);
