/**
 * Weft's cloth demo: a cloth — a square, or a skirt read from an OBJ file — integrated on WebGPU
 * and drawn straight from the solver's position buffer, with the demo's own passes for wind and
 * contacts between the solver's steps; or, in the flag and character scenes, Weft's own wind and
 * colliders (examples/cloth/world.ts) and no pass of the demo's. Every control in the panel can also be set from the URL
 * (e.g. `?size=32&integrator=rk4&substeps=40`, `?scene=garment`, `&camera=330,28,7.2`), and the
 * Share link button writes the URL of the current view.
 */
import {
  WeftDivergenceError,
  WeftInputError,
  createSimulation,
  energy,
  type GpuSimulation,
  type Model,
  type SimulationState,
  type SolverStats,
} from '../../src/index.ts';
import { OrbitCamera } from './camera.ts';
import { ClothDrag } from './drag.ts';
import { ClothEffects, type EffectSettings } from './effects.ts';
import { PageStatus, requestDevice } from './page-status.ts';
import { ClothRenderer, DEPTH_FORMAT, HEALTH, SAMPLES } from './renderer.ts';
import { ColliderView } from './collider-view.ts';
import { colliderPoses, drawnColliders, isLibraryScene, withWorld } from './world.ts';
import { buildModel, sceneLabel, sceneSurface } from './scenes.ts';
import { parseCamera, shareUrl, shareView } from './share-link.ts';
import {
  applyLink,
  controls,
  element,
  fillIntegratorMenu,
  fitContactStep,
  input,
  isImplicit,
  readSettings,
  showStepHint,
  simulationOptions,
  suggestStep,
  type Settings,
} from './controls.ts';

const SPHERE = { center: [0, 1.2, 0.1] as const, radius: 0.6 };
const FLOOR_HEIGHT = 0;
/** Distance the cloth keeps from the sphere and the floor, m. */
const THICKNESS = 0.012;
/** Air drag along the cloth's normal, 1/s, and the wind's direction (unit, from the pinned edge). */
const WIND_DRAG = 2;
const WIND_DIRECTION = normalize([0.3, 0.05, -1]);
/** Tangential velocity lost in contact, 1/s. */
const FRICTION_RATE = 6;
const LIGHT_DIRECTION = normalize([-0.4, 1, -0.55]);
/**
 * The integration has blown up when a particle is farther than this from the origin, m, or an edge
 * of the grid is longer than MAX_STRETCH times its rest length.
 */
const SCENE_BOUND = 100;
const MAX_STRETCH = 10;

/** A running simulation and what belongs to it. */
interface Scene {
  /** Which cloth (sceneLabel): a state carries on only into the same one. */
  label: string;
  sim: GpuSimulation;
  model: Model;
  effects: ClothEffects;
  implicit: boolean;
  /** Reads in flight (awaited before the simulation is destroyed). */
  reads: Promise<unknown>;
  lastStats: SolverStats | null;
}

function normalize(v: readonly [number, number, number]): [number, number, number] {
  const l = Math.hypot(...v);
  return [v[0] / l, v[1] / l, v[2] / l];
}

const canvas = element<HTMLCanvasElement>('canvas');
const statsText = element<HTMLPreElement>('stats');
const status = new PageStatus(element('notice'));
async function main(): Promise<void> {
  fillIntegratorMenu();
  const { link, defaults, notice } = applyLink();
  /** What the page says about the link until a control changes: what it did not apply. */
  let linkNotice = notice;
  let settings = readSettings();
  showStepHint(settings);

  const found = await requestDevice((adapter) => ({
    // A 512 × 512 cloth's implicit solver needs more than the default 128 MiB per buffer.
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  }));
  if ('problem' in found) {
    statsText.textContent = 'No WebGPU.';
    status.notify(found.problem);
    return;
  }
  const device = found.device;
  status.watch(device);
  const context = canvas.getContext('webgpu');
  if (!context) {
    status.notify('This canvas has no WebGPU context (canvas.getContext("webgpu") returned null).');
    return;
  }
  const format = navigator.gpu.getPreferredCanvasFormat();
  context.configure({ device, format, alphaMode: 'opaque' });
  const renderer = await status.scoped(
    device,
    'creating the renderer',
    () => new ClothRenderer(device, format),
  );
  // ?camera=azimuth,elevation,distance (degrees, degrees, m) sets the starting view.
  const degrees = Math.PI / 180;
  const view = parseCamera(link.camera, {
    azimuth: 330 * degrees,
    elevation: 28 * degrees,
    distance: 7.2,
  });
  const camera = new OrbitCamera({ ...view, target: [0, 0.95, 0.2] });
  const colliderView = new ColliderView(device, format, DEPTH_FORMAT, SAMPLES);

  let scene: Scene | null = null;
  let paused = false;
  let diverged = false;
  let rebuilding = false;
  let simTime = 0;
  // A press on the cloth grabs it (examples/cloth/drag.ts); elsewhere it orbits the camera.
  const drag = new ClothDrag(
    canvas,
    camera,
    () => scene,
    () => simTime,
  );
  status.hooks.drag = drag.status;
  camera.attach(canvas);

  /**
   * Makes a new simulation: from scratch ('reset'), or from the current state ('continue'). Returns
   * null, or why Weft refused the settings (then the last simulation runs on, and the notice says so).
   */
  const rebuild = async (kind: 'reset' | 'continue'): Promise<WeftInputError | null> => {
    const next = readSettings();
    showStepHint(next);
    const old = scene;
    rebuilding = true;
    try {
      let from: SimulationState | undefined;
      if (kind === 'continue' && old && !diverged && old.label === sceneLabel(next)) {
        from = await old.sim.readState().catch(() => undefined);
      }
      let model: Model;
      let sim: GpuSimulation;
      try {
        model = withWorld(buildModel(next, from), next, from ? simTime : 0);
        sim = await status.scoped(device, 'creating the simulation', async () => {
          const made = await createSimulation(model, simulationOptions(next, device));
          return made;
        });
      } catch (error) {
        if (!(error instanceof WeftInputError)) throw error;
        status.notify(`Not applied: ${error.message}`);
        return error;
      }
      if (old) {
        scene = null;
        await old.reads.catch(() => undefined);
        old.effects.destroy();
        old.sim.destroy();
      }
      await status.scoped(device, 'binding the cloth', () => {
        const { mesh, maxEdge } = sceneSurface(next, MAX_STRETCH);
        renderer.setCloth(sim.positions, mesh, { bound: SCENE_BOUND, maxEdge });
        scene = {
          label: sceneLabel(next),
          sim,
          model,
          effects: new ClothEffects(sim, renderer.normals!),
          implicit: isImplicit(sim.integrator),
          reads: Promise.resolve(),
          lastStats: null,
        };
      });
      settings = next;
      if (!from) simTime = status.hooks.time = 0;
      diverged = false;
      status.notify(linkNotice);
      return null;
    } finally {
      rebuilding = false;
    }
  };
  // Rebuilds run one at a time; requests made meanwhile merge into one ('reset' wins).
  let queued: 'reset' | 'continue' | null = null;
  let running: Promise<void> | null = null;
  const requestRebuild = (kind: 'reset' | 'continue'): void => {
    queued = queued === 'reset' || kind === 'reset' ? 'reset' : 'continue';
    running ??= (async () => {
      while (queued) {
        const next = queued;
        queued = null;
        await rebuild(next);
      }
    })()
      .catch((error: unknown) => status.error(`Could not rebuild the simulation: ${String(error)}`))
      .finally(() => (running = null));
  };

  /** Substeps, wind and the sphere apply from the next frame on, without a new simulation. */
  const applyLiveSettings = (): void => {
    const { substeps, wind, sphere } = readSettings();
    settings = { ...settings, substeps, wind, sphere };
  };
  let previousIntegrator = settings.integrator;
  /** The link's notice goes once the reader changes a control, or clicks it. */
  const dropLinkNotice = (): void => {
    if (linkNotice !== null && status.hooks.notice === linkNotice) status.notify(null);
    linkNotice = null;
  };
  element('notice').addEventListener('click', dropLinkNotice);
  controls.addEventListener('change', (event) => {
    dropLinkNotice();
    const id = (event.target as HTMLElement).id as keyof Settings;
    if (id === 'integrator') {
      suggestStep(previousIntegrator);
      previousIntegrator = readSettings().integrator;
    }
    if (id === 'scene') {
      // Each cloth's usual pins: the skirt by its waist, the square by two corners.
      input('pins').value = readSettings().scene === 'garment' ? 'top-edge' : 'top-corners';
    }
    if (id === 'scene' || id === 'size' || id === 'integrator') fitContactStep(true);
    // Weft's wind is part of the model: in the library scenes it makes a new simulation.
    if (id === 'substeps' || ((id === 'wind' || id === 'sphere') && !isLibraryScene(readSettings().scene))) {
      applyLiveSettings();
    } else if (id === 'size' || id === 'scene' || (id === 'pins' && readSettings().pins !== 'none')) {
      requestRebuild('reset');
    } else {
      requestRebuild('continue');
    }
  });
  controls.addEventListener('input', (event) => {
    const id = (event.target as HTMLElement).id;
    if ((id === 'wind' || id === 'sphere') && !isLibraryScene(readSettings().scene)) applyLiveSettings();
  });
  controls.addEventListener('submit', (event) => event.preventDefault());
  element('reset').addEventListener('click', () => requestRebuild('reset'));
  const shareButton = element<HTMLButtonElement>('share');
  shareButton.addEventListener('click', () => {
    void shareView(shareButton, shareUrl(controls, camera));
  });
  const pauseButton = element<HTMLButtonElement>('pause');
  pauseButton.addEventListener('click', () => {
    paused = !paused;
    pauseButton.textContent = paused ? 'Resume' : 'Pause';
  });

  const refused = await rebuild('reset');
  if (refused !== null) {
    // Weft refused what the link asked for, each value valid alone (e.g. a self-collision
    // thickness over 0.35 of the cloth's edges at its size): the control the error names back to
    // its default, or else every control, rather than no cloth; the notice says why.
    const restore = (which: typeof defaults): void => {
      for (const [control, value] of which) {
        if (typeof value === 'boolean') (control as HTMLInputElement).checked = value;
        else control.value = value;
      }
    };
    // A refused `colliders` field would be the library scene's (its capsules, boxes and floor).
    const field = refused.field === 'colliders' ? 'scene' : refused.field.split(/[.[]/)[0];
    const named = defaults.filter(([control]) => control.id === field);
    const linkValue = (c: HTMLInputElement | HTMLSelectElement): string =>
      c instanceof HTMLInputElement && c.type === 'checkbox' ? (c.checked ? '1' : '0') : c.value;
    const asked = named[0] ? `${named[0][0].id}=${linkValue(named[0][0])}` : '';
    const why = refused.message.replace(`${refused.field}: `, '');
    restore(named);
    linkNotice = `Not applied from the link (the default is used): ${asked}: ${refused.field} ${why}`;
    const again = named.length > 0 ? await rebuild('reset') : refused;
    if (again !== null) {
      restore(defaults);
      linkNotice = `The link's settings were not applied (the defaults are used): ${refused.message}`;
      await rebuild('reset');
    }
  }

  // Measurements over windows of about half a second.
  const meter = { since: performance.now(), steps: 0, gpuMs: 0, frames: 0, simTime: 0 };
  const shown = { stepsPerSecond: 0, msPerStep: 0, fps: 0, realTime: 0 };
  let solverLine = '';
  let energyLine = 'energy: (reading…)';
  let lastSolverRead = 0;
  let lastStateRead = 0;
  let gpuBusy = false;

  const showStats = (): void => {
    if (!scene) return;
    const s = settings;
    statsText.textContent = [
      `${s.integrator} · ${sceneLabel(s)} (${scene.model.particleCount} particles, ${scene.model.springCount} springs)`,
      scene.sim.description,
      `t = ${simTime.toFixed(2)} s · dt ${s.dt.toPrecision(3)} s × ${s.substeps} substeps/frame · ${shown.realTime.toFixed(2)}× real time`,
      `${Math.round(shown.stepsPerSecond)} steps/s · ${shown.msPerStep.toFixed(3)} ms/step on the GPU (with wind, contacts, normals, draw) · ${Math.round(shown.fps)} fps`,
      solverLine,
      energyLine,
      paused ? 'paused' : diverged ? 'stopped: diverged' : '',
    ]
      .filter((line) => line !== '')
      .join('\n');
  };

  /** Queues a read-back of `current`'s; they run one after another, never on every frame. */
  const track = (current: Scene, read: () => Promise<void>): void => {
    current.reads = current.reads
      .then(read)
      .catch((error: unknown) => status.error(`Reading the simulation back failed: ${String(error)}`));
  };

  const readSolver = (current: Scene): void => {
    track(current, async () => {
      const stats = await current.sim.readSolverStats().catch(() => null);
      if (scene !== current) return;
      // An explicit scene has no solver line (not the last implicit scene's).
      if (!stats || !current.implicit) {
        solverLine = '';
        return;
      }
      const last = current.lastStats;
      const solves = stats.linearSolves - (last?.linearSolves ?? 0);
      const iterations = stats.linearIterations - (last?.linearIterations ?? 0);
      const steps = stats.steps - (last?.steps ?? 0);
      const newton = stats.newtonIterations - (last?.newtonIterations ?? 0);
      current.lastStats = stats;
      if (solves === 0) return;
      const { maxIterations, tolerance } = settings;
      solverLine =
        `CG (${settings.solver}): ${(iterations / solves).toFixed(1)} iterations/solve (cap ${maxIterations}), residual ` +
        `${stats.lastResidual.toExponential(1)} (tolerance ${tolerance}); ${stats.unconvergedSolves} solves stopped at the cap` +
        (newton > 0 && steps > 0 ? ` · Newton ${(newton / steps).toFixed(1)}/step` : '');
    });
  };

  /** Stops stepping, hides the cloth and says what happened and what to do. */
  const stop = (what: string): void => {
    diverged = true;
    energyLine = 'energy: —';
    status.notify(
      `${what} Press Reset; then lower dt (and raise the substeps), or pick an implicit integrator.`,
    );
  };

  const readEnergy = (current: Scene): void => {
    track(current, async () => {
      try {
        const state = await current.sim.readState();
        if (scene !== current) return;
        const e = energy(current.model, state.positions, state.velocities);
        energyLine =
          `energy ${e.total.toFixed(3)} J = kinetic ${e.kinetic.toFixed(3)} + spring ${e.spring.toFixed(3)}` +
          ` + gravity ${e.gravity.toFixed(3)}`;
      } catch (error) {
        if (!(error instanceof WeftDivergenceError)) throw error;
        // error.message reads "simulation diverged: particle … (what to do)".
        if (scene === current && !diverged)
          stop(`${error.message[0]!.toUpperCase()}${error.message.slice(1)}.`);
      }
    });
  };

  /** The render pass already hides a cloth that has NaNs or has flown off; this stops the stepping. */
  const readHealth = (current: Scene): void => {
    track(current, async () => {
      const flags = await renderer.readHealth();
      if (scene !== current || diverged || flags === 0) return;
      if (flags & HEALTH.notFinite) {
        diverged = true; // no more steps; readState() names the step and the particle
        const error = await current.sim.readState().then(
          () => null,
          (error: unknown) => error,
        );
        // Weft's own words when it has them, as readEnergy says them ("Simulation diverged: …").
        stop(error instanceof WeftDivergenceError ? `${error.message[0]!.toUpperCase()}${error.message.slice(1)}.` : 'Simulation diverged: a particle is not finite.'); // prettier-ignore
      } else {
        stop(
          `The simulation blew up: a particle is more than ${SCENE_BOUND} m away, or an edge of the ` +
            `grid is stretched to more than ${MAX_STRETCH}× its rest length.`,
        );
      }
    });
  };

  const effectSettings = (s: Settings, time: number): EffectSettings => ({
    wind: [WIND_DIRECTION[0] * s.wind, WIND_DIRECTION[1] * s.wind, WIND_DIRECTION[2] * s.wind],
    windDrag: WIND_DRAG,
    sphere: s.sphere ? SPHERE : null,
    floorHeight: FLOOR_HEIGHT,
    thickness: THICKNESS,
    friction: Math.min(1, FRICTION_RATE * s.dt),
    time,
  });

  const frame = (): void => {
    requestAnimationFrame(frame);
    const current = scene;
    // One frame in flight: a slow GPU lowers the frame rate instead of queueing work without end.
    if (!current || gpuBusy) return;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const [width, height] = [Math.round(canvas.clientWidth * dpr), Math.round(canvas.clientHeight * dpr)];
    if (width === 0 || height === 0) return;
    if (canvas.width !== width || canvas.height !== height) [canvas.width, canvas.height] = [width, height];

    const stepping = !paused && !diverged && !rebuilding;
    const steps = stepping ? settings.substeps : 0;
    let encoder = device.createCommandEncoder({ label: 'cloth frame' });
    const library = isLibraryScene(settings.scene);
    if (stepping) {
      current.effects.update(effectSettings(settings, simTime));
      drag.poll(current.sim);
      const moving = colliderPoses(settings, 0).length > 0;
      // Every substep: Weft's step, then the demo's wind and contacts (not in Weft's own scenes);
      // one submission per frame, or per substep while the cloth is held or the character moves
      // (each substep's target and collider poses are written before it).
      for (let s = 0; s < steps; s++) {
        if ((drag.holds(current.sim) || moving) && s > 0) {
          device.queue.submit([encoder.finish()]);
          encoder = device.createCommandEncoder({ label: 'cloth frame' });
        }
        drag.beforeSubstep(current.sim, s + 1, steps);
        for (const [k, pose] of colliderPoses(settings, simTime + (s + 1) * settings.dt)) current.sim.setColliderPose(k, pose); // prettier-ignore
        current.sim.encode(encoder, 1);
        if (!library) current.effects.encode(encoder);
      }
      simTime += steps * settings.dt;
      status.hooks.time = simTime;
    }
    renderer.encodeNormals(encoder);
    const frameView = { viewProjection: camera.viewProjection(width / height), eye: camera.eye, lightDirection: LIGHT_DIRECTION }; // prettier-ignore
    colliderView.update(drawnColliders(settings, simTime), frameView);
    renderer.render(encoder, context.getCurrentTexture(), {
      ...frameView,
      sphere: settings.sphere && !library ? { center: SPHERE.center, radius: SPHERE.radius * 0.995 } : null,
      showCloth: !diverged,
    }, (pass) => colliderView.draw(pass)); // prettier-ignore
    device.queue.submit([encoder.finish()]);
    status.frameSubmitted(canvas);

    gpuBusy = true;
    const submitted = performance.now();
    void device.queue.onSubmittedWorkDone().then(() => {
      gpuBusy = false;
      const now = performance.now();
      meter.frames++;
      meter.steps += steps;
      meter.simTime += steps * settings.dt;
      if (steps > 0) meter.gpuMs += now - submitted;
      const elapsed = (now - meter.since) / 1000;
      if (elapsed >= 0.5) {
        shown.stepsPerSecond = meter.steps / elapsed;
        shown.msPerStep = meter.steps > 0 ? meter.gpuMs / meter.steps : 0;
        shown.fps = meter.frames / elapsed;
        shown.realTime = meter.simTime / elapsed;
        Object.assign(meter, { since: now, steps: 0, gpuMs: 0, frames: 0, simTime: 0 });
      }
      showStats();
    });

    // Statistics read back now and then, never every frame.
    const now = performance.now();
    if (stepping && now - lastSolverRead > 500) {
      lastSolverRead = now;
      readHealth(current);
      if (current.implicit) readSolver(current);
    }
    if (stepping && now - lastStateRead > 1000) {
      lastStateRead = now;
      readEnergy(current);
    }
  };
  requestAnimationFrame(frame);
}

window.addEventListener('unhandledrejection', (event) => status.error(`Unhandled: ${String(event.reason)}`));
main().catch((error: unknown) => status.error(`The demo stopped: ${String(error)}`));
