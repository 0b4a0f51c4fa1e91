/**
 * Weft's benchmark in the browser: NVIDIA Warp's cloth protocol (as bench/lib/protocol.mjs, scene
 * "warp") for each size × integrator × backend — CPU float64, CPU float32 and WebGPU. Each case
 * runs a short warm-up, then times a fixed number of steps: `await sim.advance(n)` and then
 * `await sim.readState()`, which on WebGPU waits for the GPU (and includes one read-back).
 *
 * URL parameters: `?sizes=16,32` (default 32,64), `?steps=64` (timed steps per case; the warm-up
 * is a quarter of that, at least one step and at most one frame of 16 steps).
 *
 * `window.__weftBench` exposes the results for tests: `done`, `rows` and `errors`.
 */
import { acquireDevice, buildCloth, createSimulation, type Model } from '../../src/index.ts';

/** One finished case. */
export interface BenchRow {
  n: number;
  particles: number;
  springs: number;
  integrator: string;
  solver: string;
  backend: 'cpu-f64' | 'cpu-f32' | 'webgpu';
  warmUpSteps: number;
  steps: number;
  msPerStep: number;
  stepsPerSecond: number;
  status: 'ok' | 'failed';
  note: string;
}

export interface WeftBenchHooks {
  done: boolean;
  adapter: string;
  rows: BenchRow[];
  errors: string[];
}

declare global {
  interface Window {
    __weftBench?: WeftBenchHooks;
  }
}

const hooks: WeftBenchHooks = { done: false, adapter: '', rows: [], errors: [] };
window.__weftBench = hooks;

/** Warp's cloth benchmark: 60 frames/s of 16 substeps. */
const DT = 1 / 960;
const FRAME_STEPS = 16;

const INTEGRATORS = [
  { integrator: 'symplectic-euler', solver: '' },
  { integrator: 'rk4', solver: '' },
  { integrator: 'implicit-euler', solver: 'pcg' },
] as const;

const BACKENDS = ['cpu-f64', 'cpu-f32', 'webgpu'] as const;

function parameterList(name: string, fallback: number[]): number[] {
  const text = new URLSearchParams(location.search).get(name);
  if (text === null) return fallback;
  const values = text
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((v) => Number.isInteger(v) && v >= 2);
  return values.length ? values : fallback;
}

const sizes = parameterList('sizes', [32, 64]);
const steps = parameterList('steps', [64])[0] ?? 64;
const warmUpSteps = Math.max(1, Math.min(FRAME_STEPS, Math.round(steps / 4)));

const progressLine = document.getElementById('progress')!;
const adapterLine = document.getElementById('adapter')!;
const notice = document.getElementById('notice')!;
const tableBody = document.getElementById('rows')!;

function cloth(n: number): Model {
  return buildCloth({
    nx: n,
    ny: n,
    spacing: 0.1,
    particleMass: 0.1,
    structuralStiffness: 1000,
    shearStiffness: 1000,
    bendStiffness: 1000,
    damping: 10,
    pins: 'top-corners',
    orientation: 'horizontal',
  });
}

const firstLine = (error: unknown): string =>
  String(error instanceof Error ? error.message : error).split('\n')[0] ?? '';

const format = (value: number): string =>
  Number.isFinite(value) ? (value >= 100 ? value.toFixed(0) : value.toPrecision(3)) : '—';

function addRow(row: BenchRow): void {
  const tr = document.createElement('tr');
  if (row.status !== 'ok') tr.className = 'failed';
  const cells: [string, boolean][] = [
    [String(row.n), true],
    [row.solver ? `${row.integrator} (${row.solver})` : row.integrator, false],
    [row.backend, false],
    [String(row.steps), true],
    [format(row.msPerStep), true],
    [format(row.stepsPerSecond), true],
    [row.note, false],
  ];
  for (const [text, numeric] of cells) {
    const td = document.createElement('td');
    td.textContent = text;
    if (numeric) td.className = 'number';
    tr.appendChild(td);
  }
  tableBody.appendChild(tr);
}

/** Lets the page draw the row just added before the next case takes the main thread. */
const yieldToPage = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

async function main(): Promise<void> {
  let device: GPUDevice | undefined;
  try {
    const acquired = await acquireDevice();
    device = acquired.device;
    hooks.adapter = acquired.adapterName;
    adapterLine.textContent = `WebGPU adapter: ${acquired.adapterName}`;
    device.addEventListener('uncapturederror', (event) => {
      hooks.errors.push(`WebGPU error: ${(event as GPUUncapturedErrorEvent).error.message}`);
    });
    void device.lost.then((info) => {
      if (!hooks.done) hooks.errors.push(`WebGPU device lost: ${info.message}`);
    });
  } catch (error) {
    adapterLine.textContent = 'WebGPU adapter: none';
    notice.textContent = `No WebGPU here (${firstLine(error)}): running the CPU rows only. Try a recent Chrome or Edge for the WebGPU rows.`;
    notice.hidden = false;
  }
  const backends = BACKENDS.filter((b) => b !== 'webgpu' || device);
  const total = sizes.length * INTEGRATORS.length * backends.length;
  let done = 0;

  for (const n of sizes) {
    const model = cloth(n);
    for (const { integrator, solver } of INTEGRATORS) {
      for (const backend of backends) {
        progressLine.textContent = `Case ${done + 1} of ${total}: N = ${n}, ${integrator}, ${backend}…`;
        await yieldToPage();
        const row: BenchRow = {
          n,
          particles: model.particleCount,
          springs: model.springCount,
          integrator,
          solver,
          backend,
          warmUpSteps,
          steps,
          msPerStep: NaN,
          stepsPerSecond: NaN,
          status: 'ok',
          note: '',
        };
        try {
          const sim = await createSimulation(model, {
            backend: backend === 'webgpu' ? 'webgpu' : 'cpu',
            integrator,
            dt: DT,
            ...(backend === 'webgpu'
              ? device
                ? { device }
                : {}
              : { precision: backend === 'cpu-f64' ? 'f64' : 'f32' }),
            ...(solver ? { solver } : {}),
          });
          try {
            await sim.advance(warmUpSteps);
            await sim.readState();
            const started = performance.now();
            await sim.advance(steps);
            await sim.readState(); // waits for the GPU; throws if the state is NaN or infinite
            const ms = performance.now() - started;
            row.msPerStep = ms / steps;
            row.stepsPerSecond = (1000 * steps) / ms;
          } finally {
            sim.destroy();
          }
        } catch (error) {
          row.status = 'failed';
          row.note = firstLine(error);
          hooks.errors.push(`N = ${n} ${integrator} ${backend}: ${row.note}`);
        }
        hooks.rows.push(row);
        addRow(row);
        done++;
      }
    }
  }
  progressLine.textContent = `Done: ${done} cases, ${steps} timed steps each after ${warmUpSteps} warm-up steps (h = 1/960 s).`;
  hooks.done = true;
  device?.destroy();
}

main().catch((error: unknown) => {
  hooks.errors.push(`The benchmark stopped: ${firstLine(error)}`);
  progressLine.textContent = `The benchmark stopped: ${firstLine(error)}`;
  hooks.done = true;
});
