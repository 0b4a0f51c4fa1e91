/**
 * Draws Weft's capsule and sphere colliders (examples/cloth/world.ts) into the renderer's pass:
 * one instanced unit sphere (colliders.wgsl stretches it into each capsule). The instances are
 * rewritten each frame, as the character moves.
 */
import code from './colliders.wgsl?raw';
import { UniformStruct } from './uniform-layout.ts';

/**
 * A latitude–longitude unit sphere whose equator is two rows of vertices, the upper at y = 0 (drawn
 * at end b) and the lower just below (end a): the band between them becomes a capsule's cylinder.
 */
function unitSphere(half = 6, columns = 24): { vertices: Float32Array<ArrayBuffer>; indices: Uint32Array<ArrayBuffer> } {
  const rows: [number, number][] = []; // (sin θ, y) of each row, top to bottom
  for (let r = 0; r <= half; r++) rows.push([Math.sin((Math.PI / 2) * (r / half)), Math.cos((Math.PI / 2) * (r / half))]);
  for (let r = 0; r <= half; r++) rows.push([Math.cos((Math.PI / 2) * (r / half)), r === 0 ? -1e-6 : -Math.sin((Math.PI / 2) * (r / half))]);
  const vertices: number[] = [];
  for (const [s, y] of rows)
    for (let c = 0; c <= columns; c++) vertices.push(s * Math.cos((2 * Math.PI * c) / columns), y, s * Math.sin((2 * Math.PI * c) / columns));
  const indices: number[] = [];
  for (let r = 0; r + 1 < rows.length; r++)
    for (let c = 0; c < columns; c++) {
      const [p, q] = [r * (columns + 1) + c, (r + 1) * (columns + 1) + c];
      indices.push(p, q, p + 1, p + 1, q, q + 1);
    }
  return { vertices: Float32Array.from(vertices), indices: Uint32Array.from(indices) };
} // prettier-ignore

/** A capsule from a to b of `radius` (a sphere when a = b), m. */
export interface DrawnCollider {
  a: readonly [number, number, number];
  b: readonly [number, number, number];
  radius: number;
}

/** Draws capsules and spheres (Weft's colliders) into a pass of the renderer's targets. */
export class ColliderView {
  private readonly pipeline: GPURenderPipeline;
  private readonly struct = new UniformStruct(code, 'View');
  private readonly uniform: GPUBuffer;
  private readonly bindGroup: GPUBindGroup;
  private readonly vertices: GPUBuffer;
  private readonly indices: GPUBuffer;
  private readonly indexCount: number;
  private instances: GPUBuffer | null = null;
  private count = 0;

  constructor(
    private readonly device: GPUDevice,
    format: GPUTextureFormat,
    depthFormat: GPUTextureFormat,
    samples: number,
  ) {
    const module = device.createShaderModule({ label: 'ColliderView', code });
    this.pipeline = device.createRenderPipeline({
      label: 'ColliderView.pipeline',
      layout: 'auto',
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: depthFormat, depthWriteEnabled: true, depthCompare: 'less' },
      multisample: { count: samples },
      vertex: {
        module,
        entryPoint: 'capsuleVertex',
        buffers: [
          { arrayStride: 12, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x3' }] },
          {
            arrayStride: 32,
            stepMode: 'instance',
            attributes: [
              { shaderLocation: 1, offset: 0, format: 'float32x4' },
              { shaderLocation: 2, offset: 16, format: 'float32x4' },
            ],
          },
        ],
      },
      fragment: { module, entryPoint: 'capsuleFragment', targets: [{ format }] },
    });
    this.uniform = device.createBuffer({ label: 'ColliderView.view', size: this.struct.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST }); // prettier-ignore
    this.bindGroup = device.createBindGroup({ label: 'ColliderView.bindGroup', layout: this.pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: this.uniform } }] }); // prettier-ignore
    const sphere = unitSphere();
    this.vertices = device.createBuffer({ label: 'ColliderView.vertices', size: sphere.vertices.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST }); // prettier-ignore
    device.queue.writeBuffer(this.vertices, 0, sphere.vertices);
    this.indices = device.createBuffer({ label: 'ColliderView.indices', size: sphere.indices.byteLength, usage: GPUBufferUsage.INDEX | GPUBufferUsage.COPY_DST }); // prettier-ignore
    device.queue.writeBuffer(this.indices, 0, sphere.indices);
    this.indexCount = sphere.indices.length;
  }

  /** The colliders to draw and the camera of this frame (queued writes). */
  update(colliders: readonly DrawnCollider[], view: { viewProjection: ArrayLike<number>; eye: ArrayLike<number>; lightDirection: ArrayLike<number> }): void {
    this.device.queue.writeBuffer(this.uniform, 0, this.struct.write(view));
    this.count = colliders.length;
    if (this.count === 0) return;
    const data = new Float32Array(8 * this.count);
    colliders.forEach((c, k) => data.set([...c.a, c.radius, ...c.b, 0], 8 * k));
    if (!this.instances || this.instances.size < data.byteLength) {
      this.instances?.destroy();
      this.instances = this.device.createBuffer({ label: 'ColliderView.instances', size: data.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST }); // prettier-ignore
    }
    this.device.queue.writeBuffer(this.instances, 0, data);
  } // prettier-ignore

  /** Draws them into a pass of the renderer's targets. */
  draw(pass: GPURenderPassEncoder): void {
    if (this.count === 0 || !this.instances) return;
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.bindGroup);
    pass.setVertexBuffer(0, this.vertices);
    pass.setVertexBuffer(1, this.instances);
    pass.setIndexBuffer(this.indices, 'uint32');
    pass.drawIndexed(this.indexCount, this.count);
  }

  destroy(): void {
    for (const buffer of [this.uniform, this.vertices, this.indices, this.instances]) buffer?.destroy();
  }
}
