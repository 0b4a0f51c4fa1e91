/**
 * Finding a WebGPU adapter: `navigator.gpu` in a browser; elsewhere the finder an entry point
 * registered (Weft's Node entry registers Dawn's, src/backends/webgpu/dawn.ts). This module and
 * everything the browser entry imports name neither Node's modules nor Dawn, so that browser
 * bundlers (Vite, esbuild, webpack) see nothing to resolve or shim.
 */

import { describeValue, WebGpuUnavailableError, WeftError, WeftInputError } from '../../core/errors.ts';

export { WebGpuUnavailableError };

/** The adapter {@link findAdapter} found: the adapter, its name, and how it was found. */
export interface AdapterReport {
  readonly adapter: GPUAdapter;
  /** e.g. "google swiftshader (SwiftShader Device (Subzero))". */
  readonly name: string;
  /** How it was found, e.g. "navigator.gpu" or "Node webgpu (Dawn), Vulkan, VK_ICD_FILENAMES=…". */
  readonly via: string;
}

/** Finds an adapter where there is no `navigator.gpu` (Node: Dawn), or throws saying why not. */
export type AdapterFinder = (powerPreference: GPUPowerPreference) => Promise<AdapterReport>;

let registeredFinder: AdapterFinder | null = null;

/** Makes {@link findAdapter} use `finder` instead of `navigator.gpu` (the Node entry's Dawn). */
export function registerAdapterFinder(finder: AdapterFinder): void {
  registeredFinder = finder;
}

export function describeAdapterInfo(info: GPUAdapterInfo): string {
  const details = [info.device, info.description].filter((s) => s && s.length > 0).join(', ');
  return (
    `${info.vendor || 'unknown vendor'} ${info.architecture || ''}`.trim() + (details ? ` (${details})` : '')
  );
}

function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}

/** Finds an adapter, or throws {@link WebGpuUnavailableError} saying why none was found. */
export async function findAdapter(
  powerPreference: GPUPowerPreference = 'high-performance',
): Promise<AdapterReport> {
  if (registeredFinder) return registeredFinder(powerPreference);
  if (typeof navigator === 'undefined' || !navigator.gpu) {
    throw new WebGpuUnavailableError(
      isNode()
        ? "this is Node, but Weft was loaded through its browser entry, which has no Dawn: import 'weft-sim' from Node unbundled (its 'node' export condition loads the 'webgpu' package), or pass a GPUDevice as `device`"
        : 'this browser has no navigator.gpu (WebGPU is off or unsupported)',
    );
  }
  const adapter = await navigator.gpu.requestAdapter({ powerPreference });
  if (!adapter) throw new WebGpuUnavailableError('navigator.gpu.requestAdapter() returned null');
  return { adapter, name: describeAdapterInfo(adapter.info), via: 'navigator.gpu' };
}

/** Whether `value` looks like a GPUDevice (what Weft calls on one is there). */
function isDevice(value: unknown): value is GPUDevice {
  const device = value as Partial<GPUDevice> | null;
  return typeof value === 'object' && value !== null && ['createBuffer', 'createComputePipeline', 'pushErrorScope'].every((m) => typeof device![m as keyof GPUDevice] === 'function') && typeof device!.queue === 'object'; // prettier-ignore
}

/** A device, and whether Weft owns it (and so may destroy it). */
export interface AcquiredDevice {
  readonly device: GPUDevice;
  readonly owned: boolean;
  readonly adapterName: string;
}

/**
 * Returns the caller's device (borrowed: never destroyed by Weft) or requests one from the best
 * adapter, asking for the adapter's largest storage-buffer sizes so that large cloths fit.
 */
export async function acquireDevice(borrowed?: GPUDevice): Promise<AcquiredDevice> {
  if (borrowed !== undefined && !isDevice(borrowed))
    throw new WeftInputError('device', `must be a GPUDevice, got ${describeValue(borrowed)}`);
  if (borrowed) {
    const info = (borrowed as { adapterInfo?: GPUAdapterInfo }).adapterInfo;
    return {
      device: borrowed,
      owned: false,
      adapterName: info ? describeAdapterInfo(info) : 'caller-provided GPUDevice',
    };
  }
  const { adapter, name } = await findAdapter();
  const device = await adapter.requestDevice({
    label: 'Weft',
    // Timestamps for the option `profile` (profiler.ts), where the adapter has them.
    requiredFeatures: adapter.features.has('timestamp-query') ? ['timestamp-query'] : [],
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
    },
  });
  return { device, owned: true, adapterName: name };
}

/**
 * Runs `make` with the caller's device (borrowed) or one Weft requests (owned); a device Weft
 * requested is destroyed again when `make` throws, so a failed creation leaks nothing.
 */
export async function withDevice<T extends { destroy(): void }>(
  borrowed: GPUDevice | undefined,
  make: (device: GPUDevice, owned: boolean, adapterName: string) => T | Promise<T>,
): Promise<T> {
  const acquired = await acquireDevice(borrowed);
  const { device } = acquired;
  // Set-up errors are thrown, never only printed: an out-of-memory or validation error while the
  // buffers, pipelines and the first submission are made fails the creation.
  device.pushErrorScope('validation');
  device.pushErrorScope('out-of-memory');
  let made: T | undefined;
  let thrown: { error: unknown } | null = null;
  try {
    made = await make(device, acquired.owned, acquired.adapterName);
  } catch (error) {
    thrown = { error };
  }
  const [memory, validation] = [await device.popErrorScope(), await device.popErrorScope()];
  const failure = memory ?? validation;
  if (failure || thrown) {
    made?.destroy();
    if (acquired.owned) device.destroy();
  }
  if (failure) throw new WeftError('gpu-setup', `WebGPU refused the simulation's set-up: ${failure.message}`);
  if (thrown) throw thrown.error;
  return made!;
}
