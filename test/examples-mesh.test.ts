/**
 * The cloth demo with a mesh read from OBJ (`?scene=garment`: examples/scenes/garment.obj through
 * loadObj and meshToModel) in headless Chromium, and its share link: the page draws the skirt and
 * moves it with no WebGPU or console error, and the link it writes reproduces the view — opened in
 * a second page, that page's own link is the same URL (every control and the camera read back).
 * The pattern of test/examples.test.ts; one small scene (420 particles) because SwiftShader is slow.
 */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startBrowserSession, type BrowserSession } from './browser/chromium.ts';
import { openPage, waitForFrames, type OpenedPage } from './browser/example-pages.ts';

let session: BrowserSession | undefined;
let browser: Browser | undefined;
let baseUrl = '';

beforeAll(async () => {
  session = await startBrowserSession(['examples/cloth/index.html']);
  ({ browser, baseUrl } = session);
});

afterAll(() => session?.close());

/**
 * Opens `url` at `width` × `height` (800 × 600 unless told) and waits for `frames` frames; page and
 * console errors are collected (test/browser/example-pages.ts).
 */
async function open(url: string, { frames = 3, width = 800, height = 600 } = {}): Promise<OpenedPage> {
  const opened = await openPage(browser!, url, { width, height });
  await waitForFrames(opened.page, opened.errors, frames);
  return opened;
}

/** Clicks Share link and returns the address it wrote (once the button says where the link is). */
async function share(page: Page): Promise<URL> {
  await page.click('#share');
  await page.waitForFunction(() => /^Link /.test(document.getElementById('share')!.textContent ?? ''), {
    timeout: 5000,
  });
  return new URL(page.url());
}

test('the demo drapes the skirt of garment.obj, and its share link reopens the same view', async () => {
  const query = '?scene=garment&dt=0.0166667&substeps=1&maxIterations=30&wind=6&camera=15,12,6';
  const { page, errors } = await open(`${baseUrl}/examples/cloth/${query}`);
  // The skirt is in the statistics with the counts of the CLI's test (420 particles, 2310 springs).
  await page.waitForFunction(
    () => /^implicit-euler · skirt \(garment\.obj\) \(420 particles, 2310 springs\)/.test(document.getElementById('stats')!.textContent ?? ''), // prettier-ignore
    { timeout: 20_000, polling: 200 },
  );
  // Cloth-coloured pixels, and some that change while it falls onto the sphere.
  const seen = await page.evaluate(async () => {
    const hooks = window.__weft!;
    const first = await hooks.capture();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const second = await hooks.capture();
    const [a, b] = [first.data, second.data];
    let [red, changed] = [0, 0];
    for (let p = 0; p < b.length; p += 4) {
      const [r, g, bl] = [b[p]!, b[p + 1]!, b[p + 2]!];
      if (r > 70 && r > 1.4 * g && r > 1.4 * bl) red++;
      if (Math.abs(a[p]! - r) + Math.abs(a[p + 1]! - g) + Math.abs(a[p + 2]! - bl) > 24) changed++;
    }
    return { pixels: b.length / 4, red, changed };
  });
  // The skirt covers about 6 % of this view (2 m wide, 1.3 m tall, from 6 m), and the wind's gusts
  // keep about 0.3 % of the pixels changing (measured); a third of each leaves room for timing.
  expect(seen.red, 'cloth-coloured pixels').toBeGreaterThan(0.02 * seen.pixels);
  expect(seen.changed, 'pixels changed in 0.5 s').toBeGreaterThan(0.001 * seen.pixels);

  const link = await share(page);
  expect(Object.fromEntries(link.searchParams)).toMatchObject({
    scene: 'garment',
    integrator: 'implicit-euler',
    dt: '0.0166667',
    substeps: '1',
    maxIterations: '30',
    pins: 'top-edge',
    sphere: '1',
    wind: '6',
    camera: '15,12,6',
  });
  expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
  expect(errors).toEqual([]);
  await page.close();

  // The link opened again: its own link, once the page has applied it and drawn a frame (the view is
  // the controls and the camera, not the pixels: 400 × 300, a quarter of the pixels to draw).
  const again = await open(link.href, { frames: 1, width: 400, height: 300 });
  expect((await share(again.page)).href).toBe(link.href);
  expect(again.errors).toEqual([]);
  await again.page.close();
});
