/**
 * WebGPU in Node: Dawn, through the optional peer dependency `webgpu`, on the platform's native
 * backend (Dawn's `backend=` flag), falling back on Vulkan to the SwiftShader driver that
 * Debian's chromium ships when no other adapter answers. Node only (node:fs, node:os,
 * node:path): imported by the Node entry (src/node.ts) and the CLI, never by the browser entry.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { WebGpuUnavailableError, WeftInputError } from '../../core/errors.ts';
import { describeAdapterInfo, type AdapterFinder } from './device.ts';

/** Where Debian's chromium package puts its SwiftShader Vulkan ICD. */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** The native backends of Dawn that Weft offers. */
export const DAWN_BACKENDS = ['vulkan', 'metal', 'd3d12'] as const;
export type DawnBackend = (typeof DAWN_BACKENDS)[number];

const BACKEND_TITLES: Record<DawnBackend, string> = { vulkan: 'Vulkan', metal: 'Metal', d3d12: 'D3D12' };

/** The backends Dawn's prebuilt `dawn.node` has on `platform`, the default first. */
export function platformDawnBackends(platform: string = process.platform): readonly DawnBackend[] {
  if (platform === 'darwin') return ['metal'];
  if (platform === 'win32') return ['d3d12', 'vulkan'];
  return ['vulkan'];
}

/** `name` as a backend Dawn has on `platform`; otherwise a {@link WeftInputError} naming `field`. */
export function checkDawnBackend(
  field: string,
  name: string,
  platform: string = process.platform,
): DawnBackend {
  if (!(DAWN_BACKENDS as readonly string[]).includes(name))
    throw new WeftInputError(field, `must be one of ${DAWN_BACKENDS.join(', ')}, got '${name}'`);
  const offered = platformDawnBackends(platform);
  if (!offered.includes(name as DawnBackend))
    throw new WeftInputError(
      field,
      `'${name}' is not available on ${platform}: Dawn runs ${offered.join(' or ')} there`,
    );
  return name as DawnBackend;
}

type DawnModule = { create: (flags: string[]) => GPU; globals: Record<string, unknown> };

async function loadDawn(): Promise<DawnModule> {
  // A name in a variable: a bundler that meets this module leaves the optional peer alone.
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

/** One private directory per user, reused by every process (nothing piles up in /tmp). */
function privateTempDirectory(): string {
  const directory = join(tmpdir(), `weft-xdg-${userInfo().uid}`);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  return directory;
}

/**
 * The Dawn instances made so far, by backend and VK_ICD_FILENAMES. One per setting for the whole
 * process: an instance must outlive every adapter and device made from it (a collected instance
 * takes its devices down with it, seen as crashes inside SwiftShader), and one made per call was
 * never freed (~1.7 MB each).
 */
const dawnInstances = new Map<string, GPU>();

function dawnInstance(dawn: DawnModule, backend: DawnBackend): GPU {
  const key = `${backend} ${process.env['VK_ICD_FILENAMES'] ?? ''}`;
  let instance = dawnInstances.get(key);
  if (!instance) dawnInstances.set(key, (instance = dawn.create([`backend=${backend}`])));
  return instance;
}

/** Why Vulkan found no adapter here, as hints with the command that fixes each. */
function vulkanHints(): string[] {
  const hints = [];
  if (
    !existsSync('/usr/lib/x86_64-linux-gnu/libvulkan.so.1') &&
    !existsSync('/usr/lib/aarch64-linux-gnu/libvulkan.so.1')
  ) {
    hints.push('the Vulkan loader libvulkan.so.1 is missing (apt-get install -y libvulkan1)');
  }
  if (!existsSync(SWIFTSHADER_ICD)) {
    hints.push(
      `no GPU driver answered and there is no software driver at ${SWIFTSHADER_ICD} (apt-get install -y chromium)`,
    );
  }
  return hints;
}

/**
 * A finder of Dawn adapters on `backend` (default: Metal on macOS, D3D12 on Windows, Vulkan
 * elsewhere); a backend this platform lacks is a {@link WeftInputError} naming `gpuBackend`.
 */
export function dawnAdapterFinder(backend: DawnBackend = platformDawnBackends()[0]!): AdapterFinder {
  checkDawnBackend('gpuBackend', backend);
  const title = BACKEND_TITLES[backend];
  return async (powerPreference) => {
    const dawn = await loadDawn();
    let via = `Node webgpu (Dawn), ${title}`;
    if (backend !== 'vulkan') {
      const adapter = await dawnInstance(dawn, backend).requestAdapter({ powerPreference });
      if (!adapter) throw new WebGpuUnavailableError(`Dawn found no ${title} adapter`);
      return { adapter, name: describeAdapterInfo(adapter.info), via };
    }
    // SwiftShader's Wayland probe complains on every start when XDG_RUNTIME_DIR is unset.
    if (!process.env['XDG_RUNTIME_DIR']) process.env['XDG_RUNTIME_DIR'] = privateTempDirectory();
    let adapter = await dawnInstance(dawn, backend).requestAdapter({ powerPreference });
    if (!adapter && !process.env['VK_ICD_FILENAMES'] && existsSync(SWIFTSHADER_ICD)) {
      process.env['VK_ICD_FILENAMES'] = SWIFTSHADER_ICD;
      adapter = await dawnInstance(dawn, backend).requestAdapter({ powerPreference });
    }
    if (process.env['VK_ICD_FILENAMES']) via += `, VK_ICD_FILENAMES=${process.env['VK_ICD_FILENAMES']}`;
    if (!adapter) {
      const hints = vulkanHints();
      throw new WebGpuUnavailableError(
        `Dawn found no Vulkan adapter${hints.length ? `: ${hints.join('; ')}` : ''}`,
      );
    }
    return { adapter, name: describeAdapterInfo(adapter.info), via };
  };
}
