/**
 * The self-collision detection kernels (shaders/self-*.wgsl), loaded as text, with their shared
 * files prepended and reflected once (as kernels.ts does for the others), and their pipelines,
 * cached per device and `override` constants.
 */
import common from '../../../shaders/common.wgsl?raw';
import programVectors from '../../../shaders/program-vectors.wgsl?raw';
import selfCommon from '../../../shaders/self-contact-common.wgsl?raw';
import selfScan from '../../../shaders/self-scan.wgsl?raw';
import selfScanAdd from '../../../shaders/self-scan-add.wgsl?raw';
import selfReset from '../../../shaders/self-reset.wgsl?raw';
import selfKeys from '../../../shaders/self-keys.wgsl?raw';
import selfScatter from '../../../shaders/self-scatter.wgsl?raw';
import selfNarrow from '../../../shaders/self-narrow.wgsl?raw';
import selfIncScatter from '../../../shaders/self-inc-scatter.wgsl?raw';
import selfIncSort from '../../../shaders/self-inc-sort.wgsl?raw';
import { reflectKernel, type KernelLayout } from './layout.ts';
import { groupThreadsFor } from './gpu-common.ts';

/** Kernels on the program's vectors: common.wgsl, program-vectors.wgsl, self-contact-common.wgsl prepended. */
const ON_VECTORS = { selfReset, selfKeys, selfScatter, selfNarrow, selfIncScatter, selfIncSort };
/** The generic scan: common.wgsl and self-contact-common.wgsl prepended. */
const SCAN = { selfScan, selfScanAdd };

export type SelfKernelName = keyof typeof ON_VECTORS | keyof typeof SCAN;

let reflected: Record<SelfKernelName, KernelLayout> | undefined;

/** Every self-collision kernel, reflected. */
export function selfKernels(): Record<SelfKernelName, KernelLayout> {
  reflected ??= Object.fromEntries([
    ...Object.entries(ON_VECTORS).map(([name, source]) => [
      name,
      reflectKernel(`${common}\n${programVectors}\n${selfCommon}\n${source}`),
    ]),
    ...Object.entries(SCAN).map(([name, source]) => [
      name,
      reflectKernel(`${common}\n${selfCommon}\n${source}`),
    ]),
  ]) as Record<SelfKernelName, KernelLayout>;
  return reflected;
}

const modules = new WeakMap<GPUDevice, Map<SelfKernelName, GPUShaderModule>>();
const pipelines = new WeakMap<GPUDevice, Map<string, GPUComputePipeline>>();

/**
 * The pipeline of `name` with `workgroupSize` and the `override` constants its entry point uses
 * (others are dropped, as gpu-common.ts's pipeline() does), cached per device.
 */
export function selfPipeline(
  device: GPUDevice,
  name: SelfKernelName,
  workgroupSize: number,
  constants: Readonly<Record<string, number>> = {},
): GPUComputePipeline {
  const kernel = selfKernels()[name];
  const all = { groupThreads: groupThreadsFor(device, workgroupSize), ...constants };
  const used = Object.entries(all).filter(([key]) => kernel.overrides.has(key));
  const key = `${name}/${workgroupSize}/${JSON.stringify(used)}`;
  let cache = pipelines.get(device);
  if (!cache) pipelines.set(device, (cache = new Map()));
  let found = cache.get(key);
  if (found) return found;
  let byName = modules.get(device);
  if (!byName) modules.set(device, (byName = new Map()));
  let module = byName.get(name);
  if (!module)
    byName.set(name, (module = device.createShaderModule({ label: `Weft.${name}`, code: kernel.code })));
  found = device.createComputePipeline({
    label: `Weft.${name}`,
    layout: 'auto',
    compute: {
      module,
      entryPoint: kernel.entryPoint,
      constants: { workgroupSize, ...Object.fromEntries(used) },
    },
  });
  cache.set(key, found);
  return found;
}
