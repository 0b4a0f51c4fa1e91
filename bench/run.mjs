#!/usr/bin/env node
// `npm run bench`: Weft's integrators on the CPU (float64 and float32 storage) and on WebGPU,
// side by side with Jolt and Bullet (ammo.js) soft bodies, on NVIDIA Warp's cross-framework cloth
// protocol and a stiff implicit scene. See bench/lib/protocol.mjs for the scenes, and
// bench/lib/timebox.mjs for how each case is time-boxed.
//
// Usage (after `npm run build`; it imports dist/weft.js):
//   node bench/run.mjs [--sizes 32,64,128,256] [--families symplectic-euler,rk4,implicit-euler,stiff-pcg]
//                      [--backends cpu-f64,cpu-f32,webgpu] [--peers jolt,ammo | none]
//                      [--budget 3] [--quality-budget 12] [--frames 120] [--out bench/results] [--no-skip]
//
// Each case is timed for --budget seconds of wall time (after a one-step warm-up) and simulates
// at most --frames frames of 1/60 s from rest; it runs on past the budget to reach the last
// frame (2 s: the quality figures) only if that fits in --quality-budget seconds in all. A case
// whose one step is predicted (from the same case at the previous size, linearly in particles)
// to take longer than twice --budget is skipped and says so (--no-skip runs it anyway).
//
// Writes <out>/results.csv and <out>/chart.svg; prints the table on stdout and a progress bar
// on stderr.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { acquireDevice } from '../dist/weft.js';
import { Progress, chartSvg, fmt, resultsTable, statusText, textTable, toCsv } from './lib/output.mjs';
import { PEER_LABELS, loadPeer, runPeerCase } from './lib/peers.mjs';
import {
  BACKENDS,
  DEFAULT_BACKENDS,
  DEFAULT_FAMILIES,
  DEFAULT_SIZES,
  FAMILIES,
  PEERS,
  QUALITY_TIME,
  SCENES,
  sceneModel,
  stepOf,
} from './lib/protocol.mjs';
import { COPY_ELEMENTS, runWeftCase } from './lib/weft-case.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));

/** Options of {@link runBenchmark}; each has the default shown. */
export const DEFAULTS = {
  sizes: DEFAULT_SIZES,
  families: DEFAULT_FAMILIES,
  backends: DEFAULT_BACKENDS,
  peers: PEERS,
  /** Seconds of timing per case. */
  budget: 3,
  /** Seconds a case may run in all to reach the last frame (quality figures). */
  qualityBudget: 12,
  /** Frames of 1/60 s per case at most: 120 = the 2 s of the quality figures. */
  frames: QUALITY_TIME * 60,
  out: join(HERE, 'results'),
  /** Skip cases predicted to need more than `budget` seconds for one step. */
  skip: true,
};

const SERIES_LABELS = {
  'cpu-f64': 'Weft CPU float64',
  'cpu-f32': 'Weft CPU float32',
  webgpu: 'Weft WebGPU',
  jolt: 'Jolt soft body (XPBD)',
  ammo: 'Bullet/ammo.js soft body (PBD)',
};

function check(list, known, what) {
  for (const item of list) {
    if (!known.includes(item)) throw new Error(`unknown ${what} '${item}' (known: ${known.join(', ')})`);
  }
  return list;
}

function familyLabel(family) {
  const { scene, integrator, solver } = FAMILIES[family];
  const h = stepOf(SCENES[scene]);
  return `${scene === 'warp' ? 'Warp cloth' : 'stiff cloth (k = 1e4)'}: ${integrator}${solver ? ` (${solver})` : ''}, h = 1/${Math.round(1 / h)} s`;
}

const firstLine = (error) => String(error?.message ?? error).split('\n')[0];

/**
 * The fraction of the machine's CPU time that was busy over the next `ms` milliseconds, while
 * this process waits: what other work takes from the benchmark.
 */
async function otherCpuLoad(ms = 1000) {
  const total = () =>
    cpus().reduce(
      (sum, { times }) => {
        sum.idle += times.idle;
        sum.all += times.user + times.nice + times.sys + times.idle + times.irq;
        return sum;
      },
      { idle: 0, all: 0 },
    );
  const before = total();
  await sleep(ms);
  const after = total();
  return 1 - (after.idle - before.idle) / Math.max(1, after.all - before.all);
}

/**
 * Runs every case and writes results.csv and chart.svg to `options.out`.
 * @param {Partial<typeof DEFAULTS>} options
 * @param {{ progress?: NodeJS.WritableStream, log?: (line: string) => void }} io
 */
export async function runBenchmark(
  options = {},
  { progress: progressStream = process.stderr, log = console.log } = {},
) {
  const o = { ...DEFAULTS, ...options };
  check(o.families, Object.keys(FAMILIES), 'family');
  check(o.backends, Object.keys(BACKENDS), 'backend');
  check(o.peers, PEERS, 'peer');
  for (const n of o.sizes) {
    if (!Number.isInteger(n) || n < 2) throw new Error(`sizes: ${n} is not an integer ≥ 2`);
  }
  const cpu = `${cpus()[0]?.model?.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}`;
  const scenes = [...new Set(o.families.map((f) => FAMILIES[f].scene))];

  let device;
  let adapterName = '';
  let gpuUnavailable = '';
  if (o.backends.includes('webgpu')) {
    try {
      ({ device, adapterName } = await acquireDevice());
    } catch (error) {
      gpuUnavailable = firstLine(error);
    }
  }

  /** @type {Array<{ n: number, scene: string, family?: string, backend?: string, peer?: string }>} */
  const cases = [];
  for (const n of o.sizes) {
    for (const scene of scenes) {
      for (const family of o.families.filter((f) => FAMILIES[f].scene === scene)) {
        for (const backend of o.backends) cases.push({ n, scene, family, backend });
      }
      for (const peer of o.peers) cases.push({ n, scene, peer });
    }
  }

  const loadBefore = await otherCpuLoad();
  const progress = new Progress(cases.length, progressStream);
  const rows = [];
  const models = new Map();
  /** Last successful ms/step per (case kind), to predict the next size. */
  const previous = new Map();
  const started = performance.now();

  for (const c of cases) {
    const scene = SCENES[c.scene];
    const label = `N=${c.n} ${c.scene} ${c.peer ?? `${c.family} ${c.backend}`}`;
    progress.start(label);
    const modelKey = `${c.scene}/${c.n}`;
    if (!models.has(modelKey)) {
      models.clear(); // one size at a time in memory
      models.set(modelKey, sceneModel(scene, c.n));
    }
    const model = models.get(modelKey);
    const family = c.family ? FAMILIES[c.family] : undefined;
    const row = {
      engine: c.peer ?? 'weft',
      scene: c.scene,
      family: c.family ?? (c.peer === 'jolt' ? 'xpbd-soft-body' : 'pbd-soft-body'),
      integrator:
        family?.integrator ?? (c.peer === 'jolt' ? 'XPBD, 1 iteration/substep' : 'PBD, 1 iteration/substep'),
      solver: family?.solver ?? '',
      backend: c.backend ?? 'wasm',
      precision: c.backend ? BACKENDS[c.backend].precision : 'f32',
      device: c.backend === 'webgpu' ? adapterName : c.peer ? `${PEER_LABELS[c.peer]()} on ${cpu}` : cpu,
      N: c.n,
      particles: model.particleCount,
      springs: model.springCount,
      dt_s: stepOf(scene),
      steps_per_frame: scene.stepsPerFrame,
    };
    const kind = c.peer ? `${c.peer}/${c.scene}` : `${c.family}/${c.backend}`;
    const before = previous.get(kind);
    const predictedSeconds = before ? (before.secondsPerStep * model.particleCount) / before.particles : 0;
    const onChunk = (steps) => progress.update(`t = ${(steps * stepOf(scene)).toFixed(2)} s`);
    try {
      if (c.backend === 'webgpu' && !device) {
        Object.assign(row, { status: 'unavailable', note: `no WebGPU device: ${gpuUnavailable}` });
      } else if (o.skip && o.budget > 0 && predictedSeconds > 2 * o.budget) {
        Object.assign(row, {
          status: 'skipped',
          note: `one step predicted to take ${fmt(predictedSeconds)} s (N = ${before.n}, linear in particles), over twice the ${o.budget} s time box; --no-skip or a larger --budget runs it`,
        });
      } else if (c.peer) {
        Object.assign(
          row,
          await runPeerCase({
            peer: c.peer,
            model,
            sceneName: c.scene,
            n: c.n,
            frames: o.frames,
            budget: o.budget,
            qualityBudget: o.qualityBudget,
            onChunk,
          }),
        );
      } else {
        Object.assign(
          row,
          await runWeftCase({
            family: c.family,
            backend: c.backend,
            model,
            device,
            frames: o.frames,
            budget: o.budget,
            qualityBudget: o.qualityBudget,
            onChunk,
          }),
        );
      }
    } catch (error) {
      const unavailable =
        c.peer &&
        (await loadPeer(c.peer).then(
          () => false,
          () => true,
        ));
      Object.assign(row, { status: unavailable ? 'unavailable' : 'failed', note: firstLine(error) });
    }
    if (row.status === 'ok') {
      previous.set(kind, { secondsPerStep: row.ms_per_step / 1000, particles: model.particleCount, n: c.n });
    }
    rows.push(row);
    progress.finish(row.status === 'ok' ? `${fmt(row.ms_per_step)} ms/step` : `${row.status}: ${row.note}`);
  }
  progress.end();
  const wallSeconds = (performance.now() - started) / 1000;
  if (device) device.destroy();
  const loadAfter = await otherCpuLoad();
  // The reference bandwidth: the fastest copy timed in this run (one before and one after every
  // WebGPU case). Fractions against it are comparable from row to row.
  const copies = rows.map((r) => r.copy_GBps_local).filter((v) => Number.isFinite(v));
  const copyReference = copies.length ? Math.max(...copies) : undefined;
  for (const row of rows) {
    if (!Number.isFinite(row.achieved_GBps) || copyReference === undefined) continue;
    row.copy_GBps = copyReference;
    row.bandwidth_fraction = row.achieved_GBps / copyReference;
  }

  log('');
  log(`Weft benchmark — ${new Date().toISOString()}`);
  log(`CPU: ${cpu}`);
  const percent = (f) => `${Math.round(100 * f)} %`;
  log(
    `Other work on the CPUs: ${percent(loadBefore)} busy just before the run, ${percent(loadAfter)} just after` +
      (Math.max(loadBefore, loadAfter) > 0.2
        ? ' — the machine was shared: timings are pessimistic and noisy (SwiftShader, which needs every core, most).'
        : '.'),
  );
  log(`WebGPU: ${adapterName || `unavailable (${gpuUnavailable || 'not requested'})`}`);
  log(
    `Time box: ${o.budget} s of timing per case, at most ${o.frames} frames; on to the last frame if it fits in ${o.qualityBudget} s. ms/step = median over timed chunks (a frame each, or fewer steps when a frame is slow).`,
  );
  log('');
  const qualityTime = fmt(o.frames / 60);
  log(resultsTable(rows, qualityTime));
  log(
    `  sag@${qualityTime}s: drop of the free corner after ${qualityTime} s of simulated time (negative: above its start); strain: largest |l − L|/L then.`,
  );
  log(
    `  BW frac: achieved bytes/s (whole step, or ᵖ the CG product kernel alone) ÷ the fastest copy kernel (${COPY_ELEMENTS} vec4) timed in this run${copyReference ? `, ${fmt(copyReference)} GB/s` : ''}; copies were timed before and after every WebGPU case.`,
  );
  log('');
  for (const line of summaries(rows, qualityTime)) log(line);
  log('');

  mkdirSync(o.out, { recursive: true });
  const csvPath = resolve(o.out, 'results.csv');
  const svgPath = resolve(o.out, 'chart.svg');
  writeFileSync(csvPath, toCsv(rows));
  writeFileSync(
    svgPath,
    chartSvg(rows, {
      title: 'Weft vs peers: ms per step against cloth size',
      subtitle: `CPU: ${cpu}; WebGPU: ${adapterName || 'unavailable'}`,
      families: o.families,
      sceneOf: (family) => FAMILIES[family].scene,
      familyLabel,
      seriesLabel: (name) => SERIES_LABELS[name] ?? name,
    }),
  );
  log(`Wrote ${csvPath} and ${svgPath} (${rows.length} cases in ${fmt(wallSeconds)} s).`);
  return { rows, csvPath, svgPath, wallSeconds };
}

/** Lines comparing backends and peers: bandwidth fractions, and speed at comparable quality. */
function summaries(rows, qualityTime) {
  const lines = [];
  const gpu = rows.filter(
    (r) => r.backend === 'webgpu' && r.status === 'ok' && r.bandwidth_fraction !== undefined,
  );
  if (gpu.length) {
    lines.push('WebGPU bandwidth against the copy kernel measured in the same run:');
    lines.push(
      textTable(
        ['family', 'N', 'basis', 'achieved GB/s', 'copy GB/s (around the case)', 'fraction of the best copy'],
        gpu.map((r) => [
          r.family,
          String(r.N),
          r.bandwidth_basis,
          fmt(r.achieved_GBps),
          fmt(r.copy_GBps_local),
          fmt(r.bandwidth_fraction, 2),
        ]),
      ),
    );
    lines.push('');
  }
  for (const scene of [...new Set(rows.map((r) => r.scene))]) {
    const peers = rows.filter((r) => r.scene === scene && r.engine !== 'weft');
    if (!peers.length) continue;
    const weft = rows.filter((r) => r.scene === scene && r.engine === 'weft');
    lines.push(
      `Peers, ${SCENES[scene].label}: ms per (sub)step, and the quality figures at ${qualityTime} s`,
    );
    const entries = [...weft, ...peers].sort((a, b) => a.N - b.N);
    lines.push(
      textTable(
        ['N', 'engine', 'scheme', 'ms/step', 'vs fastest', `sag@${qualityTime}s m`, 'max strain', 'status'],
        entries.map((r) => {
          const fastest = Math.min(
            ...entries.filter((e) => e.N === r.N && e.status === 'ok').map((e) => e.ms_per_step),
          );
          return [
            String(r.N),
            r.engine === 'weft' ? `weft ${r.backend}` : r.engine,
            r.engine === 'weft' ? `${r.integrator}${r.solver ? ` ${r.solver}` : ''}` : r.integrator,
            fmt(r.ms_per_step),
            r.status === 'ok' ? `${fmt(r.ms_per_step / fastest, 2)}×` : '',
            fmt(r.sag_m),
            fmt(r.max_strain),
            r.status === 'ok' ? statusText(r) : `${r.status}: ${r.note}`,
          ];
        }),
      ),
    );
    lines.push('');
  }
  return lines;
}

/** Parses the command line into runBenchmark's options. */
export function parseCommandLine(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string' },
      families: { type: 'string' },
      backends: { type: 'string' },
      peers: { type: 'string' },
      budget: { type: 'string' },
      'quality-budget': { type: 'string' },
      frames: { type: 'string' },
      out: { type: 'string' },
      'no-skip': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const list = (text) =>
    text === 'none'
      ? []
      : text
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  const number = (name, text) => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0)
      throw new Error(`--${name}: expected a number ≥ 0, got '${text}'`);
    return value;
  };
  const options = {};
  if (values.help) options.help = true;
  if (values.sizes !== undefined) options.sizes = list(values.sizes).map(Number);
  if (values.families !== undefined) options.families = list(values.families);
  if (values.backends !== undefined) options.backends = list(values.backends);
  if (values.peers !== undefined) options.peers = list(values.peers);
  if (values.budget !== undefined) options.budget = number('budget', values.budget);
  if (values['quality-budget'] !== undefined)
    options.qualityBudget = number('quality-budget', values['quality-budget']);
  if (values.frames !== undefined) {
    options.frames = number('frames', values.frames);
    if (!Number.isInteger(options.frames) || options.frames < 1)
      throw new Error('--frames: expected an integer ≥ 1');
  }
  if (values.out !== undefined) options.out = resolve(values.out);
  if (values['no-skip']) options.skip = false;
  return options;
}

if (
  process.argv[1] &&
  resolve(process.argv[1]) === fileURLToPath(import.meta.url) &&
  process.argv.includes('--solver-scaling')
) {
  await import('./solver-scaling.mjs'); // issue 10's solver scaling: its own program and options
} else if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let options;
  try {
    options = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    console.error(`bench: ${firstLine(error)}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(
      [
        'node bench/run.mjs [--sizes 32,64,128,256] [--families symplectic-euler,rk4,implicit-euler,stiff-pcg]',
        '                   [--backends cpu-f64,cpu-f32,webgpu] [--peers jolt,ammo|none]',
        '                   [--budget 3] [--quality-budget 12] [--frames 120] [--out bench/results] [--no-skip]',
        `families: ${Object.keys(FAMILIES).join(', ')}`,
      ].join('\n'),
    );
    process.exit(0);
  }
  try {
    await runBenchmark(options);
  } catch (error) {
    console.error(`bench: ${firstLine(error)}`);
    process.exit(2);
  }
  process.exit(0); // Dawn's instance would keep the process alive
}
