/**
 * Running a compiled block with checkpoints (advance() with checkEvery > 0): submission by
 * submission, reading each checkpoint's workgroup count back and skipping what is no longer needed,
 * with the next segment submitted while a count is on its way back.
 */
import { encodeDispatches, type Checkpoint, type Compiled, type Label } from './dispatch.ts';
import type { GpuProfiler } from './profiler.ts';

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

/** The two staging buffers and the history of one executor's checkpointed runs. */
export class CheckpointRunner {
  private readonly history: CheckpointHistory = new WeakMap();

  constructor(
    private readonly device: GPUDevice,
    private readonly stagings: readonly [GPUBuffer, GPUBuffer],
  ) {}

  /** {@link runWithCheckpoints} with this runner's stagings and history. */
  run(list: readonly Compiled[], workgroupSize: number, profiler?: GpuProfiler): Promise<number> {
    return runWithCheckpoints(this.device, list, workgroupSize, this.stagings, this.history, profiler);
  }
}
