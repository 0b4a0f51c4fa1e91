/**
 * The options table drives validation, the CLI and the README: each row's range and choices are
 * enforced (an error naming the option), an option that does not apply is refused, and the
 * README's table is the generated one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildRope, createAdaptiveSimulation, createSimulation, WeftInputError } from '../src/index.ts';
import {
  featureSupportMarkdown,
  INTEGRATOR_NAMES,
  OPTIONS,
  optionsMarkdown,
  validateOptions,
} from '../src/internal.ts';

/** A value outside each row's range (or choices), for every row that has one. */
function badValue(row: (typeof OPTIONS)[number]): unknown {
  if (row.type === 'choice') return 'no-such-choice';
  if (row.type === 'boolean') return 'yes';
  if (row.type === 'object') return undefined;
  const range = row.range ?? {};
  if (range.min !== undefined) return range.min - 1;
  if (range.max !== undefined) return range.max + 1;
  return NaN;
}

describe('every row of the options table is enforced', () => {
  // Each option is checked where it applies: an integrator of its family, on a backend it has.
  const where = (row: (typeof OPTIONS)[number]): ['rk4' | 'implicit-euler', 'cpu' | 'webgpu'] => [
    'rk4',
    row.appliesTo.backends === 'all' ? 'cpu' : 'webgpu',
  ];
  test.each(OPTIONS.filter((row) => badValue(row) !== undefined).map((row) => [row.name, row] as const))(
    '%s: a value out of its range is a WeftInputError naming it',
    (name, row) => {
      const [integrator, backend] = where(row);
      let error: unknown;
      try {
        validateOptions({ [name]: badValue(row) }, integrator, backend);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WeftInputError);
      expect((error as WeftInputError).field).toBe(name);
    },
  );

  test('CLI flags are unique', () => {
    const flags = OPTIONS.flatMap((row) => (row.flag ? [row.flag] : []));
    expect(new Set(flags).size).toBe(flags.length);
  });
});

describe('an option that does not apply is an error, not ignored', () => {
  const rope = buildRope({ particles: 4 });
  test.each([
    ['tolerance on rk4', { integrator: 'rk4', dt: 0.01, tolerance: 1e-3 }, 'tolerance'],
    [
      'newmarkBeta on implicit-euler',
      { integrator: 'implicit-euler', dt: 0.01, newmarkBeta: 0.3 },
      'newmarkBeta',
    ],
    ['checkEvery on the CPU', { integrator: 'implicit-euler', dt: 0.01, checkEvery: 2 }, 'checkEvery'],
    ['a misspelt option', { integrator: 'rk4', dt: 0.01, tolerence: 1e-3 }, 'tolerence'],
  ] as const)('%s', async (_name, options, field) => {
    const error = await createSimulation(rope, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftInputError);
    expect((error as WeftInputError).field).toBe(field);
  });

  test('the default value of an option that does not apply is harmless and accepted', async () => {
    const simulation = await createSimulation(rope, { integrator: 'rk4', dt: 0.01, rayleighStiffness: 0 });
    simulation.step(1);
    expect((await simulation.readState()).step).toBe(1);
  });

  // errorControl 'drake' (velocity-implicit-euler's default) bounds max_i w_i |e_i| by accuracy alone.
  test.each([
    ['absoluteTolerance', { absoluteTolerance: 1e-6 }],
    ['velocityAbsoluteTolerance', { velocityAbsoluteTolerance: 1e-6 }],
    ['errorNorm', { errorNorm: 'rms' }],
  ] as const)('%s under errorControl drake', async (field, option) => {
    const options = { integrator: 'velocity-implicit-euler', accuracy: 1e-3, ...option } as const;
    const error = await createAdaptiveSimulation(rope, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WeftInputError);
    expect((error as WeftInputError).field).toBe(field);
    expect((error as Error).message).toMatch(/does not apply with errorControl 'drake'/);
  });

  test("errorNorm 'max' is drake's own norm: accepted", async () => {
    const options = { integrator: 'velocity-implicit-euler', accuracy: 1e-3, errorNorm: 'max' } as const;
    const simulation = await createAdaptiveSimulation(rope, options);
    simulation.destroy();
  });

  test('scheme on rk45 (adaptive)', async () => {
    const error = await createAdaptiveSimulation(rope, { integrator: 'rk45', scheme: 'rk4' }).catch(
      (e: unknown) => e,
    );
    expect((error as WeftInputError).field).toBe('scheme');
  });
});

/** The cells of a markdown table, separator rows left out (Prettier pads the README's columns). */
const cells = (markdown: string): string[][] =>
  markdown
    .trim()
    .split('\n')
    .filter((line) => !/^\|[\s|:-]+\|$/.test(line))
    .map((line) => line.split(/(?<!\\)\|/).map((cell) => cell.trim()));

/** The README's block between `<!-- name:start -->` and `<!-- name:end -->`. */
function readmeBlock(name: string): string {
  const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
  return readme.split(`<!-- ${name}:start -->`)[1]?.split(`<!-- ${name}:end -->`)[0] ?? '';
}

test('README.md has the option table generated from the options table (npm run docs)', () => {
  expect(cells(readmeBlock('options')), 'README.md is stale: run `npm run docs`').toEqual(
    cells(optionsMarkdown()),
  );
});

test("README.md has the feature-support table generated from the integrators' checks (npm run docs)", () => {
  const table = featureSupportMarkdown();
  expect(cells(readmeBlock('features')), 'README.md is stale: run `npm run docs`').toEqual(cells(table));
  // Every integrator is in exactly one row; each row answers every feature.
  const rows = cells(table).slice(1);
  const names = rows.flatMap((row) => row[1]!.split(', ').map((name) => name.replaceAll('`', '')));
  expect(names.sort()).toEqual([...INTEGRATOR_NAMES].sort());
  for (const row of rows) expect(row.slice(2, -1).every((mark) => mark === 'yes' || mark === '—')).toBe(true);
});

test('a device of the caller’s is accepted on webgpu for every family, refused on the CPU', () => {
  const device = {} as GPUDevice;
  for (const integrator of ['rk4', 'implicit-euler', 'adams-bashforth-2', 'rk45'] as const)
    expect(() => validateOptions({ device }, integrator, 'webgpu')).not.toThrow();
  expect(() => validateOptions({ device }, 'rk4', 'cpu')).toThrow(/device: does not apply/);
});
