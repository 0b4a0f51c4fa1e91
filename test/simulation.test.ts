/**
 * One createSimulation for every integrator, through the public API: fixed-step and adaptive
 * simulations share step/advance/advanceTo/readState, and each refuses what it cannot do by name.
 */
import { describe, expect, test } from 'vitest';
import { createAdaptiveSimulation, createModel, createSimulation, WeftInputError } from '../src/index.ts';

/** A swinging spring: 0.7 kg at (0.3, −1.2, 0) m, k = 40 N/m, L = 1 m, gravity −9.81 m/s². */
const model = createModel({
  positions: [0, 0, 0, 0.3, -1.2, 0],
  velocities: [0, 0, 0, 0.4, 0, 0],
  masses: [1, 0.7],
  fixed: [0],
  springPairs: [0, 1],
  springStiffness: 40,
  springRestLengths: [1],
});

describe('createSimulation takes every integrator', () => {
  test('an adaptive integrator: advanceTo lands on t exactly, as createAdaptiveSimulation does', async () => {
    const simulation = await createSimulation(model, { integrator: 'rk45', accuracy: 1e-6 });
    const reference = await createAdaptiveSimulation(model, { integrator: 'rk45', accuracy: 1e-6 });
    await simulation.advanceTo(0.5);
    await reference.advanceTo(0.5);
    const [a, b] = [await simulation.readState(), await reference.readState()];
    expect(a.time).toBe(0.5);
    expect(Array.from(a.positions)).toEqual(Array.from(b.positions));
    // It moved (a frozen state would match itself too).
    expect(Math.abs(a.positions[3]! - 0.3)).toBeGreaterThan(0.05);
    expect(simulation.stepCount).toBeGreaterThan(5);
  });

  test('an adaptive integrator takes n accepted steps with advance(n), not step(n)', async () => {
    const simulation = await createSimulation(model, { integrator: 'step-doubling', scheme: 'rk4' });
    await simulation.advance(7);
    expect(simulation.stepCount).toBe(7);
    expect((await simulation.readState()).time).toBeGreaterThan(0);
    expect(() => simulation.step(1)).toThrow(WeftInputError);
  });

  test('a fixed-step integrator: advanceTo(t) takes (t − now)/dt steps, and refuses a t off its grid', async () => {
    const simulation = await createSimulation(model, { integrator: 'ralston', dt: 0.01 });
    await simulation.advanceTo(0.3);
    expect(simulation.stepCount).toBe(30);
    const other = await createSimulation(model, { integrator: 'ralston', dt: 0.01 });
    other.step(30);
    expect(Array.from((await simulation.readState()).positions)).toEqual(
      Array.from((await other.readState()).positions),
    );
    const error = await simulation.advanceTo(0.305).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftInputError);
    expect((error as WeftInputError).field).toBe('tEnd');
    await expect(simulation.advanceTo(0.1)).rejects.toThrow(/tEnd/);
  });
});
