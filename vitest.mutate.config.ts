/// <reference types="vitest/config" />
// The tests mutation testing runs (npm run mutate, stryker.config.mjs): the CPU suites that finish
// in ≤ 3 s a file (measured on the project's 2-core VM: each of the files below takes 0.8–2.3 s in
// vitest, 30 s for all of them), the numerical core's references. Left out, each with the reason:
// - test/cpu-implicit-stability.test.ts: 40 s (a 32 × 32 stiff cloth for 1,000 implicit steps);
//   every mutant it would kill is covered by the recursion and convergence suites' smaller scenes.
// - test/cpu-multigrid.test.ts: 12 s; multigrid is outside the mutated files for now (see
//   stryker.config.mjs).
// - in test/adaptive-velocity-implicit-euler.test.ts, the two rk45-on-a-stiff-spring comparisons
//   (15 s of its 17 s; minutes under Stryker's instrumentation): WEFT_MUTATION=1 skips them. rk45
//   is checked by test/adaptive-rk45.test.ts.
// GPU kernels are mutated by scripts/mutate-wgsl.mjs.
import { defineConfig } from 'vite';

// WEFT_MUTATE_TESTS=test/a.test.ts,test/b.test.ts narrows the set (a partial run, stated as such).
const narrowed = process.env['WEFT_MUTATE_TESTS']?.split(',').filter(Boolean);

export default defineConfig({
  test: {
    include: narrowed ?? [
      'test/cpu-analytic.test.ts',
      'test/cpu-core-formulas.test.ts',
      'test/cpu-convergence.test.ts',
      'test/cpu-implicit-convergence.test.ts',
      'test/cpu-implicit-recursion.test.ts',
      'test/cpu-linear-solvers.test.ts',
      'test/cpu-recursion.test.ts',
      'test/adaptive-*.test.ts',
      'test/errors.test.ts',
      'test/options.test.ts',
      'test/simulation.test.ts',
      'test/model-validation.test.ts',
      // The CPU suites of contact, attachments, wind and strain limits (0.02–1.2 s each).
      'test/colliders.test.ts',
      'test/kinematic-colliders.test.ts',
      'test/attachments.test.ts',
      'test/wind.test.ts',
      'test/strain-limit.test.ts',
      'test/fuzz-regressions.test.ts',
      // Dihedral bending and mesh colliders on the CPU (5.7 s and 3.6 s).
      'test/bending.test.ts',
      'test/bending-integrators.test.ts',
      'test/bending-scenes.test.ts',
      'test/mesh-collider.test.ts',
    ],
    testTimeout: 120_000,
    env: { WEFT_MUTATION: '1' },
  },
});
