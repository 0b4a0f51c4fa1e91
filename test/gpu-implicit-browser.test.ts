/**
 * The implicit integrators on WebGPU in headless Chromium (WebGPU on SwiftShader) against the CPU
 * reference: the suite of test/helpers/implicit-checks.ts. Vite serves
 * test/browser/implicit-harness.html, which runs each case in the page (GPU and CPU both) on one
 * device, inside error scopes, and hands back plain arrays; errors the page logs count as the
 * case's errors.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { useHarnessPage } from './browser/harness-session.ts';
import type { ImplicitRunner } from './helpers/implicit-cases.ts';
import { describeImplicitSuite } from './helpers/implicit-checks.ts';

const harness = useHarnessPage('/test/browser/implicit-harness.html', 'weftImplicitHarness');

const runner: ImplicitRunner = {
  kernel: (c) => harness.call('kernel', c),
  integrator: (c) => harness.call('integrator', c),
  cgSequence: (c) => harness.call('cgSequence', c),
  determinism: (c) => harness.call('determinism', c),
  midpoint: () => harness.call('midpoint'),
};

describeImplicitSuite(
  () => runner,
  () => `Chromium: ${harness.adapter()}`,
);
