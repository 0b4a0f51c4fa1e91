/**
 * examples/threejs/ in headless Chromium (WebGPU on SwiftShader): three.js's WebGPURenderer and
 * Weft on one device. The page draws with no WebGPU or console error; its canvas shows the cloth
 * (cloth-coloured pixels) moving (pixels change between two frames). Read back once, after ~0.3 s
 * of simulated time: the texture three.js draws from holds Weft's positions exactly; the pins have
 * not moved; the free corner has fallen as a body in air does; and every particle is where Weft's
 * CPU reference (float64) puts it after the same steps.
 *
 * `WEFT_SCREENSHOT=1` also writes examples/threejs/screenshot.png (the cloth after 2.5 s of
 * simulated time, 1280 × 800; about 2 minutes on SwiftShader).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createSimulation } from '../src/index.ts';
import { RAYLEIGH_MASS, clothModel, integration } from '../examples/threejs/scene.ts';
import { REPO_ROOT, startBrowserSession, type BrowserSession } from './browser/chromium.ts';
import { openPage, type OpenedPage } from './browser/example-pages.ts';

let session: BrowserSession | undefined;
let browser: Browser | undefined;
let baseUrl = '';

beforeAll(async () => {
  session = await startBrowserSession(['examples/threejs/index.html']);
  ({ browser, baseUrl } = session);
});

afterAll(() => session?.close());

/** Opens the example at `width` × `height`; page errors and console errors are collected in `errors`. */
const open = (
  query: string,
  width: number,
  height: number,
  options: { withoutWebGpu?: boolean } = {},
): Promise<OpenedPage> =>
  openPage(browser!, `${baseUrl}/examples/threejs/${query}`, { width, height, ...options });

/** Waits until the page's simulated time reaches `time` s, failing with what the page said if it does not. */
async function waitForTime(page: Page, errors: string[], time: number, timeout: number): Promise<void> {
  await page
    .waitForFunction(
      (t) => (window.__weft?.time ?? 0) >= t || (window.__weft?.errors.length ?? 0) > 0,
      { timeout, polling: 100 },
      time,
    )
    .catch((error: unknown) => {
      throw new Error(`the cloth did not reach ${time} s: ${(error as Error).message}\n${errors.join('\n')}`);
    });
  expect(await page.evaluate(() => window.__weft!.errors)).toEqual([]);
}

/**
 * What the page shows, as RGBA bytes: a screenshot from the compositor (what a user sees), decoded by
 * the page itself. Reading the WebGPU canvas back with drawImage instead gave an all-background frame
 * once on a loaded 2-core CI machine.
 */
async function shownPixels(page: Page): Promise<number[]> {
  const png = await page.screenshot({ type: 'png', encoding: 'base64' });
  return page.evaluate(async (data) => {
    const image = new Image();
    image.src = `data:image/png;base64,${data}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    [canvas.width, canvas.height] = [image.width, image.height];
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    context.drawImage(image, 0, 0);
    return Array.from(context.getImageData(0, 0, image.width, image.height).data);
  }, png);
}

/** The cloth's red (lit or in shade) at byte offset `p` of RGBA `pixels`. */
const isRed = (pixels: ArrayLike<number>, p: number): boolean =>
  pixels[p]! > 40 && pixels[p]! > 1.4 * pixels[p + 1]! && pixels[p]! > 1.4 * pixels[p + 2]!;

function countRed(pixels: ArrayLike<number>): number {
  let count = 0;
  for (let p = 0; p < pixels.length; p += 4) if (isRed(pixels, p)) count++;
  return count;
}

/**
 * What the page knows when its view shows no cloth, so a failure says where the cloth went missing:
 * frames and simulated time, errors, and the red pixels of the next frame the app draws, read from
 * its canvas in the task that drew it (three.js did not draw the cloth, or the compositor did not
 * show it). The view is written to the system's temporary folder.
 */
async function blankViewReport(page: Page, errors: string[]): Promise<string> {
  const path = join(tmpdir(), `weft-threejs-view-${process.pid}.png`);
  writeFileSync(path, await page.screenshot({ type: 'png' }));
  const drawn = await page.evaluate(async () => {
    const hooks = window.__weft!;
    const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000));
    const image = await Promise.race([hooks.capture(), timeout]);
    let red = 0;
    if (image) {
      const data = image.data;
      for (let p = 0; p < data.length; p += 4) {
        if (data[p]! > 40 && data[p]! > 1.4 * data[p + 1]! && data[p]! > 1.4 * data[p + 2]!) red++;
      }
    }
    return {
      frames: hooks.frames,
      time: hooks.time,
      pageErrors: hooks.errors,
      drawnRed: image ? red : 'no frame in 10 s',
    };
  });
  return `view saved to ${path}; page: ${JSON.stringify(drawn)}; console: ${JSON.stringify(errors)}`;
}

test('three.js, on Weft’s device, draws a lit cloth that moves, with no WebGPU or console error', async () => {
  // 20² (the page's default is 32²): the same 1 m cloth, with about a quarter of the GPU work per
  // simulated second (fewer particles, and a longer stable explicit step).
  const { page, errors } = await open('?size=20', 400, 300);
  await waitForTime(page, errors, 0.05, 30_000);

  // Two views half a second apart: the cloth's red and pixels that changed. On a loaded 2-core
  // machine (SwiftShader renders on the CPU) the first views can come before the compositor shows
  // three.js's cloth: wait, up to 30 s, for one that shows it.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const view = await shownPixels(page);
    if (countRed(view) > 0.01 * (view.length / 4) || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const framesBefore = await page.evaluate(() => window.__weft!.frames);
  const first = await shownPixels(page);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const second = await shownPixels(page);
  const framesBetween = (await page.evaluate(() => window.__weft!.frames)) - framesBefore;
  const red = countRed(second);
  let changed = 0;
  for (let p = 0; p < second.length; p += 4) {
    const difference =
      Math.abs(first[p]! - second[p]!) +
      Math.abs(first[p + 1]! - second[p + 1]!) +
      Math.abs(first[p + 2]! - second[p + 2]!);
    if (difference > 24) changed++;
  }
  const pixels = second.length / 4;
  // Seen nearly edge-on as it starts to fall, the cloth covers ~2.5 % of the view (more as it swings
  // down); it moves by centimetres per frame, which changes ~3 % of the pixels.
  const report = red > 0.01 * pixels ? '' : await blankViewReport(page, errors);
  expect(red, `cloth-coloured pixels of ${pixels}; ${report}`).toBeGreaterThan(0.01 * pixels);
  expect(framesBetween, 'frames drawn between the two views').toBeGreaterThan(0);
  expect(changed, `pixels changed in 0.5 s (${framesBetween} frames)`).toBeGreaterThan(0.002 * pixels);

  expect(errors).toEqual([]);
  await page.close();
});

test('the cloth three.js draws is Weft’s: its texture holds Weft’s state, which falls as physics says', async () => {
  // 20² = 400 particles: six full rows of the positions texture and a partial seventh, both copies.
  const { page, errors } = await open('?size=20', 400, 300);
  // Stopped soon after 0.3 s of simulated time, while the free corner still falls freely (below).
  await waitForTime(page, errors, 0.3, 30_000);
  const { size, step, positions, drawn } = await page.evaluate(async () => ({
    size: window.__weftThree!.size,
    ...(await window.__weftThree!.stop()),
  }));
  expect(errors).toEqual([]);
  await page.close();

  const model = clothModel(size);
  const { options } = integration(size);
  const time = step * options.dt;
  expect(time, 'stopped within a few frames of 0.3 s').toBeLessThan(0.46);

  // What three.js draws from is Weft's state, bit for bit (float32 both, copied on the GPU).
  expect(drawn).toEqual(positions);

  // The pins held, exactly (±0.5 m and 0.5 m are exact in float32).
  const pins = [...model.particleFixed.keys()].filter((k) => model.particleFixed[k] === 1);
  expect(pins).toEqual([size * (size - 1), size * size - 1]); // 'top-corners'
  for (const k of pins) expect(positions.slice(3 * k, 3 * k + 3), `pin ${k}`).toEqual([...model.particlePositions.slice(3 * k, 3 * k + 3)]); // prettier-ignore

  // The free corner (0, 0), 1 m from the pins, falls like a stone in air until the cloth's tension
  // reaches it: ÿ = −g − r ẏ from rest, y0 − y = (g/r)(t − (1 − e^(−rt))/r), r the Rayleigh mass
  // damping. Weft's CPU path for this 20² cloth stays within 0.2 % of this curve from 0.3 to 0.46 s
  // (symplectic Euler's O(dt/t) ≈ 0.16 %, less as the tension arrives); 1 % leaves room, while g off
  // by 2 %, or no damping (+16 %), would not fit.
  const r = RAYLEIGH_MASS;
  const fallen = (9.81 / r) * (time - (1 - Math.exp(-r * time)) / r);
  const drop = model.particlePositions[1]! - positions[1]!;
  expect(Math.abs(drop / fallen - 1), `drop ${drop} m after ${time} s, not ${fallen} m`).toBeLessThan(0.01);

  // Every particle where the same model, integrator and step count put it on Weft's CPU path (float64).
  const reference = await createSimulation(model, { ...options, backend: 'cpu' });
  reference.step(step);
  const expected = (await reference.readState()).positions;
  let worst = 0;
  for (let c = 0; c < expected.length; c++) worst = Math.max(worst, Math.abs(positions[c]! - expected[c]!));
  // float32 against float64 after ~600 steps: 4e-7 m measured. One step more or less moves the
  // corner by v·dt ≈ 2.5 m/s × 0.5 ms ≈ 1.2 mm, 120 × this bound.
  expect(worst, `largest |GPU − CPU| after ${step} steps, m`).toBeLessThan(1e-5);
}, 90_000);

test('the three.js example says so when the browser has no WebGPU', async () => {
  const { page, errors } = await open('', 400, 300, { withoutWebGpu: true });
  await page.waitForFunction(() => window.__weft?.notice != null, { timeout: 20_000 });
  expect(await page.evaluate(() => window.__weft!.notice)).toMatch(/no WebGPU/i);
  expect(await page.evaluate(() => document.getElementById('notice')!.hidden)).toBe(false);
  expect(errors).toEqual([]);
  await page.close();
});

test.runIf(process.env['WEFT_SCREENSHOT'])(
  'writes examples/threejs/screenshot.png',
  async () => {
    const { page, errors } = await open('', 1280, 800);
    await waitForTime(page, errors, 2.5, 580_000);
    writeFileSync(join(REPO_ROOT, 'examples/threejs/screenshot.png'), await page.screenshot({ type: 'png' }));
    expect(errors).toEqual([]);
    await page.close();
  },
  600_000,
);
