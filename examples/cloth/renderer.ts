/**
 * Draws the cloth — a builder's grid or any triangle mesh — from the solver's position buffer: a
 * compute pass that writes per-vertex normals (normals.wgsl), then one render pass with the floor,
 * the sphere and the cloth as indexed triangles whose vertex buffer 0 *is* the simulation's
 * `positions` (no copy, no readback).
 */
import normalsCode from './normals.wgsl?raw';
import renderCode from './render.wgsl?raw';
import type { Mat4 } from './camera.ts';
import { sceneMesh, type ClothMesh } from './cloth-mesh.ts';
import { UniformStruct } from './uniform-layout.ts';

/** The clear colour, display-encoded; render.wgsl's BACKGROUND is the same. */
const BACKGROUND = { r: 0.075, g: 0.085, b: 0.105, a: 1 };
export const SAMPLES = 4;
export const DEPTH_FORMAT = 'depth24plus';
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
  vertexCount: number;
  positions: GPUBuffer;
  normals: GPUBuffer;
  health: GPUBuffer;
  healthReadback: GPUBuffer;
  meshUniform: GPUBuffer;
  normalsBindGroup: GPUBindGroup;
  renderBindGroup: GPUBindGroup;
}

/** A mesh's buffers, kept while the same mesh is drawn. */
interface MeshBuffers {
  mesh: ClothMesh;
  /** The triangles: the index buffer, and read by normals.wgsl. */
  triangles: GPUBuffer;
  pattern: GPUBuffer;
  vertexOffsets: GPUBuffer;
  vertexTriangles: GPUBuffer;
}

export class ClothRenderer {
  private readonly frameStruct = new UniformStruct(renderCode, 'Frame');
  private readonly meshStruct = new UniformStruct(normalsCode, 'Mesh');
  private readonly frameUniform: GPUBuffer;
  private readonly bindGroupLayout: GPUBindGroupLayout;
  private readonly clothPipeline: GPURenderPipeline;
  private readonly scenePipeline: GPURenderPipeline;
  private readonly normalsPipeline: GPUComputePipeline;
  private readonly sceneVertices: GPUBuffer;
  private readonly sceneIndices: GPUBuffer;
  private readonly sceneIndexCount: number;
  /** The buffers of the mesh drawn, kept while it stays. */
  private meshBuffers: MeshBuffers | null = null;
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
          // The pattern's coordinates: vec3<f32> per particle.
          { arrayStride: 12, attributes: [{ shaderLocation: 2, offset: 0, format: 'float32x3' }] },
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
   * Draws the cloth of `positions` (a simulation's vec4<f32> STORAGE | VERTEX buffer) as the
   * triangles of `mesh` from now on. A particle beyond `bound` (m) from the origin, or an edge
   * longer than `maxEdge` (m), counts as blown up.
   */
  setCloth(positions: GPUBuffer, mesh: ClothMesh, limits: { bound: number; maxEdge: number }): void {
    this.releaseCloth();
    const device = this.device;
    const buffers = this.buffersOf(mesh);
    const count = mesh.vertexCount;
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
    const meshUniform = device.createBuffer({
      label: 'ClothRenderer.meshUniform',
      size: this.meshStruct.size,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(meshUniform, 0, this.meshStruct.write({ vertexCount: count, ...limits }));
    const normalsBindGroup = device.createBindGroup({
      label: 'ClothRenderer.normalsBindGroup',
      layout: this.normalsPipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: meshUniform } },
        { binding: 1, resource: { buffer: positions } },
        { binding: 2, resource: { buffer: normals } },
        { binding: 3, resource: { buffer: health } },
        { binding: 4, resource: { buffer: buffers.triangles } },
        { binding: 5, resource: { buffer: buffers.vertexOffsets } },
        { binding: 6, resource: { buffer: buffers.vertexTriangles } },
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
      vertexCount: count,
      positions,
      normals,
      health,
      healthReadback,
      meshUniform,
      normalsBindGroup,
      renderBindGroup,
    };
  }

  /** The buffers of `mesh`: those of the last mesh when it is the same object, else new ones. */
  private buffersOf(mesh: ClothMesh): MeshBuffers {
    if (this.meshBuffers?.mesh === mesh) return this.meshBuffers;
    this.releaseMesh();
    const upload = (
      label: string,
      data: Uint32Array<ArrayBuffer> | Float32Array<ArrayBuffer>,
      usage: number,
    ): GPUBuffer => {
      const buffer = this.device.createBuffer({
        label: `ClothRenderer.${label}`,
        size: Math.max(16, Math.ceil(data.byteLength / 16) * 16),
        usage: usage | GPUBufferUsage.COPY_DST,
      });
      this.device.queue.writeBuffer(buffer, 0, data);
      return buffer;
    };
    this.meshBuffers = {
      mesh,
      triangles: upload('triangles', mesh.triangles, GPUBufferUsage.INDEX | GPUBufferUsage.STORAGE),
      pattern: upload('pattern', mesh.pattern, GPUBufferUsage.VERTEX),
      vertexOffsets: upload('vertexOffsets', mesh.vertexOffsets, GPUBufferUsage.STORAGE),
      vertexTriangles: upload('vertexTriangles', mesh.vertexTriangles, GPUBufferUsage.STORAGE),
    };
    return this.meshBuffers;
  }

  /** Computes the normals of the cloth's current positions (call after the frame's steps). */
  encodeNormals(encoder: GPUCommandEncoder): void {
    const cloth = this.cloth;
    if (!cloth) return;
    const pass = encoder.beginComputePass({ label: 'ClothRenderer.normals' });
    pass.setPipeline(this.normalsPipeline);
    pass.setBindGroup(0, cloth.normalsBindGroup);
    pass.dispatchWorkgroups(Math.ceil(cloth.vertexCount / NORMALS_WORKGROUP));
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

  /** Renders the scene into `target` (the canvas's current texture); `extra` draws more into its pass. */
  render(
    encoder: GPUCommandEncoder,
    target: GPUTexture,
    view: View,
    extra?: (pass: GPURenderPassEncoder) => void,
  ): void {
    const cloth = this.cloth;
    if (!cloth) return;
    const { color, depth } = this.renderTargets(target);
    this.device.queue.writeBuffer(
      this.frameUniform,
      0,
      this.frameStruct.write({
        viewProjection: view.viewProjection,
        eye: view.eye,
        lightDirection: view.lightDirection,
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
    const mesh = this.meshBuffers;
    if (view.showCloth && mesh) {
      pass.setPipeline(this.clothPipeline);
      pass.setVertexBuffer(0, cloth.positions);
      pass.setVertexBuffer(1, cloth.normals);
      pass.setVertexBuffer(2, mesh.pattern);
      pass.setIndexBuffer(mesh.triangles, 'uint32');
      pass.drawIndexed(mesh.mesh.triangles.length);
    }
    extra?.(pass);
    pass.end();
  }

  destroy(): void {
    this.releaseCloth();
    this.releaseMesh();
    this.targets?.color.destroy();
    this.targets?.depth.destroy();
    for (const buffer of [this.frameUniform, this.sceneVertices, this.sceneIndices]) buffer.destroy();
  }

  private releaseCloth(): void {
    if (!this.cloth) return;
    const { normals, health, healthReadback, meshUniform } = this.cloth;
    for (const buffer of [normals, health, healthReadback, meshUniform]) buffer.destroy();
    this.cloth = null;
  }

  private releaseMesh(): void {
    if (!this.meshBuffers) return;
    const { triangles, pattern, vertexOffsets, vertexTriangles } = this.meshBuffers;
    for (const buffer of [triangles, pattern, vertexOffsets, vertexTriangles]) buffer.destroy();
    this.meshBuffers = null;
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
