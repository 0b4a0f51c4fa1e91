/**
 * A compiled block: dispatches, and the markers that let a driver that may wait (advance() with
 * checkEvery > 0, checkpoints.ts) read a loop's indirect arguments back and skip what is no longer
 * needed. The one
 * workgroup rule of every kernel: one thread per particle, per spring, or a single workgroup.
 */
import type { Op } from '../../integrators/program.ts';
import type { GpuContacts } from './contact-ops.ts';
import type { GpuBending } from './bending-ops.ts';
import type { GpuSelfContact } from './self-contact-ops.ts';
import type { Model } from '../../model/model.ts';
import { dispatchSize, type bufferFactory } from './gpu-common.ts';
import type { KernelName } from './kernels.ts';

/** Where a dispatch reads its workgroup counts when they are decided on the GPU. */
export interface IndirectArguments {
  readonly buffer: GPUBuffer;
  readonly offset: number;
}

export interface Dispatch {
  readonly kind: 'dispatch';
  readonly label: string;
  /** What one thread handles ('single': one workgroup, e.g. a reduction's last step). */
  readonly domain: 'particles' | 'springs' | 'single';
  readonly threads: number;
  readonly pipeline: GPUComputePipeline;
  readonly bindGroup: GPUBindGroup;
  readonly indirect?: IndirectArguments;
}

/** Read `at` (a u32 workgroup count); when it is 0, skip to the next label `until`. */
export interface Checkpoint {
  readonly kind: 'checkpoint';
  readonly at: IndirectArguments;
  readonly until: string;
}

export interface Label {
  readonly kind: 'label';
  readonly id: string;
}

export type Compiled = Dispatch | Checkpoint | Label;

/** Appends `list` to `out` (a loop: a solve's unrolled list is too long to spread as arguments). */
export function append(out: Compiled[], list: readonly Compiled[]): void {
  for (const item of list) out.push(item);
}

/** The dispatches of `list` not yet indirect made indirect on the counts of their domain. */
export function indirectBy(
  list: readonly Compiled[],
  counts: Partial<Record<Dispatch['domain'], IndirectArguments>>,
): Compiled[] {
  return list.map((d): Compiled => {
    const indirect = d.kind === 'dispatch' && !d.indirect ? counts[d.domain] : undefined;
    return indirect ? { ...(d as Dispatch), indirect } : d;
  });
}

/** What the executor offers the compilers of op families (corrector-ops.ts, implicit-ops.ts). */
export interface ExecutorServices {
  readonly device: GPUDevice;
  readonly model: Model;
  readonly workgroupSize: number;
  readonly partialCount: number;
  readonly create: ReturnType<typeof bufferFactory>;
  reference(name: string, heads?: ReadonlyMap<string, number>): number;
  dispatch(kernel: KernelName, label: string, domain: Dispatch['domain'], extra?: Readonly<Record<string, GPUBuffer>>, constants?: Readonly<Record<string, number>>, threads?: number): Dispatch; // prettier-ignore
  uniform(kernel: KernelName, struct: string, values: (h: number) => Record<string, number | readonly number[]>, dependsOnStep?: boolean): GPUBuffer; // prettier-ignore
  compile(ops: readonly Op[], heads: Map<string, number>, out: Compiled[]): void;
  /** Contacts with the model's colliders (null without colliders). */
  readonly contacts: GpuContacts | null;
  /** Dihedral bending on the model's hinges (null without bending). */
  readonly bending: GpuBending | null;
  /** Self-collision's pairs (null without selfCollision). */
  readonly selfContact: GpuSelfContact | null;
}

/** Encodes the dispatches of `list` (markers ignored); returns how many. */
export function encodeDispatches(
  pass: GPUComputePassEncoder,
  list: readonly Compiled[],
  workgroupSize: number,
  limits: GPUSupportedLimits,
): number {
  let count = 0;
  for (const d of list) {
    if (d.kind !== 'dispatch') continue;
    pass.setPipeline(d.pipeline);
    pass.setBindGroup(0, d.bindGroup);
    if (d.indirect) pass.dispatchWorkgroupsIndirect(d.indirect.buffer, d.indirect.offset);
    else if (d.threads > 0) pass.dispatchWorkgroups(...dispatchSize(d.threads, workgroupSize, limits));
    count++;
  }
  return count;
}
