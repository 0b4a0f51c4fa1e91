// @ts-check
import { readFileSync } from 'node:fs';

/**
 * Mutation testing of the TypeScript numerical core (issue 14): `npm run mutate` (all of it, then
 * the WGSL mutator) or `npm run mutate:quick` (WEFT_MUTATE_QUICK=1: QUICK_FILES against
 * QUICK_TESTS). Reports land in reports/mutation/ (mutation.json, not committed; SURVIVORS.md,
 * the triage, committed).
 *
 * Speed (2-core VM shared with other jobs, concurrency 1): perTest coverage runs only the tests
 * that cover a mutant and bails on the first failure; ignoreStatic skips mutants in module-level
 * code (which would re-run every test); timeoutMS is 5 s over the covering tests' own time (an
 * infinite loop costs 5 s, not 60). Measured: the quick part, 234 mutants, 34 min (8.8 s a
 * mutant; ~920 covering tests a mutant on average). The hot loops (executor, passes, linear
 * solver, implicit passes) are another matter: instrumented, the CPU suites run ~25× slower (the
 * dry run of all of them took over 5 min, hence dryRunTimeoutMinutes), and a surviving
 * mutant covered by every test costs minutes — 626 mutants there were estimated at 15 h.
 *
 * Mutated: the integrators (coefficients, programs, schemes, option checks), the CPU backend
 * (executor, passes, linear solvers, implicit passes, error norm, velocity-implicit Euler), the
 * shared backend code and the model (builders, energy, incidence, validation). Left out:
 * - src/integrators/options-table.ts, option-spec.ts: the option table's text (names, help, CLI
 *   flags), not arithmetic.
 * - src/model/multigrid-hierarchy.ts, galerkin-terms.ts, src/backends/cpu/multigrid.ts: being
 *   rewritten beside this work (issue 10); their suite (cpu-multigrid, 12 s) is left out too.
 * - src/model/obj.ts, mesh*.ts, scene.ts, float-text.ts: file parsing and mesh import (OBJ text,
 *   scene JSON), tested by their own suites (obj, mesh, scene-schema), not numerical core.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
/** The quick part (npm run mutate:quick): small formulas outside the hot loops, quick suites. */
const QUICK_FILES = [
  'src/integrators/implicit-schemes.ts',
  'src/backends/cpu/error-norm.ts',
  'src/model/energy.ts',
  'src/model/incidence.ts',
  'src/backends/common/stepper.ts',
];
const QUICK_TESTS = [
  'test/cpu-core-formulas.test.ts',
  'test/cpu-recursion.test.ts',
  'test/cpu-implicit-recursion.test.ts',
  'test/cpu-linear-solvers.test.ts',
  'test/cpu-convergence.test.ts',
  'test/adaptive-rk45.test.ts',
  'test/adaptive-step-doubling.test.ts',
  'test/adaptive-velocity-implicit-euler.test.ts',
  'test/cpu-analytic.test.ts',
];
/** The TypeScript core: what `npm run mutate` mutates, and what scripts/mutate-sample.mjs samples. */
export const CORE_PATTERNS = [
  'src/integrators/**/*.ts',
  'src/backends/cpu/**/*.ts',
  'src/backends/common/**/*.ts',
  'src/model/**/*.ts',
  '!src/integrators/options-table.ts',
  '!src/integrators/option-spec.ts',
  '!src/model/multigrid-hierarchy.ts',
  '!src/model/galerkin-terms.ts',
  '!src/backends/cpu/multigrid.ts',
  '!src/model/obj.ts',
  '!src/model/mesh*.ts',
  '!src/model/scene.ts',
  '!src/model/float-text.ts',
];
/**
 * WEFT_MUTATE_SAMPLE=reports/mutation/ts-sample.json (scripts/mutate-sample.mjs): only the
 * sampled mutants' locations, as Stryker's `file:line:column-line:column` ranges (lines 1-based,
 * columns 0-based, as Stryker reads them; the sample's locations are 0-based).
 */
const sampleRanges = (/** @type {string} */ path) =>
  JSON.parse(readFileSync(path, 'utf8')).mutants.map(
    (
      /** @type {{file: string, location: {start: {line: number, column: number}, end: {line: number, column: number}}}} */ m,
    ) =>
      `${m.file}:${m.location.start.line + 1}:${m.location.start.column}-${m.location.end.line + 1}:${m.location.end.column}`,
  );
const sample = process.env['WEFT_MUTATE_SAMPLE'];
const quick = process.env['WEFT_MUTATE_QUICK'] === '1';
// Read by vitest.mutate.config.ts in Stryker's test-runner processes, which inherit it.
if (quick) process.env['WEFT_MUTATE_TESTS'] = QUICK_TESTS.join(',');

const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  mutate: quick ? QUICK_FILES : sample ? sampleRanges(sample) : CORE_PATTERNS,
  ...(sample
    ? { plugins: ['@stryker-mutator/*', './scripts/stryker-sample-ignorer.mjs'], ignorers: ['sample'] }
    : {}),
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  concurrency: 1,
  timeoutMS: 5_000,
  // The full set's instrumented dry run took over 5 min (Stryker's default limit) here.
  dryRunTimeoutMinutes: 30,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
export default config;
