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
// - test/self-contact-scenes.test.ts (8–75 s a case: layers dropped, ClothTwist) and
//   test/cloth-drop.test.ts (a 64² cloth, ~4 min): the scenes; the self-collision code they run is
//   covered by self-contact, self-contact-detect, self-contact-geometry and the vertex-shot cases.
// - Under WEFT_MUTATION=1 the suites that mix backends (contact-approach, contact-release,
//   divergence-watch, lifecycle) run their CPU cases only and acquire no GPU device
//   (test/helpers/node-device-suite.ts BACKENDS), and the slow scenes of the others are skipped:
//   implicit-self-contact's 16² collapsing cloths (14–65 s), implicit-colliders' backward-Euler
//   10² cloth (20 s), self-intersection's 24² multigrid drop (16 s), self-contact-detect's 20² and
//   24² crumpled cloths against the O(N²) reference, and self-contact-geometry runs a quarter of
//   its random cases. The added files take ~20 s together that way (loaded 2-core VM).
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
      'test/adaptive-colliders.test.ts',
      'test/kinematic-colliders.test.ts',
      'test/attachments.test.ts',
      'test/wind.test.ts',
      // Each stage's wind time: orders against the gust ODE, Drake's stepper against the program (~1 s each).
      'test/wind-stages.test.ts',
      'test/vie-wind-stage-times.test.ts',
      'test/strain-limit.test.ts',
      'test/fuzz-regressions.test.ts',
      // Dihedral bending and mesh colliders on the CPU (5.7 s and 3.6 s).
      'test/bending.test.ts',
      'test/bending-integrators.test.ts',
      'test/bending-scenes.test.ts',
      'test/mesh-collider.test.ts',
      // Contacts, self-collision and the watchdogs (WEFT_MUTATION=1: their CPU cases and small
      // scenes only; see the header).
      'test/contact-approach.test.ts',
      'test/contact-release.test.ts',
      'test/static-friction.test.ts',
      'test/jacobi-contacts.test.ts',
      'test/implicit-colliders.test.ts',
      'test/implicit-self-contact.test.ts',
      'test/self-contact.test.ts',
      'test/self-contact-detect.test.ts',
      'test/self-contact-geometry.test.ts',
      'test/self-intersection.test.ts',
      'test/divergence-watch.test.ts',
      'test/lifecycle.test.ts',
      'test/input-lookup.test.ts',
      // The multigrid hierarchy's pair numbering past its arrays' growth (seed 7's pair-numbering.ts:58).
      'test/pair-numbering.test.ts',
      // The tests written for seed 4's survivors (reports/mutation/SURVIVORS.md).
      'test/core-mutants-s4.test.ts',
      // The tests written for seed 5's survivors (SURVIVORS.md).
      'test/core-mutants-s5.test.ts',
      // The tests written for seed 6's survivors (SURVIVORS.md).
      'test/core-mutants-s6.test.ts',
      // The tests written for seed 7's survivors (SURVIVORS.md).
      'test/core-mutants-s7.test.ts',
      // The tests written for seed 8's survivors (SURVIVORS.md).
      'test/core-mutants-s8.test.ts',
      // The tests written for the open survivors of seeds 6, 7 and 8 (SURVIVORS.md).
      'test/core-mutants-open.test.ts',
      'test/program-transforms.test.ts',
      // The tests written for the release-within-the-step run's survivors (SURVIVORS.md).
      'test/release-mutants.test.ts',
    ],
    testTimeout: 120_000,
    env: { WEFT_MUTATION: '1' },
  },
});
