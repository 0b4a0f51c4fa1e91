/**
 * Bandwidth measurements on the adapter in use: a plain copy kernel sets the reference, and the
 * matrix-free product of the implicit solvers is stated as bytes it must move per second and as
 * a fraction of that reference (GPU-NOTES.md: never absolute times alone).
 */
import type { Model } from '../../model/model.ts';
import { bindByName, dispatchSize, pipeline } from './gpu-common.ts';
import { kernels } from './kernels.ts';
import { structBytes } from './layout.ts';
import type { WebGpuImplicitSimulation } from './webgpu-implicit-simulation.ts';

export interface Throughput {
  /** Bytes the kernel must read and write per run. */
  bytesPerRun: number;
  /** Median seconds per run. */
  secondsPerRun: number;
  /** bytesPerRun / secondsPerRun. */
  bytesPerSecond: number;
}

async function timeRuns(
  device: GPUDevice,
  encodeRuns: (pass: GPUComputePassEncoder) => void,
  trials: number,
): Promise<number> {
  const times: number[] = [];
  for (let t = 0; t < trials + 1; t++) {
    const started = performance.now();
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    encodeRuns(pass);
    pass.end();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    if (t > 0) times.push((performance.now() - started) / 1000); // the first is a warm-up
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Copies `elements` vec4<f32> `repeats` times per trial; median of `trials`. */
export async function measureCopy(
  device: GPUDevice,
  elements: number,
  repeats = 20,
  trials = 5,
): Promise<Throughput> {
  const layout = kernels().copy;
  const workgroupSize = 64;
  const make = (usage: GPUBufferUsageFlags, size: number) => device.createBuffer({ size, usage });
  const params = make(GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, 32);
  device.queue.writeBuffer(
    params,
    0,
    structBytes(layout.structs.get('SimParams')!, {
      particleCount: elements,
      springCount: 0,
      gravity: [0, 0, 0],
      rayleighMass: 0,
    }),
  );
  const source = make(GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST, 16 * elements);
  const destination = make(GPUBufferUsage.STORAGE, 16 * elements);
  const target = pipeline(device, 'copy', workgroupSize);
  const bindGroup = bindByName(device, 'bandwidth.copy', target, layout, { params, source, destination });
  const [x, y] = dispatchSize(elements, workgroupSize, device.limits);
  const seconds = await timeRuns(
    device,
    (pass) => {
      pass.setPipeline(target);
      pass.setBindGroup(0, bindGroup);
      for (let r = 0; r < repeats; r++) pass.dispatchWorkgroups(x, y);
    },
    trials,
  );
  for (const buffer of [params, source, destination]) buffer.destroy();
  const bytesPerRun = 32 * elements;
  return { bytesPerRun, secondsPerRun: seconds / repeats, bytesPerSecond: (bytesPerRun * repeats) / seconds };
}

/**
 * Bytes the product q = A p must move at least, each datum once: per particle p and q (vec4
 * each), the mass and the CSR offset; per spring, at each of its two incidence entries, the other
 * endpoint (4 bytes) and the solve's block a, (n, b) (20 bytes, system-blocks.wgsl). Not counted:
 * p_j read again per entry, the unused half of each 8-byte incidence pair.
 */
export function productBytes(model: Model): number {
  return 40 * model.particleCount + 48 * model.springCount;
}

/** Times `repeats` products on the simulation's current spring states; median of `trials`. */
export async function measureProduct(
  simulation: WebGpuImplicitSimulation,
  repeats = 20,
  trials = 5,
): Promise<Throughput> {
  await simulation.kernels.run('springJacobians');
  const times: number[] = [];
  for (let t = 0; t < trials + 1; t++) {
    const started = performance.now();
    await simulation.kernels.run('systemProduct', repeats);
    if (t > 0) times.push((performance.now() - started) / 1000);
  }
  times.sort((a, b) => a - b);
  const seconds = times[Math.floor(times.length / 2)]!;
  const bytesPerRun = productBytes(simulation.model);
  return { bytesPerRun, secondsPerRun: seconds / repeats, bytesPerSecond: (bytesPerRun * repeats) / seconds };
}
