/**
 * Self-collision test scenes shared by the CPU and GPU tests: a vertical cloth (2.5 cm cells)
 * tilted 0.3 rad about x, its lower edge 3 cm above a floor, so that it folds over itself as it
 * collapses.
 */
import {
  buildCloth,
  createModel,
  createSimulation,
  type Model,
  type SelfCollision,
  type Simulation,
} from '../../src/index.ts';
import { selfIntersections } from '../../src/internal.ts';

/** The collapsing n² cloth, with `selfCollision` (or none). */
export function collapsingCloth(n: number, selfCollision?: SelfCollision): Model {
  const base = buildCloth({ nx: n, ny: n, spacing: 0.025, pins: [], orientation: 'vertical', origin: [0, 0.03, 0], damping: 0.2 }); // prettier-ignore
  const positions = Float64Array.from(base.particlePositions);
  for (let i = 0; i < base.particleCount; i++) {
    const [y, z] = [positions[3 * i + 1]! - 0.03, positions[3 * i + 2]!];
    positions[3 * i + 1] = 0.03 + Math.cos(0.3) * y - Math.sin(0.3) * z;
    positions[3 * i + 2] = Math.sin(0.3) * y + Math.cos(0.3) * z;
  }
  return createModel({
    positions,
    masses: base.particleMass,
    springPairs: base.springIndices,
    springStiffness: base.springStiffness,
    springDamping: base.springDamping,
    triangles: base.triangleIndices,
    colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0.5 }],
    ...(selfCollision ? { selfCollision } : {}),
  });
}

/**
 * The collapse small enough to fail: 12² at h = 1/20 s (implicit Euler, static friction), which
 * folds through itself at steps 4–12 without self-collision (CPU f64: 2, 24, 34, 63, 103, 68, 34,
 * 34, 12 intersecting triangle pairs; none at steps 1–3 or 13–15). At 1/30 s and 1/24 s it no
 * longer does since implicit Euler projects what ends behind the floor after its solve
 * (contact-programs.ts): before, 1/30 s intersected at steps 5–6. r = 4 mm; 128 pairs a particle,
 * as its run lists up to 13,143 pairs (the fail-safe counting its truncations without applying
 * them: 15,789), over the default's 32 × 144 = 4,608.
 */
export const FAST_COLLAPSE = { n: 12, dt: 1 / 20, self: { thickness: 0.004, maxPairsPerParticle: 128 } } as const; // prettier-ignore

/**
 * Steps `simulation` (of `model`) one step at a time through advance() up to `steps`: the
 * intersecting triangle pairs after each step (the exact check), the most self-contact pairs
 * listed at a step and the truncated moves summed; `untilFirst` stops at the first intersecting step.
 */
export async function intersectionsPerStep(
  simulation: Simulation,
  model: Model,
  steps: number,
  untilFirst = false,
): Promise<{ counts: number[]; pairs: number; truncated: number }> {
  const counts: number[] = [];
  let [pairs, truncated] = [0, 0];
  for (let k = 0; k < steps && !(untilFirst && counts.some((c) => c > 0)); k++) {
    await simulation.advance(1);
    counts.push(selfIntersections((await simulation.readState()).positions, model.triangleIndices).length); // prettier-ignore
    const stats = (await simulation.readSolverStats())?.selfContact;
    [pairs, truncated] = [Math.max(pairs, stats?.pairs ?? 0), truncated + (stats?.truncated ?? 0)];
  }
  return { counts, pairs, truncated };
}

/**
 * Newton's ClothTwist (`example_cloth_twist`): a horizontal n² cloth (2 cm cells, zero gravity,
 * r = 3 mm) whose two side columns (x = 0 and x = max) are pinned and turned about the x axis
 * through the cloth's middle at π/3 rad/s, one each way, through `setTargets`: at t s they are
 * 2π/3 t apart.
 */
export function clothTwist(n: number): {
  model: Model;
  /** The pinned side columns' particles. */
  sides: number[];
  /** Where `sides` are at time t (s), in their order: x, y, z each. */
  targets: (t: number) => number[];
} {
  const spacing = 0.02;
  const base = buildCloth({ nx: n, ny: n, spacing, pins: [], orientation: 'horizontal', gravity: [0, 0, 0], damping: 0.5 }); // prettier-ignore
  const sides = Array.from({ length: n }, (_, j) => [j * n, j * n + n - 1]).flat();
  const model = createModel({
    positions: base.particlePositions,
    masses: base.particleMass,
    fixed: sides,
    springPairs: base.springIndices,
    springStiffness: base.springStiffness,
    springDamping: base.springDamping,
    triangles: base.triangleIndices,
    gravity: [0, 0, 0],
    selfCollision: { thickness: 0.003 },
  });
  const mid = ((n - 1) * spacing) / 2;
  const x0 = base.particlePositions;
  const targets = (t: number): number[] =>
    sides.flatMap((i) => {
      const angle = (i % n === 0 ? 1 : -1) * (Math.PI / 3) * t; // about the x axis through the middle
      const [y, z] = [x0[3 * i + 1]!, x0[3 * i + 2]! - mid];
      return [x0[3 * i]!, Math.cos(angle) * y - Math.sin(angle) * z, mid + Math.sin(angle) * y + Math.cos(angle) * z]; // prettier-ignore
    });
  return { model, sides, targets };
}

/** One model of two cloths (`b`'s indices after `a`'s, their pins kept), with `extra` (self-collision, colliders). */
export function merge(a: Model, b: Model, extra: Partial<Parameters<typeof createModel>[0]>): Model {
  const n = a.particleCount;
  const shift = (indices: Uint32Array): number[] => Array.from(indices, (i) => i + n);
  const fixed = (m: Model, offset: number): number[] =>
    Array.from(m.particleFixed.keys())
      .filter((i) => m.particleFixed[i])
      .map((i) => i + offset);
  return createModel({
    positions: [...a.particlePositions, ...b.particlePositions],
    masses: [...a.particleMass, ...b.particleMass],
    fixed: [...fixed(a, 0), ...fixed(b, n)],
    springPairs: [...a.springIndices, ...shift(b.springIndices)],
    springStiffness: [...a.springStiffness, ...b.springStiffness],
    springDamping: [...a.springDamping, ...b.springDamping],
    triangles: [...a.triangleIndices, ...shift(b.triangleIndices)],
    gravity: a.gravity,
    ...extra,
  });
}

/**
 * A 10² layer `above` m over a 12² one `lower` m over a floor (thickness 5 mm), r = 5 mm
 * (test/self-contact-scenes.test.ts: 15 mm and 20 mm).
 */
export function layers(above = 0.015, lower = 0.02): Model {
  const bottom = buildCloth({ nx: 12, ny: 12, spacing: 0.05, pins: [], origin: [0, lower, 0], damping: 0.5 });
  const upper = buildCloth({ nx: 10, ny: 10, spacing: 0.05, pins: [], origin: [0.075, lower + above, 0.075], damping: 0.5 }); // prettier-ignore
  return merge(bottom, upper, {
    selfCollision: { thickness: 0.005, maxPairsPerParticle: 64 },
    colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], friction: 0.3 }],
  });
}

const maxDiff = (a: Float64Array, b: Float64Array): number =>
  Math.max(...a.map((value, k) => Math.abs(value - b[k]!)));

/**
 * The layers at `heights` ([above, lower]) on WebGPU (`device`) and the CPU in float32: `before`
 * steps, then `frames` frames (of 5 steps for symplectic Euler, 1 for the implicit schemes), each
 * compared: the most pairs listed and acting on the CPU, the largest |Δx| GPU − CPU, the GPU's
 * intersecting triangle pairs summed over the frames, a line per frame, and the GPU's state
 * (positions, then velocities) at the first frame.
 */
export async function layersOnGpuAndCpu(
  device: GPUDevice,
  run: { integrator: 'symplectic-euler' | 'implicit-euler'; dt: number; solver?: 'pcg' | 'multigrid' | undefined; heights: readonly [number, number]; before: number; frames: number }, // prettier-ignore
): Promise<{
  most: number;
  acting: number;
  worst: number;
  crossings: number;
  lines: string[];
  first: { step: number; state: Float64Array };
}> {
  // prettier-ignore
  const model = layers(...run.heights);
  const options = { integrator: run.integrator, dt: run.dt, ...(run.solver ? { solver: run.solver } : {}) };
  const gpu = await createSimulation(model, { ...options, backend: 'webgpu', device } as Parameters<typeof createSimulation>[1]); // prettier-ignore
  const cpu = await createSimulation(model, { ...options, backend: 'cpu', precision: 'f32' } as Parameters<typeof createSimulation>[1]); // prettier-ignore
  try {
    const per = run.integrator === 'symplectic-euler' ? 5 : 1;
    // The GPU steps through advance(), which skips what is left of a converged implicit loop
    // (step() encodes every Newton and CG iteration up to the caps; bit-identical:
    // test/gpu-cg-dispatches.test.ts; step() with self-contact: test/gpu-self-contact.test.ts).
    await gpu.advance(run.before);
    cpu.step(run.before);
    const lines: string[] = [];
    let [most, worst, crossings, acting] = [0, 0, 0, 0];
    let first: { step: number; state: Float64Array } | undefined;
    for (let frame = 0; frame < run.frames; frame++) {
      await gpu.advance(per);
      cpu.step(per);
      const [a, b] = [await gpu.readState(), await cpu.readState()];
      const [sa, sb] = [(await gpu.readSolverStats())!.selfContact!, (await cpu.readSolverStats())!.selfContact!]; // prettier-ignore
      const dx = maxDiff(a.positions, b.positions);
      const dv = maxDiff(a.velocities, b.velocities);
      lines.push(`step ${gpu.stepCount}: |Δx| ${dx.toExponential(2)} m, |Δv| ${dv.toExponential(2)} m/s; pairs ${sa.pairs}/${sb.pairs}, active ${sa.activePairs}/${sb.activePairs}, truncated ${sa.truncated}/${sb.truncated}, sweeps ${sa.sweeps}/${sb.sweeps}, undone ${sa.undone}/${sb.undone}`); // prettier-ignore
      most = Math.max(most, sb.pairs);
      acting = Math.max(acting, sb.activePairs);
      worst = Math.max(worst, dx);
      crossings += selfIntersections(a.positions, model.triangleIndices).length;
      first ??= { step: gpu.stepCount, state: Float64Array.from([...a.positions, ...a.velocities]) };
    }
    return { most, acting, worst, crossings, lines, first: first! };
  } finally {
    gpu.destroy();
    cpu.destroy();
  }
}

/**
 * The fail-safe's pile-up: 12 free triangles 5 cm apart above a pinned one (unit right triangles
 * in y = const planes), all falling at 5 m/s, no gravity, r = 2 cm, k = 1000 N/m, 1 kg particles;
 * with `far`, a 14th triangle at x = 10 m moving at 1 m/s along x, in no pair.
 */
export function pileUp(far = false): Model {
  const positions: number[] = [];
  const velocities: number[] = [];
  const triangle = (x: number, y: number, v: readonly number[]): void => {
    positions.push(x, y, 0, x + 1, y, 0, x, y, 1);
    velocities.push(...v, ...v, ...v);
  };
  triangle(0, 0, [0, 0, 0]);
  for (let layer = 1; layer <= 12; layer++) triangle(0, 0.05 * layer, [0, -5, 0]);
  if (far) triangle(10, 0, [1, 0, 0]);
  const n = positions.length / 3;
  return createModel({
    positions,
    velocities,
    masses: new Array<number>(n).fill(1),
    springPairs: [],
    springStiffness: 0,
    gravity: [0, 0, 0],
    triangles: Array.from({ length: n }, (_, i) => i),
    fixed: [0, 1, 2],
    selfCollision: { thickness: 0.02, stiffness: 1000 },
  });
}

/**
 * Triangle (0, 1, 2) pinned at y = 0; triangle (3, 4, 5) 5 cm above it, falling at 50 m/s; with
 * self-collision (true: r = 2 cm, k = 1000 N/m) or without.
 */
export function shot(selfCollision: boolean | SelfCollision): Model {
  const positions = [0, 0, 0, 1, 0, 0, 0, 0, 1, 0.3, 0.05, 0.3, 0.3, 0.25, 1.3, 1.3, 0.25, 0.3];
  return createModel({
    positions,
    velocities: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -50, 0, 0, -50, 0, 0, -50, 0],
    masses: [1, 1, 1, 1, 1, 1],
    springPairs: [0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3],
    springStiffness: 0,
    gravity: [0, 0, 0],
    triangles: [0, 1, 2, 3, 4, 5],
    fixed: [0, 1, 2],
    ...(selfCollision
      ? { selfCollision: selfCollision === true ? { thickness: 0.02, stiffness: 1000 } : selfCollision }
      : {}),
  });
}

/**
 * A vertex (3, of triangle (3, 4, 5) whose other corners are pinned 0.8 m up) falling at 10 m/s
 * from 0.6 m onto triangle (0, 1, 2), pinned flat at y = 0, above its inside (0.3, 0, 0.3): unit
 * masses, springs of stiffness 0, no gravity, self-collision r = 2 cm, k = 1000 N/m. At h = 1/60 s
 * the fail-safe shortens its moves at steps 4–7 and the pairs' repulsion then pushes it back up.
 */
export function vertexOntoPinnedTriangle(): Model {
  const [gap, speed] = [0.6, 10];
  return createModel({
    positions: [0, 0, 0, 1, 0, 0, 0, 0, 1, 0.3, gap, 0.3, 0.3, gap + 0.2, 1.3, 1.3, gap + 0.2, 0.3],
    velocities: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -speed, 0, 0, 0, 0, 0, 0, 0],
    masses: [1, 1, 1, 1, 1, 1],
    springPairs: [0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3],
    springStiffness: 0,
    gravity: [0, 0, 0],
    triangles: [0, 1, 2, 3, 4, 5],
    fixed: [0, 1, 2, 4, 5],
    selfCollision: { thickness: 0.02, stiffness: 1000 },
  });
}
