/**
 * Headless Chromium with WebGPU on SwiftShader, driven by puppeteer-core, and a Vite dev server
 * that serves the repository (TypeScript and `?raw` WGSL imports) to it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { createServer, type ViteDevServer } from 'vite';

/** The repository root (this file is test/browser/chromium.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where a Chromium or Chrome is looked for when no environment variable names one. */
export const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

/**
 * Flags that give headless Chromium a WebGPU adapter without a GPU: Dawn on Vulkan, with
 * SwiftShader as both the ANGLE and the WebGPU adapter. The rest keep the browser quiet (no
 * network, updates or sync).
 */
export const CHROMIUM_FLAGS = [
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-angle=swiftshader',
  '--use-webgpu-adapter=swiftshader',
  // Without it headless Chromium runs WebGPU compute but loses the device on the first frame
  // presented to a WebGPU canvas ("A valid external Instance reference no longer exists").
  '--use-vulkan=swiftshader',
  '--headless',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

/**
 * The browser to launch: `WEFT_CHROMIUM`, else `PUPPETEER_EXECUTABLE_PATH`, else the first of
 * {@link CHROMIUM_CANDIDATES} that exists. Throws, saying how to get one, when there is none.
 */
export function findChromium(env: Readonly<Record<string, string | undefined>> = process.env): string {
  for (const name of ['WEFT_CHROMIUM', 'PUPPETEER_EXECUTABLE_PATH']) {
    const path = env[name];
    if (path === undefined || path === '') continue;
    if (!existsSync(path)) throw new Error(`${name}=${path}, but there is no file at that path.`);
    return path;
  }
  const found = CHROMIUM_CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  throw new Error(
    `No Chromium or Chrome found (looked at ${CHROMIUM_CANDIDATES.join(', ')}). ` +
      'Install one with `sudo apt-get install -y chromium`, or set WEFT_CHROMIUM to the path of a ' +
      'Chromium/Chrome executable (version 113 or later, for WebGPU).',
  );
}

/** A running Vite dev server and browser; {@link BrowserSession.close} tears both down. */
export interface BrowserSession {
  readonly server: ViteDevServer;
  readonly browser: Browser;
  /** e.g. `http://127.0.0.1:41234`, no trailing slash. */
  readonly baseUrl: string;
  /** The browser's executable. */
  readonly executable: string;
  /**
   * Opens `path` (relative to the repository root, e.g. `/test/browser/gpu-harness.html`) in a new
   * page. Page errors and console errors are collected in `pageErrors`.
   */
  open(path: string): Promise<{ page: Page; pageErrors: string[] }>;
  /** Closes the browser, stops the server and removes the temporary profile. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts Vite on 127.0.0.1 (a free port) with the repository's vite.config.ts and launches headless
 * Chromium with {@link CHROMIUM_FLAGS} and a fresh temporary profile; `optimizeEntries`: the pages
 * whose imports Vite pre-bundles at startup.
 */
export async function startBrowserSession(
  optimizeEntries: readonly string[] = ['test/browser/gpu-harness.html'],
): Promise<BrowserSession> {
  const executable = findChromium();
  // A dependency cache of its own. Vite commits a pre-bundle by replacing its cache folder, and two
  // sessions side by side (vitest runs two files at a time) shared one: a session's commit could
  // swap the bundles under the other's running page. CI's three.js page once ran on bundles from two
  // optimizations (its stack trace cites three_webgpu.js:58045; one optimization's three_webgpu.js
  // has 35,078 lines), its node builder overflowed the stack, and the cloth was never drawn.
  mkdirSync(join(REPO_ROOT, 'node_modules/.vite'), { recursive: true });
  const cacheDir = mkdtempSync(join(REPO_ROOT, 'node_modules/.vite/session-'));
  const server = await createServer({
    cacheDir,
    configFile: join(REPO_ROOT, 'vite.config.ts'),
    root: REPO_ROOT,
    logLevel: 'warn',
    clearScreen: false,
    // Nothing is edited while the tests run: no file watcher, no hot reload.
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false, watch: null },
    // Scan the harness's imports at startup, so that Vite does not discover a dependency while
    // the page runs and reload it in the middle of a case.
    optimizeDeps: { entries: [...optimizeEntries] },
  });
  let browser: Browser | undefined;
  const profile = mkdtempSync(join(tmpdir(), 'weft-chromium-'));
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    try {
      await browser?.close();
    } finally {
      await server.close();
      rmSync(profile, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
    }
  };
  try {
    await server.listen();
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') throw new Error('Vite dev server has no TCP address');
    const baseUrl = `http://127.0.0.1:${address.port}`;
    browser = await puppeteer.launch({
      executablePath: executable,
      headless: true,
      args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`],
    });
    const launched = browser;
    const open = async (path: string): Promise<{ page: Page; pageErrors: string[] }> => {
      const page = await launched.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(`page error: ${(error as Error).message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') {
          const url = message.location().url;
          pageErrors.push(`console error: ${message.text()}${url ? ` (${url})` : ''}`);
        }
      });
      const response = await page.goto(`${baseUrl}${path}`, { waitUntil: 'load' });
      if (!response?.ok()) throw new Error(`GET ${path}: HTTP ${response?.status() ?? 'no response'}`);
      return { page, pageErrors };
    };
    return { server, browser, baseUrl, executable, open, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Teardown for `afterAll`: closes a session, or does nothing when `beforeAll` never made one. */
export async function stopBrowserSession(session: BrowserSession | undefined): Promise<void> {
  await session?.close();
}
