import { describeValue, WeftInputError } from '../core/errors.ts';
import { buildCloth, buildRope, type ClothOptions, type RopeOptions } from './builders.ts';
import {
  createModel,
  withBending,
  withColliders,
  withSelfCollision,
  withStrainLimit,
  withWind,
  type Model,
} from './model.ts';
import type { SelfCollision } from './self-collision.ts';
import type { Bending } from './bending.ts';
import type { StrainLimit } from './strain-limit.ts';
import type { Collider } from './colliders.ts';
import type { Wind } from './wind.ts';
import schema from './scene.schema.json';

/**
 * The scene file of `weft run` (documented in README.md): explicit particles and springs, or a
 * builder (`cloth` or `rope`) with its options. `gravity`, `colliders`, `wind` and `strainLimit` apply to any
 * (wind needs triangles: a cloth's, or the explicit scene's `triangles`).
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
      colliders?: Collider[];
      triangles?: number[];
      wind?: Wind;
      strainLimit?: StrainLimit;
    }
  | { cloth: ClothOptions; gravity?: [number, number, number]; colliders?: Collider[]; wind?: Wind; strainLimit?: StrainLimit } // prettier-ignore
  | { rope: RopeOptions; gravity?: [number, number, number]; colliders?: Collider[]; wind?: Wind; strainLimit?: StrainLimit }; // prettier-ignore

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
  const g = json['gravity'] as number[] | undefined;
  return g === undefined ? {} : { gravity: [g[0]!, g[1]!, g[2]!] };
}

/** A field's type in src/model/scene.schema.json, the one description of the scene format. */
type FieldKind =
  | 'number'
  | 'numbers'
  | 'numberOrNumbers'
  | 'vector'
  | 'string'
  | 'pins'
  | 'colliders'
  | 'wind'
  | 'strainLimit'
  | 'bending'
  | 'selfCollision';

interface SchemaObject {
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly required?: readonly string[];
}

function kindOf(property: Readonly<Record<string, unknown>>): FieldKind {
  const ref = property['$ref'];
  if (typeof ref === 'string') return ref.slice(ref.lastIndexOf('/') + 1) as FieldKind;
  if (property['oneOf']) return 'pins';
  return property['type'] as 'number' | 'string';
}

/** The schema's variant whose required fields include `key` ('particles', 'cloth' or 'rope'). */
function variant(key: string): SchemaObject {
  return (schema.oneOf as readonly SchemaObject[]).find((v) => v.required?.includes(key))!;
}

/** The fields of `json` (at `field`), each checked for its name and type against `object`. */
function checkFields(field: string, json: Json, spec: SchemaObject): void {
  only(field, json, Object.keys(spec.properties));
  for (const name of spec.required ?? []) {
    if (json[name] === undefined) throw new WeftInputError(field ? `${field}.${name}` : name, 'missing');
  }
  for (const [key, value] of Object.entries(json)) {
    const name = field ? `${field}.${key}` : key;
    const kind = kindOf(spec.properties[key]!);
    if (kind === 'number' && typeof value !== 'number') {
      throw new WeftInputError(name, `must be a number, got ${describeValue(value)}`);
    }
    if (kind === 'string' && typeof value !== 'string') {
      throw new WeftInputError(name, `must be a string, got ${describeValue(value)}`);
    }
    if (kind === 'numbers' || (kind === 'pins' && typeof value !== 'string')) numbers(name, value);
    if (kind === 'numberOrNumbers') numberOrNumbers(name, value);
    if (kind === 'colliders' && !Array.isArray(value)) {
      throw new WeftInputError(name, `must be an array of colliders, got ${describeValue(value)}`);
    }
    if (kind === 'wind') checkFields(name, object(name, value), schema.$defs.wind as unknown as SchemaObject);
    if (kind === 'strainLimit') checkFields(name, object(name, value), schema.$defs.strainLimit as unknown as SchemaObject); // prettier-ignore
    if (kind === 'bending') checkFields(name, object(name, value), schema.$defs.bending as unknown as SchemaObject); // prettier-ignore
    if (kind === 'selfCollision') checkFields(name, object(name, value), schema.$defs.selfCollision as unknown as SchemaObject); // prettier-ignore
    if (kind === 'vector' && numbers(name, value).length !== 3) {
      throw new WeftInputError(name, `must have 3 entries (x, y, z), got ${(value as unknown[]).length}`);
    }
  }
}

/** A builder's options, checked for names and types (the builder checks values). */
function builderOptions(key: 'cloth' | 'rope', value: unknown): Json {
  const json = object(key, value);
  checkFields(key, json, variant(key).properties[key] as unknown as SchemaObject);
  return json;
}

/**
 * Parses and validates a scene (already JSON-decoded) into a model: field names and types as
 * src/model/scene.schema.json gives them (errors name the field), values by the model's checks.
 */
export function parseScene(scene: unknown): Model {
  const json = object('scene', scene);
  for (const builder of ['cloth', 'rope'] as const) {
    if (!(builder in json)) continue;
    checkFields('', json, { properties: variant(builder).properties });
    const options = builderOptions(builder, json[builder]);
    const model =
      builder === 'cloth'
        ? buildCloth({ ...(options as ClothOptions), ...gravityOf(json) })
        : buildRope({ ...(options as RopeOptions), ...gravityOf(json) });
    const posed =
      json['colliders'] === undefined ? model : withColliders(model, json['colliders'] as Collider[]);
    const windy = json['wind'] === undefined ? posed : withWind(posed, json['wind'] as Wind);
    const limited = json['strainLimit'] === undefined ? windy : withStrainLimit(windy, json['strainLimit'] as StrainLimit); // prettier-ignore
    const bent = json['bending'] === undefined ? limited : withBending(limited, json['bending'] as Bending);
    return json['selfCollision'] === undefined ? bent : withSelfCollision(bent, json['selfCollision'] as SelfCollision); // prettier-ignore
  }
  if (!('particles' in json))
    throw new WeftInputError('particles', 'missing (a scene needs particles and springs, or cloth, or rope)');
  const explicit = variant('particles');
  checkFields('', json, explicit);
  const particles = object('particles', json['particles']);
  const springs = object('springs', json['springs']);
  checkFields('particles', particles, explicit.properties['particles'] as unknown as SchemaObject);
  checkFields('springs', springs, explicit.properties['springs'] as unknown as SchemaObject);
  const optional = (value: unknown, key: string): Record<string, unknown> =>
    value === undefined ? {} : { [key]: value };
  return createModel({
    positions: particles['positions'] as number[],
    masses: particles['masses'] as number[],
    springPairs: springs['pairs'] as number[],
    springStiffness: springs['stiffness'] as number | number[],
    ...optional(particles['velocities'], 'velocities'),
    ...optional(particles['fixed'], 'fixed'),
    ...optional(springs['restLengths'], 'springRestLengths'),
    ...optional(springs['damping'], 'springDamping'),
    ...optional(json['colliders'], 'colliders'),
    ...optional(json['triangles'], 'triangles'),
    ...optional(json['wind'], 'wind'),
    ...optional(json['strainLimit'], 'strainLimit'),
    ...optional(json['bending'], 'bending'),
    ...optional(json['selfCollision'], 'selfCollision'),
    ...gravityOf(json),
  });
}
