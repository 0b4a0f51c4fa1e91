/**
 * Self-collision's dynamics on WebGPU (Node, SwiftShader; src/backends/webgpu/self-contact-ops.ts,
 * shaders/self-pair-*.wgsl, self-fail-*.wgsl) against the CPU reference (CpuSelfContact,
 * selfFailSafe) in float32: the relative-motion listing on folded cloths, one evaluation's pair
 * forces, a layer dropped on another under symplectic and implicit Euler, no intersection in a
 * collapsing cloth, and bit-identical runs.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { buildCloth, withSelfCollision, type Model } from '../src/index.ts';
import { CpuSelfContact, programOf, WebGpuExecutor, withSelfContact, encodeDispatches, type Compiled } from '../src/internal.ts'; // prettier-ignore
import { useNodeDevice } from './helpers/node-device-suite.ts';
import { folded, random, SPACING, THICKNESS } from './helpers/self-detect-cases.ts';
import { edgeEdgeClosest, vertexTriangleClosest } from '../src/internal.ts';

const node = useNodeDevice((device, uncaptured) => Object.assign(device, { uncaptured }));

afterEach(() => expect(node.runner().uncaptured.splice(0)).toEqual([]));

/** A 16² cloth (2 cm cells, r = 4 mm) with self-collision. */
function model16(): Model {
  return withSelfCollision(buildCloth({ nx: 16, ny: 16, spacing: SPACING, pins: 'none' }), { thickness: THICKNESS, maxPairsPerParticle: 48 }); // prettier-ignore
}

/** An executor of symplectic Euler with self-collision, its state set to (x, v), running `ops` once. */
async function runOps(model: Model, x: Float64Array, v: Float64Array, h: number, ops: (program: ReturnType<typeof programOf>['program']) => Parameters<WebGpuExecutor['compile']>[0]): Promise<WebGpuExecutor> {
  const device = node.runner();
  const program = withSelfContact(programOf({ integrator: 'symplectic-euler', dt: h }, model.particleCount).program, 'symplectic-euler', true); // prettier-ignore
  const executor = new WebGpuExecutor(device, model, program, h, 64);
  executor.writeVector('x', x);
  executor.writeVector('v', v);
  const list: Compiled[] = [];
  executor.compile(ops(program), new Map(), list);
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  encodeDispatches(pass, list, 64, device.limits);
  pass.end();
  device.queue.submit([encoder.finish()]);
  await device.queue.onSubmittedWorkDone();
  return executor;
} // prettier-ignore

/** dist − (r + max |m_i − m_j| + slack) of pair (kind, particles) at x (float64). */
function relativeMargin(model: Model, x: Float64Array, motion: Float64Array, slack: number, kind: number, p: number[]): number {
  const q = [0, 0, 0];
  const d = kind === 0 ? vertexTriangleClosest(x, p[0]!, p[1]!, p[2]!, p[3]!, q, 0) : edgeEdgeClosest(x, p[0]!, p[1]!, p[2]!, p[3]!, q, 0); // prettier-ignore
  const split = kind === 0 ? 1 : 2;
  let most = 0;
  for (let a = 0; a < split; a++)
    for (let b = split; b < 4; b++)
      most = Math.max(most, Math.hypot(...[0, 1, 2].map((k) => motion[3 * p[a]! + k]! - motion[3 * p[b]! + k]!)));
  return d - (model.selfCollision!.thickness + most + slack);
} // prettier-ignore

describe('selfContacts on the GPU: the relative-motion listing', () => {
  test.each([1, 2, 3])('folded 16² cloth (seed %d), velocities as a sheet plus noise: the CPU listPairs', async (seed) => {
    const model = model16();
    const h = 1 / 240;
    const x = Float64Array.from(folded({ n: model.particleCount, nx: 16, rest: model.particlePositions, self: model.selfCollision! }, seed), Math.fround); // prettier-ignore
    const next = random(seed + 10);
    const v = Float64Array.from({ length: x.length }, (_, k) => Math.fround((k % 3 === 1 ? -1 : 0.3) + 0.4 * (2 * next() - 1)));
    const executor = await runOps(model, x, v, h, (p) => p.step.slice(0, 2));
    const gpu = await executor.selfContact!.detection.read();
    executor.destroy();
    const cpu = new CpuSelfContact(model, (n) => new Float64Array(n));
    cpu.detect(x, v, h);
    const motion = Float64Array.from(v, (value) => h * value);
    const slack = model.selfCollision!.thickness / 2 + h * h * 9.81;
    const key = (kind: number, p: ArrayLike<number>) => `${kind}:${Array.from(p).join(',')}`;
    const gpuKeys = Array.from({ length: gpu.count }, (_, e) => key(gpu.kinds[e]!, gpu.particles.subarray(4 * e, 4 * e + 4)));
    const cpuKeys = Array.from({ length: cpu.count }, (_, e) => key(cpu.pairs.kinds[e]!, cpu.pairs.particles.subarray(4 * e, 4 * e + 4)));
    const tol = 1e-5 * (1 + Math.max(...x.map(Math.abs)));
    const [gpuSet, cpuSet] = [new Set(gpuKeys), new Set(cpuKeys)];
    const differ = [...gpuKeys.filter((k) => !cpuSet.has(k)), ...cpuKeys.filter((k) => !gpuSet.has(k))];
    const far = differ.filter((k) => {
      const [kind, list] = k.split(':');
      return Math.abs(relativeMargin(model, x, motion, slack, Number(kind), list!.split(',').map(Number))) >= tol;
    });
    console.log(`folded 16² seed ${seed}: GPU ${gpu.count} pairs, CPU ${cpu.count}, ${differ.length} differ (all within ${tol.toExponential(1)} of the bound: ${far.length === 0})`); // prettier-ignore
    expect(cpu.count).toBeGreaterThan(50);
    expect(far).toEqual([]);
    expect(gpuKeys.filter((k) => cpuSet.has(k))).toEqual(cpuKeys.filter((k) => gpuSet.has(k)));
    // The incidence: per particle 4 pair + corner ascending, every particle (none fixed).
    expect(gpu.incidence.offsets[model.particleCount]).toBe(4 * gpu.count);
  }, 120_000); // prettier-ignore
});
