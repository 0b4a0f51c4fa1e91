/**
 * The fuzz cases of test/fuzz.test.ts (`npm run fuzz`), as fast-check arbitraries of plain data
 * (test/helpers/fuzz-run.ts runs them): random models made every public way (createModel,
 * buildCloth, buildRope, parseScene of a value or of JSON text), each valid or broken in one or two
 * places; createSimulation options from every row of the options table with valid and invalid
 * values; a few calls on the simulation with good and bad arguments; and `weft run` command lines.
 * Every case stays tiny (≤ 50 particles, ≤ 20 steps) so that thousands run in minutes.
 */
import fc from 'fast-check';
import { INTEGRATOR_NAMES, INTEGRATORS, OPTIONS } from '../../src/internal.ts';
import {
  SHARED_DEVICE,
  type FuzzCase,
  type ModelSource,
  type Op,
  type OptionsSource,
  type TextEdit,
  type Weird,
} from './fuzz-run.ts';

type Json = Record<string, unknown>;
const weird = (token: Weird): Weird => token;

/** `valid`, or `junk` with odds `junkOdds` : 1 (shrinks towards `valid`). */
function mostly<T, U>(valid: fc.Arbitrary<T>, junk: fc.Arbitrary<U>, junkOdds = 0.25): fc.Arbitrary<T | U> {
  return fc.oneof({ arbitrary: valid, weight: 20 }, { arbitrary: junk, weight: Math.round(20 * junkOdds) });
}

// ——— Bad values ————————————————————————————————————————————————————————————————————
/** Names that are members of Object.prototype, and near misses. */
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
];

/** Values a number field must refuse (or, for some, accept and survive). */
const JUNK_NUMBER = fc.constantFrom<unknown>(
  NaN, Infinity, -Infinity, -1, 0, -0, 1.5, 1e308, -1e308, 1e39, -1e39, 5e-324, 2 ** 53, 2 ** 32,
  '0x10', '1', '', 'NaN', 'constructor', true, false, null, [], [1], {},
  weird({ $weird: 'bigint' }), weird({ $weird: 'symbol' }), weird({ $weird: 'null-proto' }),
  weird({ $weird: 'function' }), weird({ $weird: 'date' }),
); // prettier-ignore

/** Values a name field (an integrator, a choice) must refuse. */
const JUNK_NAME = fc.constantFrom<unknown>(
  ...PROTOTYPE_NAMES, '', ' ', 'RK4', 'rk4 ', 'pcg\n', 'CPU', 'auto\u0000', 'x'.repeat(5000),
  1, 0, null, true, {}, ['rk4'], weird({ $weird: 'symbol' }), weird({ $weird: 'null-proto' }),
  weird({ $weird: 'bigint' }),
); // prettier-ignore

const JUNK_BOOLEAN = fc.constantFrom<unknown>('true', 'false', 0, 1, null, 'yes', {}, NaN);

/** Any bad value. */
const JUNK = fc.oneof(JUNK_NUMBER, JUNK_NAME, JUNK_BOOLEAN);

/** Values of a JSON document where a field was expected (deep, huge, wrong types). */
const JUNK_JSON = fc.oneof(
  { arbitrary: fc.constantFrom<unknown>(null, true, 'x', '1', 0, -1, 1e300, 1e39, [], {}, [[1]], [null], ['1'], { a: 1 }, [1e39, 0, 0]), weight: 6 }, // prettier-ignore
  {
    arbitrary: fc.record({
      $weird: fc.constant('deep' as const),
      depth: fc.constantFrom(3, 100, 5000, 100_000),
      shape: fc.constantFrom('array' as const, 'object' as const),
      leaf: fc.constantFrom<unknown>(0, 'x', null),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      $weird: fc.constant('huge' as const),
      length: fc.constantFrom(1000, 100_000, 1_000_000),
      fill: fc.constantFrom<unknown>(0, 1, 'x', null, 'x'.repeat(100)),
    }),
    weight: 1,
  },
  { arbitrary: fc.constantFrom<unknown>({ $weird: 'sparse', length: 6 }, 'x'.repeat(1_000_000)), weight: 1 },
);

/** JUNK_JSON plus what only a JavaScript caller can pass. */
const JUNK_VALUE = fc.oneof(
  { arbitrary: JUNK_JSON, weight: 4 },
  { arbitrary: JUNK, weight: 2 },
  {
    arbitrary: fc.constantFrom<unknown>(
      weird({ $weird: 'cycle' }), weird({ $weird: 'map' }),
      weird({ $weird: 'array-like', length: -3, fill: 0 }), weird({ $weird: 'array-like', length: 3e9, fill: 0 }),
      weird({ $weird: 'array-like', length: 1.5, fill: 0 }), weird({ $weird: 'array-like', length: 6, fill: 1 }),
      weird({ $weird: 'typed', values: [0, 1, 0, 1, 0, 0] }),
    ), // prettier-ignore
    weight: 1,
  },
);

// ——— Valid models ———————————————————————————————————————————————————————————————
/** A coordinate on a millimetre grid in [−3, 3] m (tiny and huge magnitudes come from the mutations). */
const coordinate = fc.integer({ min: -3000, max: 3000 }).map((mm) => mm / 1000);
const mass = fc.oneof(fc.constantFrom(0.01, 0.1, 1, 10), fc.double({ min: 1e-3, max: 100, noNaN: true }));
const stiffness = fc.constantFrom(0, 1, 10, 100, 1000, 10_000);

interface Particle {
  p: [number, number, number];
  m: number;
  fixed: boolean;
  v: [number, number, number] | null;
}

/** A valid description: up to 50 particles, springs between distinct particles. */
const validDescription: fc.Arbitrary<Json> = fc
  .record({
    particles: fc.array(
      fc.record({
        p: fc.tuple(coordinate, coordinate, coordinate),
        m: mass,
        fixed: fc.oneof(
          { arbitrary: fc.constant(false), weight: 6 },
          { arbitrary: fc.constant(true), weight: 1 },
        ),
        v: fc.option(fc.tuple(coordinate, coordinate, coordinate), { freq: 3 }),
      }),
      { minLength: 1, maxLength: 50 },
    ),
    springs: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 100 }),
    stiffness: fc.oneof(
      { arbitrary: stiffness, weight: 4 },
      { arbitrary: fc.constant('each' as const), weight: 1 },
    ),
    damping: fc.option(fc.constantFrom<unknown>(0, 0.1, 1, 10, 'each'), { freq: 2 }),
    restLengths: fc.option(fc.constantFrom(0.5, 1, 1.5), { freq: 4 }),
    gravity: fc.option(fc.tuple(coordinate, fc.integer({ min: -200, max: 200 }).map((g) => g / 10), coordinate), { freq: 2 }), // prettier-ignore
    velocities: fc.boolean(),
  })
  .map(({ particles, springs, stiffness: k, damping, restLengths, gravity, velocities }) => {
    const ps = particles as Particle[];
    const n = ps.length;
    const pairs = n < 2 ? [] : springs.flatMap(([a, b]) => [a % n, (a + 1 + (b % (n - 1))) % n]);
    const count = pairs.length / 2;
    const each = (values: readonly number[]): number[] => Array.from({ length: count }, (_, s) => values[s % values.length]!); // prettier-ignore
    const description: Json = {
      positions: ps.flatMap((p) => p.p),
      masses: ps.map((p) => p.m),
      springPairs: pairs,
      springStiffness: k === 'each' ? each([10, 100, 1000]) : k,
    };
    const fixed = ps.flatMap((p, i) => (p.fixed ? [i] : []));
    if (fixed.length > 0) description['fixed'] = fixed;
    if (velocities) description['velocities'] = ps.flatMap((p) => (p.fixed || !p.v ? [0, 0, 0] : p.v));
    if (damping !== null) description['springDamping'] = damping === 'each' ? each([0, 1]) : damping;
    if (restLengths !== null) {
      const x = description['positions'] as number[];
      description['springRestLengths'] = Array.from({ length: count }, (_, s) => {
        const [a, b] = [pairs[2 * s]!, pairs[2 * s + 1]!];
        return restLengths * Math.hypot(x[3 * a]! - x[3 * b]!, x[3 * a + 1]! - x[3 * b + 1]!, x[3 * a + 2]! - x[3 * b + 2]!); // prettier-ignore
      });
    }
    if (gravity !== null) description['gravity'] = gravity;
    return description;
  });

/** One change to a value at a path: set (an index is taken modulo the array's length), or delete. */
interface Mutation {
  path: readonly (string | number)[];
  value?: unknown;
  remove?: boolean;
}

function mutate(value: unknown, mutation: Mutation): unknown {
  if (mutation.path.length === 0) return mutation.remove ? undefined : mutation.value;
  const copy: unknown = structuredClone(value);
  let parent: unknown = copy;
  for (let d = 0; d < mutation.path.length; d++) {
    if (typeof parent !== 'object' || parent === null) return copy;
    let key = mutation.path[d]!;
    if (typeof key === 'number' && Array.isArray(parent)) {
      if (parent.length === 0) return copy;
      key = key % parent.length;
    }
    const container = parent as Record<string | number, unknown>;
    if (d === mutation.path.length - 1) {
      if (mutation.remove) delete container[key];
      else Object.defineProperty(container, key, { value: mutation.value, enumerable: true, writable: true, configurable: true }); // prettier-ignore
    } else {
      if (typeof container[key] !== 'object' || container[key] === null) container[key] = {};
      parent = container[key];
    }
  }
  return copy;
}

const applyAll = (value: unknown, mutations: readonly Mutation[]): unknown => mutations.reduce(mutate, value);

const index = fc.nat({ max: 200 });

/** A change that breaks (or stretches) a model description. */
const descriptionMutation: fc.Arbitrary<Mutation> = fc.oneof<fc.Arbitrary<Mutation>[]>(
  fc.record({ path: fc.tuple(fc.constant('positions'), index), value: JUNK_NUMBER }),
  fc.record({ path: fc.constant(['positions']), value: fc.oneof(JUNK_VALUE, fc.constant([]), fc.constant([0, 0, 0, 1])) }), // prettier-ignore
  fc.record({ path: fc.tuple(fc.constant('masses'), index), value: fc.constantFrom<unknown>(0, -1, -0, NaN, Infinity, 1e-300, 1e300, 1e39, '1', null) }), // prettier-ignore
  fc.record({ path: fc.constant(['masses']), value: fc.oneof(JUNK_VALUE, fc.constant([1])) }),
  fc.record({ path: fc.constant(['fixed']), value: fc.oneof(JUNK_VALUE, fc.constantFrom<unknown>([50], [-1], [1.5], [0, 0], [NaN], [2 ** 32], 'all', [0, 0, 0, 0])) }), // prettier-ignore
  fc.record({ path: fc.tuple(fc.constant('springPairs'), index), value: fc.constantFrom<unknown>(50, -1, 1.5, NaN, 2 ** 32, 2 ** 31, '0', null, 1e300) }), // prettier-ignore
  fc.record({ path: fc.constant(['springPairs']), value: fc.oneof(JUNK_VALUE, fc.constantFrom<unknown>([0], [0, 0], [0, 1, 1], [1, 0, 0, 1])) }), // prettier-ignore
  fc.record({ path: fc.constant(['springStiffness']), value: fc.oneof(JUNK_NUMBER, fc.constantFrom<unknown>(1e300, 1e12, 1e-300, [1], [-1, -1, -1])) }), // prettier-ignore
  fc.record({ path: fc.constant(['springRestLengths']), value: fc.oneof(JUNK_VALUE, fc.constantFrom<unknown>([0], [-1], [NaN], [1e300], [1e-300])) }), // prettier-ignore
  fc.record({ path: fc.constant(['springDamping']), value: fc.oneof(JUNK_NUMBER, fc.constantFrom<unknown>([-1], 1e300, [1, 2, 3])) }), // prettier-ignore
  fc.record({ path: fc.tuple(fc.constant('velocities'), index), value: JUNK_NUMBER }),
  fc.record({ path: fc.constant(['velocities']), value: fc.oneof(JUNK_VALUE, fc.constant([1, 0, 0])) }),
  fc.record({ path: fc.constant(['gravity']), value: fc.oneof(JUNK_VALUE, fc.constantFrom<unknown>([0, 0], [NaN, 0, 0], [0, -1e300, 0], [1e39, 0, 0], 'down', [0, 0, 0, 0])) }), // prettier-ignore
  fc.record({ path: fc.constantFrom(['positions'], ['masses'], ['springPairs'], ['springStiffness']), remove: fc.constant(true) }), // prettier-ignore
  fc.record({ path: fc.constant([]), value: JUNK_VALUE }),
  fc.record({ path: fc.constantFrom(['extra'], ['__proto__'], ['constructor']), value: JUNK_VALUE }),
);

// Valid but extreme: huge or tiny magnitudes, which run (f64) or must be refused (f32, WebGPU).
const extremeMutation: fc.Arbitrary<Mutation> = fc.oneof<fc.Arbitrary<Mutation>[]>(
  fc.record({ path: fc.tuple(fc.constant('positions'), index), value: fc.constantFrom(1e300, -1e300, 1e39, 1e20, 1e-300, 5e-324, -0) }), // prettier-ignore
  fc.record({ path: fc.constant(['springStiffness']), value: fc.constantFrom(1e300, 1e39, 1e12, 1e-300) }),
  fc.record({ path: fc.tuple(fc.constant('masses'), index), value: fc.constantFrom(1e-300, 1e-30, 1e39, 1e300) }), // prettier-ignore
  fc.record({ path: fc.constant(['gravity']), value: fc.constantFrom([0, -1e39, 0], [0, -1e300, 0], [1e10, 0, 0]) }), // prettier-ignore
  fc.record({ path: fc.tuple(fc.constant('velocities'), index), value: fc.constantFrom(1e300, 1e39, -1e20) }),
);

const descriptionSource: fc.Arbitrary<ModelSource> = fc
  .record({
    base: validDescription,
    mutations: fc.oneof(
      { arbitrary: fc.constant([]), weight: 5 },
      { arbitrary: fc.array(descriptionMutation, { minLength: 1, maxLength: 2 }), weight: 4 },
      { arbitrary: fc.array(extremeMutation, { minLength: 1, maxLength: 1 }), weight: 1 },
    ),
  })
  .map(({ base, mutations }) => ({ kind: 'description', description: applyAll(base, mutations) }));

// ——— Builders ———————————————————————————————————————————————————————————————————
const JUNK_COUNT = fc.constantFrom<unknown>(0, 1, -1, 1.5, NaN, Infinity, 1e9, 65_536, 2 ** 53, '4', null, 1e300); // prettier-ignore
const JUNK_VECTOR = fc.constantFrom<unknown>([NaN, 0, 0], [0, 0], 'o', [1e300, 0, 0], [0, 0, 0], [1e300, 1e300, 0], [5e-324, 0, 0], null, {}); // prettier-ignore

/** A record whose every field is absent or valid, and sometimes junk. */
function options(fields: Record<string, fc.Arbitrary<unknown>>, required: string[]): fc.Arbitrary<unknown> {
  const record = fc.record(
    Object.fromEntries(Object.entries(fields).map(([key, valid]) => [key, mostly(valid, JUNK_VALUE, 0.1)])),
    { requiredKeys: required },
  );
  return mostly(record, JUNK_VALUE, 0.05);
}

const clothOptions = options(
  {
    nx: fc.integer({ min: 2, max: 7 }),
    ny: fc.integer({ min: 2, max: 7 }),
    spacing: fc.constantFrom(0.05, 0.1, 1),
    particleMass: fc.constantFrom(0.01, 0.1, 1),
    structuralStiffness: stiffness,
    shearStiffness: stiffness,
    bendStiffness: stiffness,
    damping: fc.constantFrom(0, 1, 10),
    pins: fc.oneof(
      fc.constantFrom('none', 'top-corners', 'top-edge', 'corners'),
      fc.array(fc.nat({ max: 3 }), { maxLength: 3 }),
    ),
    orientation: fc.constantFrom('horizontal', 'vertical'),
    origin: fc.tuple(coordinate, coordinate, coordinate),
    gravity: fc.tuple(coordinate, coordinate, coordinate),
  },
  ['nx', 'ny'],
);
const clothSource: fc.Arbitrary<ModelSource> = fc
  .tuple(clothOptions, fc.option(fc.record({ nx: JUNK_COUNT, ny: JUNK_COUNT }, { requiredKeys: [] }), { freq: 3 }))
  .map(([cloth, sizes]) => ({ kind: 'cloth', options: sizes && typeof cloth === 'object' && cloth !== null ? { ...cloth, ...sizes } : cloth })); // prettier-ignore

const ropeOptions = options(
  {
    particles: fc.integer({ min: 2, max: 50 }),
    spacing: fc.constantFrom(0.05, 0.1, 1),
    particleMass: fc.constantFrom(0.01, 0.1, 1),
    stiffness,
    damping: fc.constantFrom(0, 1, 10),
    direction: fc.oneof(fc.constantFrom([1, 0, 0], [0, -1, 0], [1, 1, 1]), JUNK_VECTOR),
    pins: fc.oneof(fc.constantFrom('none', 'first', 'both'), fc.constantFrom(...PROTOTYPE_NAMES)),
    gravity: fc.tuple(coordinate, coordinate, coordinate),
  },
  ['particles'],
);
const ropeSource: fc.Arbitrary<ModelSource> = fc
  .tuple(ropeOptions, fc.option(JUNK_COUNT, { freq: 4 }))
  .map(([rope, particles]) => ({ kind: 'rope', options: particles !== null && typeof rope === 'object' && rope !== null ? { ...rope, particles } : rope })); // prettier-ignore

// ——— Scenes ———————————————————————————————————————————————————————————————————
/** A valid scene: explicit particles and springs, or a builder. */
const validScene: fc.Arbitrary<Json> = fc.oneof(
  {
    arbitrary: validDescription.map((d) => {
      const particles: Json = { positions: d['positions'], masses: d['masses'] };
      if (d['fixed']) particles['fixed'] = d['fixed'];
      if (d['velocities']) particles['velocities'] = d['velocities'];
      const springs: Json = { pairs: d['springPairs'], stiffness: d['springStiffness'] };
      if (d['springRestLengths']) springs['restLengths'] = d['springRestLengths'];
      if (d['springDamping'] !== undefined) springs['damping'] = d['springDamping'];
      return d['gravity'] ? { particles, springs, gravity: d['gravity'] } : { particles, springs };
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ nx: fc.integer({ min: 2, max: 7 }), ny: fc.integer({ min: 2, max: 7 }), pins: fc.constantFrom('none', 'corners', 'top-edge') }, { requiredKeys: ['nx', 'ny'] }).map((cloth) => ({ cloth })), // prettier-ignore
    weight: 1,
  },
  {
    arbitrary: fc.record({ particles: fc.integer({ min: 2, max: 50 }), pins: fc.constantFrom('none', 'first', 'both') }, { requiredKeys: ['particles'] }).map((rope) => ({ rope })), // prettier-ignore
    weight: 1,
  },
);

const SCENE_PATHS: (string | number)[][] = [
  [], ['particles'], ['particles', 'positions'], ['particles', 'masses'], ['particles', 'fixed'],
  ['particles', 'velocities'], ['springs'], ['springs', 'pairs'], ['springs', 'stiffness'],
  ['springs', 'restLengths'], ['springs', 'damping'], ['gravity'], ['cloth'], ['rope'],
  ['cloth', 'nx'], ['cloth', 'pins'], ['cloth', 'origin'], ['cloth', 'orientation'], ['rope', 'particles'],
  ['rope', 'pins'], ['rope', 'direction'], ['extra'], ['__proto__'], ['constructor'], ['particles', '__proto__'],
  ['springs', 'toString'], ['cloth', 'constructor'], [''], ['particles', ''],
]; // prettier-ignore

const sceneMutation = (junk: fc.Arbitrary<unknown>): fc.Arbitrary<Mutation> =>
  fc.oneof(
    { arbitrary: fc.record({ path: fc.constantFrom(...SCENE_PATHS), value: junk }), weight: 4 },
    { arbitrary: fc.record({ path: fc.tuple(fc.constantFrom('positions', 'masses', 'fixed'), index).map(([f, i]) => ['particles', f, i]), value: junk }), weight: 2 }, // prettier-ignore
    { arbitrary: fc.record({ path: fc.tuple(fc.constantFrom('pairs', 'stiffness', 'restLengths'), index).map(([f, i]) => ['springs', f, i]), value: junk }), weight: 2 }, // prettier-ignore
    { arbitrary: fc.record({ path: fc.constantFrom(...SCENE_PATHS), remove: fc.constant(true) }), weight: 1 },
  );

const sceneSource: fc.Arbitrary<ModelSource> = fc
  .record({ base: validScene, mutations: fc.array(sceneMutation(JUNK_VALUE), { maxLength: 2 }) })
  .map(({ base, mutations }) => ({ kind: 'scene', scene: applyAll(base, mutations) }));

const textEdit: fc.Arbitrary<TextEdit> = fc.oneof(
  fc.constant({ edit: 'bom' as const }),
  fc.record({ edit: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    edit: fc.constant('insert' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    text: fc.constantFrom(',', '}', ']', '"', 'NaN', 'Infinity', '-', '\u0000', '/*c*/', ',,', '{"__proto__":1}', '1e999', '\uFEFF'), // prettier-ignore
  }),
  fc.record({
    edit: fc.constant('number' as const),
    index: fc.nat({ max: 300 }),
    text: fc.constantFrom('NaN', 'Infinity', '0x10', '1e999', '-1e999', '-0', '1e-400', '01', '.5', '5.', '+1', '1_0', '"1"', 'null', 'true', '[]', '{}', '1e39', '4294967296'), // prettier-ignore
  }),
  fc.record({ edit: fc.constant('wrap' as const), depth: fc.constantFrom(1, 100, 10_000, 100_000) }),
);

const sceneTextSource: fc.Arbitrary<ModelSource> = fc
  .record({
    base: validScene,
    mutations: fc.array(sceneMutation(JUNK_JSON), { maxLength: 1 }),
    edits: fc.array(textEdit, { maxLength: 3 }),
  })
  .map(({ base, mutations, edits }) => ({ kind: 'scene-text', scene: applyAll(base, mutations), edits }));

/** Every way of making a model, valid or not. */
export const modelSource: fc.Arbitrary<ModelSource> = fc.oneof(
  { arbitrary: descriptionSource, weight: 9 },
  { arbitrary: clothSource, weight: 2 },
  { arbitrary: ropeSource, weight: 2 },
  { arbitrary: sceneSource, weight: 4 },
  { arbitrary: sceneTextSource, weight: 3 },
);

/** A small valid model (for the cases that vary the options). */
const validModel: fc.Arbitrary<ModelSource> = fc.oneof(
  { arbitrary: validDescription.map((description) => ({ kind: 'description' as const, description })), weight: 3 }, // prettier-ignore
  { arbitrary: fc.record({ nx: fc.integer({ min: 2, max: 6 }), ny: fc.integer({ min: 2, max: 6 }), pins: fc.constantFrom('none', 'corners') }).map((options) => ({ kind: 'cloth' as const, options })), weight: 1 }, // prettier-ignore
  { arbitrary: fc.record({ particles: fc.integer({ min: 2, max: 30 }) }).map((options) => ({ kind: 'rope' as const, options })), weight: 1 }, // prettier-ignore
);

// ——— Options —————————————————————————————————————————————————————————————————————
/**
 * Valid values of the options whose default would make a case slow or whose range alone says
 * too little; every other option's valid values come from its row of the table.
 */
const VALID: Record<string, readonly unknown[]> = {
  dt: [1e-4, 1e-3, 1 / 240, 1 / 60, 0.05],
  rayleighMass: [0, 0.1, 1, 100, 1e6],
  rayleighStiffness: [0, 1e-4, 0.01, 1],
  workgroupSize: [1, 2, 3, 32, 64, 100, 128, 256, 1024, 4096],
  stepsPerSubmit: [1, 4, 64, 1000],
  checkEvery: [0, 1, 8, 100],
  maxIterations: [1, 2, 5, 20, 200, 1000],
  tolerance: [1e-12, 1e-6, 1e-5, 1e-3, 0.5, 0.999],
  newtonIterations: [1, 2, 3, 10, 30],
  correctionTolerance: [-1, 0, 1e-15, 1e-4, 1, 1e300],
  residualTolerance: [-1, 0, 1e-15, 1e-4, 1, 1e300],
  absoluteResidualTolerance: [-1, 0, 1e-15, 1e-4, 1, 1e300],
  newtonError: [0, 1e-12, 1e-5, 1],
  newmarkGamma: [0, 0.5, 0.6, 1],
  newmarkBeta: [0, 0.25, 0.3025, 0.5],
  correctorTolerance: [1e-12, 1e-10, 1e-5, 1],
  maxCorrectorIterations: [1, 2, 5, 50, 200],
  accuracy: [1e-10, 1e-6, 1e-4, 1e-2, 0.5, 0.999],
  absoluteTolerance: [1e-12, 1e-6, 1e-3, 1, 1e10],
  velocityAbsoluteTolerance: [1e-12, 1e-6, 1e-3, 1, 1e10],
  positionWeight: [0, 1e-3, 1, 10],
  velocityWeight: [0, 1e-3, 1, 10],
  minStep: [1e-12, 1e-10, 1e-6, 1e-4],
  maxStep: [1e-4, 1e-2, 0.1, 1, Infinity],
  initialStep: [1e-6, 1e-4, 1e-2, 1],
  safetyFactor: [0.1, 0.5, 0.9, 1],
  growthLimit: [1.01, 2, 5, 1e6],
  shrinkLimit: [0.01, 0.1, 0.5, 0.9],
  newtonFailureShrink: [0.1, 0.5, 0.9],
  maxNewtonIterations: [1, 2, 10, 30],
  newtonKappa: [0.01, 0.05, 1],
  linearTolerance: [1e-12, 1e-10, 1e-5, 0.5],
  linearMaxIterations: [1, 5, 100, 1000],
};

type Spec = (typeof OPTIONS)[number];

function validValue(spec: Spec, backend: 'cpu' | 'webgpu'): fc.Arbitrary<unknown> {
  if (spec.name === 'device') return fc.constant(backend === 'webgpu' ? SHARED_DEVICE : {});
  if (spec.name === 'precision')
    return backend === 'webgpu' ? fc.constant('f32') : fc.constantFrom('f64', 'f32');
  if (VALID[spec.name]) return fc.constantFrom(...VALID[spec.name]!);
  if (spec.type === 'choice') return fc.constantFrom(...spec.choices!);
  if (spec.type === 'boolean') return fc.boolean();
  return fc.constant(spec.default ?? 1);
}

function junkValue(spec: Spec): fc.Arbitrary<unknown> {
  if (spec.type === 'choice') return fc.oneof(JUNK_NAME, JUNK_NUMBER);
  if (spec.type === 'boolean') return JUNK_BOOLEAN;
  if (spec.type === 'object')
    return fc.constantFrom<unknown>({}, 'gpu', 1, [], weird({ $weird: 'null-proto' }));
  return JUNK_NUMBER;
}

function appliesTo(spec: Spec, integrator: string, backend: string): boolean {
  const { integrators, backends } = spec.appliesTo;
  const family = Object.hasOwn(INTEGRATORS, integrator)
    ? INTEGRATORS[integrator as keyof typeof INTEGRATORS].family
    : '';
  return (
    (integrators === 'all' || integrators.includes(family) || integrators.includes(integrator)) &&
    (backends === 'all' || (backends as readonly string[]).includes(backend))
  );
}

const SETTABLE = OPTIONS.filter((spec) => !['integrator', 'backend', 'dt', 'device'].includes(spec.name));

/** createSimulation's options for `backend`: an integrator, dt, and options valid or not. */
export function optionsSource(backend: 'cpu' | 'webgpu', junkWeight: number): fc.Arbitrary<OptionsSource> {
  const integrator = mostly(fc.constantFrom(...INTEGRATOR_NAMES), JUNK_NAME, junkWeight / 4);
  const entries = integrator.chain((name) => {
    const known = typeof name === 'string' ? name : '';
    const fixedStep = Object.hasOwn(INTEGRATORS, known) && INTEGRATORS[known as keyof typeof INTEGRATORS].family !== 'adaptive'; // prettier-ignore
    const applicable = SETTABLE.filter((spec) => appliesTo(spec, known, backend));
    const option = (specs: Spec[]): fc.Arbitrary<[string, unknown]> =>
      fc.constantFrom(...specs).chain((spec) => mostly(validValue(spec, backend), junkValue(spec), junkWeight).map((value) => [spec.name, value] as [string, unknown])); // prettier-ignore
    return fc
      .record({
        dt: fixedStep
          ? mostly(fc.constantFrom(...VALID['dt']!), JUNK_NUMBER, junkWeight / 2)
          : mostly(
              fc.constant(undefined),
              fc.constantFrom<unknown>(...VALID['dt']!, NaN, 'x'),
              junkWeight / 2,
            ),
        backend:
          backend === 'webgpu'
            ? fc.constant<unknown>('webgpu')
            : fc.oneof({ arbitrary: fc.constant<unknown>(undefined), weight: 12 }, { arbitrary: fc.constant<unknown>('cpu'), weight: 4 }, { arbitrary: fc.constantFrom<unknown>('CPU', 'gpu', 'constructor', 1, null, ''), weight: Math.round(4 * junkWeight) }), // prettier-ignore
        device: backend === 'webgpu' ? mostly(fc.constant<unknown>(SHARED_DEVICE), fc.constantFrom<unknown>({}, 'gpu', 1), junkWeight / 4) : fc.constant(undefined), // prettier-ignore
        applicable: applicable.length > 0 ? fc.array(option(applicable), { maxLength: 4 }) : fc.constant([]),
        // An option that may not apply, or a name that is no option.
        extra: mostly(
          fc.constant([]),
          fc.oneof(option(SETTABLE), fc.tuple(fc.constantFrom('dT', 'steps', 'Solver', 'solver ', '', ...PROTOTYPE_NAMES), JUNK_VALUE)).map((entry) => [entry]), // prettier-ignore
          junkWeight / 2,
        ),
        shape: mostly(fc.constant(0), fc.integer({ min: 1, max: 5 }), junkWeight / 20),
      })
      .map(({ dt, backend: b, device, applicable: chosen, extra, shape }): OptionsSource => {
        if (shape === 1) return { kind: 'absent' };
        if (shape > 1) return { kind: 'value', value: [null, 'rk4', 5, []][shape - 2] };
        const list: [string, unknown][] = [['integrator', name]];
        if (dt !== undefined) list.push(['dt', dt]);
        if (b !== undefined) list.push(['backend', b]);
        if (device !== undefined) list.push(['device', device]);
        list.push(...chosen, ...(extra as [string, unknown][]));
        // Later entries win, as in an object literal.
        const entries = new Map<string, unknown>(list);
        return { kind: 'entries', entries: [...entries] };
      });
  });
  return entries;
}

// ——— Calls ———————————————————————————————————————————————————————————————————————
/** A step count: valid (≤ 4), refused, or (rarely, CPU only) an integer beyond 2^53. */
const count = (junkWeight: number, huge: boolean): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: fc.constantFrom<unknown>(undefined, 0, 1, 2, 3, 4), weight: 40 },
    { arbitrary: fc.constantFrom<unknown>(-1, 1.5, NaN, Infinity, '3', null, {}, -0.5), weight: Math.round(40 * junkWeight) }, // prettier-ignore
    { arbitrary: fc.constantFrom<unknown>(2 ** 53, 1e300), weight: huge ? 1 : 0 },
  );

/**
 * Mostly an advance(1…4) first (every family takes it), then up to three calls (≤ 4 steps each;
 * ≤ 20 steps in all); the harness then reads the state.
 */
export function opsSource(junkWeight: number, huge: boolean): fc.Arbitrary<Op[]> {
  const op: fc.Arbitrary<Op> = fc.oneof(
    { arbitrary: count(junkWeight, huge).map((n): Op => (n === undefined ? { op: 'step' } : { op: 'step', n })), weight: 10 }, // prettier-ignore
    { arbitrary: count(junkWeight, huge).map((n): Op => ({ op: 'advance', n })), weight: 8 },
    { arbitrary: fc.integer({ min: 0, max: 4 }).map((grid): Op => ({ op: 'advanceTo', grid })), weight: 4 },
    { arbitrary: fc.constantFrom<unknown>(NaN, -1, Infinity, 'x', null, 0.0005, -0, ...(huge ? [1e300] : [])).map((t): Op => ({ op: 'advanceTo', t })), weight: Math.round(2 * junkWeight) }, // prettier-ignore
    { arbitrary: fc.constantFrom<Op>({ op: 'readState' }, { op: 'readSolverStats' }, { op: 'finished' }), weight: 4 }, // prettier-ignore
    { arbitrary: fc.constant<Op>({ op: 'destroy' }), weight: Math.round(2 * junkWeight) },
  );
  const first = fc.option(fc.integer({ min: 1, max: 4 }).map((n): Op => ({ op: 'advance', n })), { freq: 4, nil: undefined }); // prettier-ignore
  return fc
    .tuple(first, fc.array(op, { maxLength: 3 }))
    .map(([head, rest]) => (head ? [head, ...rest] : rest));
}

/**
 * A library case. Three kinds, equally likely: the model varies (the options valid), the options
 * vary (the model valid), or the calls vary; about a third of all cases run steps.
 */
export function librarySource(backend: 'cpu' | 'webgpu'): fc.Arbitrary<FuzzCase> {
  // WebGPU: no huge step counts (encoding them would block the test's own thread).
  const huge = backend === 'cpu';
  // WebGPU cases are fewer and slower: most of them run a valid model with valid options.
  const runs = backend === 'webgpu' ? 4 : 0;
  return fc.oneof(
    fc.record({ model: modelSource, options: optionsSource(backend, 0.15), ops: opsSource(0.3, huge) }),
    fc.record({ model: validModel, options: optionsSource(backend, 1), ops: opsSource(0.3, huge) }),
    fc.record({ model: validModel, options: optionsSource(backend, 0.1), ops: opsSource(1.5, huge) }),
    { arbitrary: fc.record({ model: validModel, options: optionsSource(backend, 0.02), ops: opsSource(0.2, huge) }), weight: runs }, // prettier-ignore
  );
}

// ——— The CLI ——————————————————————————————————————————————————————————————————————
const JUNK_TEXT = fc.constantFrom('0x10', 'NaN', 'Infinity', '1e999', '', 'abc', '1,5', '--1', '1_0', ' 1', '-0', '1e-400', 'constructor', 'true'); // prettier-ignore

function flagText(spec: Spec): fc.Arbitrary<string> {
  return mostly(
    validValue(spec, 'cpu').map((v) => String(v)),
    JUNK_TEXT,
    0.2,
  );
}

/** A `weft run` command line (after `run <scene>`), CPU only: integrator, steps or t-end, options. */
export const cliArgs: fc.Arbitrary<string[]> = mostly(
  fc.constantFrom(...INTEGRATOR_NAMES),
  fc.constantFrom(...PROTOTYPE_NAMES, 'rk5', ''),
  0.1,
).chain((integrator) => {
  // prettier-ignore
  const known = Object.hasOwn(INTEGRATORS, integrator) ? integrator : '';
  const adaptive = known !== '' && INTEGRATORS[known as keyof typeof INTEGRATORS].family === 'adaptive';
  const flagged = SETTABLE.filter((spec) => spec.flag !== null && spec.name !== 'precision');
  const applicable = flagged.filter((spec) => appliesTo(spec, known, 'cpu'));
  const option = (specs: Spec[]): fc.Arbitrary<string> =>
    fc.constantFrom(...specs).chain((spec) => flagText(spec).map((text) => `--${spec.flag}=${text}`));
  return fc
    .record({
      dt: mostly(fc.constantFrom('0.001', '0.01', '1e-3', '0.016666'), JUNK_TEXT, 0.15),
      steps: mostly(fc.constantFrom('0', '1', '3', '10', '1e1', '20'), fc.constantFrom('-1', '1.5', 'x', '0x10', ''), 0.15), // prettier-ignore
      every: fc.option(fc.constantFrom('1', '2', '5', '0', '-1'), { freq: 3 }),
      tEnd: mostly(fc.constantFrom('0.001', '0.005', '0.01'), JUNK_TEXT, 0.15),
      frames: fc.option(fc.constantFrom('1', '2', '0', '1.5'), { freq: 3 }),
      options: applicable.length > 0 ? fc.array(option(applicable), { maxLength: 3 }) : fc.constant([]),
      other: mostly(fc.constant([]), fc.oneof(option(flagged), fc.constantFrom('--bogus=1', '--backend=gpu', '--backend=cpu', '--precision=f32', '--allow-unconverged', '--progress', '--dt')).map((flag) => [flag]), 0.3), // prettier-ignore
    })
    .map(({ dt, steps, every, tEnd, frames, options: chosen, other }) => {
      const args = [`--integrator=${integrator}`];
      if (adaptive) {
        args.push(`--t-end=${tEnd}`);
        if (frames !== null) args.push(`--frames=${frames}`);
      } else {
        args.push(`--dt=${dt}`, `--steps=${steps}`);
        if (every !== null) args.push(`--every=${every}`);
      }
      return [...args, ...chosen, ...other];
    });
});

/** A CLI case: a scene file (JSON text, often broken) and a command line. */
export const cliSource: fc.Arbitrary<{ scene: ModelSource & { kind: 'scene-text' }; args: string[] }> =
  fc.record({
    scene: fc.oneof(
      { arbitrary: validScene.map((scene) => ({ kind: 'scene-text' as const, scene, edits: [] as TextEdit[] })), weight: 2 }, // prettier-ignore
      { arbitrary: sceneTextSource as fc.Arbitrary<ModelSource & { kind: 'scene-text' }>, weight: 1 },
    ),
    args: cliArgs,
  });
