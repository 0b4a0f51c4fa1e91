/**
 * Attachments on the CPU reference (issue 13, part 2): teleports, pins, releases and kinematic
 * targets, each checked against something independent of the code under test — a fresh simulation
 * created at the changed state (or with the particle free from the start), the closed form
 * y₀ − ½ g t², and the analytic motion of a spring dragged at constant speed.
 */
import { describe, expect, test } from 'vitest';
import {
  buildCloth,
  createModel,
  createSimulation,
  WeftInputError,
  type FixedStepIntegratorName,
  type Model,
  type Simulation,
} from '../src/index.ts';
import { maxAbsError } from './helpers/expect-close.ts';

const cloth = buildCloth({ nx: 5, ny: 5, spacing: 0.1, particleMass: 0.01, structuralStiffness: 100, shearStiffness: 50, bendStiffness: 10, damping: 0.01, orientation: 'vertical' }); // prettier-ignore

/** Integrators × a step each is stable with on this cloth. */
const CASES: [FixedStepIntegratorName, number, Record<string, unknown>][] = [
  ['explicit-euler', 2e-4, {}],
  ['symplectic-euler', 1e-3, {}],
  ['rk4', 1e-3, {}],
  ['central-difference', 1e-3, {}],
  ['variational-symplectic', 1e-3, {}],
  ['adams-bashforth-2', 5e-4, {}],
  ['adams-moulton-pc', 5e-4, {}],
  ['heun-implicit', 5e-4, {}],
  ['implicit-euler', 1e-2, { solver: 'pcg', tolerance: 1e-10 }],
  ['implicit-euler', 1e-2, { solver: 'multigrid', tolerance: 1e-10 }],
  ['backward-euler', 1e-2, { solver: 'cg', tolerance: 1e-10 }],
  ['newmark', 1e-2, { solver: 'pcg', tolerance: 1e-10 }],
  ['variational-symplectic-implicit', 1e-2, { solver: 'pcg', tolerance: 1e-10 }],
];

/** `model` with another state and fixed set (springs, masses and rest lengths kept). */
function remake(model: Model, positions: ArrayLike<number>, velocities: ArrayLike<number>, fixed: number[]): Model {
  return createModel({
    positions,
    velocities,
    masses: model.particleMass,
    fixed,
    springPairs: model.springIndices,
    springStiffness: model.springStiffness,
    springRestLengths: model.springRestLength,
    springDamping: model.springDamping,
    gravity: model.gravity,
  });
} // prettier-ignore

const fixedOf = (model: Model): number[] =>
  [...model.particleFixed.keys()].filter((i) => model.particleFixed[i]);

const make = (model: Model, integrator: FixedStepIntegratorName, dt: number, extra: Record<string, unknown>): Promise<Simulation> =>
  createSimulation(model, { integrator, dt, ...extra } as Parameters<typeof createSimulation>[1]); // prettier-ignore

describe.each(CASES)('%s (dt %s, %o)', (integrator, dt, extra) => {
  test('teleport, then step = a fresh simulation created at the teleported state', async () => {
    const sim = await make(cloth, integrator, dt, extra);
    sim.step(7);
    const before = await sim.readState();
    const indices = [3, 7, 12];
    const positions = [0.05, 0.2, 0.01, 0.3, 0.1, -0.02, 0.2, 0.25, 0.03];
    const velocities = [0.1, 0, -0.2, 0, 0.5, 0, -0.1, 0.1, 0.1];
    sim.setParticles({ indices, positions, velocities });
    const x = Float64Array.from(before.positions);
    const v = Float64Array.from(before.velocities);
    indices.forEach((i, k) => {
      x.set(positions.slice(3 * k, 3 * k + 3), 3 * i);
      v.set(velocities.slice(3 * k, 3 * k + 3), 3 * i);
    });
    const fresh = await make(remake(cloth, x, v, fixedOf(cloth)), integrator, dt, extra);
    sim.step(9);
    fresh.step(9);
    const [a, b] = [await sim.readState(), await fresh.readState()];
    // The same operations on the same numbers: equal to float64 rounding.
    expect(maxAbsError(a.positions, b.positions).error).toBeLessThanOrEqual(1e-12);
    expect(maxAbsError(a.velocities, b.velocities).error).toBeLessThanOrEqual(1e-12);
  });

  test('a pinned particle stays exactly put; released, it moves as one that was always free', async () => {
    const sim = await make(cloth, integrator, dt, extra);
    sim.step(5);
    const pinned = 12;
    sim.pin([pinned]);
    const at = (await sim.readState()).positions.slice(3 * pinned, 3 * pinned + 3);
    sim.step(11);
    const state = await sim.readState();
    expect(Array.from(state.positions.slice(3 * pinned, 3 * pinned + 3))).toEqual(Array.from(at));
    expect(Array.from(state.velocities.slice(3 * pinned, 3 * pinned + 3))).toEqual([0, 0, 0]);
    // Released with a corner fixed at creation: both move as in a model where they were free.
    const corner = fixedOf(cloth)[0]!;
    sim.release([corner, pinned]);
    const free = await make(remake(cloth, state.positions, state.velocities, fixedOf(cloth).filter((i) => i !== corner)), integrator, dt, extra); // prettier-ignore
    sim.step(8);
    free.step(8);
    const [a, b] = [await sim.readState(), await free.readState()];
    expect(maxAbsError(a.positions, b.positions).error).toBeLessThanOrEqual(1e-12);
    expect(await sim.readSolverStats().then((s) => s?.unconvergedSolves ?? 0)).toBe(0);
  });

  test('a kinematic particle is on its target after every call', async () => {
    const sim = await make(cloth, integrator, dt, extra);
    const grabbed = 22;
    const start = cloth.particlePositions.slice(3 * grabbed, 3 * grabbed + 3);
    sim.setTargets([grabbed], start);
    for (let frame = 1; frame <= 6; frame++) {
      const target = [start[0]! + 0.02 * frame, start[1]! + 0.01 * Math.sin(frame), start[2]! - 0.01 * frame];
      sim.setTargets([grabbed], target);
      sim.step(4);
      const state = await sim.readState();
      expect(Array.from(state.positions.slice(3 * grabbed, 3 * grabbed + 3))).toEqual(target);
    }
    expect(await sim.readSolverStats().then((s) => s?.unconvergedSolves ?? 0)).toBe(0);
  });
});

test.each(['symplectic-euler', 'implicit-euler'] as const)(
  '%s: a target set before step(0) is reached over the next call that takes steps, not at the empty call',
  async (integrator) => {
    // One kinematic particle, no forces. Its target moves 0.2 m along x, then step(0) (no time
    // passes), then step(4): over those 4 steps it moves at v = 0.2 / (4 h) (a kinematic particle's
    // velocity over a call: (target − from) / (steps h)) and ends on the target. Taking the new
    // target as reached in the empty call instead leaves it at rest through step(4).
    const dt = 0.01;
    const model = createModel({ positions: [0, 0, 0], masses: [1], springPairs: [], springStiffness: 0, gravity: [0, 0, 0] }); // prettier-ignore
    const sim = await createSimulation(model, { integrator, dt });
    sim.setTargets([0], [0, 0, 0]);
    sim.setTargets([0], [0.2, 0, 0]);
    sim.step(0);
    sim.step(4);
    const { positions, velocities } = await sim.readState();
    expect(Array.from(positions)).toEqual([0.2, 0, 0]);
    expect(velocities[0]).toBeCloseTo(0.2 / (4 * dt), 12);
    expect([velocities[1], velocities[2]]).toEqual([0, 0]);
    sim.destroy();
  },
);

test.each(['symplectic-euler', 'implicit-euler'] as const)(
  '%s: a kinematic particle teleported by setParticles starts its next path from where it was put',
  async (integrator) => {
    // Two kinematic particles, no forces. Both are put somewhere else (setParticles), then given
    // targets: over the next step(4) each moves at v = (target − set position) / (4 h) and ends on
    // its target (src/backends/common/attachments.ts: the set position is the path's start).
    const dt = 0.01;
    const model = createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], springPairs: [], springStiffness: 0, gravity: [0, 0, 0] }); // prettier-ignore
    const sim = await createSimulation(model, { integrator, dt });
    sim.setTargets([0, 1], [0, 0, 0, 1, 0, 0]);
    const set = [0.1, 0.2, 0.3, 1.4, 0.5, 0.6];
    sim.setParticles({ indices: [0, 1], positions: set });
    const target = [0.5, -0.2, 0.7, 1.0, 0.9, -0.2];
    sim.setTargets([0, 1], target);
    sim.step(4);
    const { positions, velocities } = await sim.readState();
    for (let c = 0; c < 6; c++) {
      expect(positions[c]).toBeCloseTo(target[c]!, 12);
      expect(velocities[c]).toBeCloseTo((target[c]! - set[c]!) / (4 * dt), 9);
    }
    sim.destroy();
  },
);

test('a released particle falls by ½ g t² (rk4 integrates constant acceleration exactly)', async () => {
  const model = createModel({ positions: [0, 1, 0, 1, 1, 0], masses: [0.5, 0.5], fixed: [0, 1], springPairs: [0, 1], springStiffness: 10 }); // prettier-ignore
  const sim = await createSimulation(model, { integrator: 'rk4', dt: 1e-3 });
  sim.step(10);
  sim.release([0, 1]);
  sim.step(500);
  const t = 0.5;
  const { positions } = await sim.readState();
  // Both fall together: the spring keeps its rest length.
  expect(positions[1]! - (1 - 0.5 * 9.81 * t * t)).toBeCloseTo(0, 12);
  expect(positions[4]! - (1 - 0.5 * 9.81 * t * t)).toBeCloseTo(0, 12);
});

/**
 * Particle 0 dragged at constant speed u along a spring (k, L) to particle 1 (mass m, no gravity):
 * s = x₁ − x₀ − L obeys s'' = −ω² s, s(0) = 0, s'(0) = −u, so s = −(u/ω) sin ωt and the spring's
 * force on particle 1 is −k s = (k u/ω) sin ωt.
 */
const [k, m, L, u] = [40, 0.1, 0.5, 0.3];
const omega = Math.sqrt(k / m);
const T = 0.6; // 60 calls of 10 ms each
describe.each([
  // The schemes' own errors on an oscillator of ω over T, relative to the amplitude, each its
  // leading term allowed 1.5 times: RK4's phase error (ωh)⁴ ωT/120 = 1.6e-8 (measured 1.34e-8);
  // implicit Euler's damping ω²hT/2 = 1.2e-2 at h = 1e-4 (measured 1.09e-2); Newmark's phase
  // error ω³h²T/12 = 4e-4 (measured 3.4e-4).
  ['rk4', 1e-3, {}, (1.5 * (omega * 1e-3) ** 4 * omega * T) / 120],
  ['implicit-euler', 1e-4, { tolerance: 1e-12 }, (1.5 * omega * omega * 1e-4 * T) / 2],
  ['newmark', 1e-3, { tolerance: 1e-12 }, (1.5 * omega ** 3 * 1e-6 * T) / 12],
  // The implicit midpoint rule's phase error is the trapezoid's, ω³h²T/12 (the pinned particle
  // moved at its velocity within each call since 30 Nov 2026: before, it stood still and jumped).
  ['variational-symplectic-implicit', 1e-3, { tolerance: 1e-12 }, (1.5 * omega ** 3 * 1e-6 * T) / 12],
] as const)('%s: the spring force behind a dragged particle', (integrator, dt, extra, allowed) => {
  test('matches (k u / ω) sin ωt', async () => {
    const model = createModel({ positions: [0, 0, 0, L, 0, 0], masses: [m, m], springPairs: [0, 1], springStiffness: k, gravity: [0, 0, 0] }); // prettier-ignore
    const sim = await createSimulation(model, { integrator, dt, ...extra });
    sim.setTargets([0], [0, 0, 0]);
    const stepsPerFrame = Math.round(0.01 / dt);
    let worst = 0;
    for (let frame = 1; frame <= 60; frame++) {
      const t = frame * 0.01;
      sim.setTargets([0], [u * t, 0, 0]);
      sim.step(stepsPerFrame);
      const { positions } = await sim.readState();
      expect(positions[0]).toBe(u * t);
      const force = -k * (positions[3]! - positions[0]! - L);
      worst = Math.max(worst, Math.abs(force - ((k * u) / omega) * Math.sin(omega * t)));
    }
    // Relative to the force's amplitude k u / ω.
    expect(worst / ((k * u) / omega)).toBeLessThanOrEqual(allowed);
  });
});

describe('bad input names the field', () => {
  test.each([
    [{ indices: [0.5] }, 'indices[0]'],
    [{ indices: [0, 25] }, 'indices[1]'],
    [{ indices: [-1] }, 'indices[0]'],
    [{ indices: [2, 2] }, 'indices[1]'],
    [{ indices: 'abc' }, 'indices'],
    [{ indices: [1], positions: [0, 0] }, 'positions'],
    [{ indices: [1], positions: [0, NaN, 0] }, 'positions[1]'],
    [{ indices: [1], velocities: [0, 0, Infinity] }, 'velocities[2]'],
    [{ indices: [24], velocities: [0, 1, 0] }, 'velocities[1]'], // pinned at creation
    [null, 'update'],
  ])('setParticles(%o) → %s', async (update, field) => {
    const sim = await createSimulation(cloth, { integrator: 'rk4', dt: 1e-3 });
    const before = await sim.readState();
    expect(() => sim.setParticles(update as never)).toThrow(expect.objectContaining({ field }) as Error);
    expect(() => sim.setParticles(update as never)).toThrow(WeftInputError);
    // Nothing was written.
    expect((await sim.readState()).positions).toEqual(before.positions);
  });

  test('release of a mass-0 fixed particle, setTargets with too few numbers, velocity-implicit Euler', async () => {
    const model = createModel({ positions: [0, 0, 0, 1, 0, 0], masses: [0, 1], fixed: [0], springPairs: [0, 1], springStiffness: 1 }); // prettier-ignore
    const sim = await createSimulation(model, { integrator: 'rk4', dt: 1e-3 });
    expect(() => sim.release([1, 0])).toThrow(expect.objectContaining({ field: 'indices[1]' }) as Error);
    expect(() => sim.release([1, 0])).toThrow(
      /^indices\[1\]: particle 0 has mass 0, so it cannot be released/,
    );
    expect(() => sim.setTargets([1], [0, 0])).toThrow(
      expect.objectContaining({ field: 'positions' }) as Error,
    );
    expect(() => sim.pin([2])).toThrow(expect.objectContaining({ field: 'indices[0]' }) as Error);
    const adaptive = await createSimulation(model, { integrator: 'velocity-implicit-euler', accuracy: 1e-6 });
    // It takes the edits since 58ee9a6, with the same checks of its input.
    expect(() => adaptive.release([1, 0])).toThrow(expect.objectContaining({ field: 'indices[1]' }) as Error);
    // rk45 takes them (test/adaptive-attachments.test.ts), with the same checks of its input.
    const rk45 = await createSimulation(model, { integrator: 'rk45', accuracy: 1e-6 });
    expect(() => rk45.release([1, 0])).toThrow(expect.objectContaining({ field: 'indices[1]' }) as Error);
  });
});
