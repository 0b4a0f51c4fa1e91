/**
 * Weft's Node entry (the `node` export condition of `weft-sim`): the public API of src/index.ts,
 * with WebGPU from Dawn (the optional peer dependency `webgpu`, loaded on the first GPU
 * simulation). Browsers get src/index.ts, which names neither Dawn nor Node's modules.
 */
import { registerAdapterFinder } from './backends/webgpu/device.ts';
import { dawnAdapterFinder } from './backends/webgpu/dawn.ts';
import { setHostPollsWhileMapping } from './backends/webgpu/host-wait.ts';

registerAdapterFinder(dawnAdapterFinder());
setHostPollsWhileMapping(true);

export * from './index.ts';
