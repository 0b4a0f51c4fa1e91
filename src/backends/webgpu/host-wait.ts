/**
 * Waiting for the GPU without keeping a CPU busy. Dawn's Node binding (the `webgpu` package)
 * polls its events without pause while a map or another promise of the device is pending
 * (AsyncRunner: a setImmediate loop), so in Node a readback awaited right after its submission
 * keeps the main thread busy for the whole batch — on a CPU adapter (SwiftShader) that thread
 * takes a share of the cores the GPU's own workers run on. A browser waits for its events; there
 * nothing needs doing. The Node entry (src/node.ts) says which host this is.
 */

let hostPolls = false;

/** Set by the Node entry: the host polls without pause while a map is pending. */
export function setHostPollsWhileMapping(polls: boolean): void {
  hostPolls = polls;
}

/**
 * Before mapping a readback of work expected to take `expectedMs` (ms): where the host polls, a
 * timer for `fraction` of it, so that the poll covers only the rest; elsewhere nothing.
 */
export async function idleBeforeMap(expectedMs: number, fraction = 0.75): Promise<void> {
  const ms = fraction * expectedMs;
  if (!hostPolls || !(ms >= 2)) return;
  await new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, 1000)));
}
