/**
 * The CLI's flags, generated from the options table (src/integrators/options-table.ts): the
 * parseArgs configuration, the conversion of each flag's text to its option's value (checked
 * against the same row, the error naming the flag), the refusal of a flag that does not apply to
 * the chosen integrator, and the `--help` text.
 */
import { WeftInputError } from '../core/errors.ts';
import { INTEGRATORS, type IntegratorName } from '../integrators/catalog.ts';
import {
  applies,
  appliesText,
  checkOption,
  defaultText,
  valuesText,
  type OptionSpec,
  type OptionValue,
} from '../integrators/option-spec.ts';
import { OPTIONS } from '../integrators/options-table.ts';
import { MESH_FLAGS, OBJ_SEQUENCE_FLAG } from './mesh-flags.ts';

/** Flags of `weft run` that are not simulation options. */
// prettier-ignore
export const RUN_FLAGS: readonly OptionSpec[] = [
  { name: 'steps', type: 'number', unit: '', range: { integer: true, min: 0 }, appliesTo: { integrators: ['explicit', 'implicit', 'multistep'], backends: 'all' }, flag: 'steps', help: 'Steps to take.' },
  { name: 'every', type: 'number', unit: '', defaultText: 'steps (a frame at 0 and at the end)', range: { integer: true, min: 1 }, appliesTo: { integrators: ['explicit', 'implicit', 'multistep'], backends: 'all' }, flag: 'every', help: 'Write a frame every k steps.' },
  { name: 'tEnd', type: 'number', unit: 's', range: { min: 0, minOpen: true }, appliesTo: { integrators: ['adaptive'], backends: 'all' }, flag: 't-end', help: 'Integrate to this time.' },
  { name: 'frames', type: 'number', unit: '', default: 1, range: { integer: true, min: 1 }, appliesTo: { integrators: ['adaptive'], backends: 'all' }, flag: 'frames', help: 'Frames at equal intervals of simulated time (after the initial one).' },
];

const FLAGGED = [...OPTIONS, ...RUN_FLAGS].filter((spec) => spec.flag !== null);

/** parseArgs' `options` for every flag (values are read as text and converted here). */
export const PARSE_OPTIONS = Object.fromEntries([
  ...[...FLAGGED, ...MESH_FLAGS].map((spec) => [spec.flag!, { type: 'string' }] as const),
  ['out', { type: 'string' }] as const,
  [OBJ_SEQUENCE_FLAG, { type: 'string' }] as const,
  ['progress', { type: 'boolean' }] as const,
  ['allow-unconverged', { type: 'boolean' }] as const,
]) as Record<string, { type: 'string' | 'boolean' }>;

/** Decimal numbers only (`0x10`, `1_0`, `Infinity` are refused): digits, point, exponent. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `text` as a finite decimal number; the error names `field`. */
export function decimalNumber(field: string, text: string): number {
  const value = Number(text);
  if (!DECIMAL.test(text.trim()) || !Number.isFinite(value))
    throw new WeftInputError(field, `must be a finite decimal number, got '${text}'`);
  return value;
}

/** A flag's text as its option's value, checked against its row; errors name the flag. */
export function flagValue(spec: OptionSpec, text: string): OptionValue {
  const field = `--${spec.flag}`;
  let value: OptionValue = text;
  if (spec.type === 'number') {
    value = decimalNumber(field, text);
  } else if (spec.type === 'boolean') {
    if (text !== 'true' && text !== 'false')
      throw new WeftInputError(field, `must be true or false, got '${text}'`);
    value = text === 'true';
  }
  try {
    return checkOption(spec, value);
  } catch (error) {
    if (!(error instanceof WeftInputError)) throw error;
    throw new WeftInputError(field, error.message.slice(`${spec.name}: `.length));
  }
}

/**
 * The options given as flags, converted and checked; a flag that does not apply to `integrator`
 * on `backend` is an error naming it. `integrator` and `backend` themselves are left out.
 */
export function optionsFromFlags(
  values: Readonly<Record<string, string | boolean | undefined>>,
  integrator: IntegratorName,
  backend: 'cpu' | 'webgpu',
): Record<string, OptionValue> {
  const { family } = INTEGRATORS[integrator];
  const options: Record<string, OptionValue> = {};
  for (const spec of FLAGGED) {
    const text = values[spec.flag!];
    if (typeof text !== 'string' || spec.name === 'integrator' || spec.name === 'backend') continue;
    if (!applies(spec, integrator, family, backend))
      throw new WeftInputError(
        `--${spec.flag}`,
        `does not apply to '${integrator}' on ${backend} (it applies to: ${appliesText(spec)})`,
      );
    options[spec.name] = flagValue(spec, text);
  }
  return options;
}

/** `--help`: every flag with its values, unit, default, where it applies and what it does. */
export function flagHelp(): string {
  return [...FLAGGED, ...MESH_FLAGS]
    .map((spec) => {
      const unit = spec.unit ? ` [${spec.unit}]` : '';
      const values = (spec.choices?.length ?? 0) > 8 ? 'name' : valuesText(spec).replaceAll('\\|', '|');
      return `  --${spec.flag} <${values}>${unit}\n      ${spec.help} Default: ${defaultText(spec)}. Applies to: ${appliesText(spec)}.`;
    })
    .join('\n');
}
