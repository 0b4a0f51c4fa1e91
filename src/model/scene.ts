import { describeValue, WeftInputError } from '../core/errors.ts';
import { buildCloth, buildRope, type ClothOptions, type RopeOptions } from './builders.ts';
import { createModel, type Model } from './model.ts';

/**
 * The scene file of `weft run` (documented in README.md): explicit particles and springs, or a
 * builder (`cloth` or `rope`) with its options. `gravity` applies to either.
 */
export type SceneFile =
  | {
      particles: { positions: number[]; velocities?: number[]; masses: number[]; fixed?: number[] };
      springs: {
        pairs: number[];
        stiffness: number | number[];
        restLengths?: number[];
        damping?: number | number[];
      };
      gravity?: [number, number, number];
    }
  | { cloth: ClothOptions; gravity?: [number, number, number] }
  | { rope: RopeOptions; gravity?: [number, number, number] };

type Json = Record<string, unknown>;

function object(field: string, value: unknown): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new WeftInputError(
      field,
      `must be an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  return value as Json;
}

function numbers(field: string, value: unknown): number[] {
  if (!Array.isArray(value))
    throw new WeftInputError(field, `must be an array of numbers, got ${describeValue(value)}`);
  value.forEach((x, i) => {
    if (typeof x !== 'number')
      throw new WeftInputError(`${field}[${i}]`, `must be a number, got ${describeValue(x)}`);
  });
  return value as number[];
}

function numberOrNumbers(field: string, value: unknown): number | number[] {
  if (typeof value === 'number') return value;
  return numbers(field, value);
}

function only(field: string, json: Json, allowed: string[]): void {
  for (const key of Object.keys(json)) {
    if (!allowed.includes(key)) {
      throw new WeftInputError(
        (field ? `${field}.${key}` : key) || '""',
        `unknown field (expected one of: ${allowed.join(', ')})`,
      );
    }
  }
}

function gravityOf(json: Json): { gravity?: [number, number, number] } {
  if (json['gravity'] === undefined) return {};
  const g = numbers('gravity', json['gravity']);
  if (g.length !== 3) throw new WeftInputError('gravity', `must have 3 entries (x, y, z), got ${g.length}`);
  return { gravity: [g[0]!, g[1]!, g[2]!] };
}

type FieldKind = 'number' | 'vector' | 'string' | 'pins';

const CLOTH_FIELDS: Record<keyof ClothOptions, FieldKind> = {
  nx: 'number',
  ny: 'number',
  spacing: 'number',
  particleMass: 'number',
  structuralStiffness: 'number',
  shearStiffness: 'number',
  bendStiffness: 'number',
  damping: 'number',
  pins: 'pins',
  orientation: 'string',
  origin: 'vector',
  gravity: 'vector',
};

const ROPE_FIELDS: Record<keyof RopeOptions, FieldKind> = {
  particles: 'number',
  spacing: 'number',
  particleMass: 'number',
  stiffness: 'number',
  damping: 'number',
  direction: 'vector',
  pins: 'string',
  gravity: 'vector',
};

/** A builder's options, each field checked for its name and type (the builder checks values). */
function builderOptions(field: string, value: unknown, fields: Record<string, FieldKind>): Json {
  const json = object(field, value);
  only(field, json, Object.keys(fields));
  for (const [key, option] of Object.entries(json)) {
    const name = `${field}.${key}`;
    const kind = fields[key];
    if (kind === 'number' && typeof option !== 'number') {
      throw new WeftInputError(name, `must be a number, got ${describeValue(option)}`);
    }
    if (kind === 'string' && typeof option !== 'string') {
      throw new WeftInputError(name, `must be a string, got ${describeValue(option)}`);
    }
    if (kind === 'vector' && numbers(name, option).length !== 3) {
      throw new WeftInputError(name, 'must have 3 entries (x, y, z)');
    }
    if (kind === 'pins' && typeof option !== 'string') numbers(name, option);
  }
  return json;
}

/** Parses and validates a scene (already JSON-decoded) into a model. */
export function parseScene(scene: unknown): Model {
  const json = object('scene', scene);
  if ('cloth' in json) {
    only('', json, ['cloth', 'gravity']);
    return buildCloth({
      ...(builderOptions('cloth', json['cloth'], CLOTH_FIELDS) as ClothOptions),
      ...gravityOf(json),
    });
  }
  if ('rope' in json) {
    only('', json, ['rope', 'gravity']);
    return buildRope({
      ...(builderOptions('rope', json['rope'], ROPE_FIELDS) as RopeOptions),
      ...gravityOf(json),
    });
  }
  if (!('particles' in json))
    throw new WeftInputError('particles', 'missing (a scene needs particles and springs, or cloth, or rope)');
  if (!('springs' in json)) throw new WeftInputError('springs', 'missing');
  only('', json, ['particles', 'springs', 'gravity']);
  const particles = object('particles', json['particles']);
  const springs = object('springs', json['springs']);
  only('particles', particles, ['positions', 'velocities', 'masses', 'fixed']);
  only('springs', springs, ['pairs', 'stiffness', 'restLengths', 'damping']);
  if (particles['positions'] === undefined) throw new WeftInputError('particles.positions', 'missing');
  if (particles['masses'] === undefined) throw new WeftInputError('particles.masses', 'missing');
  if (springs['pairs'] === undefined) throw new WeftInputError('springs.pairs', 'missing');
  if (springs['stiffness'] === undefined) throw new WeftInputError('springs.stiffness', 'missing');
  return createModel({
    positions: numbers('particles.positions', particles['positions']),
    masses: numbers('particles.masses', particles['masses']),
    springPairs: numbers('springs.pairs', springs['pairs']),
    springStiffness: numberOrNumbers('springs.stiffness', springs['stiffness']),
    ...(particles['velocities'] !== undefined
      ? { velocities: numbers('particles.velocities', particles['velocities']) }
      : {}),
    ...(particles['fixed'] !== undefined ? { fixed: numbers('particles.fixed', particles['fixed']) } : {}),
    ...(springs['restLengths'] !== undefined
      ? { springRestLengths: numbers('springs.restLengths', springs['restLengths']) }
      : {}),
    ...(springs['damping'] !== undefined
      ? { springDamping: numberOrNumbers('springs.damping', springs['damping']) }
      : {}),
    ...gravityOf(json),
  });
}
