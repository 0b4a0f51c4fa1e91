/// <reference types="vitest/config" />
// The tests mutation testing runs (npm run mutate): the CPU suites, which need no GPU and run in
// seconds — the numerical core's references. GPU kernels are mutated by scripts/mutate-wgsl.mjs.
import { defineConfig } from 'vite';

export default defineConfig({
  test: {
    include: [
      'test/cpu-*.test.ts',
      'test/adaptive-*.test.ts',
      'test/errors.test.ts',
      'test/options.test.ts',
      'test/simulation.test.ts',
      'test/model-validation.test.ts',
    ],
    testTimeout: 120_000,
  },
});
