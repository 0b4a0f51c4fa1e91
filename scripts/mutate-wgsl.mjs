#!/usr/bin/env node
// A small mutation tester for shaders/*.wgsl (issue 14): one mutant at a time — an arithmetic
// operator flipped (+ ↔ −, * → /), a comparison moved (< ↔ <=, > ↔ >=), or a float constant
// changed (×2). A mutant is killed when a case of test/helpers/wgsl-quick-cases.ts fails (every
// kernel once on an 8 × 6 cloth, GPU against the CPU path, float32; test/gpu-kernels-quick.test.ts
// runs the same cases), or when the GPU run hangs past --timeout (a timeout, counted as killed, as
// Stryker counts them). Shaders on disk are never written: one vitest process
// (vitest.mutate-wgsl.config.ts, test/wgsl-mutants.run.ts) serves each mutant's text through a Vite
// plugin and tests the mutants one after another on one Dawn device, so only the mutated kernel is
// recompiled. Prints the score and the survivors and writes reports/mutation/wgsl.json.
//
// Usage: node scripts/mutate-wgsl.mjs [--shader cg-step.wgsl[,cg-init.wgsl…]] [--max 20 | --max all] [--timeout 120]
//                                    [--survivors-of reports/mutation/wgsl-first.json] [--cases 'self-collision detection']
//   --shader: these shaders only (comma-separated; default every shaders/*.wgsl).
//   --max: mutants at most, sampled evenly over all candidates (default all).
//   --timeout: seconds one mutant may take before it is counted as a timeout (default 120).
//   --survivors-of: run only the survivors of an earlier run's wgsl.json (same shaders).
//   --cases: only the quick cases whose label matches this regular expression (a cheaper, weaker
//     pass: a survivor has not met the other cases).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setInterval, clearInterval, setTimeout } from 'node:timers';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'reports', 'mutation');
const { values } = parseArgs({
  options: {
    shader: { type: 'string' },
    max: { type: 'string', default: 'all' },
    timeout: { type: 'string', default: '120' },
    'survivors-of': { type: 'string' },
    cases: { type: 'string' },
  },
});

/** Every candidate mutant of a shader: [line index, mutated line, description]. */
function candidates(lines) {
  const out = [];
  const swaps = [
    [/ \+ /g, ' - ', '+ → −'],
    [/ - /g, ' + ', '− → +'],
    [/ \* /g, ' / ', '* → /'],
    [/ < /g, ' <= ', '< → <='],
    [/ <= /g, ' < ', '<= → <'],
    [/ > /g, ' >= ', '> → >='],
    [/ >= /g, ' > ', '>= → >'],
    [/\b(\d+\.\d+)\b/g, null, 'constant ×2'],
  ];
  lines.forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, '');
    // Declarations and lines of closing braces only (a `} else if (…)` line holds a test: mutated).
    if (!code.trim() || /^\s*(@group|override|const|struct|fn |var<|@compute)/.test(code) || /^[\s}]*$/.test(code)) return; // prettier-ignore
    for (const [pattern, replacement, what] of swaps)
      for (const match of code.matchAll(pattern)) {
        const value = replacement ?? String(2 * Number(match[1]));
        // ×2 of 0 is 0 (an equivalent mutant); exponents are left alone.
        if (replacement === null && (Number(match[1]) === 0 || /e/.test(value))) continue;
        const mutated =
          line.slice(0, match.index) + (replacement ?? value) + line.slice(match.index + match[0].length);
        out.push([i, mutated, `${what} at column ${match.index + 1}`]);
      }
  });
  return out;
}

const files = values.shader
  ? values.shader.split(',')
  : readdirSync(join(ROOT, 'shaders')).filter((f) => f.endsWith('.wgsl'));
const all = files.flatMap((file) => {
  const lines = readFileSync(join(ROOT, 'shaders', file), 'utf8').split('\n');
  return candidates(lines).map(([line, mutated, what]) => ({ file, line, mutated, what }));
});
const max = values.max === 'all' ? all.length : Math.min(Number(values.max), all.length);
// Evenly spaced over the candidates, so that a short run samples every shader.
let chosen = Array.from({ length: max }, (_, k) => all[Math.floor((k * all.length) / max)]);
if (values['survivors-of']) {
  // Only the survivors of an earlier run (its wgsl.json), e.g. after the cases were strengthened.
  const earlier = JSON.parse(readFileSync(values['survivors-of'], 'utf8')).results;
  const ids = new Set(earlier.filter((r) => r.status === 'survived').map((r) => r.id));
  chosen = all.filter((m) => ids.has(`${m.file}:${m.line + 1}:${m.what}`));
}
const mutants = chosen.map((m) => {
  const lines = readFileSync(join(ROOT, 'shaders', m.file), 'utf8').split('\n');
  lines[m.line] = m.mutated;
  return { ...m, id: `${m.file}:${m.line + 1}:${m.what}`, source: lines.join('\n') };
});
console.log(`${all.length} candidate mutants in ${files.length} shaders; running ${mutants.length}`);

mkdirSync(OUT, { recursive: true });
const resultsFile = join(OUT, 'wgsl-results.jsonl');
const timeoutMs = 1000 * Number(values.timeout);
const outcome = new Map(); // id → { status, by, reason, seconds }
const started = performance.now();

/** Lines of the results file so far. */
function events() {
  if (!existsSync(resultsFile)) return [];
  // Complete lines only: the runner may be half-way through appending one.
  return readFileSync(resultsFile, 'utf8')
    .split('\n')
    .slice(0, -1)
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Runs the mutants not yet decided in one vitest process; resolves when it exits or is killed. */
function batch(remaining) {
  const mutantsFile = join(OUT, 'wgsl-mutants.json');
  writeFileSync(mutantsFile, JSON.stringify(remaining.map(({ id, file, source }) => ({ id, file, source }))));
  writeFileSync(resultsFile, '');
  const child = spawn('npx', ['vitest', 'run', '--config', 'vitest.mutate-wgsl.config.ts'], {
    cwd: ROOT,
    env: { ...process.env, WEFT_WGSL_MUTANTS: mutantsFile, WEFT_WGSL_RESULTS: resultsFile, ...(values.cases ? { WEFT_WGSL_CASES: values.cases } : {}) }, // prettier-ignore
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  return new Promise((resolve) => {
    let current;
    let since = performance.now();
    let printed = 0;
    const poll = setInterval(() => {
      const lines = events();
      for (const e of lines.slice(printed)) {
        if (e.id === 'baseline') {
          console.log(
            `baseline: ${e.status} (${e.seconds.toFixed(1)} s, unmutated, the cases the mutants reach)`,
          );
          if (e.status !== 'passed') console.log(`  ${e.by}: ${e.reason}`);
        } else if (e.event === 'start') {
          current = e.id;
          since = performance.now();
        } else {
          current = undefined;
          outcome.set(e.id, e);
          const m = mutants.find((x) => x.id === e.id);
          console.log(`[${outcome.size}/${mutants.length}] ${e.status === 'killed' ? 'killed  ' : 'SURVIVED'} ${e.id} (${e.seconds.toFixed(1)} s)${e.by ? ` by ${e.by}` : ''}${e.status === 'survived' ? `: ${m.mutated.trim()}` : ''}`); // prettier-ignore
        }
      }
      printed = lines.length;
      if (current && performance.now() - since > timeoutMs) {
        outcome.set(current, { status: 'timeout', seconds: timeoutMs / 1000 });
        console.log(`[${outcome.size}/${mutants.length}] timeout  ${current} (> ${values.timeout} s)`);
        current = undefined;
        process.kill(-child.pid, 'SIGKILL');
      }
    }, 500);
    child.on('exit', (code) => {
      setTimeout(() => {
        clearInterval(poll);
        // A mutant that crashed the process (a lost device, say) was detected: killed.
        for (const e of events().slice(printed))
          if (e.event === 'end' && e.id !== 'baseline') outcome.set(e.id, e);
        const open = events().filter((e) => e.event === 'start' && !outcome.has(e.id));
        for (const e of open)
          outcome.set(e.id, { status: 'killed', by: 'crash', reason: `exit ${code}`, seconds: 0 });
        if (code !== 0 && !events().some((e) => e.id === 'baseline')) console.error(stderr);
        resolve(events().find((e) => e.id === 'baseline')?.status);
      }, 600);
    });
  });
}

for (;;) {
  const remaining = mutants.filter((m) => !outcome.has(m.id));
  if (!remaining.length) break;
  const baseline = await batch(remaining);
  if (baseline !== 'passed') {
    console.error('the unmutated shaders fail the quick cases (or the runner did not start): stopping');
    process.exit(1);
  }
}

const results = mutants.map(({ source: _source, ...m }) => ({
  ...m,
  line: m.line + 1,
  ...outcome.get(m.id),
}));
const detected = results.filter((r) => r.status !== 'survived');
const minutes = (performance.now() - started) / 60_000;
console.log(`WGSL mutation score: ${detected.length}/${results.length} killed or timed out (${((100 * detected.length) / Math.max(1, results.length)).toFixed(1)} %), ${results.filter((r) => r.status === 'timeout').length} timeouts; ${minutes.toFixed(1)} min`); // prettier-ignore
for (const r of results.filter((r) => r.status === 'survived'))
  console.log(`  survivor: ${r.file}:${r.line} ${r.what}: ${r.mutated.trim()}`);
writeFileSync(join(OUT, 'wgsl.json'), JSON.stringify({ candidates: all.length, minutes, results }, null, 2));
