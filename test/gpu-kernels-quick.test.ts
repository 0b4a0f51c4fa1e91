/**
 * Every WGSL kernel once on tiny scenes against the CPU path, in Node (Dawn; SwiftShader when no
 * GPU answers): the cases of test/helpers/wgsl-quick-cases.ts, which the WGSL mutator
 * (scripts/mutate-wgsl.mjs) also runs per mutant. No adapter is a failure, not a skip.
 */
import { expect, test } from 'vitest';
import { checkQuickCase, QUICK_CASES } from './helpers/wgsl-quick-cases.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);

// Implicit fixed-step cases step the GPU through advance() (bit-identical to step(), which
// encodes every Newton and CG iteration up to the caps: test/gpu-cg-dispatches.test.ts); the WGSL
// mutator runs the same cases through step(), and also those marked mutatorOnly.
test.each(QUICK_CASES.filter((c) => !c.mutatorOnly).map((c) => [c.label, c] as const))(
  '%s: GPU matches CPU f32',
  async (_label, c) => {
    expect(await checkQuickCase(node.runner(), c, true)).toEqual([]);
  },
);
