/**
 * The WebGPU path in headless Chromium (WebGPU on SwiftShader) against the CPU float32 path, every
 * integrator on the spring, all but the Adams schemes on the 16 × 16 cloth (SCENE_INTEGRATORS). Vite serves test/browser/gpu-harness.html, which runs each case in
 * the page (GPU and CPU both) on the page's one device, inside error scopes, and hands back the two
 * states. test/gpu-node.test.ts holds the GPU's convergence orders in Node; test/gpu-kernels-quick.test.ts
 * runs every explicit and multistep scheme against the CPU in Node.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'puppeteer-core';
import { startBrowserSession, stopBrowserSession, type BrowserSession } from './browser/chromium.ts';
import type {} from './browser/harness-api.ts';
import { expectClose } from './helpers/expect-close.ts';
import {
  RAYLEIGH_INTEGRATORS,
  SCENE_TIMING,
  checkGpuAgainstCpu,
  formatErrorTable,
  rayleighCase,
  type ErrorRow,
} from './helpers/gpu-compare.ts';
import { SCENES, type GpuCase, type GpuCaseResult, type SceneName } from './helpers/gpu-cases.ts';
import { type ExplicitIntegratorName } from '../src/index.ts';
import { EXPLICIT_INTEGRATOR_NAMES, GPU_MULTISTEP } from '../src/internal.ts';

let session: BrowserSession | undefined;
let page: Page;
let pageErrors: string[] = [];
const rows: ErrorRow[] = [];
const adapters = new Set<string>();

beforeAll(async () => {
  session = await startBrowserSession();
  ({ page, pageErrors } = await session.open('/test/browser/gpu-harness.html'));
  await page
    .waitForFunction(() => window.weftHarness !== undefined, { timeout: 60_000 })
    .catch((error: unknown) => {
      throw new Error(`the harness page did not load: ${(error as Error).message}\n${pageErrors.join('\n')}`);
    });
});

afterAll(async () => {
  await page?.evaluate(() => window.weftHarness?.release()).catch(() => undefined);
  await stopBrowserSession(session);
  if (rows.length) console.log(formatErrorTable(`GPU (Chromium: ${[...adapters].join('; ')}) vs CPU`, rows));
});

async function runCase(c: GpuCase): Promise<GpuCaseResult> {
  const result = await page.evaluate((arg) => window.weftHarness!.runCase(arg), c);
  adapters.add(result.adapter);
  expect(pageErrors, 'errors in the harness page').toEqual([]);
  return result;
}

test('the harness sees validation errors, scoped and uncaptured', async () => {
  const seen = await page.evaluate(() => window.weftHarness!.provokeValidationErrors());
  expect(seen.scoped).toEqual([expect.stringContaining('validation: ')]);
  expect(seen.uncaptured).toEqual([expect.stringContaining('uncaptured: ')]);
  // Chromium also logs the uncaptured error to the console; that one was on purpose.
  pageErrors.length = 0;
});

/**
 * The integrators of each scene: every one on the spring; on the cloth the explicit ones and the
 * fixed-point predictor–correctors, whose sweeps the GPU dispatches indirectly over the cloth's
 * four workgroups (a sweep launched on one workgroup only fails here, measured: 1.3e-3 m on
 * implicit-euler-pc, while gpu-kernels-quick's 20 steps of 1 ms stay within its 1e-3 of the motion).
 * Adams–Bashforth 2/3 and Adams–Moulton PECE add stage combinations and history copies only, the
 * kernels and direct dispatches of the explicit schemes (on SwiftShader their 120 cloth steps took
 * 1/7 of this file's time): the spring checks them here, the 8 × 8 cloth in Node
 * (test/gpu-multistep.test.ts, 2e-6 m) and test/gpu-kernels-quick.test.ts on two workgroups.
 */
const SCENE_INTEGRATORS = {
  spring: [...EXPLICIT_INTEGRATOR_NAMES, ...GPU_MULTISTEP],
  cloth16: [...EXPLICIT_INTEGRATOR_NAMES, 'heun-implicit', 'implicit-euler-pc'],
} as const satisfies Record<SceneName, readonly (ExplicitIntegratorName | (typeof GPU_MULTISTEP)[number])[]>;

/**
 * The fixed-point correctors' sweeps a step, at most: 8, on both backends, twice what these runs
 * take (CPU f32: 1–4 a step, every step converged; at a cap of 3 the cloth's implicit-euler-pc left
 * 20 steps unconverged, at 8 none). The GPU encodes every allowed sweep of every step (those after
 * convergence launch no workgroups but are still dispatched): the default 50 made these the
 * slowest cases here.
 */
function correctorCap(integrator: GpuCase['integrator']): Pick<GpuCase, 'maxCorrectorIterations'> {
  return integrator === 'heun-implicit' || integrator === 'implicit-euler-pc'
    ? { maxCorrectorIterations: 8 }
    : {};
}

describe.each(SCENES)('%s', (scene: SceneName) => {
  test.each(SCENE_INTEGRATORS[scene] as readonly (ExplicitIntegratorName | (typeof GPU_MULTISTEP)[number])[])(
    '%s: GPU matches CPU f32',
    async (integrator: ExplicitIntegratorName | (typeof GPU_MULTISTEP)[number]) => {
      const c: GpuCase = {
        scene,
        integrator,
        ...SCENE_TIMING[scene],
        rayleighMass: 0,
        ...correctorCap(integrator),
      };
      await checkGpuAgainstCpu(c, await runCase(c), rows);
    },
  );
});

describe('spring with Rayleigh mass damping', () => {
  test.each(RAYLEIGH_INTEGRATORS)('%s: GPU matches CPU f32', async (integrator) => {
    const c = rayleighCase(integrator);
    await checkGpuAgainstCpu(c, await runCase(c), rows);
  });
});

describe('determinism', () => {
  // The gather sums each particle's springs in a fixed order, so two runs agree bit for bit.
  test.each(['rk4', 'symplectic-euler'] as const)(
    'cloth16 %s: two GPU runs are bit-identical',
    async (integrator) => {
      const c: GpuCase = { scene: 'cloth16', integrator, ...SCENE_TIMING.cloth16, rayleighMass: 0 };
      const result = await page.evaluate((arg) => window.weftHarness!.runDeterminism(arg), c);
      expect(result.errors, 'GPU errors').toEqual([]);
      expect(pageErrors, 'errors in the harness page').toEqual([]);
      expectClose(
        result.second,
        result.first,
        0,
        `cloth16 ${integrator}: second GPU run vs first (positions, m)`,
      );
    },
  );
});
