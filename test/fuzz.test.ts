/**
 * Property-based fuzzing of everything a user hands Weft (issue 11): random models (made by
 * createModel, buildCloth, buildRope, parseScene of a value or of JSON text, valid or broken),
 * random createSimulation options (every row of the options table, valid and invalid values,
 * unknown names) and random calls on the simulation, on the CPU and on WebGPU, and `weft run`
 * command lines on broken scene files. Each case must end in a result that passes its checks or in
 * a WeftError (a WeftInputError naming its field); a crash (any other error), a hang (no answer
 * within the time limit), or garbage (a non-finite or mislabelled state, bad input accepted) fails.
 *
 * `npm test` runs a short version (WEFT_FUZZ_CASES, default 80); `npm run fuzz` runs 10,000 and
 * prints the same summary table. The seed is fixed (WEFT_FUZZ_SEED overrides it), so a run is
 * reproducible; a failure is shrunk by fast-check to a minimal case, printed with the command that
 * replays it (WEFT_FUZZ_REPLAY=<suite>:<path>). See README.md, "Tests".
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, test } from 'vitest';
import { cliSource, librarySource } from './helpers/fuzz-cases.ts';
import { WorkerPool } from './helpers/fuzz-pool.ts';
import { runCase, sceneText, type FuzzCase, type ModelSource, type Outcome } from './helpers/fuzz-run.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { createModel, createSimulation } from '../src/index.ts';

const env = (name: string, fallback: number): number => {
  const text = process.env[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be an integer ≥ 0, got '${text}'`);
  return value;
};
const CASES = env('WEFT_FUZZ_CASES', 80);
const SEED = env('WEFT_FUZZ_SEED', 110_005);
const GPU_CASES = Math.min(CASES, env('WEFT_FUZZ_GPU_CASES', Math.max(12, Math.round(CASES * 0.04))));
const CPU_CASES = CASES - GPU_CASES;
const CLI_CASES = env('WEFT_FUZZ_CLI_CASES', Math.max(4, Math.round(CASES / 100)));
/** Per case: far above what a case of ≤ 50 particles and ≤ 20 steps needs (< 1 s). */
const TIMEOUT_MS = env('WEFT_FUZZ_TIMEOUT_MS', 10_000);
/** Distinct failures shrunk to a minimal case (each shrink reruns the case many times). */
const SHRINK = env('WEFT_FUZZ_SHRINK', 4);
const REPLAY = process.env['WEFT_FUZZ_REPLAY'] ?? '';
/** Also print the commonest WeftErrors (what the generator mostly hits). */
const VERBOSE = process.env['WEFT_FUZZ_VERBOSE'] === '1';

type Suite = 'CPU' | 'WebGPU' | 'CLI';
const SEEDS: Record<Suite, number> = { CPU: SEED, WebGPU: SEED + 1, CLI: SEED + 2 };

/**
 * Open defects the fuzzer found and reported, not fixed yet (the code is another change's). A
 * case that has one (`has`) and fails as described (`failure`, matched against the failure's
 * `name: message`) is counted under "known" instead of failing the test; one that would hang
 * (`failure` null) is not run at all. Delete an entry once its defect is fixed: the fuzzer then
 * checks those cases again.
 */
const KNOWN: { id: string; what: string; has: (fuzzCase: FuzzCase) => boolean; failure: RegExp | null }[] = [
  {
    id: 'huge-iteration-cap',
    what: 'an iteration cap of 10⁶ or more (maxCorrectorIterations, maxIterations, newtonIterations, maxNewtonIterations, linearMaxIterations: any integer is valid on the CPU) lets a loop that cannot converge run for hours (the caller asked for it; loops now stop on NaN/Inf)',
    has: (c) => entriesOf(c).some(([name, value]) => /Iterations$/.test(name) && typeof value === 'number' && value >= 1e6), // prettier-ignore
    failure: null,
  },
];

const entriesOf = (c: FuzzCase): [string, unknown][] =>
  c.options?.kind === 'entries' ? c.options.entries : [];

interface Report {
  suite: Suite;
  signature: string;
  count: number;
  outcome: Outcome;
  original: string;
  shrunk: string;
  replay: string;
}

const results: Record<Suite, Outcome[]> = { CPU: [], WebGPU: [], CLI: [] };
const reports: Report[] = [];
const known: Record<string, number> = {};
const seconds: Record<Suite, number> = { CPU: 0, WebGPU: 0, CLI: 0 };

/** What makes two failures the same one: kind, error, message without its numbers and names. */
function signature(outcome: Outcome): string {
  const message = (outcome.message ?? '')
    .replace(/'[^']*'|"[^"]*"/g, '…')
    .replace(/-?\d[\d.e+-]*/g, '#')
    .slice(0, 90);
  return `${outcome.failure ?? outcome.kind} ${outcome.name ?? ''}: ${message}`;
}

/**
 * Runs `runs` cases of `arbitrary` from the suite's seed, counting every outcome, then shrinks the
 * first case of each distinct failure (up to SHRINK of them) to a minimal one.
 */
async function fuzz<T>(
  suite: Suite,
  arbitrary: fc.Arbitrary<T>,
  runs: number,
  run: (fuzzCase: T) => Promise<Outcome>,
): Promise<void> {
  // prettier-ignore
  const started = performance.now();
  const seed = SEEDS[suite];
  if (REPLAY !== '') {
    const [which, path] = REPLAY.split(':');
    if (which !== suite) return;
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (c) => {
        const outcome = await run(c);
        console.log(`${suite} case ${path}: ${shown(c)}\n→ ${JSON.stringify(outcome, null, 1)}`);
        return outcome.kind !== 'failure';
      }),
      { seed, path: path!, numRuns: 1, endOnFailure: true },
    );
    expect(details.failed, 'the case replayed fails').toBe(false);
    return;
  }
  const failing = new Map<string, { index: number; count: number; outcome: Outcome; fuzzCase: T }>();
  await fc.check(
    fc.asyncProperty(arbitrary, async (fuzzCase) => {
      const index = results[suite].length;
      const defects = KNOWN.filter((k) => k.has(fuzzCase as FuzzCase));
      const skipped = defects.find((k) => k.failure === null);
      const outcome = skipped ? null : await run(fuzzCase);
      const defect = skipped ?? defects.find((k) => outcome?.kind === 'failure' && k.failure!.test(`${outcome.name}: ${outcome.message}`)); // prettier-ignore
      if (defect) {
        known[defect.id] = (known[defect.id] ?? 0) + 1;
        results[suite].push({
          kind: 'failure',
          stage: 'run',
          code: 'known',
          steps: 0,
          notes: [],
          ms: outcome?.ms ?? 0,
        });
        return true;
      }
      if (!outcome) return true;
      results[suite].push(outcome);
      if (outcome.kind === 'failure') {
        const key = signature(outcome);
        const seen = failing.get(key);
        if (seen) seen.count++;
        else failing.set(key, { index, count: 1, outcome, fuzzCase });
      }
      return true;
    }),
    { seed, numRuns: runs },
  );
  for (const [key, first] of failing) {
    const report: Report = {
      suite,
      signature: key,
      count: first.count,
      outcome: first.outcome,
      original: shown(first.fuzzCase),
      shrunk: '(not shrunk: WEFT_FUZZ_SHRINK)',
      replay: `WEFT_FUZZ_SEED=${SEED} WEFT_FUZZ_REPLAY=${suite}:${first.index}`,
    };
    if (reports.filter((r) => r.suite === suite).length < SHRINK) {
      const details = await fc.check(
        fc.asyncProperty(arbitrary, async (c) => {
          const outcome = await run(c);
          return outcome.kind !== 'failure' || signature(outcome) !== key;
        }),
        { seed, path: String(first.index), numRuns: runs, interruptAfterTimeLimit: 60_000 },
      );
      if (details.failed && details.counterexample) {
        report.shrunk = shown(details.counterexample[0]);
        report.replay = `WEFT_FUZZ_SEED=${SEED} WEFT_FUZZ_REPLAY=${suite}:${details.counterexamplePath}`;
      }
    }
    reports.push(report);
  }
  seconds[suite] = (performance.now() - started) / 1000;
}

/** A case as printed: fast-check's notation, long strings cut. */
const shown = (value: unknown): string =>
  fc.stringify(value).replace(/"([^"\\]{60})[^"\\]{40,}"/g, (_, start: string) => `"${start}…"`);

function failuresOf(suite: Suite): string {
  return reports
    .filter((r) => r.suite === suite)
    .map(
      (r) =>
        `${r.count}× ${r.signature}\n  ${r.outcome.message ?? ''}\n  minimal case: ${r.shrunk}\n  replay: ${r.replay} npx vitest run test/fuzz.test.ts`,
    ) // prettier-ignore
    .join('\n\n');
}

// ——— The library on the CPU: each case in a worker, stopped after TIMEOUT_MS ————————————
test(
  `CPU: ${CPU_CASES} random models, options and calls end in a checked result or a WeftError`,
  async () => {
    const pool = new WorkerPool(TIMEOUT_MS);
    try {
      await fuzz('CPU', librarySource('cpu'), CPU_CASES, (c) => pool.run(c));
    } finally {
      await pool.close();
    }
    expect(pool.unhandled, 'unhandled rejections in the worker').toEqual([]);
    expect(failuresOf('CPU')).toBe('');
  },
  600_000 + CPU_CASES * 1000,
);

// ——— The library on WebGPU: one shared device, in this thread ——————————————————————————
const node = useNodeDevice((device, uncaptured) => ({ device, uncaptured }));

async function runOnGpu(fuzzCase: FuzzCase): Promise<Outcome> {
  const { device, uncaptured } = node.runner();
  const before = uncaptured.length;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const started = performance.now();
  const hang = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'failure', stage: 'run', failure: 'hang', code: 'hang', name: 'timeout', message: `no answer within ${3 * TIMEOUT_MS} ms`, steps: 0, notes: [], ms: performance.now() - started }), 3 * TIMEOUT_MS); // prettier-ignore
  });
  const outcome = await Promise.race([runCase(fuzzCase, device), hang]);
  clearTimeout(timer);
  await device.queue.onSubmittedWorkDone();
  const errors = uncaptured.splice(before);
  if (errors.length > 0 && outcome.kind !== 'failure')
    return { ...outcome, kind: 'failure', failure: 'uncaptured-gpu', code: 'uncaptured-gpu', name: 'GPUError', message: errors.join(' | ').slice(0, 400) }; // prettier-ignore
  return outcome;
}

test(
  `WebGPU: ${GPU_CASES} random cases on one device end in a checked result or a WeftError`,
  async () => {
    // A hang is a case that does not answer (30 s), not a compile. The fused adaptive kernel is one
    // pipeline per program shape, per device (src/backends/webgpu/fused-blocks.ts): 2.4–4 s for
    // rk45's, 7–9 s for velocity-implicit Euler's on a quiet CPU adapter (the interpreter it replaced
    // took 14–27 s, once 40 s beside other jobs, which a case counted as a hang). rk45's is compiled
    // first; a case of another shape compiles its own inside its 30 s.
    const { device } = node.runner();
    const warm = await createSimulation(createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], springPairs: [0, 1], springStiffness: 1 }), { integrator: 'rk45', backend: 'webgpu', device }); // prettier-ignore
    await warm.advance(1);
    warm.destroy();
    await fuzz('WebGPU', librarySource('webgpu'), GPU_CASES, runOnGpu);
    expect(failuresOf('WebGPU')).toBe('');
  },
  600_000 + GPU_CASES * 5000,
);

// ——— The CLI: `weft run` on broken scene files and command lines ——————————————————————————
const WEFT = join(import.meta.dirname, '..', 'bin', 'weft.js');
const BUILT_CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'weft.js');
const folder = mkdtempSync(join(tmpdir(), 'weft-fuzz-'));
let sceneFiles = 0;

/** How `weft run` ended: exit 0 with a complete, finite document, or one `weft:` line and its exit code. */
async function runCli(fuzzCase: {
  scene: ModelSource & { kind: 'scene-text' };
  args: string[];
}): Promise<Outcome> {
  // prettier-ignore
  const file = join(folder, `scene-${sceneFiles++}.json`);
  writeFileSync(file, sceneText(fuzzCase.scene.scene, fuzzCase.scene.edits));
  const started = performance.now();
  const { code, signal, stdout, stderr } = await new Promise<{
    code: number;
    signal: string | null;
    stdout: string;
    stderr: string;
  }>((resolve) => {
    // prettier-ignore
    execFile('node', [WEFT, 'run', file, ...fuzzCase.args], { timeout: 3 * TIMEOUT_MS, maxBuffer: 1 << 28 }, (error, out, err) => { // prettier-ignore
      const e = error as (Error & { code?: number | string; signal?: string | null }) | null;
      resolve({ code: typeof e?.code === 'number' ? e.code : e ? -1 : 0, signal: e?.signal ?? null, stdout: out, stderr: err }); // prettier-ignore
    });
  });
  rmSync(file, { force: true });
  const ms = performance.now() - started;
  const base = { steps: 0, notes: [] as string[], ms, stage: 'run' as const };
  const fail = (failure: 'crash' | 'hang' | 'garbage', message: string): Outcome => ({ ...base, kind: 'failure', failure, code: failure, name: 'weft', message: message.slice(0, 400) }); // prettier-ignore
  if (signal !== null) return fail('hang', `killed by ${signal} after ${ms.toFixed(0)} ms`);
  const lines = stderr.split('\n').filter((line) => line.startsWith('weft:'));
  if (/internal error/.test(stderr) || /\n\s+at /.test(stderr)) return fail('crash', stderr);
  type Document = { frames?: { step?: unknown; positions?: unknown }[]; stats?: { steps?: number }; error?: unknown }; // prettier-ignore
  let document: Document | null = null;
  if (stdout.trim() !== '') {
    try {
      document = JSON.parse(stdout) as Document;
    } catch (error) {
      return fail('garbage', `exit ${code}, stdout is not a JSON document: ${(error as Error).message}`);
    }
  }
  if (code === 0) {
    if (!document || !Array.isArray(document.frames) || document.frames.length === 0 || !document.stats)
      return fail('garbage', `exit 0 without a complete document: ${stdout.slice(0, 200)}`);
    for (const frame of document.frames) {
      const positions = frame.positions;
      if (!Array.isArray(positions) || positions.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
        return fail('garbage', `exit 0 with a frame whose positions are not finite numbers (step ${String(frame.step)})`); // prettier-ignore
    }
    const last = document.frames.at(-1)!;
    if (typeof document.stats.steps === 'number' && last.step !== document.stats.steps)
      return fail('garbage', `the last frame is step ${String(last.step)} of ${document.stats.steps}`);
    return { ...base, kind: 'result', steps: typeof last.step === 'number' ? last.step : 0 };
  }
  if (lines.length !== 1)
    return fail('garbage', `exit ${code} with ${lines.length} 'weft:' lines: ${stderr}`);
  if (document && document.error === undefined && document.stats === undefined)
    return fail('garbage', `exit ${code} with an unfinished document`);
  const message = lines[0]!.slice('weft: '.length);
  const kinds: Record<number, string> = { 1: 'misuse', 2: 'input', 3: 'webgpu-unavailable', 4: /unconverged|stopped at their caps/.test(message) ? 'unconverged' : /adaptive step/.test(message) ? 'step-size' : 'divergence' }; // prettier-ignore
  if (!(code in kinds)) return fail('crash', `exit ${code}: ${stderr}`);
  return { ...base, kind: 'weft-error', code: kinds[code]!, name: `exit ${code}`, message };
}

test(
  `CLI: ${CLI_CASES} random \`weft run\` command lines on random scene files end in a document or one error line`,
  async () => {
    if (!existsSync(BUILT_CLI)) throw new Error('the CLI is not built: run `npm run build` first (npm test and npm run fuzz do)'); // prettier-ignore
    await fuzz('CLI', cliSource, CLI_CASES, runCli);
    expect(failuresOf('CLI')).toBe('');
  },
  600_000 + CLI_CASES * 10_000,
);

function commonest(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) if (o.kind === 'weft-error') counts.set(`${o.stage} ${o.code} ${signature(o).slice(0, 110)}`, (counts.get(`${o.stage} ${o.code} ${signature(o).slice(0, 110)}`) ?? 0) + 1); // prettier-ignore
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([k, v]) => `  ${v}  ${k}`)
    .join('\n');
}

// ——— The summary table ———————————————————————————————————————————————————————————————
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  if (REPLAY !== '') return;
  const suites: Suite[] = ['CPU', 'WebGPU', 'CLI'];
  const rows: [string, (o: Outcome) => boolean][] = [
    ['result (checked)', (o) => o.kind === 'result'],
    ['  of which ran ≥ 1 step', (o) => o.kind === 'result' && o.steps > 0],
    ['scene text not JSON (JSON.parse)', (o) => o.kind === 'json-syntax'],
  ];
  const codes = new Set(
    suites.flatMap((s) => results[s].filter((o) => o.kind === 'weft-error').map((o) => o.code!)),
  );
  for (const code of [...codes].sort()) rows.push([`WeftError ${code}`, (o) => o.kind === 'weft-error' && o.code === code]); // prettier-ignore
  for (const stage of ['model', 'simulation', 'run'] as const)
    rows.push([`  WeftErrors at ${stage === 'model' ? 'making the model' : stage === 'simulation' ? 'createSimulation' : 'the calls'}`, (o) => o.kind === 'weft-error' && o.stage === stage]); // prettier-ignore
  for (const failure of ['crash', 'hang', 'garbage', 'unnamed-field', 'long-message', 'uncaptured-gpu', 'known'])
    rows.push([failure === 'known' ? 'known defects (reported)' : `FAILURE ${failure}`, (o) => o.kind === 'failure' && o.code === failure]); // prettier-ignore
  const cell = (suite: Suite, has: (o: Outcome) => boolean): string =>
    String(results[suite].filter(has).length);
  const table = [
    `| outcome | ${suites.join(' | ')} |`,
    `| --- | ${suites.map(() => '---:').join(' | ')} |`,
    `| cases | ${suites.map((s) => results[s].length).join(' | ')} |`,
    ...rows.map(([label, has]) => `| ${label} | ${suites.map((s) => cell(s, has)).join(' | ')} |`),
    `| seconds | ${suites.map((s) => seconds[s].toFixed(1)).join(' | ')} |`,
    `| slowest case, ms | ${suites.map((s) => Math.max(0, ...results[s].map((o) => o.ms)).toFixed(0)).join(' | ')} |`,
  ];
  const created: Record<string, number> = {};
  for (const o of [...results.CPU, ...results.WebGPU]) if (o.integrator && o.steps > 0) created[o.integrator] = (created[o.integrator] ?? 0) + 1; // prettier-ignore
  const notes: Record<string, number> = {};
  for (const o of [...results.CPU, ...results.WebGPU]) for (const note of o.notes) notes[note] = (notes[note] ?? 0) + 1; // prettier-ignore
  const total = suites.reduce((n, s) => n + results[s].length, 0);
  console.log(
    [
      `Weft fuzz, seed ${SEED}: ${total} cases (${results.CPU.length} CPU, ${results.WebGPU.length} WebGPU, ${results.CLI.length} CLI) in ${(seconds.CPU + seconds.WebGPU + seconds.CLI).toFixed(1)} s`,
      ...table,
      `Cases that ran steps, by integrator: ${Object.entries(created).sort().map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
      `Notes (not failures): ${Object.entries(notes).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
      ...KNOWN.filter((k) => known[k.id]).map((k) => `Known defect ${k.id} (${known[k.id]} cases${k.failure ? '' : ', not run'}): ${k.what}`),
      ...(VERBOSE ? suites.map((s) => `${s}, commonest WeftErrors:\n${commonest(results[s])}`) : []),
      ...reports.map((r) => `${r.suite} FAILURE ${r.count}× ${r.signature}\n  ${r.outcome.message ?? ''}\n  minimal case: ${r.shrunk}\n  replay: ${r.replay} npx vitest run test/fuzz.test.ts`),
    ].join('\n'),
  ); // prettier-ignore
});
