/**
 * A compiled block: dispatches, and the markers that let a driver that may wait (advance() with
 * checkEvery > 0) read a loop's indirect arguments back and skip what is no longer needed. The one
 * workgroup rule of every kernel: one thread per particle, per spring, or a single workgroup.
 */
import type { Op } from '../../integrators/program.ts';
import type { GpuContacts } from './contact-ops.ts';
import type { GpuBending } from './bending-ops.ts';
import type { GpuSelfContact } from './self-contact-ops.ts';
import type { Model } from '../../model/model.ts';
import { dispatchSize, type bufferFactory } from './gpu-common.ts';
import type { KernelName } from './kernels.ts';
import type { GpuProfiler } from './profiler.ts';

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

/** The outcome of each checkpoint at its last run: true where the loop went on. */
export type CheckpointHistory = WeakMap<Checkpoint, boolean>;

/**
 * Runs `list` submission by submission, reading the workgroup count at each checkpoint back into
 * one of two `stagings` (MAP_READ, ≥ 4 bytes each) and skipping to its label when it is 0. Results
 * are those of encoding the whole list: skipped dispatches would have launched no workgroups.
 *
 * While a checkpoint's count is on its way back the next segment is encoded and submitted too
 * when that checkpoint went on at its last run (`history`), so that the GPU works while the host
 * encodes and waits; if the count then reads 0, what was submitted past it launches nothing, as
 * in step(), which encodes everything. A loop that ends where it ended last time, or later, costs
 * nothing more; one that ends a segment earlier, one segment encoded for nothing. Returns the
 * dispatches encoded.
 */
export async function runWithCheckpoints(
  device: GPUDevice,
  list: readonly Compiled[],
  workgroupSize: number,
  stagings: readonly [GPUBuffer, GPUBuffer],
  history: CheckpointHistory,
  profiler?: GpuProfiler,
): Promise<number> {
  let count = 0;
  let slot = 0;
  /** Submits list[from..] up to its next checkpoint, whose count goes to the next staging. */
  const submit = (from: number): InFlight => {
    const encoder = device.createCommandEncoder({ label: 'Weft.checkpoints' });
    let end = from;
    while (end < list.length && list[end]!.kind !== 'checkpoint') end++;
    if (profiler) count += profiler.encode(encoder, list.slice(from, end), workgroupSize);
    else {
      const pass = encoder.beginComputePass();
      count += encodeDispatches(pass, list.slice(from, end), workgroupSize, device.limits);
      pass.end();
    }
    profiler?.finish(encoder);
    const check = list[end]?.kind === 'checkpoint' ? (list[end] as Checkpoint) : undefined;
    const staging = stagings[slot]!;
    if (check) {
      encoder.copyBufferToBuffer(check.at.buffer, check.at.offset, staging, 0, 4);
      slot = 1 - slot;
    }
    device.queue.submit([encoder.finish()]);
    return { check, staging, next: end + 1 };
  };
  const labelAfter = (from: number, id: string): number => {
    let i = from;
    while (i < list.length && !(list[i]!.kind === 'label' && (list[i] as Label).id === id)) i++;
    return i;
  };
  let current = submit(0);
  while (current.check) {
    const check = current.check;
    // Profiled runs stay one submission at a time: their timestamps are per submission.
    const ahead = !profiler && history.get(check) === true && current.next < list.length ? submit(current.next) : undefined; // prettier-ignore
    const groups = await readCount(current.staging);
    history.set(check, groups !== 0);
    if (groups !== 0) {
      current = ahead ?? submit(current.next);
      continue;
    }
    const label = labelAfter(current.next, check.until);
    if (ahead && label < ahead.next - 1)
      current = ahead; // its segment runs on from the label
    else {
      if (ahead?.check) await readCount(ahead.staging); // past the label: drained, not used
      if (label >= list.length) return count;
      current = submit(label);
    }
  }
  return count;
}

interface InFlight {
  /** The checkpoint that ends the submitted segment (none: it ran to the end of the list). */
  readonly check: Checkpoint | undefined;
  readonly staging: GPUBuffer;
  /** Where the list goes on after that checkpoint. */
  readonly next: number;
}

async function readCount(staging: GPUBuffer): Promise<number> {
  await staging.mapAsync(GPUMapMode.READ, 0, 4);
  const groups = new Uint32Array(staging.getMappedRange(0, 4))[0]!;
  staging.unmap();
  return groups;
}
