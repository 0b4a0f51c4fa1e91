/**
 * Weft's cloth in a three.js scene: one GPUDevice shared by three.js's WebGPURenderer and Weft, the
 * cloth drawn by three.js from Weft's positions on the GPU (no readback), three.js's public API only.
 * Each frame the app
 *   1. encodes Weft's steps (`sim.encode`) and a GPU-side copy of Weft's positions into a texture
 *      three.js reads (positions-texture.ts), and submits them;
 *   2. renders the scene with three.js, whose cloth vertex shader loads its positions from that
 *      texture (cloth-mesh.ts). Both go to the same queue, in that order.
 * Try `?size=64`.
 */
import {
  Color,
  DirectionalLight,
  HemisphereLight,
  Mesh,
  MeshStandardNodeMaterial,
  PerspectiveCamera,
  Scene,
  CircleGeometry,
  WebGPURenderer,
} from 'three/webgpu';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { createSimulation } from '../../src/index.ts';
// Test hooks (window.__weft), the on-page notice and the device request of the other examples.
import { PageStatus, requestDevice } from '../cloth/page-status.ts';
import { clothMesh } from './cloth-mesh.ts';
import { PositionsTexture } from './positions-texture.ts';
import { clothModel, integration } from './scene.ts';

/** `window.__weftThree`: for test/threejs.test.ts, which checks the page's cloth against Weft's CPU path. */
export interface ThreeExampleHooks {
  /** The cloth's particles per side. */
  readonly size: number;
  /**
   * Stops the frame loop and reads back, once, the cloth's positions (xyz per particle, m): Weft's
   * state, and what the texture three.js draws from holds.
   */
  stop(): Promise<{ step: number; positions: number[]; drawn: number[] }>;
}

declare global {
  interface Window {
    __weftThree?: ThreeExampleHooks;
  }
}

const status = new PageStatus(document.getElementById('notice')!);
const size = Number(new URLSearchParams(location.search).get('size') ?? 32);

async function main(): Promise<void> {
  // One device for both libraries: three.js uses the one it is given, and Weft borrows it too
  // (neither destroys a device it was given).
  const request = await requestDevice();
  if ('problem' in request) {
    status.notify(request.problem);
    return;
  }
  const { device } = request;
  status.watch(device);
  const canvas = document.querySelector('canvas')!;
  const renderer = new WebGPURenderer({ canvas, device, antialias: true });
  await renderer.init();
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));

  const model = clothModel(size);
  const { options, stepsPerFrame } = integration(size);
  const [sim, positions] = await status.scoped(device, 'the setup', async () => {
    const sim = await createSimulation(model, { ...options, backend: 'webgpu', device });
    return [sim, new PositionsTexture(device, sim.positions, model.particleCount)] as const;
  });

  const scene = new Scene();
  scene.background = new Color(0x13161b);
  scene.add(clothMesh(positions.texture, size, size, new Float32Array(model.particlePositions), 0xd2452f));
  const floor = new Mesh(new CircleGeometry(1.8, 64), new MeshStandardNodeMaterial({ color: 0x3a4049 }));
  floor.rotation.x = -Math.PI / 2;
  floor.position.y = -0.9;
  scene.add(floor);
  scene.add(new HemisphereLight(0xdce6f2, 0x2a2420, 1.0));
  const sun = new DirectionalLight(0xffffff, 2.6);
  sun.position.set(-2, 2, 2);
  scene.add(sun);
  const camera = new PerspectiveCamera(40, 1, 0.05, 50);
  camera.position.set(1.5, 0.75, 2.1);
  const controls = new OrbitControls(camera, canvas);
  controls.target.set(0, -0.1, 0.1);
  controls.enableDamping = true;

  let stopped = false;
  const frame = (): void => {
    if (stopped) return;
    const [width, height] = [Math.max(1, canvas.clientWidth), Math.max(1, canvas.clientHeight)];
    if (camera.aspect !== width / height) {
      renderer.setSize(width, height, false);
      camera.aspect = width / height;
      camera.updateProjectionMatrix();
    }
    // 1. Weft's steps and the copy of their result into three.js's texture: one submission.
    const encoder = device.createCommandEncoder({ label: 'three-example.steps' });
    sim.encode(encoder, stepsPerFrame);
    positions.encodeCopy(encoder);
    device.queue.submit([encoder.finish()]);
    // 2. three.js's frame, submitted after the steps on the same queue.
    controls.update();
    renderer.render(scene, camera);
    status.hooks.time = sim.stepCount * sim.dt;
    status.frameSubmitted(canvas);
    // The next frame once the GPU is done with this one: a slow GPU lowers the frame rate
    // rather than queueing work without end.
    void device.queue.onSubmittedWorkDone().then(() => requestAnimationFrame(frame));
  };
  requestAnimationFrame(frame);

  window.__weftThree = {
    size,
    stop: async () => {
      stopped = true;
      const state = await sim.readState();
      const drawn = await positions.read();
      return { step: state.step, positions: Array.from(state.positions), drawn: Array.from(drawn) };
    },
  };
  window.addEventListener('pagehide', () => {
    stopped = true;
    positions.destroy();
    sim.destroy();
    renderer.dispose();
  });
}

main().catch((error: unknown) => status.error(`The example stopped: ${String(error)}`));
