/**
 * What a WebGPU linear solve encodes (Node, SwiftShader; issue 10's "Done when"): at most three
 * dispatches per CG iteration (Chronopoulos–Gear CG: the vector step, the product with the one
 * reduction, the scalar step), plus the V-cycle's for multigrid — 2 × 3 sweeps, a residual, a restriction
 * and a prolongation per level above the coarse tail, and one dispatch for the tail: the levels
 * below level 0 of at most 4 × workgroupSize nodes (README, Multigrid) — and,
 * through advance() with checkEvery > 0, a count that grows with the iterations done and not with
 * maxIterations, with the same state as step().
 */
import { expect, test } from 'vitest';
import { buildCloth, createSimulation, type Model } from '../src/index.ts';
import { buildMultigridHierarchy, WebGpuSimulation } from '../src/internal.ts';
import { useNodeDevice } from './helpers/node-device-suite.ts';

const node = useNodeDevice((device) => device);

const cloth: Model = buildCloth({ nx: 12, ny: 12, spacing: 0.05, particleMass: 0.01, structuralStiffness: 2000, shearStiffness: 500, bendStiffness: 100, damping: 0.02, orientation: 'vertical' }); // prettier-ignore
const BASE = { integrator: 'implicit-euler', dt: 1 / 60, tolerance: 1e-4, backend: 'webgpu' } as const;

async function gpuSimulation(options: Record<string, unknown>): Promise<WebGpuSimulation> {
  const simulation = await createSimulation(cloth, { ...BASE, ...options, device: node.runner() });
  if (!(simulation instanceof WebGpuSimulation)) throw new Error('expected a WebGpuSimulation');
  return simulation;
}

/** Dispatches one step() encodes with `maxIterations` = m. */
async function perStep(solver: string, m: number, workgroupSize = 64): Promise<number> {
  const simulation = await gpuSimulation({ solver, maxIterations: m, workgroupSize });
  try {
    return simulation.dispatchesPerStep;
  } finally {
    simulation.destroy();
  }
}

/**
 * Levels of the multigrid hierarchy above the coarse tail: level 0, and every other level of more
 * than 4 × `threads` nodes.
 */
function levelsAboveTail(threads: number): number {
  const levels = buildMultigridHierarchy(cloth).levels;
  return 1 + levels.slice(1).filter((level) => level.nodeCount > 4 * threads).length;
}

test.each([
  ['cg', 64, 0],
  ['pcg', 64, 0],
  ['jacobi', 64, 0],
  // One V-cycle: (2 × 3 sweeps + residual + restriction + prolongation) per level above the tail,
  // one dispatch for the tail. At 64 threads the 144-particle cloth's level 0 is above it; at 4
  // its level 1 too.
  ['multigrid', 64, 9 * levelsAboveTail(64) + 1],
  ['multigrid', 4, 9 * levelsAboveTail(4) + 1],
])('%s, %i threads: each iteration more encodes 3 dispatches (+ %i of the V-cycle)', async (solver, threads, vcycle) => {
  if (solver === 'multigrid') expect(levelsAboveTail(threads)).toBe(threads === 64 ? 1 : 2);
  const [a, b] = [await perStep(solver, 20, threads), await perStep(solver, 30, threads)];
  expect((b - a) / 10).toBe(3 + vcycle);
}, 60_000); // prettier-ignore

test.each(['pcg', 'multigrid'])(
  '%s: advance() with checkpoints encodes as many dispatches at maxIterations 60 as at 400, and ends where step() does',
  async (solver) => {
    const run = async (maxIterations: number, checkEvery: number) => {
      const simulation = await gpuSimulation({ solver, maxIterations, checkEvery });
      try {
        if (checkEvery > 0) await simulation.advance(2);
        else simulation.step(2);
        return {
          encoded: simulation.dispatchesEncoded,
          perStep: simulation.dispatchesPerStep,
          stats: (await simulation.readSolverStats())!,
          state: await simulation.readState(),
        };
      } finally {
        simulation.destroy();
      }
    };
    // step() at maxIterations 60, not 400: it encodes every iteration up to the cap (the count
    // checked below), and its solves, converged (asserted), end where they would at any cap.
    const [few, many, plain] = [await run(60, 4), await run(400, 4), await run(60, 0)];
    console.log(`${solver}: ${few.stats.linearIterations} iterations in 2 steps; advance() encoded ${few.encoded} and ${many.encoded} dispatches (max 60, 400), step() ${plain.encoded} (max 60)`); // prettier-ignore
    expect(few.stats.unconvergedSolves + many.stats.unconvergedSolves + plain.stats.unconvergedSolves).toBe(
      0,
    );
    expect(many.stats.linearIterations).toBe(few.stats.linearIterations);
    expect(many.encoded).toBe(few.encoded);
    // Past the chunk in which a solve ends nothing is encoded: at most checkEvery − 1 = 3
    // iterations per solve are encoded and not needed.
    const perIteration = few.perStep - (await perStep(solver, 59));
    const fixedPerStep = few.perStep - 60 * perIteration;
    expect(many.encoded).toBeGreaterThanOrEqual(2 * fixedPerStep + few.stats.linearIterations * perIteration);
    expect(many.encoded).toBeLessThanOrEqual(
      2 * fixedPerStep + (few.stats.linearIterations + 2 * 3) * perIteration,
    );
    expect(plain.encoded).toBe(2 * plain.perStep);
    expect(Array.from(many.state.positions)).toEqual(Array.from(plain.state.positions)); // bit-identical
  },
  120_000,
);
