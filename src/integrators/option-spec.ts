/**
 * The shape of one row of the options table (src/integrators/options-table.ts) and the checks
 * generated from it: validation with an error that names the option, whether an option applies
 * to an integrator on a backend, and the text of the CLI's `--help` and the README's table.
 */
import { describeName, describeValue, WeftInputError } from '../core/errors.ts';
import type { IntegratorFamily } from './catalog.ts';

/** A number's allowed range; bounds are inclusive unless marked open. */
export interface NumberRange {
  readonly integer?: boolean;
  readonly min?: number;
  readonly minOpen?: boolean;
  readonly max?: number;
  readonly maxOpen?: boolean;
  /** Infinity is allowed (maxStep). Default false: finite only. */
  readonly infinite?: boolean;
}

/** Where an option applies: integrator families (or names), and backends. */
export interface Applicability {
  /** Families or integrator names; 'all' for every integrator. */
  readonly integrators: 'all' | readonly (IntegratorFamily | string)[];
  /** Backends; 'all' for both. */
  readonly backends: 'all' | readonly ('cpu' | 'webgpu')[];
}

export type OptionValue = number | string | boolean;

export interface OptionSpec {
  /** The option's name in SimulationOptions / AdaptiveOptions. */
  readonly name: string;
  readonly type: 'number' | 'choice' | 'boolean' | 'object';
  /** SI unit ('' for a pure number or a choice). */
  readonly unit: string;
  /** Default value, or a note where it depends on other options; undefined when required. */
  readonly default?: OptionValue;
  /** The default as documented when it depends on other options. */
  readonly defaultText?: string;
  readonly range?: NumberRange;
  readonly choices?: readonly string[];
  readonly appliesTo: Applicability;
  /** CLI flag without the dashes, or null when the CLI has none. */
  readonly flag: string | null;
  /** One sentence for `--help` and the README. */
  readonly help: string;
}

/** "a finite number > 0", "an integer ≥ 1", "a number in (0, 1)", … */
export function rangeRule(range: NumberRange = {}): string {
  const { integer, min, max, minOpen, maxOpen, infinite } = range;
  if (min !== undefined && max !== undefined && !integer)
    return `a number in ${minOpen ? '(' : '['}${min}, ${max}${maxOpen ? ')' : ']'}`;
  const kind = integer ? 'an integer' : infinite ? 'a number' : 'a finite number';
  if (min !== undefined) return `${kind} ${minOpen ? '>' : '≥'} ${min}`;
  if (max !== undefined) return `${kind} ${maxOpen ? '<' : '≤'} ${max}`;
  return kind;
}

function inRange(value: number, range: NumberRange = {}): boolean {
  if (Number.isNaN(value)) return false;
  if (!range.infinite && !Number.isFinite(value)) return false;
  if (range.integer && !Number.isInteger(value)) return false;
  if (range.min !== undefined && (range.minOpen ? value <= range.min : value < range.min)) return false;
  if (range.max !== undefined && (range.maxOpen ? value >= range.max : value > range.max)) return false;
  return true;
}

/** The value of `spec` in `options` (or its default when absent), checked; throws naming it. */
export function checkOption(spec: OptionSpec, value: unknown, fallback = spec.default): OptionValue {
  const v = value ?? fallback;
  if (v === undefined) throw new WeftInputError(spec.name, 'is required');
  switch (spec.type) {
    case 'number':
      if (typeof v !== 'number' || !inRange(v, spec.range))
        throw new WeftInputError(spec.name, `must be ${rangeRule(spec.range)}, got ${describeValue(v)}`);
      return v;
    case 'choice':
      if (typeof v !== 'string' || !spec.choices!.includes(v))
        throw new WeftInputError(
          spec.name,
          `must be one of ${spec.choices!.join(', ')}, got ${describeName(v)}`,
        );
      return v;
    case 'boolean':
      if (typeof v !== 'boolean')
        throw new WeftInputError(spec.name, `must be true or false, got ${describeValue(v)}`);
      return v;
    case 'object':
      return v as OptionValue;
  }
}

/** Whether `spec` applies to `integrator` (of `family`) on `backend`. */
export function applies(spec: OptionSpec, integrator: string, family: string, backend: string): boolean {
  const { integrators, backends } = spec.appliesTo;
  const byIntegrator =
    integrators === 'all' || integrators.includes(family) || integrators.includes(integrator);
  const byBackend = backends === 'all' || (backends as readonly string[]).includes(backend);
  return byIntegrator && byBackend;
}

/** Where an option applies, in words ("implicit; webgpu"). */
export function appliesText(spec: OptionSpec): string {
  const { integrators, backends } = spec.appliesTo;
  const who = integrators === 'all' ? 'all' : integrators.join(', ');
  return backends === 'all' ? who : `${who}; ${backends.join(', ')} only`;
}

/** The default as a person reads it. */
export function defaultText(spec: OptionSpec): string {
  if (spec.defaultText !== undefined) return spec.defaultText;
  if (spec.default === undefined) return 'required';
  return typeof spec.default === 'string' ? `'${spec.default}'` : String(spec.default);
}

/** What values an option takes, as a person reads it. */
export function valuesText(spec: OptionSpec): string {
  if (spec.type === 'choice') return spec.choices!.join(' \\| ');
  if (spec.type === 'boolean') return 'true \\| false';
  if (spec.type === 'object') return 'GPUDevice';
  return rangeRule(spec.range).replace(/^an? /, '');
}
