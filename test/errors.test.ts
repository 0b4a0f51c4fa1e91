import { describe, expect, test } from 'vitest';
import {
  buildRope,
  createAdaptiveSimulation,
  createSimulation,
  WeftDivergenceError,
  WeftError,
  WeftInputError,
  WeftStepSizeError,
  createModel,
} from '../src/index.ts';

// Every error Weft throws on purpose shares one base with a code and a field, so a caller (and
// the CLI) can handle them all in one place.
describe('WeftError', () => {
  const rope = buildRope({ particles: 4 });

  test('bad input: code input, the field named', async () => {
    const error = await createSimulation(rope, { integrator: 'rk4', dt: -1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftInputError);
    expect(error).toBeInstanceOf(WeftError);
    expect((error as WeftError).code).toBe('input');
    expect((error as WeftError).field).toBe('dt');
  });

  test('a diverged state: code divergence, with the step and particle in details', async () => {
    const model = createModel({
      positions: [0, 0, 0, 1.1, 0, 0],
      masses: [1, 1],
      fixed: [0],
      springPairs: [0, 1],
      springStiffness: 1e6,
      springRestLengths: [1],
      gravity: [0, 0, 0],
    });
    const simulation = await createSimulation(model, { integrator: 'explicit-euler', dt: 0.01 });
    simulation.step(2000);
    const error = await simulation.readState().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftDivergenceError);
    expect((error as WeftError).code).toBe('divergence');
    expect((error as WeftError).details).toEqual({ step: 2000, particle: 1 });
  });

  test('no step meets the accuracy at minStep: code step-size', async () => {
    const model = createModel({
      positions: [0, 0, 0, 1.1, 0, 0],
      masses: [1, 1],
      fixed: [0],
      springPairs: [0, 1],
      springStiffness: 1e10,
      springRestLengths: [1],
      gravity: [0, 0, 0],
    });
    const simulation = await createAdaptiveSimulation(model, { integrator: 'rk45', minStep: 0.01 });
    const error = await simulation.advanceTo(10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftStepSizeError);
    expect((error as WeftError).code).toBe('step-size');
    expect((error as WeftStepSizeError).reason).toBe('non-finite');
  });
});
