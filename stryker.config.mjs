// @ts-check
/**
 * Mutation testing of the TypeScript numerical core (issue 14): `npm run mutate` (all of it) or
 * `npm run mutate:quick` (the coefficients and the CPU passes). Reports land in reports/mutation/.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  mutate: [
    'src/integrators/**/*.ts',
    'src/backends/cpu/**/*.ts',
    'src/backends/common/**/*.ts',
    'src/model/**/*.ts',
    '!src/integrators/options-table.ts',
    '!src/integrators/option-spec.ts',
  ],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 60_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
export default config;
