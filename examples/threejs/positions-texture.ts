/**
 * The bridge between the two libraries: Weft's position buffer as a texture three.js can read.
 *
 * three.js r187 has no public way to draw from a GPUBuffer it did not create (a BufferAttribute's
 * or StorageBufferAttribute's GPUBuffer is made and held inside its backend), nor to hand out the
 * GPUBuffer it made for an attribute (only `renderer.backend.get(attribute).buffer`, undocumented
 * internal data). It does have a public way to use a GPUTexture it did not create: `ExternalTexture`. So the app makes an rgba32float texture on the shared device and,
 * each frame, copies Weft's positions into it on the GPU (`copyBufferToTexture`: n × 16 bytes,
 * 16 KiB for a 32² cloth, nothing read back to the CPU); the cloth's vertex shader loads particle
 * k's position from texel (k mod 64, ⌊k / 64⌋).
 */
import { ExternalTexture, FloatType, NearestFilter, RGBAFormat } from 'three/webgpu';

/** Texels per row: 64 vec4<f32> are 1024 bytes, a multiple of the 256 bytes a buffer-to-texture copy needs per row. */
export const ROW_TEXELS = 64;
const TEXEL_BYTES = 16;

export class PositionsTexture {
  /** What three.js samples (TSL `textureLoad(texture, ivec2(k % 64, k / 64))`). */
  readonly texture: ExternalTexture;
  private readonly gpuTexture: GPUTexture;
  private readonly fullRows: number;

  /** `positions`: Weft's buffer of `count` vec4<f32> (GpuSimulation.positions), with COPY_SRC usage. */
  constructor(
    private readonly device: GPUDevice,
    private readonly positions: GPUBuffer,
    private readonly count: number,
  ) {
    this.fullRows = Math.floor(count / ROW_TEXELS);
    const width = Math.min(count, ROW_TEXELS);
    const height = Math.ceil(count / ROW_TEXELS);
    this.gpuTexture = device.createTexture({
      label: 'three-example.positions',
      size: [width, height],
      format: 'rgba32float',
      // COPY_SRC for read() only.
      usage: GPUTextureUsage.COPY_DST | GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_SRC,
    });
    this.texture = new ExternalTexture(this.gpuTexture);
    // What three.js needs to bind it: 32-bit floats (an unfilterable-float binding where the
    // device lacks float32-filterable), loaded texel by texel, no mipmaps.
    this.texture.type = FloatType;
    this.texture.format = RGBAFormat;
    this.texture.minFilter = NearestFilter;
    this.texture.magFilter = NearestFilter;
    this.texture.generateMipmaps = false;
    // three.js reads an external texture's size from `image`; @types/three types it as null.
    (this.texture as unknown as { image: { width: number; height: number } }).image = { width, height };
  }

  /** Encodes the copy of the current positions into the texture (after the steps, before the draw). */
  encodeCopy(encoder: GPUCommandEncoder): void {
    const bytesPerRow = ROW_TEXELS * TEXEL_BYTES;
    if (this.fullRows > 0) {
      encoder.copyBufferToTexture({ buffer: this.positions, bytesPerRow }, { texture: this.gpuTexture }, [
        ROW_TEXELS,
        this.fullRows,
      ]);
    }
    const rest = this.count - this.fullRows * ROW_TEXELS;
    if (rest > 0) {
      encoder.copyBufferToTexture(
        { buffer: this.positions, offset: this.fullRows * bytesPerRow },
        { texture: this.gpuTexture, origin: [0, this.fullRows] },
        [rest, 1],
      );
    }
  }

  /** The texture's positions, xyz per particle, read back once (for the test: what three.js reads). */
  async read(): Promise<Float32Array> {
    const [width, height] = [this.gpuTexture.width, this.gpuTexture.height];
    const bytesPerRow = ROW_TEXELS * TEXEL_BYTES;
    const staging = this.device.createBuffer({
      size: bytesPerRow * height,
      usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ,
    });
    const encoder = this.device.createCommandEncoder();
    encoder.copyTextureToBuffer({ texture: this.gpuTexture }, { buffer: staging, bytesPerRow }, [
      width,
      height,
    ]);
    this.device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const texels = new Float32Array(staging.getMappedRange());
    const xyz = new Float32Array(3 * this.count);
    for (let k = 0; k < this.count; k++) xyz.set(texels.subarray(4 * k, 4 * k + 3), 3 * k);
    staging.destroy();
    return xyz;
  }

  destroy(): void {
    this.texture.dispose();
    this.gpuTexture.destroy();
  }
}
