#!/usr/bin/env node
// A small mutation tester for shaders/*.wgsl (issue 14): one mutant at a time — an arithmetic
// operator flipped (+ ↔ −, * → /), a comparison moved (< ↔ <=, > ↔ >=), or a float constant
// changed (×2) — written into the shader, the GPU test files run against it (Dawn + SwiftShader in
// Node), the shader restored. A mutant is killed when a test fails. Prints the score and the
// survivors and writes reports/mutation/wgsl.json.
//
// Usage: node scripts/mutate-wgsl.mjs [--shader cg-step.wgsl] [--max 20]
//   --max: mutants at most (sampled evenly over all candidates; every GPU test run takes minutes
//   on SwiftShader, so the full set is for a long, separate run).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { shader: { type: 'string' }, max: { type: 'string', default: '20' } },
});
const GPU_TESTS = [
  'test/gpu-node.test.ts',
  'test/gpu-implicit-node.test.ts',
  'test/gpu-multistep.test.ts',
  'test/gpu-multigrid.test.ts',
  'test/gpu-program-implicit.test.ts',
  'test/gpu-adaptive-node.test.ts',
];

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
    if (!code.trim() || /^\s*(@group|override|const|struct|fn |var<|@compute|\})/.test(code)) return;
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
  ? [values.shader]
  : readdirSync(join(ROOT, 'shaders')).filter((f) => f.endsWith('.wgsl'));
const all = files.flatMap((file) => {
  const lines = readFileSync(join(ROOT, 'shaders', file), 'utf8').split('\n');
  return candidates(lines).map(([line, mutated, what]) => ({ file, line, mutated, what }));
});
const max = Math.min(Number(values.max), all.length);
// Evenly spaced over the candidates, so that a short run samples every shader.
const chosen = Array.from({ length: max }, (_, k) => all[Math.floor((k * all.length) / max)]);
console.log(`${all.length} candidate mutants in ${files.length} shaders; running ${chosen.length}`);

const results = [];
for (const [k, mutant] of chosen.entries()) {
  const path = join(ROOT, 'shaders', mutant.file);
  const original = readFileSync(path, 'utf8');
  const lines = original.split('\n');
  lines[mutant.line] = mutant.mutated;
  writeFileSync(path, lines.join('\n'));
  const started = performance.now();
  let killed = false;
  try {
    execFileSync('npx', ['vitest', 'run', '--bail', '1', ...GPU_TESTS], {
      cwd: ROOT,
      stdio: 'ignore',
      timeout: 900_000,
    });
  } catch {
    killed = true;
  } finally {
    writeFileSync(path, original);
  }
  const seconds = (performance.now() - started) / 1000;
  results.push({ ...mutant, line: mutant.line + 1, killed, seconds });
  console.log(`[${k + 1}/${chosen.length}] ${killed ? 'killed  ' : 'SURVIVED'} ${mutant.file}:${mutant.line + 1} ${mutant.what} (${seconds.toFixed(0)} s)`); // prettier-ignore
}
const killed = results.filter((r) => r.killed).length;
console.log(`WGSL mutation score: ${killed}/${results.length} killed (${((100 * killed) / Math.max(1, results.length)).toFixed(0)} %)`); // prettier-ignore
for (const r of results.filter((r) => !r.killed))
  console.log(`  survivor: ${r.file}:${r.line} ${r.what}: ${r.mutated.trim()}`);
mkdirSync(join(ROOT, 'reports', 'mutation'), { recursive: true });
writeFileSync(
  join(ROOT, 'reports', 'mutation', 'wgsl.json'),
  JSON.stringify({ candidates: all.length, results }, null, 2),
);
