/**
 * The Node side of a GPU suite: one device for the test file (Dawn through the `webgpu` package,
 * SwiftShader when no GPU answers), an uncaptured-error listener, a check that the error capture
 * works, and the suite's runner built on that device. No adapter is a failure, not a skip.
 * Under mutation testing (vitest.mutate.config.ts sets WEFT_MUTATION=1) no device is acquired: the
 * suites that mix backends run their CPU cases only (`BACKENDS`).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { provokeValidationErrors, watchUncapturedErrors } from './gpu-cases.ts';
import { acquireDevice } from '../../src/index.ts';

/** Stryker's test runs (vitest.mutate.config.ts): the CPU core is mutated, not the GPU backend. */
export const MUTATION_RUN = process.env['WEFT_MUTATION'] === '1';
/** The backends a suite that compares them runs: the CPU alone under mutation testing. */
export const BACKENDS: readonly ('cpu' | 'webgpu')[] = MUTATION_RUN ? ['cpu'] : ['cpu', 'webgpu'];

/**
 * WEFT_SHARED_DEVICE=1 (vite.config.ts's 'shared-device' project, whose files one process runs
 * without isolation): one device for the process, never destroyed, so the pipelines a file
 * compiles stay cached for the next (SwiftShader: seconds a pipeline family, in every file).
 */
const SHARED = process.env['WEFT_SHARED_DEVICE'] === '1';
let sharedDevice: ReturnType<typeof acquireDevice> | undefined;

export function useNodeDevice<R>(makeRunner: (device: GPUDevice, uncaptured: string[]) => R): {
  runner: () => R;
  adapter: () => string;
} {
  let device: GPUDevice | undefined;
  let adapter = '';
  let uncaptured: string[] = [];
  let runner: R | undefined;
  const listening = new AbortController();
  if (MUTATION_RUN) {
    const none = (): never => {
      throw new Error('no GPU device under mutation testing (WEFT_MUTATION=1): a CPU case only');
    };
    return { runner: none, adapter: none };
  }

  beforeAll(async () => {
    const acquired = await (SHARED ? (sharedDevice ??= acquireDevice()) : acquireDevice());
    device = acquired.device;
    adapter = acquired.adapterName;
    uncaptured = watchUncapturedErrors(device, listening.signal);
    runner = makeRunner(device, uncaptured);
  });

  afterAll(() => {
    listening.abort();
    if (!SHARED) device?.destroy();
  });

  test('the error capture sees validation errors, scoped and uncaptured', async () => {
    if (!device) throw new Error('no GPU device (beforeAll failed)');
    const before = uncaptured.length;
    const seen = await provokeValidationErrors(device);
    expect(seen.scoped).toEqual([expect.stringContaining('validation: ')]);
    expect(seen.uncaptured).toEqual([expect.stringContaining('uncaptured: ')]);
    // The file-wide listener saw it too; it was on purpose.
    uncaptured.splice(before);
  });

  return {
    runner: () => {
      if (!runner) throw new Error('no GPU device (beforeAll failed)');
      return runner;
    },
    adapter: () => adapter,
  };
}
