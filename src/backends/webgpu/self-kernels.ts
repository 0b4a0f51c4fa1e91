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
import selfBounds from '../../../shaders/self-bounds.wgsl?raw';
import selfKeys from '../../../shaders/self-keys.wgsl?raw';
import selfScatter from '../../../shaders/self-scatter.wgsl?raw';
import selfNarrow from '../../../shaders/self-narrow.wgsl?raw';
import selfIncScatter from '../../../shaders/self-inc-scatter.wgsl?raw';
import selfIncSort from '../../../shaders/self-inc-sort.wgsl?raw';
import { reflectKernel, type KernelLayout } from './layout.ts';
import { cachedPipeline } from './gpu-common.ts';

/** Kernels on the program's vectors: common.wgsl, program-vectors.wgsl, self-contact-common.wgsl prepended. */
const ON_VECTORS = { selfReset, selfBounds, selfKeys, selfScatter, selfNarrow, selfIncScatter, selfIncSort };
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

/**
 * The pipeline of `name` with `workgroupSize` and the `override` constants its entry point uses,
 * cached per device (gpu-common.ts's caches).
 */
export function selfPipeline(
  device: GPUDevice,
  name: SelfKernelName,
  workgroupSize: number,
  constants: Readonly<Record<string, number>> = {},
): GPUComputePipeline {
  return cachedPipeline(device, name, selfKernels()[name], workgroupSize, constants);
}
