/**
 * The cloth demo in headless Chromium (WebGPU on SwiftShader): it loads, draws frames with no
 * WebGPU error and no console error, and what it draws is not blank — cloth-coloured pixels,
 * changing between two frames half a second apart — follows the pointer, takes the step its links
 * and scenes need, and stops and hides a diverging cloth. Pixels are read in the page (the canvas
 * drawn into a 2-D canvas right after a frame's submit). The other example pages, the index and
 * the pages' error plumbing: test/examples-pages.test.ts.
 *
 * Scenes are small (32 × 32; the self-collision scene 16 × 16) because SwiftShader is slow, and
 * tests share a page where their claim does not need a page of its own (a page load, its device
 * and its pipelines are seconds each): the scenes are set in one page by its controls, as a reader
 * sets them; the links' own tests load their links. `WEFT_SCREENSHOT=1` also writes
 * examples/cloth/screenshot.png, a 64 × 64 cloth after 2.5 s of simulated time (a few minutes).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { REPO_ROOT, startBrowserSession, type BrowserSession } from './browser/chromium.ts';
import { openPage, twoFrames, waitForFrames, type OpenedPage } from './browser/example-pages.ts';
import { LONG_RUN } from './helpers/long-run.ts';
import { createSimulation } from '../src/index.ts';
import { buildModel, sceneLabel } from '../examples/cloth/scenes.ts';
import { withWorld } from '../examples/cloth/world.ts';
import { demoSettings } from './helpers/demo-settings.ts';

let session: BrowserSession | undefined;

beforeAll(async () => {
  session = await startBrowserSession(['examples/cloth/index.html']);
});

afterAll(() => session?.close());

/** Opens `path` of the dev server (400 × 300 unless told; test/browser/example-pages.ts). */
const open = (path: string, options: { width?: number; height?: number } = {}): Promise<OpenedPage> =>
  openPage(session!.browser, `${session!.baseUrl}${path}`, options);

/**
 * Pages that several tests share, opened by the first that needs one. A page draws frames as long as
 * it is open, which takes the CPU from the pages after it: the last test of each closes it.
 */
const shared: Partial<Record<'demo', Promise<OpenedPage>>> = {};
async function closeShared(which: keyof typeof shared): Promise<void> {
  const opened = shared[which];
  delete shared[which];
  await (await opened?.catch(() => undefined))?.page.close();
}
afterAll(async () => {
  await closeShared('demo');
});

/**
 * One page (and one device) for the multigrid test, the lit-cloth test, the multistep test, the
 * scenes' tests, the divergence test and the drag tests below (a page load, its device and
 * pipelines are seconds on SwiftShader): the multigrid test reads the overlay's solver statistics first, then the
 * lit-cloth test draws, moves, and changes integrator and pins; the others set their scene's
 * controls (showScene).
 * 32² cloth at dt = 1/60: diagonal PCG needs about 90 iterations per solve, multigrid 3.5–5.5
 * (measured, the overlay's windows to t = 0.85 s).
 */
const openSharedDemo = () =>
  (shared.demo ??= open(
    '/examples/cloth/?size=32&dt=0.0166667&substeps=1&solver=multigrid&maxIterations=40',
  ));

/** The shared demo's scene (index.html's defaults at 32²), for the CPU reference below. */
const DEMO_SQUARE = demoSettings('square', 32, 'top-corners');

/**
 * The CPU's multigrid (float32, as the GPU) on the shared demo's model: its largest iterations per
 * solve in the first 12 steps (0.2 s).
 */
async function cpuMultigridIterations(): Promise<number> {
  const model = withWorld(buildModel(DEMO_SQUARE), DEMO_SQUARE, 0);
  const cpu = await createSimulation(model, { backend: 'cpu', precision: 'f32', integrator: 'implicit-euler', dt: 0.0166667, rayleighMass: 0.1, solver: 'multigrid', maxIterations: 40, tolerance: 1e-3 }); // prettier-ignore
  try {
    cpu.step(12);
    return (await cpu.readSolverStats())!.maxLinearIterations;
  } finally {
    cpu.destroy();
  }
}

/**
 * What each in-page scene below starts from: index.html's defaults for the controls some scene
 * changes (and the square's pins, as the page sets them for a square), implicit Euler, one substep
 * of 1/60 s a frame, PCG to 40 iterations; a scene's query applies over these, so none inherits the
 * last test's settings.
 */
const SCENE_BASE = { integrator: 'implicit-euler', scene: 'square', size: '32', pins: 'top-corners', dt: '0.0166667', substeps: '1', solver: 'pcg', maxIterations: '40', wind: String(DEMO_SQUARE.wind), bend: String(DEMO_SQUARE.bend), bending: String(DEMO_SQUARE.bending), selfCollision: String(DEMO_SQUARE.selfCollision) }; // prettier-ignore

/**
 * Sets `query`'s scene on the shared demo page (one page load and device for the scenes below) as a
 * reader sets it — the controls' values, then one change event (of #size: a new simulation from
 * rest, no control rewritten) — the rebuild a link's settings get at load. Returns once the new
 * scene has drawn 3 frames.
 */
async function showScene(query: string): Promise<OpenedPage> {
  const { page, errors } = await openSharedDemo();
  await waitForFrames(page, errors, 3);
  const values: Record<string, string> = { ...SCENE_BASE, ...Object.fromEntries(new URLSearchParams(query)) }; // prettier-ignore
  const settings = { ...DEMO_SQUARE, ...values, size: Number(values['size']) } as Parameters<
    typeof sceneLabel
  >[0];
  const label = `${values['integrator']} · ${sceneLabel(settings)} (`;
  // A new simulation from rest sets the page's time to 0 (main.ts rebuild): watch for that write.
  await page.evaluate(() => {
    const hooks = window.__weft! as { time: number; reset?: boolean };
    let time = hooks.time;
    hooks.reset = false;
    Object.defineProperty(hooks, 'time', { configurable: true, enumerable: true, get: () => time, set: (t: number) => { if (t === 0) hooks.reset = true; time = t; } }); // prettier-ignore
  });
  await page.evaluate((values) => {
    for (const [id, value] of Object.entries(values)) {
      const control = document.getElementById(id) as HTMLInputElement | HTMLSelectElement;
      // A size the menu lacks gets an option, as the page adds one for a link's size.
      if (control instanceof HTMLSelectElement && !Array.from(control.options).some((o) => o.value === value)) control.add(new Option(value, value)); // prettier-ignore
      control.value = value;
    }
    document.getElementById('size')!.dispatchEvent(new Event('change', { bubbles: true }));
  }, values);
  // The new simulation, and the new scene's statistics (written after one of its frames).
  await page
    .waitForFunction(
      (label) =>
        (window.__weft as { reset?: boolean }).reset === true &&
        (document.getElementById('stats')!.textContent ?? '').startsWith(label),
      { timeout: 30_000, polling: 100 },
      label,
    )
    .catch((error: unknown) => {
      throw new Error(`the scene ${label} did not start: ${(error as Error).message}\n${errors.join('\n')}`);
    });
  await waitForFrames(page, errors, (await page.evaluate(() => window.__weft!.frames)) + 3);
  return { page, errors };
}

test('the cloth demo solves with multigrid-preconditioned CG: the CPU multigrid’s iterations, none stopped at the cap', async () => {
  const { page, errors } = await openSharedDemo();
  // The CPU reference runs (blocking Node, so not while Vite serves the page's modules) while the
  // loaded page builds its device and pipelines.
  const reference = await cpuMultigridIterations();
  await waitForFrames(page, errors, 3);
  // The overlay's first window is the first steps' solves from rest (1 iteration each, with or
  // without the coarse correction): read the first window after it, as the cloth swings.
  const line = await page.waitForFunction(
    () => {
      const text = document.getElementById('stats')!.textContent ?? '';
      const match = /CG \(multigrid\): ([\d.]+) iterations\/solve.*; (\d+) solves stopped at the cap/.exec(
        text,
      );
      return match && Number(match[1]) > 1 ? match.slice(1) : undefined;
    },
    { timeout: 60_000, polling: 200 },
  );
  const [perSolve, capped] = ((await line.jsonValue()) as string[]).map(Number);
  console.log(`the demo's 32² square, multigrid: page ${perSolve} iterations/solve, CPU f32 at most ${reference} in 12 steps`); // prettier-ignore
  // GPU = CPU f32 ± 1 per solve (test/gpu-multigrid.test.ts). Measured: page 4.3 in that window,
  // CPU at most 5; without the coarse correction (prolongation × 0) the page takes 28 (19–31.5 to 0.5 s).
  expect(perSolve, 'iterations per solve').toBeLessThanOrEqual(reference + 1);
  expect(capped, 'solves stopped at the cap').toBe(0);
  expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
  expect(errors).toEqual([]);
}, 120_000);

test('the cloth demo draws a lit cloth that moves, with no WebGPU or console error', async () => {
  const { page, errors } = await openSharedDemo();
  await waitForFrames(page, errors, 3);
  const seen = await twoFrames(page, 'cloth');
  expect(seen.matching, 'cloth-coloured pixels').toBeGreaterThan(0.03 * seen.pixels);
  expect(seen.changed, 'pixels changed in 0.5 s').toBeGreaterThan(0.002 * seen.pixels);
  // The overlay shows the solver's statistics and the energy, read back now and then.
  await page.waitForFunction(
    () =>
      /CG \(multigrid\): [\d.]+ iterations\/solve/.test(
        document.getElementById('stats')!.textContent ?? '',
      ) && /energy -?[\d.]+ J/.test(document.getElementById('stats')!.textContent ?? ''),
    { timeout: 20_000, polling: 200 },
  );

  // A change of integrator carries on from the current state (a new simulation); so does
  // releasing the pins. Neither may raise a GPU error.
  const before = await page.evaluate(() => window.__weft!.time);
  await page.select('#integrator', 'symplectic-euler');
  await page.waitForFunction(
    () => /^symplectic-euler/.test(document.getElementById('stats')!.textContent ?? ''),
    {
      timeout: 20_000,
    },
  );
  await page.select('#pins', 'none');
  const frames = await page.evaluate(() => window.__weft!.frames);
  await waitForFrames(page, errors, frames + 3);
  expect(await page.evaluate(() => window.__weft!.time)).toBeGreaterThan(before);
  expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
  expect(errors).toEqual([]);
});

test('the cloth demo runs a multistep predictor–corrector on the GPU', async () => {
  // 32² cloth: its explicit step limit is 2/ω_max ≈ 4.4e-4 s (the page's hint); AM-PC's is smaller.
  // Set on the shared demo page, as the menu sets it.
  const { page, errors } = await showScene('integrator=adams-moulton-pc&dt=0.0002&substeps=8');
  const before = await page.evaluate(() => window.__weft!.time);
  const seen = await twoFrames(page, 'cloth');
  expect(seen.matching, 'cloth-coloured pixels').toBeGreaterThan(0.01 * seen.pixels);
  expect(await page.evaluate(() => window.__weft!.time)).toBeGreaterThan(before);
  const option = await page.$eval(
    '#integrator option[value="adams-moulton-pc"]',
    (o) => (o as HTMLOptionElement).disabled,
  );
  expect(option, 'selectable in the menu').toBe(false);
  await page.waitForFunction(
    () => /^adams-moulton-pc/.test(document.getElementById('stats')!.textContent ?? ''),
    {
      timeout: 20_000,
    },
  );
  expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
  expect(errors).toEqual([]);
});

test.each([
  ['a flag in Weft’s wind', 'scene=flag&wind=8&dt=0.0166667&size=32'],
  // Friction acts after the solve: a collider dragging the cloth wants the demo's h = 1/240 s.
  [
    'a square on a moving character of Weft’s capsule colliders',
    'scene=character&pins=none&dt=0.00416667&size=32',
  ],
  [
    'a square with dihedral bending instead of bend springs',
    'scene=square&bend=0&bending=0.01&dt=0.0166667&size=32',
  ],
  // 16² (the same 3.15 m square, so the same share of the view): the self-contact search over
  // 1,024 particles made this the slowest scene on SwiftShader. A smoke test of the page with
  // self-collision on, not of the pairs' forces: in its frames the square is still falling flat
  // (it reaches the sphere at t ≈ 0.45 s, half a minute of SwiftShader here), no pair comes within
  // reach, and a force × 1e4 passes. test/gpu-self-contact.test.ts checks the forces on WebGPU
  // against the CPU (one evaluation of a folded 16² cloth, the layers: × 1e4 fails five tests).
  [
    'a square with self-collision on, released above the sphere',
    'scene=square&pins=none&selfCollision=0.02&dt=0.0166667&size=16',
  ],
])(
  'the cloth demo’s Weft scenes: %s draws, moves, with no WebGPU or console error',
  async (_, query) => {
    const { page, errors } = await showScene(query);
    const seen = await twoFrames(page, 'cloth');
    expect(seen.matching, 'cloth-coloured pixels').toBeGreaterThan(0.01 * seen.pixels);
    expect(seen.changed, 'pixels changed in 0.5 s').toBeGreaterThan(0.002 * seen.pixels);
    if (process.env['WEFT_SCENE_SHOTS']) writeFileSync(join(process.env['WEFT_SCENE_SHOTS'], `${query.split('&')[0]}.png`), await page.screenshot({ type: 'png' })); // prettier-ignore
    expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
    expect(errors).toEqual([]);
  },
  90_000,
);

test('the cloth demo stops a diverging integrator, says so, and draws no cloth', async () => {
  const { page, errors } = await showScene('integrator=explicit-euler&dt=0.002&substeps=2');
  await page.waitForFunction(() => window.__weft?.notice != null, { timeout: 30_000, polling: 100 });
  const notice = await page.evaluate(() => window.__weft!.notice);
  // Weft's divergence error, or the page's own check (a particle 100 m away, an edge stretched 10×).
  expect(notice).toMatch(
    /^(Simulation diverged: (particle \d+ is not finite|its energy rose)|The simulation blew up: )/,
  );
  expect(notice).not.toMatch(/diverged:.*diverged:/); // said once
  const seen = await twoFrames(page, 'cloth');
  expect(seen.matching, 'cloth-coloured pixels after the divergence').toBe(0);
  expect(await page.evaluate(() => window.__weft!.errors)).toEqual([]);
  expect(errors).toEqual([]);
});

/**
 * Opens the demo on a 32² cloth at `substeps` substeps of 1/60 s (multigrid CG) on the shared demo
 * page at 800 × 600 (the pointer moves below are in pixels of this viewport; the page's canvas
 * follows its size) and presses the pointer on its middle particle; returns the page, the pointer's
 * place and what the page holds.
 */
async function grabMiddle(substeps: number) {
  const { page: shown } = await openSharedDemo();
  await shown.setViewport({ width: 800, height: 600 });
  const { page, errors } = await showScene(`solver=multigrid&substeps=${substeps}`);
  // The demo reads positions back for picking a few times a second; take a particle mid-cloth.
  const middle = 16 * 32 + 16;
  await page.waitForFunction((i) => window.__weft!.drag?.screenOf(i) != null, { timeout: 20_000, polling: 100 }, middle); // prettier-ignore
  const [x, y] = (await page.evaluate((i) => window.__weft!.drag!.screenOf(i), middle))!;
  await page.mouse.move(x, y);
  await page.mouse.down();
  const grabbed = await page.evaluate(() => ({ ...window.__weft!.drag! }));
  expect(grabbed.particle).not.toBeNull();
  return { page, errors, x, y, grabbed };
}

test('the cloth demo: a press on the cloth grabs a particle, which follows the pointer, and lets go on release', async () => {
  const { page, errors, x, y, grabbed } = await grabMiddle(2);
  for (let k = 1; k <= 5; k++) await page.mouse.move(x - 16 * k, y - 8 * k);
  const target = (await page.evaluate(() => window.__weft!.drag!.target))!;
  // The pointer moved 80 px left and 40 up: its point on the plane facing the camera moved too.
  expect(Math.hypot(...target.map((t, c) => t - grabbed.target![c]!))).toBeGreaterThan(0.1);
  // The held particle reaches its target (read back; float32, and a read may fall between substeps).
  await page.waitForFunction(
    () => {
      const d = window.__weft!.drag!;
      return d.position !== null && d.target !== null && Math.hypot(...d.position.map((p, c) => p - d.target![c]!)) < 0.01;
    },
    { timeout: 20_000, polling: 100 },
  ); // prettier-ignore
  await page.mouse.up();
  expect(await page.evaluate(() => window.__weft!.drag!.particle)).toBeNull();
  const frames = await page.evaluate(() => window.__weft!.frames);
  await waitForFrames(page, errors, frames + 3);
  expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
  expect(errors).toEqual([]);
});

test('the cloth demo: a fast flick of the held particle trails the pointer instead of stopping the run', async () => {
  const { page, errors, x, y, grabbed } = await grabMiddle(1);
  // 150 px up in one pointer event, between two frames of one substep each: over 1 m, more than
  // 10 rest lengths (3.15 m / 31 = 0.1016 m) in one step — the page's 10× edge check stopped it.
  await page.mouse.move(x, y - 150);
  const target = (await page.evaluate(() => window.__weft!.drag!.target))!;
  expect(Math.hypot(...target.map((t, c) => t - grabbed.target![c]!))).toBeGreaterThan(1);
  // The particle gets there (2 rest lengths a substep), or the page stops the run.
  await page.waitForFunction(
    () => {
      const d = window.__weft!.drag!;
      const there = d.position !== null && d.target !== null && Math.hypot(...d.position.map((p, c) => p - d.target![c]!)) < 0.01;
      return there || window.__weft!.notice !== null;
    },
    { timeout: 30_000, polling: 100 },
  ); // prettier-ignore
  // The page reads the blow-up flags twice a second: let it read them after the flick.
  const frames = await page.evaluate(() => window.__weft!.frames);
  await waitForFrames(page, errors, frames + 3);
  await new Promise((resolve) => setTimeout(resolve, 1200));
  expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
  await page.mouse.up();
  expect(errors).toEqual([]);
  // The shared demo page's last test: closed now, so that its frames take no time from the pages below.
  await closeShared('demo');
});

test('the cloth demo given ?integrator=rk4 (no dt) takes a stable explicit step, not the implicit default', async () => {
  const { page, errors } = await open('/examples/cloth/?size=32&integrator=rk4');
  await waitForFrames(page, errors, 3);
  const [dt, substeps] = (await page.evaluate(() => ['dt', 'substeps'].map((id) => Number((document.getElementById(id) as HTMLInputElement).value)))) as [number, number]; // prettier-ignore
  // The page's own explicit limit 2/ω_max on a 32² cloth is ~4.4e-4 s (its hint); half of it is used.
  expect(dt).toBeLessThan(3e-4);
  expect(dt).toBeGreaterThan(1e-4);
  expect(substeps).toBe(Math.min(1000, Math.ceil(1 / 60 / dt)));
  const frames = await page.evaluate(() => window.__weft!.frames);
  await waitForFrames(page, errors, frames + 3);
  expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
  expect(errors).toEqual([]);
  await page.close();
});

// The link's parsing and its notice are unit-tested in test/share-link.test.ts (a size the menu
// lacks, each parameter's refusal); these two page runs of it are in npm run test:long only.
test.skipIf(!LONG_RUN)(
  'the cloth demo given ?size=48, a size its menu lacks, draws a 48 × 48 cloth with no notice',
  async () => {
    const { page, errors } = await open(
      '/examples/cloth/?size=48&dt=0.0166667&substeps=1&solver=pcg&maxIterations=40',
    );
    await waitForFrames(page, errors, 3);
    const seen = await twoFrames(page, 'cloth');
    expect(seen.matching, 'cloth-coloured pixels').toBeGreaterThan(0.03 * seen.pixels);
    // 48² = 2,304 particles; 2·47·48 structural + 2·47² shear + 2·46·48 bend = 13,346 springs.
    expect(await page.$eval('#stats', (e) => e.textContent)).toContain(
      '48×48 cloth (2304 particles, 13346 springs)',
    );
    expect(await page.$eval('#size', (e) => (e as HTMLSelectElement).value)).toBe('48');
    expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
    expect(errors).toEqual([]);
    await page.close();
  },
);

test.skipIf(!LONG_RUN)(
  'the cloth demo names the link parameters it cannot apply, and runs the rest',
  async () => {
    const { page, errors } = await open('/examples/cloth/?size=32&dt=abc&wnd=3&sphere=no&substeps=1&maxIterations=40'); // prettier-ignore
    await waitForFrames(page, errors, 3);
    const notice = (await page.evaluate(() => window.__weft!.notice))!;
    expect(notice).toMatch(/^Not applied from the link/);
    expect(notice).toContain('dt=abc: a number > 0');
    expect(notice).toContain('wnd: not a parameter of this page');
    expect(notice).toContain('sphere=no: 1 or 0');
    // The defaults run instead (index.html's dt, 1/240 s, and sphere on); size=32 applies.
    expect(await page.$eval('#dt', (e) => (e as HTMLInputElement).value)).toBe('0.004166667');
    expect(await page.$eval('#sphere', (e) => (e as HTMLInputElement).checked)).toBe(true);
    const seen = await twoFrames(page, 'cloth');
    expect(seen.changed, 'pixels changed in 0.5 s').toBeGreaterThan(0.002 * seen.pixels);
    expect(await page.$eval('#stats', (e) => e.textContent)).toContain('32×32 cloth (1024 particles');
    // A change of a control is the reader's answer: the notice goes.
    await page.select('#pins', 'top-edge');
    await page.waitForFunction(() => window.__weft!.notice === null, { timeout: 20_000 });
    expect(errors).toEqual([]);
    await page.close();
  },
);

test('the cloth demo given a link Weft refuses drops the setting it names, says why, and runs', async () => {
  // Each value is valid alone, but a self-collision thickness of 5 cm is more than 0.35 of a 32²
  // cloth's 10.2 cm edges; the character scene (its capsules and boxes) with the variational
  // scheme, which projects after its free step, is taken.
  const { page, errors } = await open('/examples/cloth/?size=32&integrator=variational-symplectic-implicit&scene=character&selfCollision=0.05&dt=0.0166667&substeps=1&maxIterations=40'); // prettier-ignore
  // One frame submitted (the simulation rebuilt without the refused setting); it runs: the
  // statistics below are written once a frame of it is done.
  await waitForFrames(page, errors, 1);
  expect(await page.evaluate(() => window.__weft!.notice)).toMatch(
    /^Not applied from the link \(the default is used\): selfCollision=0\.05: selfCollision\.thickness must be > 0 and ≤ 0\.35 × the shortest edge/,
  );
  expect(await page.$eval('#selfCollision', (e) => (e as HTMLInputElement).value)).toBe('0');
  expect(await page.$eval('#scene', (e) => (e as HTMLSelectElement).value)).toBe('character');
  await page.waitForFunction(() => /^variational-symplectic-implicit · 32×32 cloth/.test(document.getElementById('stats')!.textContent ?? ''), { timeout: 20_000 }); // prettier-ignore
  expect(errors).toEqual([]);
  await page.close();
});

test('the cloth demo given ?scene=character&size=64 (no dt) takes the step its contacts need', async () => {
  // Last of the WebGPU pages: the frame in flight when it closes is left to the GPU process.
  const { page, errors } = await open('/examples/cloth/?scene=character&size=64&pins=none&solver=pcg&maxIterations=40'); // prettier-ignore
  // The first frame submitted: the simulation is built from the controls read below. (Each frame is
  // 9 substeps of a 64² cloth, seconds on SwiftShader; the scene’s frames are checked at 32² above.)
  await waitForFrames(page, errors, 1);
  const [dt, substeps] = (await page.evaluate(() => ['dt', 'substeps'].map((id) => Number((document.getElementById(id) as HTMLInputElement).value)))) as [number, number]; // prettier-ignore
  // (1/240 s) × 31/63 (the 32² step scaled with the spacing) to 3 digits; 1/60 s of substeps.
  expect(dt).toBe(0.00205);
  expect(substeps).toBe(9);
  expect(await page.$eval('#stepHint', (e) => e.textContent)).toContain("Weft's contacts keep this cloth whole at dt ≲ 0.0021 s"); // prettier-ignore
  expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
  expect(errors).toEqual([]);
  await page.close();
});

test.runIf(process.env['WEFT_SCREENSHOT'])(
  'writes examples/cloth/screenshot.png',
  async () => {
    const { page, errors } = await open('/examples/cloth/?size=64&dt=0.0166667&substeps=1&maxIterations=60', {
      width: 1280,
      height: 800,
    });
    await page.waitForFunction(() => (window.__weft?.time ?? 0) >= 2.5 || window.__weft?.notice != null, {
      timeout: 580_000,
      polling: 1000,
    });
    expect(await page.evaluate(() => window.__weft!.notice)).toBeNull();
    writeFileSync(join(REPO_ROOT, 'examples/cloth/screenshot.png'), await page.screenshot({ type: 'png' }));
    expect(errors).toEqual([]);
    await page.close();
  },
  600_000,
);
