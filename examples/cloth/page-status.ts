/**
 * What an example page shows when it cannot run (no WebGPU, a GPU error, a diverged simulation),
 * and the hooks test/examples.test.ts polls through `window.__weft`.
 */

/** `window.__weft`: the page's progress, for tests (and the curious, in the console). */
export interface WeftPageHooks {
  /** Frames drawn and submitted. */
  frames: number;
  /** GPU validation and out-of-memory errors, uncaptured errors, device loss, exceptions. */
  errors: string[];
  /** True once the first frame has been submitted. */
  ready: boolean;
  /** Simulated time, s. */
  time: number;
  /** The notice the page shows, or null: e.g. no WebGPU, or the simulation diverged. */
  notice: string | null;
  /** The cloth demo's mouse drag (examples/cloth/drag.ts): the particle held, its target and last read position. */
  drag?: {
    particle: number | null;
    target: [number, number, number] | null;
    position: [number, number, number] | null;
    screenOf(i: number): [number, number] | null;
  };
  /** The pixels of the next frame drawn (the canvas copied into a 2-D canvas right after its submit). */
  capture(): Promise<ImageData>;
}

declare global {
  interface Window {
    __weft?: WeftPageHooks;
  }
}

export class PageStatus {
  readonly hooks: WeftPageHooks;
  private readonly captures: ((image: ImageData) => void)[] = [];

  /** `noticeElement` shows {@link notify}'s text; it is hidden while there is none. */
  constructor(private readonly noticeElement: HTMLElement) {
    this.hooks = {
      frames: 0,
      errors: [],
      ready: false,
      time: 0,
      notice: null,
      capture: () => new Promise((resolve) => this.captures.push(resolve)),
    };
    window.__weft = this.hooks;
    noticeElement.hidden = true;
  }

  /** Shows `text` over the page (null hides it). */
  notify(text: string | null): void {
    this.hooks.notice = text;
    this.noticeElement.textContent = text ?? '';
    this.noticeElement.hidden = text === null;
  }

  /** Records an error for the tests and shows it. */
  error(text: string): void {
    this.hooks.errors.push(text);
    console.error(text);
    this.notify(text);
  }

  /** Reports uncaptured GPU errors and the loss of `device` (unless the page destroyed it). */
  watch(device: GPUDevice): void {
    device.addEventListener('uncapturederror', (event) => {
      this.error(`WebGPU error: ${(event as GPUUncapturedErrorEvent).error.message}`);
    });
    void device.lost.then((info) => {
      if (info.reason !== 'destroyed') this.error(`The GPU device was lost: ${info.message}`);
    });
  }

  /**
   * Runs `setup` inside validation and out-of-memory error scopes and reports what they caught,
   * so a mistake in the setup is named at once instead of surfacing as a blank canvas.
   */
  async scoped<T>(device: GPUDevice, what: string, setup: () => Promise<T> | T): Promise<T> {
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    try {
      return await setup();
    } finally {
      const outOfMemory = await device.popErrorScope();
      const validation = await device.popErrorScope();
      for (const error of [validation, outOfMemory]) {
        if (error) this.error(`WebGPU error in ${what}: ${error.message}`);
      }
    }
  }

  /** Call right after submitting a frame that drew into `canvas` (in the same task). */
  frameSubmitted(canvas: HTMLCanvasElement): void {
    this.hooks.frames++;
    this.hooks.ready = true;
    if (this.captures.length === 0) return;
    // Within the task that rendered it, the canvas still holds this frame's texture.
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const context = copy.getContext('2d', { willReadFrequently: true })!;
    context.drawImage(canvas, 0, 0);
    const image = context.getImageData(0, 0, copy.width, copy.height);
    for (const resolve of this.captures.splice(0)) resolve(image);
  }
}

/**
 * An adapter's device with `requiredLimits`, or why this browser cannot run the examples, in words
 * a reader can act on.
 */
export async function requestDevice(
  requiredLimits: (adapter: GPUAdapter) => Record<string, number> = () => ({}),
): Promise<{ device: GPUDevice } | { problem: string }> {
  if (!('gpu' in navigator) || !navigator.gpu) {
    return {
      problem:
        'This browser has no WebGPU (navigator.gpu is missing). Use a recent Chrome, Edge or Safari ' +
        '(Firefox: 141 or later on Windows), over https:// or http://localhost; in Chromium on ' +
        'Linux, start it with --enable-unsafe-webgpu --enable-features=Vulkan.',
    };
  }
  const adapter = await navigator.gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) {
    return {
      problem:
        'WebGPU is present but found no adapter (navigator.gpu.requestAdapter() returned null): the ' +
        'GPU or its driver may be blocklisted. Check chrome://gpu.',
    };
  }
  const device = await adapter.requestDevice({
    label: 'weft-example',
    requiredLimits: requiredLimits(adapter),
  });
  return { device };
}
