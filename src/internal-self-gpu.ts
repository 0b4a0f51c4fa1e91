/** Self-collision internals of the WebGPU path, for tests (re-exported by src/internal.ts). */
export {
  GpuSelfContactDetect,
  type SelfDetectSpec,
  type SelfDetectVectors,
} from './backends/webgpu/self-contact-detect.ts';
export { checkSelfFlags, SELF_FLAGS, type GpuSelfPairs } from './backends/webgpu/self-contact-read.ts';
export { selfKernels, type SelfKernelName } from './backends/webgpu/self-kernels.ts';
export { runSelfScan, scanPlan } from './backends/webgpu/self-scan.ts';
export { GpuSelfContact } from './backends/webgpu/self-contact-ops.ts';
export { WebGpuExecutor } from './backends/webgpu/executor.ts';
export { programOf } from './backends/webgpu/webgpu-options.ts';
