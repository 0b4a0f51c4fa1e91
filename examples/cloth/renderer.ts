/**
 * Draws the cloth from the solver's position buffer: a compute pass that writes per-vertex normals
 * (normals.wgsl), then one render pass with the floor, the sphere and the cloth as indexed
 * triangles whose vertex buffer 0 *is* the simulation's `positions` (no copy, no readback).
 */
import normalsCode from './normals.wgsl?raw';
import renderCode from './render.wgsl?raw';
import type { Mat4 } from './camera.ts';
import { UniformStruct } from './uniform-layout.ts';

/** The clear colour, display-encoded; render.wgsl's BACKGROUND is the same. */
const BACKGROUND = { r: 0.075, g: 0.085, b: 0.105, a: 1 };
const SAMPLES = 4;
const DEPTH_FORMAT = 'depth24plus';
const NORMALS_WORKGROUP = 64;

/** Flags of the health word that normals.wgsl raises. */
export const HEALTH = { notFinite: 1, blownUp: 2 } as const;

export interface View {
  viewProjection: Mat4;
  eye: readonly [number, number, number];
  /** Unit vector towards the light. */
  lightDirection: readonly [number, number, number];
  /** The sphere as drawn, or null. */
  sphere: { center: readonly [number, number, number]; radius: number } | null;
  /** False hides the cloth (after a divergence). */
  showCloth: boolean;
}

/** What belongs to one cloth (recreated when the simulation is). */
interface ClothResources {
  width: number;
  height: number;
  positions: GPUBuffer;
  normals: GPUBuffer;
  health: GPUBuffer;
  healthReadback: GPUBuffer;
  gridUniform: GPUBuffer;
  normalsBindGroup: GPUBindGroup;
  renderBindGroup: GPUBindGroup;
}

export class ClothRenderer {
  private readonly frameStruct = new UniformStruct(renderCode, 'Frame');
  private readonly gridStruct = new UniformStruct(normalsCode, 'Grid');
  private readonly frameUniform: GPUBuffer;
  private readonly bindGroupLayout: GPUBindGroupLayout;
  private readonly clothPipeline: GPURenderPipeline;
  private readonly scenePipeline: GPURenderPipeline;
  private readonly normalsPipeline: GPUComputePipeline;
  private readonly sceneVertices: GPUBuffer;
  private readonly sceneIndices: GPUBuffer;
  private readonly sceneIndexCount: number;
  /** Triangle indices of the grid, kept while the grid's size stays. */
  private gridIndices: { width: number; height: number; buffer: GPUBuffer; count: number } | null = null;
  private cloth: ClothResources | null = null;
  private targets: { width: number; height: number; color: GPUTexture; depth: GPUTexture } | null = null;

  constructor(
    private readonly device: GPUDevice,
    private readonly format: GPUTextureFormat,
  ) {
    this.frameUniform = device.createBuffer({
      label: 'ClothRenderer.frameUniform',
      size: this.frameStruct.size,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.bindGroupLayout = device.createBindGroupLayout({
      label: 'ClothRenderer.bindGroupLayout',
      entries: [
        {
          binding: 0,
          visibility: GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT,
          buffer: { type: 'uniform' },
        },
        { binding: 1, visibility: GPUShaderStage.VERTEX, buffer: { type: 'read-only-storage' } },
      ],
    });
    const layout = device.createPipelineLayout({
      label: 'ClothRenderer.pipelineLayout',
      bindGroupLayouts: [this.bindGroupLayout],
    });
    const module = device.createShaderModule({ label: 'ClothRenderer.render', code: renderCode });
    const common = {
      layout,
      primitive: { topology: 'triangle-list', cullMode: 'none' },
      depthStencil: { format: DEPTH_FORMAT, depthWriteEnabled: true, depthCompare: 'less' },
      multisample: { count: SAMPLES },
    } as const;
    this.clothPipeline = device.createRenderPipeline({
      label: 'ClothRenderer.clothPipeline',
      ...common,
      vertex: {
        module,
        entryPoint: 'clothVertex',
        buffers: [
          // The simulation's positions: vec4<f32> per particle (xyz, w = 1).
          { arrayStride: 16, attributes: [{ shaderLocation: 0, offset: 0, format: 'float32x4' }] },
          // Our normals: vec4<f32> per particle.
          { arrayStride: 16, attributes: [{ shaderLocation: 1, offset: 0, format: 'float32x4' }] },
        ],
      },
      fragment: { module, entryPoint: 'clothFragment', targets: [{ format }] },
    });
    this.scenePipeline = device.createRenderPipeline({
      label: 'ClothRenderer.scenePipeline',
      ...common,
      vertex: {
        module,
        entryPoint: 'sceneVertex',
        buffers: [
          {
            arrayStride: 28,
            attributes: [
              { shaderLocation: 0, offset: 0, format: 'float32x3' },
              { shaderLocation: 1, offset: 12, format: 'float32x3' },
              { shaderLocation: 2, offset: 24, format: 'uint32' },
            ],
          },
        ],
      },
      fragment: { module, entryPoint: 'sceneFragment', targets: [{ format }] },
    });
    this.normalsPipeline = device.createComputePipeline({
      label: 'ClothRenderer.normalsPipeline',
      layout: 'auto',
      compute: {
        module: device.createShaderModule({ label: 'ClothRenderer.normals', code: normalsCode }),
        entryPoint: 'normalsMain',
        constants: { workgroupSize: NORMALS_WORKGROUP },
      },
    });

    const scene = sceneMesh();
    this.sceneVertices = device.createBuffer({
      label: 'ClothRenderer.sceneVertices',
      size: scene.vertices.byteLength,
      usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(this.sceneVertices, 0, scene.vertices);
    this.sceneIndices = device.createBuffer({
      label: 'ClothRenderer.sceneIndices',
      size: scene.indices.byteLength,
      usage: GPUBufferUsage.INDEX | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(this.sceneIndices, 0, scene.indices);
    this.sceneIndexCount = scene.indices.length;
  }

  /** Per-vertex normals, vec4<f32> per particle, written by {@link encodeNormals}. */
  get normals(): GPUBuffer | null {
    return this.cloth?.normals ?? null;
  }

  /**
   * Draws the cloth of `positions` (a simulation's vec4<f32> STORAGE | VERTEX buffer of a
   * width × height grid, particle (i, j) at j·width + i) from now on. A particle beyond `bound`
   * (m) from the origin, or an edge longer than `maxEdge` (m), counts as blown up.
   */
  setCloth(
    positions: GPUBuffer,
    grid: { width: number; height: number; bound: number; maxEdge: number },
  ): void {
    const { width, height } = grid;
    this.releaseCloth();
    const device = this.device;
    const count = width * height;
    if (this.gridIndices?.width !== width || this.gridIndices.height !== height) {
      this.gridIndices?.buffer.destroy();
      const indices = gridTriangles(width, height);
      const buffer = device.createBuffer({
        label: 'ClothRenderer.gridIndices',
        size: indices.byteLength,
        usage: GPUBufferUsage.INDEX | GPUBufferUsage.COPY_DST,
      });
      device.queue.writeBuffer(buffer, 0, indices);
      this.gridIndices = { width, height, buffer, count: indices.length };
    }
    const normals = device.createBuffer({
      label: 'ClothRenderer.normals',
      size: 16 * count,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.VERTEX,
    });
    const health = device.createBuffer({
      label: 'ClothRenderer.health',
      size: 16,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
    });
    const healthReadback = device.createBuffer({
      label: 'ClothRenderer.healthReadback',
      size: 16,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const gridUniform = device.createBuffer({
      label: 'ClothRenderer.gridUniform',
      size: this.gridStruct.size,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(gridUniform, 0, this.gridStruct.write(grid));
    const normalsBindGroup = device.createBindGroup({
      label: 'ClothRenderer.normalsBindGroup',
      layout: this.normalsPipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: gridUniform } },
        { binding: 1, resource: { buffer: positions } },
        { binding: 2, resource: { buffer: normals } },
        { binding: 3, resource: { buffer: health } },
      ],
    });
    const renderBindGroup = device.createBindGroup({
      label: 'ClothRenderer.renderBindGroup',
      layout: this.bindGroupLayout,
      entries: [
        { binding: 0, resource: { buffer: this.frameUniform } },
        { binding: 1, resource: { buffer: health } },
      ],
    });
    this.cloth = {
      width,
      height,
      positions,
      normals,
      health,
      healthReadback,
      gridUniform,
      normalsBindGroup,
      renderBindGroup,
    };
  }

  /** Computes the normals of the cloth's current positions (call after the frame's steps). */
  encodeNormals(encoder: GPUCommandEncoder): void {
    const cloth = this.cloth;
    if (!cloth) return;
    const pass = encoder.beginComputePass({ label: 'ClothRenderer.normals' });
    pass.setPipeline(this.normalsPipeline);
    pass.setBindGroup(0, cloth.normalsBindGroup);
    pass.dispatchWorkgroups(Math.ceil((cloth.width * cloth.height) / NORMALS_WORKGROUP));
    pass.end();
  }

  /**
   * The health flags ({@link HEALTH}) raised since the cloth was set: 4 bytes read back. Call it
   * now and then, not every frame, and one at a time.
   */
  async readHealth(): Promise<number> {
    const cloth = this.cloth;
    if (!cloth) return 0;
    const encoder = this.device.createCommandEncoder({ label: 'ClothRenderer.readHealth' });
    encoder.copyBufferToBuffer(cloth.health, 0, cloth.healthReadback, 0, 4);
    this.device.queue.submit([encoder.finish()]);
    await cloth.healthReadback.mapAsync(GPUMapMode.READ, 0, 4);
    const flags = new Uint32Array(cloth.healthReadback.getMappedRange(0, 4))[0]!;
    cloth.healthReadback.unmap();
    return flags;
  }

  /** Renders the scene into `target` (the canvas's current texture). */
  render(encoder: GPUCommandEncoder, target: GPUTexture, view: View): void {
    const cloth = this.cloth;
    if (!cloth) return;
    const { color, depth } = this.renderTargets(target);
    this.device.queue.writeBuffer(
      this.frameUniform,
      0,
      this.frameStruct.write({
        viewProjection: view.viewProjection,
        eye: view.eye,
        gridWidth: cloth.width,
        lightDirection: view.lightDirection,
        gridHeight: cloth.height,
        sphereCenter: view.sphere?.center ?? [0, 0, 0],
        sphereRadius: view.sphere?.radius ?? 0,
      }),
    );
    const pass = encoder.beginRenderPass({
      label: 'ClothRenderer.render',
      colorAttachments: [
        {
          view: color.createView(),
          resolveTarget: target.createView(),
          clearValue: BACKGROUND,
          loadOp: 'clear',
          storeOp: 'discard',
        },
      ],
      depthStencilAttachment: {
        view: depth.createView(),
        depthClearValue: 1,
        depthLoadOp: 'clear',
        depthStoreOp: 'discard',
      },
    });
    pass.setBindGroup(0, cloth.renderBindGroup);
    pass.setPipeline(this.scenePipeline);
    pass.setVertexBuffer(0, this.sceneVertices);
    pass.setIndexBuffer(this.sceneIndices, 'uint32');
    pass.drawIndexed(this.sceneIndexCount);
    if (view.showCloth && this.gridIndices) {
      pass.setPipeline(this.clothPipeline);
      pass.setVertexBuffer(0, cloth.positions);
      pass.setVertexBuffer(1, cloth.normals);
      pass.setIndexBuffer(this.gridIndices.buffer, 'uint32');
      pass.drawIndexed(this.gridIndices.count);
    }
    pass.end();
  }

  destroy(): void {
    this.releaseCloth();
    this.gridIndices?.buffer.destroy();
    this.targets?.color.destroy();
    this.targets?.depth.destroy();
    for (const buffer of [this.frameUniform, this.sceneVertices, this.sceneIndices]) buffer.destroy();
  }

  private releaseCloth(): void {
    if (!this.cloth) return;
    const { normals, health, healthReadback, gridUniform } = this.cloth;
    for (const buffer of [normals, health, healthReadback, gridUniform]) buffer.destroy();
    this.cloth = null;
  }

  /** The multisampled colour and depth textures, remade when the canvas changes size. */
  private renderTargets(target: GPUTexture): { color: GPUTexture; depth: GPUTexture } {
    const { width, height } = target;
    if (this.targets?.width === width && this.targets.height === height) return this.targets;
    this.targets?.color.destroy();
    this.targets?.depth.destroy();
    const texture = (label: string, format: GPUTextureFormat): GPUTexture =>
      this.device.createTexture({
        label: `ClothRenderer.${label}`,
        size: [width, height],
        format,
        sampleCount: SAMPLES,
        usage: GPUTextureUsage.RENDER_ATTACHMENT,
      });
    this.targets = {
      width,
      height,
      color: texture('color', this.format),
      depth: texture('depth', DEPTH_FORMAT),
    };
    return this.targets;
  }
}

/** Two triangles per grid cell, particle (i, j) at j·width + i. */
export function gridTriangles(width: number, height: number): Uint32Array<ArrayBuffer> {
  const indices = new Uint32Array(6 * (width - 1) * (height - 1));
  let k = 0;
  for (let j = 0; j + 1 < height; j++)
    for (let i = 0; i + 1 < width; i++) {
      const a = j * width + i;
      const b = a + 1;
      const c = a + width;
      const d = c + 1;
      // Alternate the diagonal, so the folds have no preferred direction.
      if ((i + j) % 2 === 0) indices.set([a, b, d, a, d, c], k);
      else indices.set([a, b, c, b, d, c], k);
      k += 6;
    }
  return indices;
}

/** The floor (a 24 m square at y = 0, kind 0) and a unit UV sphere (kind 1): position, normal, kind. */
function sceneMesh(): { vertices: ArrayBuffer; indices: Uint32Array<ArrayBuffer> } {
  const vertices: [number, number, number, number, number, number, number][] = [];
  const indices: number[] = [];
  const half = 12;
  for (const [x, z] of [
    [-half, -half],
    [half, -half],
    [half, half],
    [-half, half],
  ] as const)
    vertices.push([x, 0, z, 0, 1, 0, 0]);
  indices.push(0, 2, 1, 0, 3, 2);
  const [rings, segments] = [32, 64];
  const first = vertices.length;
  for (let r = 0; r <= rings; r++) {
    const theta = (Math.PI * r) / rings;
    for (let s = 0; s <= segments; s++) {
      const phi = (2 * Math.PI * s) / segments;
      const n = [Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)] as const;
      vertices.push([n[0], n[1], n[2], n[0], n[1], n[2], 1]);
    }
  }
  for (let r = 0; r < rings; r++)
    for (let s = 0; s < segments; s++) {
      const a = first + r * (segments + 1) + s;
      const b = a + segments + 1;
      indices.push(a, b, a + 1, a + 1, b, b + 1);
    }
  const bytes = new ArrayBuffer(28 * vertices.length);
  const view = new DataView(bytes);
  vertices.forEach((vertex, v) => {
    for (let c = 0; c < 6; c++) view.setFloat32(28 * v + 4 * c, vertex[c]!, true);
    view.setUint32(28 * v + 24, vertex[6]!, true);
  });
  return { vertices: bytes, indices: Uint32Array.from(indices) };
}
