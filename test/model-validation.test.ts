/**
 * Input validation (every bad input is a WeftInputError naming the field and index) and the
 * structure of what the builders make (spring counts, rest lengths, pins, incidence).
 */
import { describe, expect, test } from 'vitest';
import {
  WeftInputError,
  buildCloth,
  buildRope,
  type ClothOptions,
  type ClothPinPreset,
  createModel,
  type Model,
  type ModelDescription,
  parseScene,
} from '../src/index.ts';
import { CpuSimulation, type CpuSimulationOptions, EXPLICIT_INTEGRATOR_NAMES } from '../src/internal.ts';

/** Runs `make`, and fails unless it throws a WeftInputError whose `field` is `field`. */
function expectInputError(make: () => unknown, field: string): WeftInputError {
  let thrown: unknown;
  try {
    make();
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof WeftInputError)) {
    expect.fail(
      `expected a WeftInputError naming '${field}', got ${thrown === undefined ? 'no error' : String(thrown)}`,
    );
  }
  expect(thrown.field).toBe(field);
  expect(thrown.message.startsWith(`${field}: `)).toBe(true);
  return thrown;
}

/** A valid square of 4 particles (0 fixed) and 3 springs 0–1, 1–2, 2–3. */
function square(): ModelDescription {
  return {
    positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0],
    masses: [1, 1, 1, 1],
    fixed: [0],
    springPairs: [0, 1, 1, 2, 2, 3],
    springStiffness: 10,
  };
}

const changed = (changes: Partial<Record<keyof ModelDescription, unknown>>): ModelDescription =>
  ({ ...square(), ...changes }) as ModelDescription;

describe('createModel rejects bad input with a WeftInputError naming the field', () => {
  const cases: [string, string, ModelDescription][] = [
    [
      'NaN in positions',
      'particles.positions[4]',
      changed({ positions: [0, 0, 0, 1, NaN, 0, 0, 1, 0, 1, 1, 0] }),
    ],
    [
      'Infinity in positions',
      'particles.positions[11]',
      changed({ positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, -Infinity] }),
    ],
    [
      'positions not a multiple of 3',
      'particles.positions',
      changed({ positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1] }),
    ],
    [
      'no particles',
      'particles.positions',
      changed({ positions: [], masses: [], fixed: [], springPairs: [] }),
    ],
    [
      'Infinity in velocities',
      'particles.velocities[5]',
      changed({ velocities: [0, 0, 0, 0, 0, Infinity, 0, 0, 0, 0, 0, 0] }),
    ],
    [
      'NaN in velocities',
      'particles.velocities[9]',
      changed({ velocities: [0, 0, 0, 0, 0, 0, 0, 0, 0, NaN, 0, 0] }),
    ],
    ['velocities of the wrong length', 'particles.velocities', changed({ velocities: [0, 0, 0, 0, 0, 0] })],
    [
      'non-zero velocity on a fixed particle',
      'particles.velocities[1]',
      changed({ velocities: [0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }),
    ],
    ['mass 0 on a free particle', 'particles.masses[1]', changed({ masses: [1, 0, 1, 1] })],
    ['negative mass on a free particle', 'particles.masses[2]', changed({ masses: [1, 1, -2, 1] })],
    ['NaN mass', 'particles.masses[3]', changed({ masses: [1, 1, 1, NaN] })],
    ['masses of the wrong length', 'particles.masses', changed({ masses: [1, 1, 1] })],
    ['fixed index out of range', 'particles.fixed[0]', changed({ fixed: [4] })],
    ['fixed index not an integer', 'particles.fixed[1]', changed({ fixed: [0, 1.5] })],
    ['spring index out of range', 'springs.pairs[3]', changed({ springPairs: [0, 1, 1, 4, 2, 3] })],
    ['negative spring index', 'springs.pairs[0]', changed({ springPairs: [-1, 1, 1, 2, 2, 3] })],
    ['non-integer spring index', 'springs.pairs[4]', changed({ springPairs: [0, 1, 1, 2, 2.5, 3] })],
    ['self-loop', 'springs.pairs[2]', changed({ springPairs: [0, 1, 2, 2, 2, 3] })],
    ['odd number of spring indices', 'springs.pairs', changed({ springPairs: [0, 1, 1, 2, 2] })],
    ['rest length 0', 'springs.restLengths[1]', changed({ springRestLengths: [1, 0, 1] })],
    ['negative rest length', 'springs.restLengths[2]', changed({ springRestLengths: [1, 1, -0.5] })],
    ['NaN rest length', 'springs.restLengths[0]', changed({ springRestLengths: [NaN, 1, 1] })],
    ['rest lengths of the wrong length', 'springs.restLengths', changed({ springRestLengths: [1, 1] })],
    [
      'coincident particles without explicit rest length',
      'springs.restLengths[2]',
      changed({ positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0] }),
    ],
    [
      'negative stiffness (one per spring)',
      'springs.stiffness[1]',
      changed({ springStiffness: [10, -1, 10] }),
    ],
    ['negative stiffness (one for all)', 'springs.stiffness[0]', changed({ springStiffness: -10 })],
    ['NaN stiffness', 'springs.stiffness[0]', changed({ springStiffness: NaN })],
    ['stiffness of the wrong length', 'springs.stiffness', changed({ springStiffness: [10, 10] })],
    ['negative damping (one per spring)', 'springs.damping[2]', changed({ springDamping: [0, 0, -0.1] })],
    ['negative damping (one for all)', 'springs.damping[0]', changed({ springDamping: -0.1 })],
    ['damping of the wrong length', 'springs.damping', changed({ springDamping: [0, 0, 0, 0] })],
    ['gravity of the wrong length', 'gravity', changed({ gravity: [0, -9.81] })],
    ['NaN gravity', 'gravity[1]', changed({ gravity: [0, NaN, 0] })],
  ];

  test.each(cases)('%s → %s', (_name, field, description) => {
    expectInputError(() => createModel(description), field);
  });
  test('the message says what was given', () => {
    expect(() => createModel(changed({ springStiffness: [10, -1, 10] }))).toThrow(/^springs\.stiffness\[1\]: must be ≥ 0, got -1$/); // prettier-ignore
    expect(() => createModel(changed({ springPairs: [0, 1, 1, 2, 2] }))).toThrow(/^springs\.pairs: length 5 is not even \(pairs a, b\)$/); // prettier-ignore
    // A rest length of 0 from coincident particles says why; one given as 0 has nothing to add.
    expect(() => createModel(changed({ positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0] }))).toThrow(/^springs\.restLengths\[2\]: must be > 0, got 0 \(its particles start at the same place\)$/); // prettier-ignore
    expect(() => createModel(changed({ springRestLengths: [1, 0, 1] }))).toThrow(/^springs\.restLengths\[1\]: must be > 0, got 0$/); // prettier-ignore
  });
});

describe('createModel accepts valid edge cases', () => {
  test('mass 0 on a fixed particle', () => {
    const model = createModel(changed({ masses: [0, 1, 1, 1] }));
    expect(Array.from(model.particleInvMass)).toEqual([0, 1, 1, 1]);
    expect(Array.from(model.particleFixed)).toEqual([1, 0, 0, 0]);
  });

  test('coincident particles with an explicit rest length', () => {
    const model = createModel(
      changed({ positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0], springRestLengths: [1, 1.5, 0.25] }),
    );
    expect(Array.from(model.springRestLength)).toEqual([1, 1.5, 0.25]);
  });

  test('zero stiffness and default rest lengths', () => {
    const model = createModel(changed({ springStiffness: 0 }));
    expect(Array.from(model.springStiffness)).toEqual([0, 0, 0]);
    expect(Array.from(model.springRestLength)).toEqual([1, Math.SQRT2, 1]);
  });
});

describe('CpuSimulation options are validated', () => {
  const model = createModel(square());
  const options = (changes: Record<string, unknown>): CpuSimulationOptions =>
    ({ integrator: 'symplectic-euler', dt: 0.01, ...changes }) as CpuSimulationOptions;
  const cases: [string, string, CpuSimulationOptions][] = [
    ['dt = 0', 'dt', options({ dt: 0 })],
    ['dt < 0', 'dt', options({ dt: -0.01 })],
    ['dt NaN', 'dt', options({ dt: NaN })],
    ['dt Infinity', 'dt', options({ dt: Infinity })],
    ['dt missing', 'dt', options({ dt: undefined })],
    ['dt a string', 'dt', options({ dt: '0.01' })],
    ['unknown integrator', 'integrator', options({ integrator: 'euler' })],
    ['rayleighMass negative', 'rayleighMass', options({ rayleighMass: -0.1 })],
    ['rayleighMass NaN', 'rayleighMass', options({ rayleighMass: NaN })],
    ['rayleighStiffness negative', 'rayleighStiffness', options({ rayleighStiffness: -0.1 })],
    ["precision 'f16'", 'precision', options({ precision: 'f16' })],
    ...EXPLICIT_INTEGRATOR_NAMES.map(
      (integrator) =>
        [
          `rayleighStiffness non-zero on the explicit ${integrator}`,
          'rayleighStiffness',
          options({ integrator, rayleighStiffness: 0.01 }),
        ] as [string, string, CpuSimulationOptions],
    ),
  ];

  test.each(cases)('%s → %s', (_name, field, bad) => {
    expectInputError(() => new CpuSimulation(model, bad), field);
  });

  test('an unknown integrator name lists the known ones', () => {
    const error = expectInputError(
      () => new CpuSimulation(model, options({ integrator: 'verlet' })),
      'integrator',
    );
    expect(error.message).toContain("'verlet'");
    for (const name of EXPLICIT_INTEGRATOR_NAMES) expect(error.message).toContain(name);
  });

  test.each([
    ['f64', 'f64'],
    ['f32', 'f32'],
    ['default', undefined],
  ] as const)('precision %s is accepted', (_name, precision) => {
    const simulation = new CpuSimulation(model, options(precision === undefined ? {} : { precision }));
    expect(simulation.precision).toBe(precision ?? 'f64');
  });
});

describe('buildCloth / buildRope reject bad options', () => {
  const cases: [string, string, () => Model][] = [
    [
      'unknown cloth pin preset',
      'cloth.pins',
      () => buildCloth({ pins: 'bottom' as unknown as ClothPinPreset }),
    ],
    ['cloth nx = 1', 'cloth.nx', () => buildCloth({ nx: 1 })],
    ['cloth nx = 0', 'cloth.nx', () => buildCloth({ nx: 0 })],
    ['cloth ny not an integer', 'cloth.ny', () => buildCloth({ ny: 2.5 })],
    ['cloth spacing 0', 'cloth.spacing', () => buildCloth({ spacing: 0 })],
    ['cloth spacing NaN', 'cloth.spacing', () => buildCloth({ spacing: NaN })],
    [
      'cloth orientation unknown',
      'cloth.orientation',
      () => buildCloth({ orientation: 'diagonal' as unknown as 'vertical' }),
    ],
    ['cloth pin index out of range', 'particles.fixed[0]', () => buildCloth({ nx: 3, ny: 3, pins: [9] })],
    [
      'cloth particle mass 0',
      'particles.masses[0]',
      () => buildCloth({ nx: 2, ny: 2, particleMass: 0, pins: 'none' }),
    ],
    [
      'cloth negative stiffness',
      'springs.stiffness[2]',
      () => buildCloth({ nx: 2, ny: 2, shearStiffness: -1 }),
    ],
    ['rope with 1 particle', 'rope.particles', () => buildRope({ particles: 1 })],
    // buildRope treats any pins value other than 'none' and 'first' as 'both' (src/model/builders.ts):
    // this fails until it rejects an unknown preset as buildCloth does.
    ['unknown rope pin preset', 'rope.pins', () => buildRope({ pins: 'last' as unknown as 'both' })],
    ['rope direction zero', 'rope.direction', () => buildRope({ direction: [0, 0, 0] })],
    ['rope negative damping', 'springs.damping[0]', () => buildRope({ damping: -1 })],
  ];

  test.each(cases)('%s → %s', (_name, field, make) => {
    expectInputError(make, field);
  });
});

describe('parseScene rejects bad scenes', () => {
  const particles = { positions: [0, 0, 0, 1, 0, 0], masses: [1, 1], fixed: [0] };
  const springs = { pairs: [0, 1], stiffness: 10 };
  const cases: [string, string, unknown][] = [
    ['not an object', 'scene', null],
    ['an array', 'scene', []],
    ['unknown top-level field', 'colour', { particles, springs, colour: 'red' }],
    ['unknown particles field', 'particles.charge', { particles: { ...particles, charge: [0, 0] }, springs }],
    ['unknown springs field', 'springs.restLength', { particles, springs: { ...springs, restLength: [1] } }],
    ['unknown field beside cloth', 'integrator', { cloth: {}, integrator: 'rk4' }],
    ['unknown field beside rope', 'dt', { rope: {}, dt: 0.01 }],
    // parseScene passes the cloth and rope objects to the builders without checking their keys
    // (src/model/scene.ts): these two fail until it does, and a misspelt option is silently ignored.
    ['unknown cloth field', 'cloth.colour', { cloth: { nx: 4, colour: 'red' } }],
    ['unknown rope field', 'rope.lenght', { rope: { lenght: 3 } }],
    ['missing particles', 'particles', { springs }],
    ['missing springs', 'springs', { particles }],
    ['missing positions', 'particles.positions', { particles: { masses: [1, 1] }, springs }],
    ['missing masses', 'particles.masses', { particles: { positions: [0, 0, 0] }, springs }],
    ['missing pairs', 'springs.pairs', { particles, springs: { stiffness: 1 } }],
    ['missing stiffness', 'springs.stiffness', { particles, springs: { pairs: [0, 1] } }],
    [
      'positions not an array',
      'particles.positions',
      { particles: { ...particles, positions: 'abc' }, springs },
    ],
    [
      'a string in positions',
      'particles.positions[2]',
      { particles: { ...particles, positions: [0, 0, '0', 1, 0, 0] }, springs },
    ],
    [
      'a null in stiffness',
      'springs.stiffness[0]',
      { particles, springs: { pairs: [0, 1], stiffness: [null] } },
    ],
    ['gravity of the wrong length', 'gravity', { particles, springs, gravity: [0, -9.81] }],
    ['cloth not an object', 'cloth', { cloth: 3 }],
    ['cloth nx = 1', 'cloth.nx', { cloth: { nx: 1 } }],
    ['cloth nx a string', 'cloth.nx', { cloth: { nx: '4' } }],
    ['unknown cloth pin preset', 'cloth.pins', { cloth: { pins: 'left-edge' } }],
    [
      'mass 0 on a free particle',
      'particles.masses[1]',
      { particles: { ...particles, masses: [1, 0] }, springs },
    ],
    [
      'spring index out of range',
      'springs.pairs[1]',
      { particles, springs: { pairs: [0, 2], stiffness: 1 } },
    ],
  ];

  test.each(cases)('%s → %s', (_name, field, scene) => {
    expectInputError(() => parseScene(scene), field);
  });

  test('a valid scene of each kind parses', () => {
    expect(parseScene({ particles, springs, gravity: [0, 0, -1] }).gravity).toEqual([0, 0, -1]);
    expect(parseScene({ cloth: { nx: 3, ny: 4 } }).particleCount).toBe(12);
    expect(parseScene({ rope: { particles: 5 }, gravity: [0, 0, 0] }).springCount).toBe(4);
  });
});

describe('buildCloth structure', () => {
  /** Grid offsets (|Δi|, |Δj|) of a spring, from its particle indices (index = j nx + i). */
  const offsets = (model: Model, nx: number, s: number): [number, number] => {
    const a = model.springIndices[2 * s]!;
    const b = model.springIndices[2 * s + 1]!;
    return [Math.abs((b % nx) - (a % nx)), Math.abs(Math.floor(b / nx) - Math.floor(a / nx))];
  };

  test.each([
    [2, 2],
    [3, 2],
    [2, 5],
    [5, 3],
    [16, 16],
    [7, 11],
  ])('%i × %i: spring counts, kinds and rest lengths', (nx, ny) => {
    const spacing = 0.07;
    const model = buildCloth({
      nx,
      ny,
      spacing,
      structuralStiffness: 11,
      shearStiffness: 22,
      bendStiffness: 33,
    });
    const counts = { structural: 0, shear: 0, bend: 0 };
    const seen = new Set<string>();
    for (let s = 0; s < model.springCount; s++) {
      const a = model.springIndices[2 * s]!;
      const b = model.springIndices[2 * s + 1]!;
      const key = `${Math.min(a, b)}-${Math.max(a, b)}`;
      expect(seen.has(key), `spring ${s} (${key}) is a duplicate`).toBe(false);
      seen.add(key);
      const [di, dj] = offsets(model, nx, s);
      const rest = model.springRestLength[s]!;
      const k = model.springStiffness[s]!;
      const kind =
        (di === 1 && dj === 0) || (di === 0 && dj === 1)
          ? { name: 'structural' as const, rest: spacing, k: 11 }
          : di === 1 && dj === 1
            ? { name: 'shear' as const, rest: spacing * Math.SQRT2, k: 22 }
            : (di === 2 && dj === 0) || (di === 0 && dj === 2)
              ? { name: 'bend' as const, rest: 2 * spacing, k: 33 }
              : undefined;
      if (kind === undefined) expect.fail(`spring ${s} (${a}–${b}) spans grid offset (${di}, ${dj})`);
      counts[kind.name]++;
      expect(Math.abs(rest - kind.rest), `rest length of ${kind.name} spring ${s}`).toBeLessThanOrEqual(
        1e-15,
      );
      expect(k, `stiffness of ${kind.name} spring ${s}`).toBe(kind.k);
    }
    expect(counts).toEqual({
      structural: (nx - 1) * ny + nx * (ny - 1),
      shear: 2 * (nx - 1) * (ny - 1),
      bend: (nx - 2) * ny + nx * (ny - 2),
    });
    expect(model.springCount).toBe(counts.structural + counts.shear + counts.bend);
  });

  test('zero shear or bend stiffness leaves those springs out', () => {
    const nx = 6;
    const ny = 4;
    expect(buildCloth({ nx, ny, shearStiffness: 0 }).springCount).toBe(
      (nx - 1) * ny + nx * (ny - 1) + (nx - 2) * ny + nx * (ny - 2),
    );
    expect(buildCloth({ nx, ny, bendStiffness: 0 }).springCount).toBe(
      (nx - 1) * ny + nx * (ny - 1) + 2 * (nx - 1) * (ny - 1),
    );
  });

  test.each([
    [16, 16],
    [5, 3],
    [3, 7],
  ])('%i × %i: top-corners pins are (ny−1)·nx and nx·ny − 1, in the last row', (nx, ny) => {
    for (const orientation of ['horizontal', 'vertical'] as const) {
      const spacing = 0.1;
      const model = buildCloth({ nx, ny, spacing, orientation });
      const fixed = Array.from(model.particleFixed.keys()).filter((i) => model.particleFixed[i] === 1);
      expect(fixed).toEqual([(ny - 1) * nx, nx * ny - 1]);
      // Particle (i, j) = j nx + i: the pins are (0, ny − 1) and (nx − 1, ny − 1).
      const second = orientation === 'vertical' ? 1 : 2;
      for (const [index, i] of [
        [fixed[0]!, 0],
        [fixed[1]!, nx - 1],
      ] as const) {
        expect(model.particlePositions[3 * index]).toBeCloseTo(i * spacing, 12);
        expect(model.particlePositions[3 * index + second]).toBeCloseTo((ny - 1) * spacing, 12);
      }
      expect(Array.from(fixed, (i) => model.particleInvMass[i])).toEqual([0, 0]);
    }
  });

  test('the other pin presets', () => {
    const nx = 4;
    const ny = 3;
    const pinned = (pins: ClothOptions['pins']): number[] => {
      const model = buildCloth({ nx, ny, ...(pins === undefined ? {} : { pins }) });
      return Array.from(model.particleFixed.keys()).filter((i) => model.particleFixed[i] === 1);
    };
    expect(pinned('none')).toEqual([]);
    expect(pinned('top-edge')).toEqual([8, 9, 10, 11]);
    expect(pinned('corners')).toEqual([0, 3, 8, 11]);
    expect(pinned([5, 1])).toEqual([1, 5]);
    expect(pinned(undefined)).toEqual([8, 11]);
  });
});

describe('buildRope structure', () => {
  test('n − 1 springs between neighbours with rest length = spacing; pins', () => {
    const model = buildRope({ particles: 6, spacing: 0.25, direction: [0, 3, 4], pins: 'both' });
    expect(model.springCount).toBe(5);
    expect(Array.from(model.springIndices)).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4, 5]);
    for (const rest of model.springRestLength) expect(rest).toBeCloseTo(0.25, 14);
    expect(Array.from(model.particleFixed)).toEqual([1, 0, 0, 0, 0, 1]);
    // Along the normalised direction (0, 0.6, 0.8).
    expect(model.particlePositions[3 * 5 + 1]).toBeCloseTo(5 * 0.25 * 0.6, 14);
    expect(model.particlePositions[3 * 5 + 2]).toBeCloseTo(5 * 0.25 * 0.8, 14);
  });
});

describe('incidence (CSR list of springs per particle)', () => {
  const models: [string, Model][] = [
    ['cloth 16 × 16', buildCloth({ nx: 16, ny: 16 })],
    ['cloth 5 × 3, vertical', buildCloth({ nx: 5, ny: 3, orientation: 'vertical' })],
    ['rope of 7', buildRope({ particles: 7 })],
    [
      'hand-made, unordered pairs and an isolated particle',
      createModel({
        positions: [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 5, 5, 5],
        masses: [1, 1, 1, 1, 1],
        springPairs: [3, 0, 1, 2, 0, 1, 2, 0, 1, 3],
        springStiffness: 1,
      }),
    ],
  ];

  test.each(models)('%s: every spring listed exactly twice, once per endpoint, sorted', (_name, model) => {
    const { offsets, entries } = model.incidence;
    expect(offsets.length).toBe(model.particleCount + 1);
    expect(offsets[0]).toBe(0);
    expect(offsets[model.particleCount]).toBe(2 * model.springCount);
    expect(entries.length).toBe(2 * model.springCount);
    // Expected lists built here: particle i gets 2 s + side for each spring s it ends, side 0
    // for the first endpoint and 1 for the second, in increasing order.
    const expected: number[][] = Array.from({ length: model.particleCount }, () => []);
    for (let s = 0; s < model.springCount; s++) {
      expected[model.springIndices[2 * s]!]!.push(2 * s);
      expected[model.springIndices[2 * s + 1]!]!.push(2 * s + 1);
    }
    const perSpring = new Uint8Array(model.springCount);
    for (let i = 0; i < model.particleCount; i++) {
      const list = Array.from(entries.subarray(offsets[i]!, offsets[i + 1]!));
      expect(list, `entries of particle ${i}`).toEqual(expected[i]);
      for (const entry of list) perSpring[entry >> 1]!++;
    }
    expect(perSpring.every((count) => count === 2)).toBe(true);
  });
});
