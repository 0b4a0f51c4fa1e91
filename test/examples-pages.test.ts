/**
 * The example pages besides the cloth demo's scenes (test/examples.test.ts), in headless Chromium
 * (WebGPU on SwiftShader): the embedding example draws Weft's cloth with its own pipeline, both
 * pages say so when the browser has no WebGPU, the dev server's root leads to the index and the
 * index links to every example, and the pages' error plumbing (examples/cloth/page-status.ts)
 * reports scoped and uncaptured WebGPU errors.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { PageStatus as PageStatusClass } from '../examples/cloth/page-status.ts';
import { startBrowserSession, type BrowserSession } from './browser/chromium.ts';
import { openPage, twoFrames, waitForFrames, type OpenedPage } from './browser/example-pages.ts';

let session: BrowserSession | undefined;
let baseUrl = '';

beforeAll(async () => {
  session = await startBrowserSession(['examples/cloth/index.html', 'examples/embed/index.html']);
  baseUrl = session.baseUrl;
});

/** The index page, shared by the three tests at the end (the last raises errors on purpose). */
let index: Promise<OpenedPage> | undefined;

afterAll(async () => {
  try {
    await (await index?.catch(() => undefined))?.page.close();
  } finally {
    await session?.close();
  }
});

/** Opens `path` of the dev server at 400 × 300 (test/browser/example-pages.ts). */
const open = (path: string, options: { withoutWebGpu?: boolean } = {}): Promise<OpenedPage> =>
  openPage(session!.browser, `${baseUrl}${path}`, options);

test('the embedding example draws the cloth from Weft’s buffer with its own pipeline', async () => {
  const { page, errors } = await open('/examples/embed/?size=32');
  await waitForFrames(page, errors, 3);
  const seen = await twoFrames(page, 'lines');
  expect(seen.matching, 'line-coloured pixels').toBeGreaterThan(0.005 * seen.pixels);
  expect(seen.changed, 'pixels changed in 0.5 s').toBeGreaterThan(0.001 * seen.pixels);
  expect(errors).toEqual([]);
  await page.close();
});

test.each(['/examples/cloth/', '/examples/embed/'])(
  '%s says so when the browser has no WebGPU',
  async (path) => {
    const { page, errors } = await open(path, { withoutWebGpu: true });
    await page.waitForFunction(() => window.__weft?.notice != null, { timeout: 20_000 });
    expect(await page.evaluate(() => window.__weft!.notice)).toMatch(/no WebGPU/i);
    expect(await page.evaluate(() => document.getElementById('notice')!.hidden)).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  },
);

/**
 * One page for the three tests below: the dev server's root, which leads to /examples/ (the
 * index's links and, last, the error plumbing use that page).
 */
const openIndex = () => (index ??= open('/'));

test('the dev server root (npm run demo) leads to the examples, not a 404', async () => {
  const { page, errors } = await openIndex();
  await page.waitForFunction(() => document.title === 'Weft examples', { timeout: 20_000 });
  expect(new URL(page.url()).pathname).toBe('/examples/');
  expect(errors).toEqual([]);
});

test('examples/index.html links to every example', async () => {
  const { page } = await openIndex();
  await page.waitForFunction(() => document.title === 'Weft examples', { timeout: 20_000 });
  const links = await page.$$eval('a[href]', (anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
  expect(links).toEqual(expect.arrayContaining([`${baseUrl}/examples/cloth/`, `${baseUrl}/examples/embed/`]));
  for (const link of links.filter((href) => href.startsWith(baseUrl))) {
    const response = await fetch(link);
    expect(response.status, link).toBe(200);
  }
});

test('the pages’ error plumbing reports scoped and uncaptured WebGPU errors', async () => {
  // PageStatus (examples/cloth/page-status.ts), loaded through Vite into the index page (after the
  // two tests above, which look for no error there), on a device of its own: one invalid buffer inside scoped(), one outside.
  const { page } = await openIndex();
  await page.waitForFunction(() => document.title === 'Weft examples', { timeout: 20_000 });
  await page.addScriptTag({
    type: 'module',
    content: "import { PageStatus } from '/examples/cloth/page-status.ts'; window.PageStatus = PageStatus;",
  });
  await page.waitForFunction(() => 'PageStatus' in window);
  const seen = await page.evaluate(async () => {
    const { PageStatus } = window as unknown as { PageStatus: typeof PageStatusClass };
    const status = new PageStatus(document.body.appendChild(document.createElement('div')));
    const device = await (await navigator.gpu.requestAdapter())!.requestDevice();
    status.watch(device);
    const invalid = { size: 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.MAP_WRITE };
    await status.scoped(device, 'the setup', () => device.createBuffer(invalid));
    device.createBuffer(invalid);
    await device.queue.onSubmittedWorkDone();
    await new Promise((resolve) => setTimeout(resolve, 200));
    device.destroy();
    return { errors: window.__weft!.errors, notice: window.__weft!.notice };
  });
  expect(seen.errors).toEqual([
    expect.stringMatching(/^WebGPU error in the setup: /),
    expect.stringMatching(/^WebGPU error: /),
  ]);
  expect(seen.notice).toBe(seen.errors[1]);
});
