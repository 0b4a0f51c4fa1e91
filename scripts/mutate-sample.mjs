#!/usr/bin/env node
// A random sample of the TypeScript core's mutants, run by Stryker, scored with a confidence
// interval (issue 14). The whole core is ~5,200 mutants: at the 4–9 s a mutant measured here
// (2-core VM) that is 6–13 h of one core, so a simple random sample of n mutants estimates the
// score instead (mutant sampling: Wong & Mathur 1995; Gopinath et al. 2015, "How hard does
// mutation analysis have to be, anyway?", found ~1,000 random mutants estimate a full run's
// score to ±1–2 %). The interval is Wilson's 95 % score interval for a binomial proportion.
//
// Usage: node scripts/mutate-sample.mjs --size 300 [--seed 1] [--from 0] [--run] [--of reports/mutation/ts-sample.json]
//   --from: skip the first draws of the seed's random order: --from 0 --size 100, then --from 100
//     --size 100, … are chunks whose union is the sample --size 200, … (each run on its own).
//   (no --run): enumerate the mutants (Stryker's own instrumenter, the patterns of
//     stryker.config.mjs), draw --size of them with the seeded generator, write
//     reports/mutation/ts-sample.json (file, location, mutator, replacement of each).
//   --of: the sample's file (default reports/mutation/ts-sample.json); drawn unless --run finds it.
//   --run: then run Stryker on the sample's locations (WEFT_MUTATE_SAMPLE: stryker.config.mjs
//     mutates only those ranges; a range also yields the mutants nested in it, which run but are
//     not counted) and score the sampled mutants from reports/mutation/mutation.json.
//   --score: only score an existing mutation.json against the sample (--of); writes the sample
//     with each mutant's status as <sample>-result.json.
//   --merge a-result.json b-result.json …: the score of chunks' results taken together.
//   --survivors-of a-result.json --of b.json: b.json is the survivors of a run found again in
//     the current source (same file, mutator, replacement and original text; the nearest line),
//     to run them against tests added since (--run).
//   With --run, arguments after `--` go to `stryker run` (e.g. -- --timeoutMS 60000 on a loaded machine,
//   where the default 5 s counts starved runs as timeouts, which Stryker scores as killed).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { CORE_PATTERNS } from '../stryker.config.mjs';

const ROOT = join(import.meta.dirname, '..');
const SAMPLE = join(ROOT, 'reports', 'mutation', 'ts-sample.json');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    from: { type: 'string', default: '0' },
    run: { type: 'boolean', default: false },
    score: { type: 'boolean', default: false },
    merge: { type: 'boolean', default: false },
    'survivors-of': { type: 'string' },
    of: { type: 'string', default: SAMPLE },
  },
});

/** A glob of stryker.config.mjs (`**` any folders, `*` within a name) as a regular expression. */
const globRegex = (glob) =>
  new RegExp(
    '^' +
      glob
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\//g, '(?:.*/)?')
        .replace(/\*/g, '[^/]*') +
      '$',
  );

function coreFiles() {
  const all = [];
  const walk = (dir) =>
    readdirSync(dir).forEach((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else all.push(relative(ROOT, path));
    });
  walk(join(ROOT, 'src'));
  const include = CORE_PATTERNS.filter((p) => !p.startsWith('!')).map(globRegex);
  const exclude = CORE_PATTERNS.filter((p) => p.startsWith('!')).map((p) => globRegex(p.slice(1)));
  return all.filter((f) => include.some((r) => r.test(f)) && !exclude.some((r) => r.test(f))).sort();
}

async function enumerate() {
  const silent = { debug() {}, info() {}, warn() {}, error() {}, trace() {} };
  Object.assign(silent, { isDebugEnabled: () => false, isTraceEnabled: () => false });
  const files = coreFiles().map((name) => ({
    name,
    mutate: true,
    content: readFileSync(join(ROOT, name), 'utf8'),
  }));
  const options = { plugins: null, excludedMutations: [], ignorers: [], noHeader: false };
  const { mutants } = await new Instrumenter(silent).instrument(files, options);
  return { files: files.length, mutants };
}

/** mulberry32: a small seeded generator, so a sample can be drawn again. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function draw(size, seed, from, path) {
  const { files, mutants } = await enumerate();
  const random = generator(seed);
  const order = mutants.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const chosen = order
    .slice(from, from + size)
    .sort((a, b) => a - b)
    .map((i) => {
      const { fileName, location, mutatorName, replacement } = mutants[i];
      return { file: fileName, location, mutatorName, replacement };
    });
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const sample = {
    commit,
    seed,
    from,
    population: mutants.length,
    files,
    size: chosen.length,
    mutants: chosen,
  };
  writeFileSync(path, JSON.stringify(sample, null, 1) + '\n');
  console.log(
    `${mutants.length} mutants in ${files} files at ${commit}; drew ${chosen.length} (seed ${seed}, draws ${from}–${from + chosen.length - 1}) → ${relative(ROOT, path)}`,
  );
}

/** The survivors of `resultPath` found again in the current source, written as a sample to `out`. */
async function refind(resultPath, out) {
  const old = JSON.parse(readFileSync(resultPath, 'utf8'));
  const text = (source, { start, end }) => {
    const lines = source.split('\n').slice(start.line, end.line + 1);
    lines[lines.length - 1] = lines.at(-1).slice(0, end.column);
    lines[0] = lines[0].slice(start.column);
    return lines.join('\n');
  };
  const { mutants } = await enumerate();
  const found = [];
  for (const m of old.mutants.filter((x) => x.status === 'Survived' || x.status === 'NoCoverage')) {
    const original = text(execFileSync('git', ['show', `${old.commit}:${m.file}`], { cwd: ROOT, encoding: 'utf8' }), m.location); // prettier-ignore
    const current = readFileSync(join(ROOT, m.file), 'utf8');
    const same = mutants.filter((c) => c.fileName === m.file && c.mutatorName === m.mutatorName && c.replacement === m.replacement && text(current, c.location) === original); // prettier-ignore
    // The nearest line, then the nearest column: a line can hold the same text twice (`setup: [],
    // startup: []`), and the first of them is not necessarily the one that was drawn.
    const distance = (c) => [Math.abs(c.location.start.line - m.location.start.line), Math.abs(c.location.start.column - m.location.start.column)]; // prettier-ignore
    same.sort((a, b) => distance(a)[0] - distance(b)[0] || distance(a)[1] - distance(b)[1]);
    if (same.length === 0) console.log(`  not found now: ${m.file}:${m.location.start.line + 1} ${m.mutatorName} → ${m.replacement}`); // prettier-ignore
    else found.push({ file: m.file, location: same[0].location, mutatorName: m.mutatorName, replacement: m.replacement }); // prettier-ignore
  }
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  writeFileSync(out, JSON.stringify({ commit, seed: old.seed, survivorsOf: resultPath, population: old.population, size: found.length, mutants: found }, null, 1) + '\n'); // prettier-ignore
  console.log(`${found.length} survivors of ${resultPath} found at ${commit} → ${relative(ROOT, out)}`);
}

/** Wilson's 95 % score interval for k successes of n. */
function wilson(k, n) {
  const z = 1.96;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [centre - half, centre + half];
}

function score(samplePath) {
  const sample = JSON.parse(readFileSync(samplePath, 'utf8'));
  const report = JSON.parse(readFileSync(join(ROOT, 'reports', 'mutation', 'mutation.json'), 'utf8'));
  // The instrumenter's locations are 0-based lines and columns; the report's are 1-based.
  const key = (file, loc, mutator, replacement) =>
    `${file}:${loc.start.line}:${loc.start.column}-${loc.end.line}:${loc.end.column} ${mutator} ${replacement}`;
  const results = new Map();
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      const loc = {
        start: { line: m.location.start.line - 1, column: m.location.start.column - 1 },
        end: { line: m.location.end.line - 1, column: m.location.end.column - 1 },
      };
      results.set(key(file, loc, m.mutatorName, m.replacement), m);
    }
  }
  const statuses = sample.mutants.map((m) => {
    const result = results.get(key(m.file, m.location, m.mutatorName, m.replacement));
    return { ...m, status: result?.status ?? 'NotRun', id: result?.id };
  });
  const out = samplePath.replace(/\.json$/, '-result.json');
  writeFileSync(out, JSON.stringify({ ...sample, mutants: statuses }, null, 1) + '\n');
  summarize([{ ...sample, mutants: statuses }]);
}

/** Prints the score of chunk results (each the output of score()) taken together. */
function summarize(chunks) {
  const mutants = chunks.flatMap((c) => c.mutants);
  const tally = {};
  for (const m of mutants) tally[m.status] = (tally[m.status] ?? 0) + 1;
  const detected = (tally.Killed ?? 0) + (tally.Timeout ?? 0);
  const valid = detected + (tally.Survived ?? 0) + (tally.NoCoverage ?? 0);
  const [low, high] = wilson(detected, valid);
  const pct = (x) => `${(100 * x).toFixed(1)} %`;
  const { seed, population, commit } = chunks[0];
  console.log(`${mutants.length} sampled mutants (seed ${seed}; ${population} mutants at ${commit}):`, tally);
  console.log(
    `score ${detected}/${valid} = ${pct(detected / valid)}, 95 % interval ${pct(low)}–${pct(high)}`,
  );
  for (const s of mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')) {
    console.log(
      `  ${s.status} ${s.file}:${s.location.start.line + 1} ${s.mutatorName} → ${s.replacement.slice(0, 90)}`,
    );
  }
}

if (values['survivors-of']) await refind(values['survivors-of'], values.of);
if (values['survivors-of'] && !values.run) process.exit(0);
if (values.merge) summarize(positionals.map((path) => JSON.parse(readFileSync(path, 'utf8'))));
else if (values.score) score(values.of);
else {
  if (!values.run || !existsSync(values.of))
    await draw(Number(values.size), Number(values.seed), Number(values.from), values.of);
  if (values.run) {
    const run = spawnSync('npx', ['stryker', 'run', ...positionals], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, WEFT_MUTATE_SAMPLE: values.of },
    });
    if (run.status !== 0) process.exit(run.status ?? 1);
    score(values.of);
  }
}
