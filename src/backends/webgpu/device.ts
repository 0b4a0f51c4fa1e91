/**
 * Finding a WebGPU adapter: `navigator.gpu` in a browser; in Node, Dawn through the `webgpu`
 * package, falling back to the SwiftShader Vulkan driver that Debian's chromium ships when no
 * other adapter answers.
 */

import { describeValue, WebGpuUnavailableError, WeftError, WeftInputError } from '../../core/errors.ts';
import type * as NodeFs from 'node:fs';
import type * as NodeOs from 'node:os';
import type * as NodePath from 'node:path';

/** Where Debian's chromium package puts its SwiftShader Vulkan ICD. */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export { WebGpuUnavailableError };

export interface AdapterReport {
  readonly adapter: GPUAdapter;
  /** e.g. "google swiftshader (SwiftShader Device (Subzero))". */
  readonly name: string;
  /** How it was found, e.g. "navigator.gpu" or "Node webgpu (Dawn), Vulkan, VK_ICD_FILENAMES=…". */
  readonly via: string;
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

/** Dawn instances made in this process, kept alive for as long as the process runs. */
/** The Dawn instances made so far, by the VK_ICD_FILENAMES they were made under. */
const dawnInstances = new Map<string, GPU>();

type DawnModule = { create: (flags: string[]) => GPU; globals: Record<string, unknown> };

async function loadDawn(): Promise<DawnModule> {
  const name = 'webgpu';
  try {
    const dawn = (await import(/* @vite-ignore */ name)) as DawnModule;
    // GPUBufferUsage, GPUShaderStage, … are globals in a browser; Dawn provides them.
    for (const [key, value] of Object.entries(dawn.globals)) {
      if (!(key in globalThis)) Object.assign(globalThis, { [key]: value });
    }
    return dawn;
  } catch (error) {
    throw new WebGpuUnavailableError(
      `the 'webgpu' package (Dawn for Node) could not be loaded: ${(error as Error).message}. It is an optional peer dependency, for Node only: npm install webgpu`,
    );
  }
}

async function fileExists(path: string): Promise<boolean> {
  const fs = 'node:fs';
  const { existsSync } = (await import(/* @vite-ignore */ fs)) as typeof NodeFs;
  return existsSync(path);
}

/** One private directory per user, reused by every process (nothing piles up in /tmp). */
async function privateTempDirectory(): Promise<string> {
  const [fs, os, path] = ['node:fs', 'node:os', 'node:path'];
  const { mkdirSync } = (await import(/* @vite-ignore */ fs)) as typeof NodeFs;
  const { tmpdir, userInfo } = (await import(/* @vite-ignore */ os)) as typeof NodeOs;
  const { join } = (await import(/* @vite-ignore */ path)) as typeof NodePath;
  const directory = join(tmpdir(), `weft-xdg-${userInfo().uid}`);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  return directory;
}

/** Finds an adapter, or throws {@link WebGpuUnavailableError} saying why none was found. */
export async function findAdapter(
  powerPreference: GPUPowerPreference = 'high-performance',
): Promise<AdapterReport> {
  if (!isNode()) {
    if (typeof navigator === 'undefined' || !navigator.gpu) {
      throw new WebGpuUnavailableError('this browser has no navigator.gpu (WebGPU is off or unsupported)');
    }
    const adapter = await navigator.gpu.requestAdapter({ powerPreference });
    if (!adapter) throw new WebGpuUnavailableError('navigator.gpu.requestAdapter() returned null');
    return { adapter, name: describeAdapterInfo(adapter.info), via: 'navigator.gpu' };
  }
  const dawn = await loadDawn();
  // SwiftShader's Wayland probe complains on every start when XDG_RUNTIME_DIR is unset.
  if (!process.env['XDG_RUNTIME_DIR']) process.env['XDG_RUNTIME_DIR'] = await privateTempDirectory();
  const tryVulkan = async (): Promise<GPUAdapter | null> => {
    // One Dawn instance per Vulkan driver setting for the whole process: it must outlive every
    // adapter and device made from it (a collected instance takes its devices down with it, seen
    // as crashes inside SwiftShader), and one made per call was never freed (~1.7 MB each).
    const key = process.env['VK_ICD_FILENAMES'] ?? '';
    let instance = dawnInstances.get(key);
    if (!instance) dawnInstances.set(key, (instance = dawn.create(['backend=vulkan'])));
    return instance.requestAdapter({ powerPreference });
  };
  let adapter = await tryVulkan();
  let via = 'Node webgpu (Dawn), Vulkan';
  if (!adapter && !process.env['VK_ICD_FILENAMES'] && (await fileExists(SWIFTSHADER_ICD))) {
    process.env['VK_ICD_FILENAMES'] = SWIFTSHADER_ICD;
    adapter = await tryVulkan();
  }
  if (process.env['VK_ICD_FILENAMES']) via += `, VK_ICD_FILENAMES=${process.env['VK_ICD_FILENAMES']}`;
  if (!adapter) {
    const hints = [];
    if (
      !(await fileExists('/usr/lib/x86_64-linux-gnu/libvulkan.so.1')) &&
      !(await fileExists('/usr/lib/aarch64-linux-gnu/libvulkan.so.1'))
    ) {
      hints.push('the Vulkan loader libvulkan.so.1 is missing (apt-get install -y libvulkan1)');
    }
    if (!(await fileExists(SWIFTSHADER_ICD))) {
      hints.push(
        `no GPU driver answered and there is no software driver at ${SWIFTSHADER_ICD} (apt-get install -y chromium)`,
      );
    }
    throw new WebGpuUnavailableError(
      `Dawn found no Vulkan adapter${hints.length ? `: ${hints.join('; ')}` : ''}`,
    );
  }
  return { adapter, name: describeAdapterInfo(adapter.info), via };
}

/** A device, and whether Weft owns it (and so may destroy it). */
/** Whether `value` looks like a GPUDevice (what Weft calls on one is there). */
function isDevice(value: unknown): value is GPUDevice {
  const device = value as Partial<GPUDevice> | null;
  return typeof value === 'object' && value !== null && ['createBuffer', 'createComputePipeline', 'pushErrorScope'].every((m) => typeof device![m as keyof GPUDevice] === 'function') && typeof device!.queue === 'object'; // prettier-ignore
}

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
