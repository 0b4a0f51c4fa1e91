/**
 * The order vitest starts test files in (vite.config.ts `sequence.sequencer`). Vitest runs the
 * files of its cache's last run longest first, and, with no cache (a fresh clone, as on CI), the
 * largest files first — where these GPU suites, a few lines that run a helper's cases, come last
 * and leave one of the two workers idle while the other finishes them (simulated on the cache's
 * durations: ~40 s of a ~16 min serial total). They start first instead, in this order; the rest
 * keep vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Suites that take far longer than their size says (seconds on one worker, loaded 2-core VM). */
export const HEAVY_FILES = [
  'test/gpu-kernels-quick.test.ts', // ~110 s
  'test/gpu-implicit-browser.test.ts', // ~50 s
  'test/gpu-implicit-node.test.ts', // ~30 s
  'test/gpu-adaptive-browser.test.ts', // ~20 s
];

export class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const path = spec.moduleId.replaceAll('\\', '/');
      const index = HEAVY_FILES.findIndex((file) => path.endsWith(`/${file}`));
      return index < 0 ? HEAVY_FILES.length : index;
    };
    // Array.prototype.sort is stable: the others keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
