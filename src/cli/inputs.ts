/** The CLI's checks of what a user typed: numbers, integrator and backend names, scene files (JSON or OBJ). */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describeValue, WeftInputError } from '../core/errors.ts';
import { INTEGRATOR_NAMES, INTEGRATORS, type IntegratorName } from '../integrators/catalog.ts';
import type { Model } from '../model/model.ts';
import { loadObj } from '../model/obj.ts';
import { parseScene } from '../model/scene.ts';
import { decimalNumber } from './flags.ts';
import { givenMeshFlag } from './mesh-flags.ts';
import { meshScene, type MeshScene } from './mesh-scene.ts';
import { didYouMean } from './text.ts';

export function number(option: string, text: string | undefined, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new WeftInputError(option, 'is required');
    return fallback;
  }
  return decimalNumber(option, text);
}

export function integer(
  option: string,
  text: string | undefined,
  minimum: number,
  fallback?: number,
): number {
  const value = number(option, text, fallback);
  if (!Number.isInteger(value) || value < minimum) {
    throw new WeftInputError(option, `must be an integer ≥ ${minimum}, got '${text}'`);
  }
  return value;
}

export function integratorName(text: string | undefined, fallback?: IntegratorName): IntegratorName {
  const name = text ?? fallback;
  if (name === undefined)
    throw new WeftInputError('--integrator', `is required (one of: ${INTEGRATOR_NAMES.join(', ')})`);
  if (!Object.hasOwn(INTEGRATORS, name)) {
    throw new WeftInputError(
      '--integrator',
      `unknown integrator '${name}'${didYouMean(name, INTEGRATOR_NAMES)} (known: ${INTEGRATOR_NAMES.join(', ')})`,
    );
  }
  return name as IntegratorName;
}

export function backendName(text: string | undefined, fallback: 'cpu' | 'webgpu'): 'cpu' | 'webgpu' {
  const backend = text ?? fallback;
  if (backend !== 'cpu' && backend !== 'webgpu')
    throw new WeftInputError('--backend', `must be cpu or webgpu, got '${backend}'`);
  return backend;
}

/** A scene file as the CLI runs it; `mesh` for an .obj scene. */
export interface LoadedScene {
  model: Model;
  mesh?: MeshScene;
}

/**
 * The scene at `path`: an .obj mesh with the material flags in `values` (README, "Meshes"), or a
 * JSON scene, for which a material flag is an error (it gives its own masses, springs and pins).
 */
export function readScene(
  path: string,
  values: Readonly<Record<string, string | boolean | undefined>> = {},
): LoadedScene {
  // prettier-ignore
  const obj = /\.obj$/i.test(path);
  const meshFlag = givenMeshFlag(values);
  if (!obj && meshFlag !== undefined)
    throw new WeftInputError(`--${meshFlag}`, `applies to .obj scenes only (a JSON scene gives its own masses, springs and pins, and its frames go to the JSON output)`); // prettier-ignore
  let text: string;
  try {
    // A UTF-8 byte-order mark (some editors write one) is not part of the JSON.
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw new WeftInputError(
      'scene',
      `cannot read '${path}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (obj) {
    const mesh = meshScene(path, text, values);
    return { model: mesh.model, mesh };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WeftInputError('scene', `'${path}' is not valid JSON: ${(error as Error).message}`);
  }
  return { model: parseScene(withObjColliders(json, path)) };
}

/**
 * A scene's mesh colliders may name an OBJ file (`"obj": "body.obj"`, relative to the scene file)
 * instead of giving `vertices` and `triangles`: read here, fan-triangulated by loadObj (the
 * library's parseScene reads no files).
 */
function withObjColliders(json: unknown, scenePath: string): unknown {
  const colliders = (json as { colliders?: unknown } | null)?.colliders;
  if (!Array.isArray(colliders)) return json;
  const read = colliders.map((c: unknown, k: number) => {
    if (typeof c !== 'object' || c === null || !('obj' in c)) return c;
    const { obj, ...rest } = c as Record<string, unknown>;
    const field = `colliders[${k}].obj`;
    if (typeof obj !== 'string')
      throw new WeftInputError(field, `must be a file name, got ${describeValue(obj)}`);
    if ('vertices' in rest || 'triangles' in rest) throw new WeftInputError(field, 'names the mesh already given by vertices and triangles: give one or the other'); // prettier-ignore
    const file = resolve(dirname(scenePath), obj);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new WeftInputError(field, `cannot read '${file}': ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`); // prettier-ignore
    }
    const mesh = loadObj(text, { source: obj });
    return { ...rest, vertices: Array.from(mesh.positions), triangles: Array.from(mesh.triangles) };
  });
  return { ...(json as object), colliders: read };
}
