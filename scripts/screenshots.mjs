#!/usr/bin/env node
// Writes the README's screenshots of the cloth demo, examples/cloth/shots/<name>.png, as the demo
// itself draws them in headless Chromium (WebGPU on SwiftShader here: a few minutes a shot), each
// once the page's simulated time (window.__weft.time) has reached the shot's.
// Usage: npm run screenshots [-- name …]   (all shots without names; see SHOTS)
/* global window, document */ // in the functions evaluated in the page
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

/**
 * Each shot: the demo's query string (every control and `camera=azimuth,elevation,distance`), the
 * simulated time to shoot at, s, the page's height if not HEIGHT (the demo's camera looks at 0.95 m:
 * the flag, higher up, is shot in the top HEIGHT pixels of a taller page), and for `drag`, when the
 * pointer grabs particle `drag.particle` and moves by `drag.by` CSS pixels.
 */
const SHOTS = {
  character: { query: 'scene=character&pins=none&size=32&camera=340,2,5', time: 1.5 },
  flag: { query: 'scene=flag&wind=8&size=64&dt=0.00833333&substeps=2&camera=200,8,6', time: 2, height: 800 },
  drag: {
    query: 'scene=square&size=64&dt=0.0166667&substeps=1&solver=pcg&maxIterations=60',
    time: 2.4,
    drag: { time: 1.5, particle: 32 * 64 + 32, by: [30, -130] }, // the middle of the square
  },
};
const WIDTH = 800;
const HEIGHT = 500;
/** Longest wait for one shot's simulated time, ms. */
const TIMEOUT = 300_000;

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}examples/cloth/shots`;
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(SHOTS);
for (const name of names)
  if (!(name in SHOTS)) throw new Error(`no shot ${name} (${Object.keys(SHOTS).join(', ')})`);

// test/browser/chromium.ts: Vite's dev server and headless Chromium with WebGPU on SwiftShader.
const { module: chromium } = await runnerImport(`${root}test/browser/chromium.ts`);
const session = await chromium.startBrowserSession(['examples/cloth/index.html']);
mkdirSync(out, { recursive: true });
try {
  for (const name of names) {
    const { query, time, height = HEIGHT, drag } = SHOTS[name];
    const started = performance.now();
    const { page, pageErrors } = await session.open(`/examples/cloth/?${query}`);
    await page.setViewport({ width: WIDTH, height });
    // The scene alone: no statistics, no controls.
    await page.addStyleTag({ content: '#stats, #controls { display: none; }' });
    const reached = (t) =>
      page
        .waitForFunction(
          (t) => (window.__weft?.time ?? 0) >= t || window.__weft?.notice != null,
          { timeout: TIMEOUT, polling: 500 },
          t,
        )
        .catch(async (error) => {
          const now = await page.evaluate(() => window.__weft?.time ?? 0);
          throw new Error(`${name}: t = ${now.toFixed(2)} s of ${t} s after ${TIMEOUT / 1000} s`, {
            cause: error,
          });
        });
    if (drag) {
      // As test/examples.test.ts does: press where the particle is on screen, then move (held).
      await reached(drag.time);
      const at = await page.waitForFunction((i) => window.__weft.drag?.screenOf(i), {}, drag.particle);
      const [x, y] = await at.jsonValue();
      await page.mouse.move(x, y);
      await page.mouse.down();
      // A step a frame, so that the held particle keeps up with the pointer (the page moves it at
      // most 2 rest lengths a substep, examples/cloth/drag.ts MAX_STEP_RESTS: a jump of a metre
      // would trail it).
      for (let k = 1; k <= 20; k++) {
        const frames = await page.evaluate(() => window.__weft.frames);
        await page.mouse.move(x + (k * drag.by[0]) / 20, y + (k * drag.by[1]) / 20);
        await page.waitForFunction((n) => window.__weft.frames > n, { timeout: TIMEOUT }, frames);
      }
      // Headless screenshots show no pointer: draw an arrow where it is.
      const arrow = `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="28"><path d="M1 1v22l6-5 4 9 4-2-4-9h8z" fill="#fff" stroke="#000" stroke-width="1.5"/></svg>`; // prettier-ignore
      await page.evaluate((left, top, arrow) => document.body.insertAdjacentHTML('beforeend', `<div style="position:fixed;left:${left}px;top:${top}px;pointer-events:none">${arrow}</div>`), x + drag.by[0], y + drag.by[1], arrow); // prettier-ignore
    }
    await reached(time);
    const notice = await page.evaluate(() => window.__weft.notice);
    if (notice !== null || pageErrors.length > 0)
      throw new Error(`${name}: ${[notice, ...pageErrors].join('\n')}`);
    const clip = { x: 0, y: 0, width: WIDTH, height: HEIGHT };
    writeFileSync(`${out}/${name}.png`, await page.screenshot({ type: 'png', clip }));
    const t = await page.evaluate(() => window.__weft.time);
    console.log(
      `${name}.png: t = ${t.toFixed(2)} s, ${((performance.now() - started) / 1000).toFixed(0)} s, ?${query}`,
    );
    await page.close();
  }
} finally {
  await session.close();
}
