/**
 * The adaptive integrators on WebGPU in headless Chromium (WebGPU on SwiftShader) against the CPU
 * float32 path and a reference solution computed in Node (RK4 with small steps,
 * test/helpers/mass-spring-reference.ts): the suite of test/helpers/adaptive-gpu-checks.ts. Vite
 * serves test/browser/adaptive-harness.html, which runs each case in the page (GPU and CPU both)
 * on one device, inside error scopes, and hands back plain arrays; errors the page logs count as
 * the case's errors.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { useHarnessPage } from './browser/harness-session.ts';
import type { AdaptiveRunner } from './helpers/adaptive-gpu-cases.ts';
import { describeAdaptiveSuite } from './helpers/adaptive-gpu-checks.ts';

const harness = useHarnessPage('/test/browser/adaptive-harness.html', 'weftAdaptiveHarness');

const runner: AdaptiveRunner = {
  run: (c) => harness.call('run', c),
  badInput: (c) => harness.call('badInput', c),
};

describeAdaptiveSuite(
  () => runner,
  () => `Chromium: ${harness.adapter()}`,
);
