/** What test/browser/gpu-harness.ts, implicit-harness.ts and adaptive-harness.ts put on `window`, for the tests that drive them. */
import type { AdaptiveRunner } from '../helpers/adaptive-gpu-cases.ts';
import type { DeterminismResult, GpuCase, GpuCaseResult } from '../helpers/gpu-cases.ts';
import type { ImplicitRunner } from '../helpers/implicit-cases.ts';

export interface WeftHarness {
  /**
   * Runs `c` on the page's device (one for all calls, requested on the first) and on the CPU
   * (float32 storage) inside error scopes. Rejects when the browser has no `navigator.gpu` or no adapter.
   */
  runCase(c: GpuCase): Promise<GpuCaseResult>;
  /** Runs `c` twice on the GPU, each on a fresh simulation of the page's device, for a bit-for-bit check. */
  runDeterminism(c: GpuCase): Promise<DeterminismResult>;
  /** Makes one invalid buffer inside error scopes and one outside, on a device of its own. */
  provokeValidationErrors(): Promise<{ scoped: string[]; uncaptured: string[] }>;
  /** Destroys the page's device (a later call requests a new one). */
  release(): Promise<void>;
}

/** What every shared-device harness page adds to its runners. */
export interface SharedDeviceHarness {
  /** The shared device's adapter, in words. */
  adapter(): Promise<string>;
  /** Makes one invalid buffer inside error scopes and one outside, on a device of its own. */
  provokeValidationErrors(): Promise<{ scoped: string[]; uncaptured: string[] }>;
  /** Destroys the shared device (a later call requests a new one). */
  release(): Promise<void>;
}

/**
 * test/browser/implicit-harness.ts: the runners of test/helpers/implicit-cases.ts on one device
 * shared by the page's calls (requested on the first). Each runner returns the GPU errors its
 * case raised; every call rejects when the browser has no `navigator.gpu` or no adapter.
 */
export interface WeftImplicitHarness extends ImplicitRunner, SharedDeviceHarness {}

/** test/browser/adaptive-harness.ts: the runners of test/helpers/adaptive-gpu-cases.ts, likewise. */
export interface WeftAdaptiveHarness extends AdaptiveRunner, SharedDeviceHarness {}

/** The window properties of the shared-device harness pages. */
export type SharedHarnessKey = 'weftImplicitHarness' | 'weftAdaptiveHarness';

declare global {
  interface Window {
    weftHarness?: WeftHarness;
    weftImplicitHarness?: WeftImplicitHarness;
    weftAdaptiveHarness?: WeftAdaptiveHarness;
  }
}
