/**
 * The scene format's JSON Schema (src/model/scene.schema.json, shipped in the package) is what
 * parseScene validates against: a standard validator (ajv, JSON Schema 2020-12) accepts every
 * shipped example scene and every good scene below, and rejects every structurally bad one that
 * parseScene rejects with an error naming the field. Value checks (ranges, index bounds) are the
 * model's and not the schema's, so they are not part of this comparison.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { parseScene, WeftInputError } from '../src/index.ts';
import { REPO_ROOT } from './browser/chromium.ts';

const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'src/model/scene.schema.json'), 'utf8')) as object;
const validate = new Ajv2020({ strict: true }).compile(schema);

const explicit = {
  particles: { positions: [0, 0, 0, 0, -1, 0], masses: [1, 1], fixed: [0] },
  springs: { pairs: [0, 1], stiffness: 10 },
};
const good: [string, unknown][] = [
  ['explicit', explicit],
  ['explicit, every optional field', { ...explicit, particles: { ...explicit.particles, velocities: [0, 0, 0, 1, 0, 0] }, springs: { pairs: [0, 1], stiffness: [10], restLengths: [1], damping: 0.1 }, gravity: [0, -9.81, 0] }], // prettier-ignore
  ['cloth', { cloth: { nx: 4, ny: 4, pins: 'corners', orientation: 'vertical', origin: [0, 1, 0] } }],
  ['cloth with pin indices', { cloth: { nx: 3, ny: 3, pins: [0, 2] }, gravity: [0, 0, -1] }],
  ['rope', { rope: { particles: 5, direction: [1, 0, 0], pins: 'both' } }],
  ['a $schema reference', { $schema: './scene.schema.json', rope: {} }],
];
const bad: [string, unknown, RegExp][] = [
  ['not an object', [1, 2], /scene/],
  ['no particles', { springs: explicit.springs }, /particles/],
  ['no springs', { particles: explicit.particles }, /springs/],
  ['unknown top-level field', { ...explicit, wind: 1 }, /wind/],
  [
    'unknown particle field',
    { ...explicit, particles: { ...explicit.particles, colour: [] } },
    /particles\.colour/,
  ],
  ['positions not numbers', { ...explicit, particles: { ...explicit.particles, positions: [0, 'a'] } }, /particles\.positions\[1\]/], // prettier-ignore
  ['masses missing', { ...explicit, particles: { positions: [0, 0, 0] } }, /particles\.masses/],
  [
    'stiffness a string',
    { ...explicit, springs: { pairs: [0, 1], stiffness: 'stiff' } },
    /springs\.stiffness/,
  ],
  ['gravity of 2 entries', { ...explicit, gravity: [0, -9.81] }, /gravity/],
  ['cloth field of the wrong type', { cloth: { nx: '4' } }, /cloth\.nx/],
  ['unknown cloth field', { cloth: { size: 4 } }, /cloth\.size/],
  ['cloth origin of 2 entries', { cloth: { origin: [0, 1] } }, /cloth\.origin/],
  ['rope pins as indices', { rope: { pins: [0] } }, /rope\.pins/],
  ['cloth and springs together', { cloth: {}, springs: explicit.springs }, /springs/],
];

describe('scene JSON Schema', () => {
  test.each(readdirSync(join(REPO_ROOT, 'examples/scenes')).filter((f) => f.endsWith('.json')))(
    'examples/scenes/%s is valid by the schema and parses',
    (file) => {
      const scene: unknown = JSON.parse(readFileSync(join(REPO_ROOT, 'examples/scenes', file), 'utf8'));
      expect(validate(scene), JSON.stringify(validate.errors)).toBe(true);
      expect(parseScene(scene).particleCount).toBeGreaterThan(0);
    },
  );

  test.each(good)('%s: valid by the schema and parsed', (_name, scene) => {
    expect(validate(scene), JSON.stringify(validate.errors)).toBe(true);
    expect(parseScene(scene).particleCount).toBeGreaterThan(0);
  });

  test.each(bad)('%s: rejected by the schema and by parseScene, naming the field', (_name, scene, field) => {
    expect(validate(scene)).toBe(false);
    expect(() => parseScene(scene)).toThrow(WeftInputError);
    expect(() => parseScene(scene)).toThrow(field);
  });
});
