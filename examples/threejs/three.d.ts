/**
 * Types for the part of three.js r187 this example uses: three ships JavaScript only and this
 * project does not depend on @types/three. With @types/three installed, delete this file.
 */
declare module 'three/webgpu' {
  /** A TSL node: a value in a shader, built by chaining. */
  export interface Node {
    readonly xyz: Node;
    add(other: Node | number): Node;
    sub(other: Node | number): Node;
    mul(other: Node | number): Node;
    div(other: Node | number): Node;
    mod(other: Node | number): Node;
    cross(other: Node): Node;
    normalize(): Node;
    /** The value computed in the vertex shader and interpolated for the fragment shader. */
    toVarying(name?: string): Node;
  }

  export const DoubleSide: number;
  export const FloatType: number;
  export const NearestFilter: number;
  export const RGBAFormat: number;

  export class Color {
    constructor(hex: number);
  }
  export class Vector3 {
    x: number;
    y: number;
    z: number;
    set(x: number, y: number, z: number): this;
  }
  export class Object3D {
    readonly position: Vector3;
    readonly rotation: { x: number; y: number; z: number };
    frustumCulled: boolean;
    add(...objects: Object3D[]): this;
  }
  export class Scene extends Object3D {
    background: Color | null;
  }
  export class PerspectiveCamera extends Object3D {
    constructor(fov: number, aspect: number, near: number, far: number);
    aspect: number;
    updateProjectionMatrix(): void;
  }
  export class HemisphereLight extends Object3D {
    constructor(skyColor: number, groundColor: number, intensity: number);
  }
  export class DirectionalLight extends Object3D {
    constructor(color: number, intensity: number);
  }

  export class BufferAttribute {
    constructor(array: Float32Array | Uint32Array, itemSize: number);
  }
  export class BufferGeometry {
    setAttribute(name: string, attribute: BufferAttribute): this;
    setIndex(index: BufferAttribute): this;
    dispose(): void;
  }
  export class CircleGeometry extends BufferGeometry {
    constructor(radius: number, segments: number);
  }

  export class Texture {
    type: number;
    format: number;
    minFilter: number;
    magFilter: number;
    generateMipmaps: boolean;
    image: { width: number; height: number } | null;
    dispose(): void;
  }
  /** A texture three.js did not create: a GPUTexture on the renderer's device. */
  export class ExternalTexture extends Texture {
    constructor(sourceTexture?: GPUTexture | null);
  }

  export class Material {
    dispose(): void;
  }
  export class MeshStandardNodeMaterial extends Material {
    constructor(parameters?: { color?: number; roughness?: number; metalness?: number; side?: number });
    /** The vertex's position in model space (the vertex shader). */
    positionNode: Node | null;
    /** The fragment's normal in view space. */
    normalNode: Node | null;
  }
  export class Mesh extends Object3D {
    constructor(geometry: BufferGeometry, material: Material);
  }

  export class WebGPURenderer {
    constructor(parameters?: { canvas?: HTMLCanvasElement; device?: GPUDevice; antialias?: boolean });
    init(): Promise<this>;
    setPixelRatio(ratio: number): void;
    setSize(width: number, height: number, updateStyle?: boolean): void;
    render(scene: Object3D, camera: Object3D): void;
    dispose(): void;
  }
}

declare module 'three/tsl' {
  import type { Node, Texture } from 'three/webgpu';

  /** The vertex's index (WGSL `vertex_index`: for an indexed draw, the index buffer's value). */
  export const vertexIndex: Node;
  /** 1 on a triangle's front face, −1 on its back face. */
  export const faceDirection: Node;
  export function int(value: Node | number): Node;
  export function ivec2(x: Node | number, y: Node | number): Node;
  export function max(a: Node | number, b: Node | number): Node;
  export function min(a: Node | number, b: Node | number): Node;
  /** The texel at integer coordinates `uv` (WGSL `textureLoad`, no sampler). */
  export function textureLoad(texture: Texture, uv: Node): Node;
  /** A model-space normal in view space. */
  export function transformNormalToView(normal: Node): Node;
}

declare module 'three/addons/controls/OrbitControls.js' {
  import type { Object3D, Vector3 } from 'three/webgpu';

  export class OrbitControls {
    constructor(camera: Object3D, element: HTMLElement);
    readonly target: Vector3;
    enableDamping: boolean;
    update(): boolean;
    dispose(): void;
  }
}
