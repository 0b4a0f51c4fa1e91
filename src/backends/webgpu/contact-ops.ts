/**
 * Contacts with the model's colliders on WebGPU (CPU mirror: src/backends/cpu/contacts.ts): the
 * colliders uploaded once as shaders/colliders.wgsl's `Collider` structs (layout reflected); the
 * `project` op of explicit and multistep programs (shaders/contact-project.wgsl); and implicit
 * Euler's constrained solve: `contacts` (contact-detect.wgsl: normals, targets, x₀ = z), the
 * filter of products and V-cycle outputs (contact-filter.wgsl; cg-init and cg-step filter r and
 * u themselves), `contactForces` (contact-respond.wgsl after a product A Δv). Kinematic
 * colliders: {@link GpuContacts.writeCollider} (a queue.writeBuffer) and `moveColliders`
 * (collider-move.wgsl).
 */
import {
  COLLIDER_SHAPES,
  RECEDING_ROUNDING,
  RELEASE_NOW_FRACTION,
  SURFACE_SLACK,
  type ResolvedCollider,
} from '../../model/colliders.ts';
import { coefficientAt, type Op } from '../../integrators/program.ts';
import type { Dispatch, ExecutorServices } from './dispatch.ts';
import { historyRestartConstants } from './history-restart.ts';
import { kernels } from './kernels.ts';
import { writeStruct, type StructLayout } from './layout.ts';
import { VEC4_BYTES } from './gpu-common.ts';
import { packMeshes, type PackedMeshes } from './mesh-data.ts';

export class GpuContacts {
  private readonly colliders: GPUBuffer;
  /** Per particle: the contact normal n, w = 1 when constrained in the current solve, 2 when sticking. */
  readonly contactNormals: GPUBuffer;
  /** Per particle: (T, the normal velocity to end the step with; gap; collider; λ of the last solve). */
  private readonly contactData: GPUBuffer;
  private readonly struct: StructLayout;
  private readonly stride: number;
  /** The mesh colliders' hierarchies and triangles (mesh-data.ts). */
  private readonly meshData: GPUBuffer;
  private readonly meshes: PackedMeshes;

  constructor(private readonly x: ExecutorServices) {
    const layout = kernels().contactProject;
    this.struct = layout.structs.get('Collider')!;
    this.stride = layout.bindings.get('colliders')!.stride;
    const list = x.model.colliders;
    this.meshes = packMeshes(list);
    const bytes = new ArrayBuffer(Math.max(1, list.length) * this.stride);
    list.forEach((c, k) => this.colliderBytes(k, c, [0, 0, 0], [0, 0, 0], new DataView(bytes, k * this.stride, this.stride))); // prettier-ignore
    const storage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    this.colliders = x.create('colliders', bytes.byteLength, storage, bytes);
    this.meshData = x.create('meshData', this.meshes.bytes.byteLength, storage, this.meshes.bytes);
    this.contactNormals = x.create('contactNormals', x.model.particleCount * VEC4_BYTES, storage);
    this.contactData = x.create('contactData', x.model.particleCount * VEC4_BYTES, storage);
  }

  private colliderBytes(
    k: number,
    c: ResolvedCollider,
    up: readonly number[],
    uq: readonly number[],
    view: DataView,
  ): void {
    const values = { shape: COLLIDER_SHAPES[c.shape], root: this.meshes.roots[k]!, friction: c.friction, thickness: c.thickness, radius: c.radius, p: c.p, q: c.q, velocityP: up, velocityQ: uq }; // prettier-ignore
    writeStruct(this.struct, values, view);
  }

  /** Collider k is at `pose` now and moves at up (its p) and uq (its q); queued, no readback. */
  writeCollider(k: number, pose: ResolvedCollider, up: readonly number[], uq: readonly number[]): void {
    const bytes = new ArrayBuffer(this.stride);
    this.colliderBytes(k, pose, up, uq, new DataView(bytes));
    this.x.device.queue.writeBuffer(this.colliders, k * this.stride, bytes);
  }

  private get buffers(): Record<string, GPUBuffer> {
    return { colliders: this.colliders, contactNormals: this.contactNormals, contactData: this.contactData, meshData: this.meshData }; // prettier-ignore
  }

  /**
   * `contacts` (the next solve's constraints) or `contactForces` (after it: A Δv by `product`,
   * then the forces' response).
   */
  compileSolveOp(op: Extract<Op, { op: 'contacts' | 'contactForces' }>, heads: ReadonlyMap<string, number>, product: (inputRef: number, productRef: number) => Dispatch): Dispatch[] {
    if (op.op === 'contacts') return [this.detect(op, heads, this.x.reference(op.solution, heads))];
    const w = this.x.reference('cg.w');
    return [product(this.x.reference(op.solution, heads), w), this.respond(op, heads, w)];
  } // prettier-ignore

  /**
   * `contacts`: the constraints of the next solve (found at (x, v) with `detect`), x₀ = z n written
   * to `solutionRef`.
   */
  detect(
    op: Extract<Op, { op: 'contacts' }>,
    heads: ReadonlyMap<string, number>,
    solutionRef: number,
  ): Dispatch {
    const gravity = Math.hypot(...this.x.model.gravity);
    const uniform = this.x.uniform('contactDetect', 'DetectOp', (h) => ({ h, gravity, scale: coefficientAt(op.scale, h) }), true); // prettier-ignore
    const constants = { xRef: this.x.reference(op.x, heads), vRef: this.x.reference(op.v, heads), baseRef: this.x.reference(op.base, heads), detect: op.detect ? 1 : 0, stick: op.stick ? 1 : 0, solutionRef, colliderCount: this.x.model.colliders.length, surfaceSlack: SURFACE_SLACK, receding: RECEDING_ROUNDING, meshTriangleBase: this.meshes.triangleBase }; // prettier-ignore
    return this.x.dispatch('contactDetect', 'contactDetect', 'particles', { ...this.buffers, op: uniform }, constants); // prettier-ignore
  }

  /** u ← S w for the arena vectors u = `vectorRef`, w = `fromRef` (default u) on constrained particles. */
  filter(vectorRef: number, fromRef = vectorRef): Dispatch {
    return this.x.dispatch('contactFilter', 'contactFilter', 'particles', this.buffers, {
      vectorRef,
      fromRef,
    });
  }

  /**
   * `contactForces`, after A s was computed into `productRef`, or `contactFriction` (by the λ the
   * last contactForces kept; no product).
   */
  respond(
    op: Extract<Op, { op: 'contactForces' | 'contactFriction' }>,
    heads: ReadonlyMap<string, number>,
    productRef = 0,
  ): Dispatch {
    const ref = (name: string): number => this.x.reference(name, heads);
    const [rhsRef, mode] = op.op === 'contactForces' ? [ref(op.rhs), op.friction ? 0 : 1] : [0, 2];
    const release = op.op === 'contactForces' && op.release ? 1 : 0;
    const constants = { xRef: ref(op.x), vRef: ref(op.base), solutionRef: ref(op.solution), rhsRef, productRef, mode, surfaceSlack: SURFACE_SLACK, release, releaseMargin: RELEASE_NOW_FRACTION, residualRef: this.x.reference('cg.r') }; // prettier-ignore
    const uniform = this.x.uniform('contactRespond', 'RespondOp', (h) => ({ scale: coefficientAt(op.scale, h), impulse: coefficientAt(op.impulse, h) }), true); // prettier-ignore
    return this.x.dispatch('contactRespond', 'contactRespond', 'particles', { ...this.buffers, op: uniform }, constants); // prettier-ignore
  }

  /** `project` or `moveColliders` (one thread per collider: p += h u_p, q += h u_q). */
  compileOp(
    op: Extract<Op, { op: 'project' | 'moveColliders' }>,
    heads: ReadonlyMap<string, number>,
  ): Dispatch {
    if (op.op === 'project') return this.project(op, heads);
    const uniform = this.x.uniform('colliderMove', 'MoveOp', (h) => ({ h }), true);
    const colliderCount = this.x.model.colliders.length;
    return this.x.dispatch('colliderMove', 'colliderMove', 'single', { colliders: this.colliders, op: uniform }, { colliderCount }, colliderCount); // prettier-ignore
  }

  /** The `project` op: one dispatch over the particles, drift · h a uniform rewritten with h. */
  private project(op: Extract<Op, { op: 'project' }>, heads: ReadonlyMap<string, number>): Dispatch {
    const drift = op.drift ?? 1;
    const uniform = this.x.uniform('contactProject', 'ProjectOp', (h) => ({ carry: drift * h }), true);
    const restart = historyRestartConstants(this.x, 'project', op.restart, heads);
    const constants = { xRef: this.x.reference(op.x, heads), vRef: this.x.reference(op.v, heads), colliderCount: this.x.model.colliders.length, meshTriangleBase: this.meshes.triangleBase, reach: op.slack ? -SURFACE_SLACK : op.onSurface ? SURFACE_SLACK : 0, ...restart }; // prettier-ignore
    return this.x.dispatch('contactProject', 'contactProject', 'particles', { ...this.buffers, op: uniform }, constants); // prettier-ignore
  }
}
