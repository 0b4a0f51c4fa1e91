/** What test/browser/gpu-harness.ts puts on `window`, for the tests that drive it. */
import type { DeterminismResult, GpuCase, GpuCaseResult } from '../helpers/gpu-cases.ts';

export interface WeftHarness {
  /**
   * Requests a device, runs `c` on it and on the CPU (float32 storage) inside error scopes, and
   * destroys the device. Rejects when the browser has no `navigator.gpu` or no adapter.
   */
  runCase(c: GpuCase): Promise<GpuCaseResult>;
  /** Runs `c` twice on the GPU, each on a fresh simulation of one device, for a bit-for-bit check. */
  runDeterminism(c: GpuCase): Promise<DeterminismResult>;
  /** Makes one invalid buffer inside error scopes and one outside, on a device of its own. */
  provokeValidationErrors(): Promise<{ scoped: string[]; uncaptured: string[] }>;
}

declare global {
  interface Window {
    weftHarness?: WeftHarness;
  }
}
