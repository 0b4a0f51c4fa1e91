/**
 * The adaptive integrators on WebGPU in headless Chromium (WebGPU on SwiftShader) against the CPU
 * float32 path and the exact solution: the suite of test/helpers/adaptive-gpu-checks.ts. Vite
 * serves test/browser/adaptive-harness.html, which runs each case in the page (GPU and CPU both)
 * on one device, inside error scopes, and hands back plain arrays; errors the page logs count as
 * the case's errors.
 *
 * No adapter is a failure, not a skip: this environment is meant to have SwiftShader.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Page } from 'puppeteer-core';
import { startBrowserSession, stopBrowserSession, type BrowserSession } from './browser/chromium.ts';
import type {} from './browser/harness-api.ts';
import type { AdaptiveRunner } from './helpers/adaptive-gpu-cases.ts';
import { describeAdaptiveSuite } from './helpers/adaptive-gpu-checks.ts';

let session: BrowserSession | undefined;
let page: Page | undefined;
let pageErrors: string[] = [];
let adapter = '';

beforeAll(async () => {
  session = await startBrowserSession();
  const opened = await session.open('/test/browser/adaptive-harness.html');
  ({ page, pageErrors } = opened);
  await opened.page
    .waitForFunction(() => window.weftAdaptiveHarness !== undefined, { timeout: 60_000 })
    .catch((error: unknown) => {
      throw new Error(`the harness page did not load: ${(error as Error).message}\n${pageErrors.join('\n')}`);
    });
  adapter = await opened.page.evaluate(() => window.weftAdaptiveHarness!.adapter());
});

afterAll(async () => {
  await page?.evaluate(() => window.weftAdaptiveHarness!.release()).catch(() => undefined);
  await stopBrowserSession(session);
});

function harnessPage(): Page {
  if (!page) throw new Error('no harness page (beforeAll failed)');
  return page;
}

/** A result with the errors the page logged meanwhile added to the GPU's. */
async function withPageErrors<T extends { errors: string[] }>(result: Promise<T>): Promise<T> {
  const value = await result;
  const logged = pageErrors.splice(0);
  return { ...value, errors: [...value.errors, ...logged] };
}

const runner: AdaptiveRunner = {
  run: (c) => withPageErrors(harnessPage().evaluate((arg) => window.weftAdaptiveHarness!.run(arg), c)),
  badInput: (c) =>
    withPageErrors(harnessPage().evaluate((arg) => window.weftAdaptiveHarness!.badInput(arg), c)),
};

test('the harness sees validation errors, scoped and uncaptured', async () => {
  const seen = await harnessPage().evaluate(() => window.weftAdaptiveHarness!.provokeValidationErrors());
  expect(seen.scoped).toEqual([expect.stringContaining('validation: ')]);
  expect(seen.uncaptured).toEqual([expect.stringContaining('uncaptured: ')]);
  // Chromium also logs the uncaptured error to the console; that one was on purpose.
  pageErrors.length = 0;
});

describeAdaptiveSuite(
  () => runner,
  () => `Chromium: ${adapter}`,
);
