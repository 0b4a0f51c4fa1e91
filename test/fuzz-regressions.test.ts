/**
 * The minimal cases `npm run fuzz` (test/fuzz.test.ts) found in model input — each was a raw
 * TypeError or RangeError, or an error message of megabytes — kept as plain tests: every one is
 * now a WeftInputError naming its field, with a message a person can read.
 */
import { expect, test } from 'vitest';
import {
  buildCloth,
  buildRope,
  createModel,
  parseScene,
  WeftInputError,
  type ModelDescription,
} from '../src/index.ts';

const POINT = { positions: [0, 0, 0], masses: [1], springPairs: [], springStiffness: 0 };
const PAIR = { positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], springPairs: [0, 1], springStiffness: 10 };
const scene = (positions: unknown): unknown => ({
  particles: { positions, masses: [1] },
  springs: { pairs: [], stiffness: 1 },
});

/** `make` throws a WeftInputError whose field is `field` and whose message is one short line. */
function expectNamed(make: () => unknown, field: string): void {
  let thrown: unknown;
  try {
    make();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `no WeftInputError but ${String(thrown)}`).toBeInstanceOf(WeftInputError);
  const error = thrown as WeftInputError;
  expect(error.field).toBe(field);
  expect(error.message.startsWith(`${field}: `)).toBe(true);
  expect(error.message.length).toBeLessThan(300);
}

const deep = (depth: number): unknown => {
  let value: unknown = 0;
  for (let d = 0; d < depth; d++) value = [value];
  return value;
};
const cycle: Record<string, unknown> = {};
cycle['self'] = cycle;

test.each([
  ['an array nested 10⁴ deep (was RangeError: call stack)', [deep(10_000), 0, 0], 'particles.positions[0]'],
  ['an array nested 10⁵ deep', [deep(100_000), 0, 0], 'particles.positions[0]'],
  ['a cyclic object (was TypeError: circular structure)', [cycle, 0, 0], 'particles.positions[0]'],
  ['a BigInt (was TypeError: serialize a BigInt)', [10n, 0, 0], 'particles.positions[0]'],
  ['a string of 10 MB (was echoed whole)', ['x'.repeat(10_000_000), 0, 0], 'particles.positions[0]'],
  ['a string of 1 MB for the whole array', 'x'.repeat(1_000_000), 'particles.positions'],
])('parseScene: %s is named', (_, positions, field) => {
  expectNamed(() => parseScene(scene(positions)), field);
});

test.each([
  ['no springStiffness (was TypeError)', { ...POINT, springStiffness: undefined }, 'springStiffness'],
  ['springStiffness null (was TypeError)', { ...PAIR, springStiffness: null }, 'springs.stiffness'],
  ['springStiffness a string', { ...PAIR, springStiffness: '10' }, 'springs.stiffness'],
  [
    'positions claiming length −3 (was "masses must have −1 entries")',
    { ...POINT, positions: { length: -3 } },
    'positions',
  ],
  [
    'springPairs claiming length −2 (was RangeError)',
    { ...POINT, springPairs: { length: -2 } },
    'springPairs',
  ],
  ['springPairs claiming 3·10⁹ entries (12 GB were allocated before the check)', { ...PAIR, springPairs: { length: 3e9 } }, 'springs.pairs[0]'], // prettier-ignore
  ['a position without a prototype (was TypeError)', { ...POINT, positions: [Object.create(null), 0, 0] }, 'particles.positions[0]'], // prettier-ignore
  ['a Symbol spring index (was TypeError)', { ...PAIR, springPairs: [Symbol('a'), 1] }, 'springs.pairs[0]'],
  ['a Symbol fixed index (was TypeError)', { ...PAIR, fixed: [Symbol('a')] }, 'particles.fixed[0]'],
  ['fixed a number (was accepted as no fixed particles)', { ...PAIR, fixed: 5 }, 'particles.fixed'],
  ['velocities a string', { ...PAIR, velocities: 'abcdef' }, 'particles.velocities'],
  ['gravity a string of 3 characters', { ...PAIR, gravity: 'abc' }, 'gravity'],
])('createModel: %s is named', (_, description, field) => {
  expectNamed(() => createModel(description as unknown as ModelDescription), field);
});

test('createModel: optional arrays given as null are left out, as undefined is (was TypeError)', () => {
  const model = createModel({ ...PAIR, springRestLengths: null, velocities: null, fixed: null } as unknown as ModelDescription); // prettier-ignore
  expect(Array.from(model.springRestLength)).toEqual([1]);
  expect(Array.from(model.particleVelocities)).toEqual([0, 0, 0, 0, 0, 0]);
});

test.each([
  ['cloth options null (was TypeError)', () => buildCloth(null as never), 'cloth'],
  ['cloth options a number (was ignored)', () => buildCloth(5 as never), 'cloth'],
  ['rope options a string (was ignored)', () => buildRope('rope' as never), 'rope'],
  ['cloth pins a number (was TypeError: not iterable)', () => buildCloth({ nx: 2, ny: 2, pins: 5 as never }), 'cloth.pins'], // prettier-ignore
  [
    'cloth pins an object (was TypeError)',
    () => buildCloth({ nx: 2, ny: 2, pins: {} as never }),
    'cloth.pins',
  ],
  ['cloth pins a 10⁶-character name (was echoed whole)', () => buildCloth({ nx: 2, ny: 2, pins: 'x'.repeat(1e6) as never }), 'cloth.pins'], // prettier-ignore
  ['cloth origin a number (was TypeError)', () => buildCloth({ nx: 2, ny: 2, origin: 5 as never }), 'cloth.origin'], // prettier-ignore
  ['cloth origin with NaN', () => buildCloth({ nx: 2, ny: 2, origin: [NaN, 0, 0] }), 'cloth.origin'],
  ['cloth spacing a Symbol (was TypeError)', () => buildCloth({ nx: 2, ny: 2, spacing: Symbol('s') as never }), 'cloth.spacing'], // prettier-ignore
  ['cloth particleMass a string (was coerced to a number)', () => buildCloth({ nx: 2, ny: 2, particleMass: '0.1' as never }), 'cloth.particleMass'], // prettier-ignore
  ['cloth orientation without a prototype (was TypeError)', () => buildCloth({ nx: 2, ny: 2, orientation: Object.create(null) as never }), 'cloth.orientation'], // prettier-ignore
  ['cloth nx a Symbol (was TypeError)', () => buildCloth({ nx: Symbol('n') as never, ny: 2 }), 'cloth.nx'],
  ['rope direction an object (was TypeError: not iterable)', () => buildRope({ direction: {} as never }), 'rope.direction'], // prettier-ignore
  ['rope particleMass a BigInt (was TypeError)', () => buildRope({ particleMass: 1n as never }), 'rope.particleMass'], // prettier-ignore
  ['rope pins without a prototype (was TypeError)', () => buildRope({ pins: Object.create(null) as never }), 'rope.pins'], // prettier-ignore
])('builders: %s is named', (_, make, field) => {
  expectNamed(make, field);
});
