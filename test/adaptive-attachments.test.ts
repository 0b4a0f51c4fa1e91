/**
 * Attachments with rk45, step doubling and velocity-implicit Euler on the CPU (issue 13; src/simulation/adaptive-edits.ts):
 * teleport, pin, release and kinematic targets reached over each advanceTo(t), as a fixed-step
 * simulation reaches them over each call. References: free fall in closed form (both schemes are
 * exact under a constant acceleration), and fixed-step RK4 at h = 1/30 ms driven by the same targets
 * over the same call durations (the kinematic particle then moves at the same constant velocity).
 */
import { describe, expect, test } from 'vitest';
import {
  createAdaptiveSimulation,
  createModel,
  createSimulation,
  type AdaptiveOptions,
  type Model,
  type Simulation,
} from '../src/index.ts';
import { expectClose } from './helpers/expect-close.ts';
import { AdaptiveEdits } from '../src/internal.ts';

const G = 9.81;
/** Two particles 0.3 m apart on a spring (k = 40 N/m, 0.1 kg each), the first to be driven. */
function driven(): Model {
  return createModel({ positions: [0, 0, 0, 0, -0.3, 0], masses: [0.1, 0.1], springPairs: [0, 1], springStiffness: 40, springRestLengths: [0.25] }); // prettier-ignore
}
/** The driven particle's target at time t: a circle of 0.1 m radius in x–z, once around in 0.5 s. */
const target = (t: number): number[] => [
  0.1 * Math.sin(4 * Math.PI * t),
  0,
  0.1 * (1 - Math.cos(4 * Math.PI * t)),
];

/** `calls` calls of `duration` s: each simulation's setTargets(particle 0, target(t)), then `run(t)` to the call's end t. */
async function drive(simulations: Pick<Simulation, 'setTargets'>[], calls: number, duration: number, run: (t: number) => Promise<void>) {
  for (let c = 1; c <= calls; c++) {
    for (const simulation of simulations) simulation.setTargets!([0], target(c * duration));
    await run(c * duration);
  }
} // prettier-ignore

describe.each([
  ['rk45', { integrator: 'rk45', accuracy: 1e-9 }],
  ['step-doubling(rk4)', { integrator: 'step-doubling', scheme: 'rk4', accuracy: 1e-9 }],
] as [string, AdaptiveOptions][])('%s', (_, options) => {
  test('a particle driven along targets over each advanceTo: exactly on them, its neighbour as RK4 says', async () => {
    const model = driven();
    const simulation = await createAdaptiveSimulation(model, options);
    const reference = await createSimulation(model, { integrator: 'rk4', dt: 1 / 30000 });
    const duration = 1 / 30;
    await drive([simulation, reference], 15, duration, async (t) => {
      await simulation.advanceTo(t);
      await reference.advance(1000); // 1000 h = the call's 1/30 s
      const [state, exact] = [await simulation.readState(), await reference.readState()];
      // The driven particle ends each call exactly on its target (put there, not summed up to it).
      expect(Array.from(state.positions.subarray(0, 3))).toEqual(target(t));
      // Same ODE (the driven particle at the same constant velocity in each call): RK4's O(h⁴) at 1/30 ms is
      // ~1e-12 m here, the adaptive runs' 1e-9 a step over ~10 steps a call (measured ≤ 1.2e-9 m).
      expectClose(state.positions, exact.positions, 2e-8, `positions at ${t} s vs RK4 (m)`);
    });
    // The neighbour was swung: it left its start by more than the circle's radius / 10.
    const { positions } = await simulation.readState();
    expect(Math.hypot(positions[3]!, positions[4]! + 0.3, positions[5]!)).toBeGreaterThan(0.01);
    reference.destroy();
  });
});

test('a pending target refuses advance(n), naming setTargets', async () => {
  const simulation = await createAdaptiveSimulation(driven(), { integrator: 'rk45', accuracy: 1e-6 });
  simulation.setTargets([0], [0, 0, 0]); // kinematic: placed there at once
  await simulation.advance(1);
  simulation.setTargets([0], [0.1, 0, 0]);
  await expect(simulation.advance(1)).rejects.toThrow(expect.objectContaining({ name: 'WeftInputError', field: 'setTargets' })); // prettier-ignore
  await simulation.advanceTo(simulation.time + 0.1);
  await simulation.advance(2); // reached: advance(n) runs, the particle held on its target
  expect(Array.from((await simulation.readState()).positions.subarray(0, 3))).toEqual([0.1, 0, 0]);
  expect(() => simulation.pin([7])).toThrow(/indices\[0\]/);
});

/** Free fall's height change after T s from a vertical velocity v₀, as each scheme's steps carry it. */
const H_VIE = 1 / 240;
const exactFall = (v0: number, T: number): number => v0 * T - 0.5 * G * T * T;
// Velocity-implicit Euler at maxStep h throughout (its estimate ¼ h² g = 4e-5 m is below the
// accuracy): two half steps of backward Euler carry gravity as x₊ = x + h v − ¾ h² g, so after N
// steps x = x₀ + v₀ T − ½ g T² − ¼ g h T (T = N h), to round-off.
const vieFall = (v0: number, T: number): number => exactFall(v0, T) - 0.25 * G * H_VIE * T;

describe.each([
  // rk45 and step doubling of RK4 are exact under a constant acceleration.
  ['rk45', { integrator: 'rk45', accuracy: 1e-9 }, exactFall, 12],
  ['step-doubling(rk4)', { integrator: 'step-doubling', scheme: 'rk4', accuracy: 1e-9 }, exactFall, 12],
  ['velocity-implicit-euler', { integrator: 'velocity-implicit-euler', accuracy: 1e-3, maxStep: H_VIE }, vieFall, 10],
] as [string, AdaptiveOptions, typeof exactFall, number][])('%s', (_, options, fall, digits) => {
  test('pin stops a falling particle where it is; release lets it fall again from rest', async () => {
    const model = createModel({ positions: [0, 1, 0], masses: [0.1], springPairs: [], springStiffness: 0 });
    const simulation = await createAdaptiveSimulation(model, options);
    await simulation.advanceTo(0.2);
    const fallen = (await simulation.readState()).positions[1]!;
    expect(fallen).toBeCloseTo(1 + fall(0, 0.2), digits);
    simulation.pin([0]);
    // The simulation's model says so; the model it was made from is not changed.
    expect([simulation.model.particleFixed[0], model.particleFixed[0]]).toEqual([1, 0]);
    await simulation.advanceTo(0.5);
    const pinned = await simulation.readState();
    expect(pinned.positions[1]).toBe(fallen);
    expect(Array.from(pinned.velocities)).toEqual([0, 0, 0]);
    simulation.release([0]);
    await simulation.advanceTo(0.8);
    expect((await simulation.readState()).positions[1]).toBeCloseTo(fallen + fall(0, 0.3), digits);
  });

  test('setParticles teleports: the next steps start from the written position and velocity', async () => {
    const model = createModel({ positions: [0, 1, 0], masses: [0.1], springPairs: [], springStiffness: 0 });
    const simulation = await createAdaptiveSimulation(model, options);
    await simulation.advanceTo(0.1);
    simulation.setParticles({ indices: [0], positions: [2, 5, 0], velocities: [1, 3, 0] });
    await simulation.advanceTo(0.4);
    const { positions, velocities } = await simulation.readState();
    // 0.3 s after the teleport, from (2, 5) at (1, 3) m/s.
    expect(positions[0]).toBeCloseTo(2 + 0.3, digits);
    expect(positions[1]).toBeCloseTo(5 + fall(3, 0.3), digits);
    expect(velocities[1]).toBeCloseTo(3 - G * 0.3, digits);
  });
}); // prettier-ignore

test('velocity-implicit Euler: a particle driven along targets: exactly on them, its neighbour as RK4 says to the scheme’s first order', async () => {
  const model = driven();
  const simulation = await createAdaptiveSimulation(model, {
    integrator: 'velocity-implicit-euler',
    accuracy: 1e-5,
  });
  const reference = await createSimulation(model, { integrator: 'rk4', dt: 1 / 30000 });
  let worst = 0;
  await drive([simulation, reference], 15, 1 / 30, async (t) => {
    await simulation.advanceTo(t);
    await reference.advance(1000);
    const [state, exact] = [await simulation.readState(), await reference.readState()];
    expect(Array.from(state.positions.subarray(0, 3))).toEqual(target(t));
    worst = Math.max(worst, ...state.positions.map((x, k) => Math.abs(x - exact.positions[k]!)));
  });
  // First order with an O(h²) estimate: measured 6.0e-4 m over 0.5 s of a ~0.1 m swing; without
  // the targets (the particle left where it was) the driven one alone is 0.1 m off.
  expect(worst).toBeLessThan(1.5e-3);
  reference.destroy();
  simulation.destroy();
});

describe('edits around a call', () => {
  test('after a failed advanceTo, a teleport is seen by the next attempt (rk45 evaluates k₁ again)', async () => {
    // A stiff spring (ω = 1000 rad/s) stretched 0.1 m fails accuracy at the only step allowed (10 ms).
    const model = createModel({ positions: [0, 0, 0, 1.1, 0, 0], masses: [1, 1], fixed: [0], springPairs: [0, 1], springStiffness: 1e6, springRestLengths: [1], gravity: [0, 0, 0] }); // prettier-ignore
    const simulation = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-9, minStep: 0.01, maxStep: 0.01, onMinStep: 'throw' }); // prettier-ignore
    await expect(simulation.advanceTo(0.05)).rejects.toThrow(expect.objectContaining({ name: 'WeftStepSizeError' })); // prettier-ignore
    // At its rest length and at rest the particle feels no force: it must stay exactly there.
    simulation.setParticles({ indices: [1], positions: [1, 0, 0], velocities: [0, 0, 0] });
    await simulation.advanceTo(simulation.time + 0.05);
    const { positions, velocities } = await simulation.readState();
    expect(Array.from(positions)).toEqual([0, 0, 0, 1, 0, 0]);
    expect(Array.from(velocities)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  test('an edit while advanceTo runs (from its progress callback) is refused, naming the call', async () => {
    const simulation = await createAdaptiveSimulation(driven(), { integrator: 'rk45', accuracy: 1e-6 });
    const run = simulation.advanceTo(0.1, () => simulation.pin([1]));
    await expect(run).rejects.toThrow(expect.objectContaining({ name: 'WeftInputError', field: 'pin()' }));
    const plane = await createAdaptiveSimulation(createModel({ positions: [0, 1, 0], masses: [0.1], springPairs: [], springStiffness: 0, colliders: [{ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] }] }), { integrator: 'rk45', accuracy: 1e-6 }); // prettier-ignore
    await expect(plane.advanceTo(0.1, () => plane.setColliderPose(0, { point: [0, 0.1, 0] }))).rejects.toThrow(expect.objectContaining({ field: 'setColliderPose()' })); // prettier-ignore
    simulation.pin([1]); // between calls it is taken
    await simulation.advanceTo(0.2);
    expect(Array.from((await simulation.readState()).velocities.subarray(3))).toEqual([0, 0, 0]);
  });

  test('advanceTo(now) with a new target pending leaves the particle where it is; the next call drives it', async () => {
    const simulation = await createAdaptiveSimulation(driven(), { integrator: 'rk45', accuracy: 1e-6 });
    simulation.setTargets([0], [0, 0, 0]);
    simulation.setTargets([0], [0.1, 0, 0]);
    await simulation.advanceTo(0);
    expect(Array.from((await simulation.readState()).positions.subarray(0, 3))).toEqual([0, 0, 0]);
    await simulation.advanceTo(0.1);
    const { positions, velocities } = await simulation.readState();
    expect(Array.from(positions.subarray(0, 3))).toEqual([0.1, 0, 0]);
    expect(velocities[0]).toBeCloseTo(0.1 / 0.1, 12); // it moved at (target − from) / 0.1 s
  });
});

test('a stepper that cannot take edits refuses them, naming fused or integrator', () => {
  // The refusal as AdaptiveEdits decides it from the stepper (here one without invalidate) and whether it is fused.
  for (const [integrator, fused, field] of [['velocity-implicit-euler', true, 'fused'], ['rk45', false, 'integrator'], ['rk45', true, 'fused']] as const) {
    const edits = new AdaptiveEdits(driven());
    edits.connect({}, edits.model, integrator, fused);
    expect(() => edits.pin([0])).toThrow(expect.objectContaining({ name: 'WeftInputError', field }));
  }
}); // prettier-ignore
