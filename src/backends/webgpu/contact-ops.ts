/**
 * Contacts with the model's colliders on WebGPU (CPU mirror: src/backends/cpu/contacts.ts): the
 * colliders uploaded once as shaders/colliders.wgsl's `Collider` structs (layout reflected), and
 * the `project` op of explicit and multistep programs compiled to one dispatch of
 * shaders/contact-project.wgsl.
 */
import { COLLIDER_SHAPES } from '../../model/colliders.ts';
import type { Op } from '../../integrators/program.ts';
import type { Dispatch, ExecutorServices } from './dispatch.ts';
import { kernels } from './kernels.ts';
import { writeStruct } from './layout.ts';

export class GpuContacts {
  private readonly colliders: GPUBuffer;

  constructor(private readonly x: ExecutorServices) {
    const layout = kernels().contactProject;
    const struct = layout.structs.get('Collider')!;
    const stride = layout.bindings.get('colliders')!.stride;
    const list = x.model.colliders;
    const bytes = new ArrayBuffer(Math.max(1, list.length) * stride);
    const view = new DataView(bytes);
    list.forEach((c, k) => {
      const values = { shape: COLLIDER_SHAPES[c.shape], friction: c.friction, thickness: c.thickness, radius: c.radius, p: c.p, q: c.q }; // prettier-ignore
      writeStruct(struct, values, view, k * stride);
    });
    this.colliders = x.create('colliders', bytes.byteLength, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST, bytes); // prettier-ignore
  }

  /** The `project` op: one dispatch over the particles, its step h a uniform rewritten with h. */
  project(op: Extract<Op, { op: 'project' }>, heads: ReadonlyMap<string, number>): Dispatch {
    const uniform = this.x.uniform('contactProject', 'ProjectOp', (h) => ({ h }), true);
    const constants = { xRef: this.x.reference(op.x, heads), vRef: this.x.reference(op.v, heads), colliderCount: this.x.model.colliders.length }; // prettier-ignore
    return this.x.dispatch('contactProject', 'contactProject', 'particles', { colliders: this.colliders, op: uniform }, constants); // prettier-ignore
  }
}
