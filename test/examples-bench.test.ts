/**
 * examples/bench/ in headless Chromium (WebGPU on SwiftShader): a tiny run (8 × 8 cloth, 5 timed
 * steps) finishes with a row for every integrator × backend, each with a finite, positive
 * ms/step, and no error in the page or on the console.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { WeftBenchHooks } from '../examples/bench/main.ts';
import { type BrowserSession, startBrowserSession, stopBrowserSession } from './browser/chromium.ts';

let session: BrowserSession | undefined;

beforeAll(async () => {
  session = await startBrowserSession();
});

afterAll(async () => {
  await stopBrowserSession(session);
});

test('the benchmark page times every integrator on every backend', async () => {
  const { page, pageErrors } = await session!.open('/examples/bench/?sizes=8&steps=5');
  await page
    .waitForFunction(() => window.__weftBench?.done === true, { timeout: 25_000, polling: 100 })
    .catch((error: unknown) => {
      throw new Error(`the benchmark did not finish: ${(error as Error).message}\n${pageErrors.join('\n')}`);
    });
  const hooks = await page.evaluate(() => window.__weftBench as WeftBenchHooks);
  expect(hooks.errors).toEqual([]);
  expect(pageErrors).toEqual([]);
  expect(hooks.adapter).not.toBe('');
  const cases = hooks.rows.map((row) => `${row.integrator}/${row.backend}`).sort();
  const expected = ['symplectic-euler', 'rk4', 'implicit-euler'].flatMap((integrator) =>
    ['cpu-f64', 'cpu-f32', 'webgpu'].map((backend) => `${integrator}/${backend}`),
  );
  expect(cases).toEqual(expected.sort());
  for (const row of hooks.rows) {
    expect(row.n).toBe(8);
    expect(row.steps).toBe(5);
    expect(row.status, `${row.integrator}/${row.backend}: ${row.note}`).toBe('ok');
    expect(Number.isFinite(row.msPerStep) && row.msPerStep > 0, `${row.integrator}/${row.backend}`).toBe(
      true,
    );
    expect(row.stepsPerSecond).toBeCloseTo(1000 / row.msPerStep, 6);
  }
  // The table shows one row per case.
  expect(await page.$$eval('#rows tr', (rows) => rows.length)).toBe(hooks.rows.length);
  await page.close();
}, 30_000);
