/** The CLI's checks of what a user typed: numbers, integrator and backend names, scene files. */
import { readFileSync } from 'node:fs';
import { WeftInputError } from '../core/errors.ts';
import { INTEGRATOR_NAMES, INTEGRATORS, type IntegratorName } from '../integrators/catalog.ts';
import type { Model } from '../model/model.ts';
import { parseScene } from '../model/scene.ts';
import { decimalNumber } from './flags.ts';
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

export function readScene(path: string): Model {
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
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WeftInputError('scene', `'${path}' is not valid JSON: ${(error as Error).message}`);
  }
  return parseScene(json);
}
