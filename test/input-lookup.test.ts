/**
 * Names are looked up as own properties only (issue 11): integrator names and rope pin presets that
 * happen to be Object.prototype's members are unknown names, and createSimulation without options
 * is a WeftInputError naming `options`, never a raw TypeError.
 */
import { expect, test } from 'vitest';
import {
  buildCloth,
  buildRope,
  createModel,
  createSimulation,
  WeftInputError,
  type ModelDescription,
} from '../src/index.ts';

const rope = buildRope({ particles: 3 });

test.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
  "integrator '%s' is an unknown integrator",
  async (name) => {
    const created = createSimulation(rope, { integrator: name as 'rk4', dt: 0.01 });
    await expect(created).rejects.toThrow(WeftInputError);
    await expect(createSimulation(rope, { integrator: name as 'rk4', dt: 0.01 })).rejects.toThrow(
      new RegExp(`^integrator: unknown integrator '${name}' \\(known: explicit-euler`),
    );
  },
);

test.each([undefined, null, 'rk4'])('createSimulation(model, %s) names the options', async (options) => {
  const created = (createSimulation as (m: unknown, o: unknown) => Promise<unknown>)(rope, options);
  await expect(created).rejects.toThrow(/^options: required: at least \{ integrator, dt \}/);
});

test.each(['toString', 'constructor', '__proto__'])("rope pins '%s' is an unknown preset", (pins) => {
  expect(() => buildRope({ particles: 3, pins: pins as 'first' })).toThrow(
    new RegExp(`^rope.pins: unknown preset '${pins}'`),
  );
});

test.each([
  [
    { masses: [1], springPairs: [], springStiffness: 0 },
    /^positions: required: an array of numbers, got undefined/,
  ],
  [{ positions: [0, 0, 0], springPairs: [], springStiffness: 0 }, /^masses: required/],
  [{ positions: [0, 0, 0], masses: [1], springStiffness: 0 }, /^springPairs: required/],
  [{ positions: 7, masses: [1], springPairs: [] }, /^positions: required: an array of numbers, got number/],
  [null, /^model: must be an object/],
])('createModel with a required array missing names it (%#)', (description, message) => {
  expect(() => createModel(description as unknown as ModelDescription)).toThrow(WeftInputError);
  expect(() => createModel(description as unknown as ModelDescription)).toThrow(message);
});

test('builders refuse sizes they could not allocate, naming the field, before allocating', () => {
  expect(() => buildCloth({ nx: 100_000, ny: 100_000 })).toThrow(/^cloth\.nx: nx × ny must be at most 16,777,216 particles \(4096²\), got 100000 × 100000/); // prettier-ignore
  expect(() => buildRope({ particles: 1e9 })).toThrow(
    /^rope\.particles: must be at most 16,777,216, got 1000000000/,
  );
});
