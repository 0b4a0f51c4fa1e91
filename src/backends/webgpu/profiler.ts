/**
 * GPU time per kernel from timestamp queries (option `profile`, issue 10): each dispatch gets a
 * compute pass of its own whose beginning and end write timestamps; after each submission the
 * timestamps are resolved into a buffer of their own, and {@link GpuProfiler.read} maps them all
 * and sums the time per kernel label. Profiling changes how the work is encoded (a pass per
 * dispatch, so some overhead per dispatch), never what it computes.
 */
import { WeftInputError } from '../../core/errors.ts';
import type { Compiled } from './dispatch.ts';
import { dispatchSize } from './gpu-common.ts';

import type { KernelTime } from '../common/simulation-types.ts';

export type { KernelTime };

/** Where a profiled encoding goes: the encoder, a pass per dispatch. */
export interface Profiled {
  readonly encoder: GPUCommandEncoder;
  readonly profiler: GpuProfiler;
}

/** Timestamps one submission may hold (two per dispatch); dispatches past it are not timed. */
const QUERIES = 4096;

export class GpuProfiler {
  private readonly querySet: GPUQuerySet;
  private readonly resolve: GPUBuffer;
  private labels: string[] = [];
  private readonly pending: { buffer: GPUBuffer; labels: string[] }[] = [];
  private readonly totals = new Map<string, { dispatches: number; nanoseconds: number }>();
  /** Dispatches encoded without timestamps (a submission with more than 2,048 dispatches). */
  untimed = 0;

  /** Throws a WeftInputError naming `profile` when the device cannot write timestamps. */
  constructor(private readonly device: GPUDevice) {
    if (!device.features.has('timestamp-query'))
      throw new WeftInputError('profile', "needs a device with the 'timestamp-query' feature (this one has none: request it, or let Weft request the device)"); // prettier-ignore
    this.querySet = device.createQuerySet({ type: 'timestamp', count: QUERIES });
    this.resolve = device.createBuffer({ size: QUERIES * 8, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }); // prettier-ignore
  }

  /** Encodes the dispatches of `list` into `encoder`, each in a pass of its own; returns how many. */
  encode(encoder: GPUCommandEncoder, list: readonly Compiled[], workgroupSize: number): number {
    let count = 0;
    for (const d of list) {
      if (d.kind !== 'dispatch') continue;
      const k = this.labels.length;
      const timed = 2 * k + 1 < QUERIES;
      if (timed) this.labels.push(d.label);
      else this.untimed++;
      const pass = encoder.beginComputePass(timed ? { timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 } } : {}); // prettier-ignore
      pass.setPipeline(d.pipeline);
      pass.setBindGroup(0, d.bindGroup);
      if (d.indirect) pass.dispatchWorkgroupsIndirect(d.indirect.buffer, d.indirect.offset);
      else if (d.threads > 0)
        pass.dispatchWorkgroups(...dispatchSize(d.threads, workgroupSize, this.device.limits));
      pass.end();
      count++;
    }
    return count;
  }

  /** Encodes the resolution of this submission's timestamps (call last, before finish()). */
  finish(encoder: GPUCommandEncoder): void {
    const count = 2 * this.labels.length;
    if (count === 0) return;
    const buffer = this.device.createBuffer({ size: count * 8, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }); // prettier-ignore
    encoder.resolveQuerySet(this.querySet, 0, count, this.resolve, 0);
    encoder.copyBufferToBuffer(this.resolve, 0, buffer, 0, count * 8);
    this.pending.push({ buffer, labels: this.labels });
    this.labels = [];
  }

  /** The time per kernel of everything submitted so far, the slowest first. */
  async read(): Promise<KernelTime[]> {
    for (const { buffer, labels } of this.pending.splice(0)) {
      await buffer.mapAsync(GPUMapMode.READ);
      const stamps = new BigUint64Array(buffer.getMappedRange().slice(0));
      buffer.destroy();
      labels.forEach((label, k) => {
        const total = this.totals.get(label) ?? { dispatches: 0, nanoseconds: 0 };
        // A pass whose end stamp precedes its beginning (reordered by the driver) counts as 0.
        const elapsed = stamps[2 * k + 1]! > stamps[2 * k]! ? Number(stamps[2 * k + 1]! - stamps[2 * k]!) : 0;
        this.totals.set(label, {
          dispatches: total.dispatches + 1,
          nanoseconds: total.nanoseconds + elapsed,
        });
      });
    }
    return [...this.totals]
      .map(([kernel, t]) => ({ kernel, dispatches: t.dispatches, milliseconds: t.nanoseconds / 1e6 }))
      .sort((a, b) => b.milliseconds - a.milliseconds);
  }

  destroy(): void {
    this.querySet.destroy();
    this.resolve.destroy();
    for (const { buffer } of this.pending.splice(0)) buffer.destroy();
  }
}
