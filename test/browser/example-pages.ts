/**
 * What the example pages' tests share (test/examples*.test.ts, test/threejs.test.ts): a page opened
 * with its errors collected, a wait for frames, and two frames compared in the page. The pages
 * expose `window.__weft` (examples/cloth/page-status.ts).
 */
import type { Browser, Page } from 'puppeteer-core';
import { expect } from 'vitest';

/** A page and the page errors and console errors it has raised so far. */
export interface OpenedPage {
  page: Page;
  errors: string[];
}

/**
 * Opens `url` at `width` × `height` (400 × 300 unless told: SwiftShader draws a quarter of
 * 800 × 600's pixels, and the pixel checks are fractions of the canvas). The browser's cache is on:
 * a page's modules, fetched by the pages before it, are revalidated, not sent again.
 */
export async function openPage(
  browser: Browser,
  url: string,
  options: { withoutWebGpu?: boolean; width?: number; height?: number } = {},
): Promise<OpenedPage> {
  const page = await browser.newPage();
  await page.setViewport({ width: options.width ?? 400, height: options.height ?? 300 });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${(error as Error).message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console error: ${message.text()}`);
  });
  if (options.withoutWebGpu) {
    await page.evaluateOnNewDocument(() => {
      Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined });
    });
  }
  const response = await page.goto(url, { waitUntil: 'load' });
  // 304: the page as fetched before (Vite sends an ETag).
  if (!response?.ok() && response?.status() !== 304)
    throw new Error(`GET ${url}: HTTP ${response?.status() ?? 'no response'}`);
  return { page, errors };
}

/** Waits until the page has drawn `frames` frames, failing with what the page said if it does not. */
export async function waitForFrames(page: Page, errors: string[], frames: number): Promise<void> {
  await page
    .waitForFunction(
      (n) => (window.__weft?.frames ?? 0) >= n || (window.__weft?.errors.length ?? 0) > 0,
      { timeout: 30_000, polling: 100 },
      frames,
    )
    .catch((error: unknown) => {
      throw new Error(`no ${frames} frames drawn: ${(error as Error).message}\n${errors.join('\n')}`);
    });
  expect(await page.evaluate(() => window.__weft!.errors)).toEqual([]);
}

/** The cloth demo's red cloth (lit front and darker back), or the embedding example's green lines. */
export type PixelClass = 'cloth' | 'lines';

/**
 * Two frames half a second apart, analysed in the page: the pixels of `kind`'s colour in the
 * second, and the pixels that changed between them (summed |ΔRGB| > 24).
 */
export async function twoFrames(page: Page, kind: PixelClass) {
  return page.evaluate(async (kind) => {
    const hooks = window.__weft!;
    const first = await hooks.capture();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const second = await hooks.capture();
    const [a, b] = [first.data, second.data];
    let matching = 0;
    let changed = 0;
    for (let p = 0; p < b.length; p += 4) {
      const [r, g, bl] = [b[p]!, b[p + 1]!, b[p + 2]!];
      if (kind === 'cloth' ? r > 70 && r > 1.4 * g && r > 1.4 * bl : g > 120 && g > r + 50) matching++;
      if (Math.abs(a[p]! - r) + Math.abs(a[p + 1]! - g) + Math.abs(a[p + 2]! - bl) > 24) changed++;
    }
    return { pixels: b.length / 4, matching, changed, frames: hooks.frames };
  }, kind);
}
