import { describeAdapterInfo } from '../../src/internal.ts';

/** An adapter from navigator.gpu and a device of its own; throws, loudly, when there is none. */
export async function requestDevice(label: string): Promise<{ adapter: string; device: GPUDevice }> {
  if (!navigator.gpu) {
    throw new Error(
      'navigator.gpu is missing: this Chromium has WebGPU off (launch flags: --enable-unsafe-webgpu, ' +
        '--use-webgpu-adapter=swiftshader; the page must be a secure context such as http://127.0.0.1)',
    );
  }
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) {
    throw new Error(
      'navigator.gpu.requestAdapter() returned null: no WebGPU adapter (SwiftShader expected here)',
    );
  }
  const device = await adapter.requestDevice({ label });
  return { adapter: describeAdapterInfo(adapter.info), device };
}
