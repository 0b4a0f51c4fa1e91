/**
 * advance() under a fake clock (performance.now mocked): a two-particle spring (symplectic Euler,
 * dt = 0.01) advanced `steps` steps, `tick` moving the clock between a chunk's start and end
 * readings (it runs in onProgress). Returns the steps done after each chunk and the step count.
 */
import { vi } from 'vitest';
import { createModel, createSimulation } from '../../src/index.ts';

export async function advanceUnderClock(
  steps: number,
  start: number,
  tick: (done: number, clock: number) => number,
): Promise<{ done: number[]; stepCount: number }> {
  // prettier-ignore
  const model = createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], springPairs: [0, 1], springStiffness: 40, springRestLengths: [1] }); // prettier-ignore
  const simulation = await createSimulation(model, { integrator: 'symplectic-euler', dt: 0.01 });
  let clock = start;
  const now = vi.spyOn(performance, 'now').mockImplementation(() => clock);
  const done: number[] = [];
  try {
    await simulation.advance(steps, (d) => {
      done.push(d);
      clock = tick(d, clock);
    });
  } finally {
    now.mockRestore();
  }
  const stepCount = simulation.stepCount;
  simulation.destroy();
  return { done, stepCount };
}
