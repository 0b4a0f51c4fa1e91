/**
 * runWithCheckpoints (src/backends/webgpu/checkpoints.ts) on a scripted GPU written here: two solves
 * in a row, each a start, iterations gated on its own count (an iteration launches nothing once
 * the solve is done, as cgGroups makes it on the GPU) and a checkpoint every 4 iterations, then
 * its label and an end. Whatever the lookahead submits, the GPU must end as if the whole list had
 * been encoded (step()'s semantics): every solve takes exactly the iterations it needs and every
 * start and end runs once. What it may cost: nothing more where a loop ends where it did last
 * time, one segment where it ends a segment earlier; and the submission of the next segment must
 * come before the wait on the checkpoint it follows.
 */
import { expect, test } from 'vitest';
import { runWithCheckpoints, type CheckpointHistory, type Compiled } from '../src/internal.ts';

// Dawn's globals are not loaded in this test: the map mode is all runWithCheckpoints reads of them.
(globalThis as { GPUMapMode?: unknown }).GPUMapMode ??= { READ: 1 };

const EVERY = 4;
const MAX = 16;

/** The GPU's state: iterations still needed per solve, what ran, and the host's event log. */
interface Gpu {
  needed: number[];
  ran: string[];
  events: string[];
}

/** A dispatch whose pipeline is its label, which the scripted pass reads back. */
function dispatch(label: string): Compiled {
  return { kind: 'dispatch', label, domain: 'single', threads: 1, pipeline: label as unknown as GPUComputePipeline, bindGroup: {} as GPUBindGroup }; // prettier-ignore
}

/** Two solves, `MAX` iterations each at most; a checkpoint reads solve s's count at offset 4 s. */
function program(): Compiled[] {
  const counts = {} as GPUBuffer;
  const list: Compiled[] = [];
  for (const s of [0, 1]) {
    list.push(dispatch(`start ${s}`));
    for (let k = 1; k <= MAX; k++) {
      list.push(dispatch(`iterate ${s}`));
      if (k % EVERY === 0 && k < MAX) list.push({ kind: 'checkpoint', at: { buffer: counts, offset: 4 * s }, until: 'solveEnd' }); // prettier-ignore
    }
    list.push({ kind: 'label', id: 'solveEnd' }, dispatch(`end ${s}`));
  }
  return list;
}

type Staging = GPUBuffer & { value: number };

/** A device whose queue runs each submission's work in order on `gpu` when it is submitted. */
function scriptedDevice(gpu: Gpu, need: readonly number[]): GPUDevice {
  const run = (label: string): void => {
    const [what, s] = [label.split(' ')[0], Number(label.split(' ')[1])];
    if (what === 'start') gpu.needed[s] = need[s]!;
    if (what !== 'iterate') gpu.ran.push(label);
    else if (gpu.needed[s]! > 0) {
      gpu.needed[s]!--;
      gpu.ran.push(label);
    }
  };
  const createCommandEncoder = (): GPUCommandEncoder => {
    const work: (() => void)[] = [];
    let current = '';
    const pass = {
      setPipeline: (pipeline: string) => (current = pipeline),
      setBindGroup: () => undefined,
      dispatchWorkgroups: () =>
        work.push(
          (
            (label) => () =>
              run(label)
          )(current),
        ),
      end: () => undefined,
    };
    const copy = (_: GPUBuffer, offset: number, staging: Staging): number =>
      work.push(() => (staging.value = gpu.needed[offset / 4]! > 0 ? 1 : 0));
    return { beginComputePass: () => pass, copyBufferToBuffer: copy, finish: () => work } as unknown as GPUCommandEncoder; // prettier-ignore
  };
  const submit = ([work]: (() => void)[][]): void => {
    gpu.events.push('submit');
    for (const step of work!) step();
  };
  return { limits: {}, createCommandEncoder, queue: { submit } } as unknown as GPUDevice;
}

function staging(gpu: Gpu): Staging {
  const buffer = {
    value: -1,
    mapAsync: async () => void gpu.events.push('wait'),
    getMappedRange: () => Uint32Array.of(buffer.value).buffer,
    unmap: () => undefined,
  };
  return buffer as unknown as Staging;
}

/** Runs `list` once with `need` iterations per solve (the executor compiles a block once). */
async function runOnce(list: Compiled[], need: readonly number[], history: CheckpointHistory) {
  const gpu: Gpu = { needed: [0, 0], ran: [], events: [] };
  const device = scriptedDevice(gpu, need);
  const encoded = await runWithCheckpoints(device, list, 1, [staging(gpu), staging(gpu)], history);
  return { gpu, encoded };
}

const runs = (need: readonly number[]): string[] => [
  ...['start 0', ...Array<string>(need[0]!).fill('iterate 0'), 'end 0'],
  ...['start 1', ...Array<string>(need[1]!).fill('iterate 1'), 'end 1'],
];

/** Dispatches encoded without lookahead: up to the end of the segment in which each solve ends. */
function sequential(need: readonly number[]): number {
  return need.reduce((sum, n) => sum + 2 + Math.min(MAX, EVERY * Math.ceil(Math.max(n, 1) / EVERY)), 0);
}

test('first run: one submission at a time, each solve encoded to the segment where it ends', async () => {
  const history: CheckpointHistory = new WeakMap();
  const { gpu, encoded } = await runOnce(program(), [6, 9], history);
  expect(gpu.ran).toEqual(runs([6, 9]));
  expect(encoded).toBe(sequential([6, 9]));
  expect(gpu.events.join(' ')).not.toContain('submit submit');
});

// Solve 0's last checkpoint is at 12: past it one segment runs into solve 1 (the label inside).
test.each([
  ['the same iterations', [6, 9], [6, 9], 0],
  ['more iterations', [6, 9], [11, 14], 0],
  ['solve 0 a segment earlier', [6, 9], [3, 9], 1],
  ['both a segment earlier', [6, 9], [3, 5], 2],
  ['solve 0 ending at its last checkpoint', [14, 9], [12, 9], 1],
])(
  'second run, %s (%j then %j): the state of the whole list, %i segments more',
  async (_, first, need, extra) => {
    const history: CheckpointHistory = new WeakMap();
    const list = program();
    await runOnce(list, first as number[], history);
    const { gpu, encoded } = await runOnce(list, need as number[], history);
    expect(gpu.ran).toEqual(runs(need as number[]));
    expect(encoded).toBe(sequential(need as number[]) + (extra as number) * EVERY);
    // The lookahead: a second segment submitted before the first wait.
    expect(gpu.events.slice(0, 3)).toEqual(['submit', 'submit', 'wait']);
  },
);
