/**
 * Embedding Weft in an app that already has a GPUDevice and a render loop: the pattern to follow
 * with three.js, Babylon.js or your own engine. The app
 *   1. owns the device (and the canvas),
 *   2. hands that device to Weft, which creates its buffers and compute pipelines on it,
 *   3. draws with its own pipeline straight from Weft's position buffer (no copy, no readback),
 *   4. runs its own frame loop: `sim.step(n)` encodes n steps in one submission, then it draws.
 * Try `?size=64`.
 */
import { buildCloth, createSimulation } from '../../src/index.ts';
import { lookAt, multiply, perspective } from '../cloth/camera.ts';
// Test hooks (window.__weft) and the on-page notice; not part of the pattern.
import { PageStatus } from '../cloth/page-status.ts';
import linesCode from './lines.wgsl?raw';

const status = new PageStatus(document.getElementById('notice')!);
const size = Number(new URLSearchParams(location.search).get('size') ?? 48);

/** The cloth: 0.5 kg, springs in N/m. */
const MASS = 0.5;
const STIFFNESS = { structural: 300, shear: 80, bend: 10 };
/**
 * Symplectic Euler is explicit: stable for dt < 2/ω_max, with ω_max² ≤ 2 Σk / m (Gershgorin; a
 * particle has at most 4 springs of each kind). Take half that limit, and enough steps per frame
 * to simulate 1/60 s.
 */
const DT =
  1 / Math.sqrt((2 * 4 * (STIFFNESS.structural + STIFFNESS.shear + STIFFNESS.bend)) / (MASS / size ** 2));
const STEPS_PER_FRAME = Math.ceil(1 / 60 / DT);

async function main(): Promise<void> {
  // 1. The app's device. Weft borrows it: it never destroys a device it was given.
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) {
    status.notify('No WebGPU here: navigator.gpu or an adapter is missing. Try a recent Chrome or Edge.');
    return;
  }
  const device = await adapter.requestDevice({ label: 'my-app' });
  status.watch(device);
  const canvas = document.querySelector('canvas')!;
  const context = canvas.getContext('webgpu')!;
  const format = navigator.gpu.getPreferredCanvasFormat();
  context.configure({ device, format, alphaMode: 'opaque' });

  // 2. A model, then a simulation on the app's device. The cloth is a 1 m square lying flat and
  // pinned along one edge, so it swings down and, damped by the air (Rayleigh mass damping),
  // comes to hang.
  const model = buildCloth({
    nx: size,
    ny: size,
    spacing: 1 / (size - 1),
    particleMass: MASS / size ** 2,
    structuralStiffness: STIFFNESS.structural,
    shearStiffness: STIFFNESS.shear,
    bendStiffness: STIFFNESS.bend,
    damping: 0.005,
    pins: 'top-edge',
    origin: [-0.5, 0.5, -0.5],
  });
  device.pushErrorScope('validation'); // catch any mistake in the setup, named, at once
  const sim = await createSimulation(model, {
    backend: 'webgpu',
    device,
    integrator: 'symplectic-euler',
    dt: DT,
    rayleighMass: 1.5,
    stepsPerSubmit: STEPS_PER_FRAME,
  });

  // 3. The app's pipeline. Weft's `positions` has VERTEX usage: bind it as vertex buffer 0, one
  // vec4<f32> per particle. An index buffer joins each particle (i, j) = j·size + i to its
  // neighbours (i+1, j) and (i, j+1).
  const lines: number[] = [];
  for (let j = 0; j < size; j++)
    for (let i = 0; i < size; i++) {
      const p = j * size + i;
      if (i + 1 < size) lines.push(p, p + 1);
      if (j + 1 < size) lines.push(p, p + size);
    }
  const indices = device.createBuffer({
    label: 'my-app.indices',
    size: 4 * lines.length,
    usage: GPUBufferUsage.INDEX | GPUBufferUsage.COPY_DST,
  });
  device.queue.writeBuffer(indices, 0, new Uint32Array(lines));
  const camera = device.createBuffer({
    label: 'my-app.camera',
    size: 64, // one mat4x4<f32>
    usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
  });
  const module = device.createShaderModule({ label: 'my-app.lines', code: linesCode });
  const pipeline = device.createRenderPipeline({
    label: 'my-app.lines',
    layout: 'auto',
    vertex: {
      module,
      buffers: [{ arrayStride: 16, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x4' }] }],
    },
    fragment: { module, targets: [{ format }] },
    primitive: { topology: 'line-list' },
  });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: camera } }],
  });
  const setupError = await device.popErrorScope();
  if (setupError) status.error(`WebGPU error in the setup: ${setupError.message}`);

  // 4. The app's frame loop.
  const frame = (time: number): void => {
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const [width, height] = [Math.round(canvas.clientWidth * dpr), Math.round(canvas.clientHeight * dpr)];
    if (canvas.width !== width || canvas.height !== height) [canvas.width, canvas.height] = [width, height];

    // Weft's steps: compute passes submitted now, nothing read back. The draw below is submitted
    // after them on the same queue, so it sees their result.
    sim.step(STEPS_PER_FRAME);
    status.hooks.time = sim.stepCount * DT;

    // The app's draw, from Weft's buffer, seen from a camera circling the cloth.
    const angle = 0.9 + time * 0.0002;
    const eye = [3.2 * Math.sin(angle), 1.4, 3.2 * Math.cos(angle)] as const;
    const projection = perspective(Math.PI / 4, width / height, 0.05, 50);
    device.queue.writeBuffer(camera, 0, multiply(projection, lookAt(eye, [0, 0, 0.45])));
    const encoder = device.createCommandEncoder({ label: 'my-app.frame' });
    const pass = encoder.beginRenderPass({
      colorAttachments: [
        {
          view: context.getCurrentTexture().createView(),
          clearValue: { r: 0.06, g: 0.07, b: 0.09, a: 1 },
          loadOp: 'clear',
          storeOp: 'store',
        },
      ],
    });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.setVertexBuffer(0, sim.positions);
    pass.setIndexBuffer(indices, 'uint32');
    pass.drawIndexed(lines.length);
    pass.end();
    device.queue.submit([encoder.finish()]);
    status.frameSubmitted(canvas);

    // Ask for the next frame once the GPU is done with this one, so a slow GPU lowers the frame
    // rate rather than queueing work without end.
    void device.queue.onSubmittedWorkDone().then(() => requestAnimationFrame(frame));
  };
  requestAnimationFrame(frame);

  // When the app is done with the cloth: sim.destroy() frees Weft's buffers; the device stays the app's.
  window.addEventListener('pagehide', () => sim.destroy());
}

main().catch((error: unknown) => status.error(`The example stopped: ${String(error)}`));
