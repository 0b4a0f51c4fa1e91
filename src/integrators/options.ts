/**
 * Validation generated from the options table (src/integrators/options-table.ts): every option
 * given is checked against its row (type, range, choices) and against where it applies, and the
 * per-family resolvers fill in the defaults. Every problem is a WeftInputError naming the option.
 */
import { describeName, WeftInputError } from '../core/errors.ts';
import { FLOAT32_RANGE_TEXT, outsideFloat32 } from '../core/float32.ts';
import type { ErrorTolerances, ResolvedAdaptiveOptions } from './adaptive-options.ts';
import { ADAPTIVE_INTEGRATOR_NAMES } from './adaptive.ts';
import { INTEGRATORS, type IntegratorName } from './catalog.ts';
import {
  AUTO_MULTIGRID_PARTICLES,
  type ImplicitIntegratorName,
  type LinearSolverName,
  type ResolvedImplicitOptions,
} from './implicit-options.ts';
import {
  applies,
  appliesText,
  checkOption,
  defaultText,
  valuesText,
  type OptionValue,
} from './option-spec.ts';
import { OPTION_SPECS, OPTIONS, spec } from './options-table.ts';
import { EXPLICIT_INTEGRATOR_NAMES, EXPLICIT_INTEGRATORS, type ExplicitIntegratorName } from './schemes.ts';

/** The value of option `name` in `options`, checked against its row (default when absent). */
function value<T extends OptionValue>(options: object, name: string, fallback?: OptionValue): T {
  const row = spec(name);
  return checkOption(row, (options as Record<string, unknown>)[name], fallback ?? row.default) as T;
}

/**
 * Checks every option given for `integrator` on `backend`: an unknown name, a bad value, or an
 * option that does not apply (and is not left at its default) is a WeftInputError naming it.
 */
export function validateOptions(
  options: object,
  integrator: IntegratorName,
  backend: 'cpu' | 'webgpu',
): void {
  const { family } = INTEGRATORS[integrator];
  for (const [name, given] of Object.entries(options)) {
    if (given === undefined) continue;
    const row = OPTION_SPECS.get(name);
    if (!row) {
      const known = OPTIONS.map((o) => o.name).join(', ');
      throw new WeftInputError(
        name === '' ? "''" : describeName(name).slice(1, -1),
        `is not an option (known: ${known})`,
      );
    }
    checkOption(row, given);
    if (backend === 'webgpu' && typeof given === 'number') requireFloat32(name, given);
    if (!applies(row, integrator, family, backend) && given !== row.default)
      throw new WeftInputError(
        name,
        `does not apply to '${integrator}' on ${backend} (it applies to: ${appliesText(row)})`,
      );
  }
  if (backend === 'webgpu' && (options as { precision?: unknown }).precision === 'f64')
    throw new WeftInputError('precision', `the webgpu backend computes in f32 (WGSL has no f64), got 'f64'`);
}

/**
 * A finite number given for the WebGPU backend must be one float32 can hold (dt = 1e300 used to be
 * reported as a divergence three steps later); ±Infinity where an option allows it passes.
 */
function requireFloat32(name: string, value: number): void {
  if (outsideFloat32(value)) throw new WeftInputError(name, `${value} is ${FLOAT32_RANGE_TEXT}`);
}

/** dt, r_m and r_k of an explicit integrator (r_k must be 0: explicit schemes have no K). */
export function validateIntegrationOptions(options: {
  integrator: ExplicitIntegratorName;
  dt: number;
  rayleighMass?: number;
  rayleighStiffness?: number;
}): { integrator: ExplicitIntegratorName; dt: number; rayleighMass: number; rayleighStiffness: number } {
  if (!(options.integrator in EXPLICIT_INTEGRATORS)) {
    throw new WeftInputError(
      'integrator',
      `unknown integrator '${String(options.integrator)}' (known: ${EXPLICIT_INTEGRATOR_NAMES.join(', ')})`,
    );
  }
  const rayleighStiffness = value<number>(options, 'rayleighStiffness');
  if (rayleighStiffness !== 0) {
    throw new WeftInputError(
      'rayleighStiffness',
      `the explicit integrator '${options.integrator}' cannot apply stiffness damping (it needs the stiffness matrix); use an implicit integrator, rayleighMass or spring damping`,
    );
  }
  return {
    integrator: options.integrator,
    dt: value(options, 'dt'),
    rayleighMass: value(options, 'rayleighMass'),
    rayleighStiffness,
  };
}

/**
 * The implicit integrators' options with their defaults; solver 'auto' becomes 'multigrid' for
 * models of at least AUTO_MULTIGRID_PARTICLES particles, else 'pcg'.
 */
export function resolveImplicitOptions(
  _name: ImplicitIntegratorName,
  options: object,
  particleCount = 0,
): ResolvedImplicitOptions {
  const solver = value<LinearSolverName | 'auto'>(options, 'solver');
  return {
    solver: solver !== 'auto' ? solver : particleCount >= AUTO_MULTIGRID_PARTICLES ? 'multigrid' : 'pcg',
    preconditioner: value(options, 'preconditioner'),
    jacobian: value(options, 'jacobian'),
    maxIterations: value(options, 'maxIterations'),
    tolerance: value(options, 'tolerance'),
    warmStart: value(options, 'warmStart'),
    newtonIterations: value(options, 'newtonIterations'),
    correctionTolerance: value(options, 'correctionTolerance'),
    residualTolerance: value(options, 'residualTolerance'),
    absoluteResidualTolerance: value(options, 'absoluteResidualTolerance'),
    newtonError: value(options, 'newtonError'),
    newmarkGamma: value(options, 'newmarkGamma'),
    newmarkBeta: value(options, 'newmarkBeta'),
    staticFriction: value(options, 'staticFriction'),
  };
}

/** Drake VelocityImplicitEulerIntegrator::DoInitialize: kLoosestAccuracy, the loosest accuracy in use. */
const DRAKE_LOOSEST_ACCURACY = 0.5;

/**
 * The accuracy in use and the error norm's tolerances. 'hairer': sc_i = a_i + r max(|y_i|, |ŷ_i|)
 * with r = accuracy. 'drake' (IntegratorBase::CalcStateChangeNorm, compared with the accuracy in
 * StepOnceErrorControlledAtMost): max_i w_i |e_i| ≤ accuracy, i.e. r = 0, a = accuracy for
 * positions and velocities alike, the max norm; the tolerances of 'hairer' are refused.
 */
function resolveTolerances(
  options: object,
  errorControl: 'drake' | 'hairer',
  integrator: unknown,
): { accuracy: number; tolerances: ErrorTolerances } {
  const given = options as Record<string, unknown>;
  const weights = {
    positionWeight: value<number>(options, 'positionWeight'),
    velocityWeight: value<number>(options, 'velocityWeight'),
  };
  const accuracy = value<number>(options, 'accuracy');
  if (errorControl === 'hairer') {
    const absolutePosition = value<number>(options, 'absoluteTolerance', accuracy);
    const tolerances: ErrorTolerances = {
      relative: accuracy,
      absolutePosition,
      absoluteVelocity: value(options, 'velocityAbsoluteTolerance', absolutePosition),
      ...weights,
      norm: value(options, 'errorNorm'),
    };
    return { accuracy, tolerances };
  }
  // errorNorm 'max' is what 'drake' uses: accepted.
  for (const name of ['absoluteTolerance', 'velocityAbsoluteTolerance', 'errorNorm'])
    if (given[name] !== undefined && !(name === 'errorNorm' && given[name] === 'max'))
      throw new WeftInputError(
        name,
        `does not apply with errorControl 'drake' (accuracy bounds max_i w_i |e_i|, absolutely); use errorControl 'hairer'`,
      );
  const inUse =
    integrator === 'velocity-implicit-euler' ? Math.min(accuracy, DRAKE_LOOSEST_ACCURACY) : accuracy;
  const tolerances: ErrorTolerances = {
    relative: 0,
    absolutePosition: inUse,
    absoluteVelocity: inUse,
    ...weights,
    norm: 'max',
  };
  return { accuracy: inUse, tolerances };
}

/** The adaptive integrators' options with their defaults (some depend on others). */
export function resolveAdaptiveOptions(options: object): ResolvedAdaptiveOptions {
  const given = options as Record<string, unknown>;
  if (given['integrator'] === undefined)
    throw new WeftInputError('integrator', `is required (one of ${ADAPTIVE_INTEGRATOR_NAMES.join(', ')})`);
  const integrator = checkOption(
    { ...spec('integrator'), choices: ADAPTIVE_INTEGRATOR_NAMES },
    given['integrator'],
  );
  const errorControl = value<'drake' | 'hairer'>(
    options,
    'errorControl',
    integrator === 'velocity-implicit-euler' ? 'drake' : 'hairer',
  );
  const { accuracy, tolerances } = resolveTolerances(options, errorControl, integrator);
  if (tolerances.positionWeight === 0 && tolerances.velocityWeight === 0)
    throw new WeftInputError('positionWeight', 'positionWeight and velocityWeight cannot both be 0');
  const minStep = value<number>(options, 'minStep');
  const maxStep = value<number>(options, 'maxStep');
  if (maxStep < minStep)
    throw new WeftInputError('maxStep', `must be ≥ minStep (${minStep} s), got ${maxStep}`);
  let initialStep: number | null = null;
  if (given['initialStep'] !== undefined) {
    initialStep = value<number>(options, 'initialStep');
    if (initialStep < minStep || initialStep > maxStep)
      throw new WeftInputError(
        'initialStep',
        `must lie in [minStep, maxStep] = [${minStep}, ${maxStep}] s, got ${initialStep}`,
      );
  }
  if (given['scheme'] !== undefined && integrator !== 'step-doubling')
    throw new WeftInputError('scheme', `applies to step-doubling only, not to '${String(integrator)}'`);
  const precision = value<'f64' | 'f32'>(options, 'precision');
  return {
    integrator: integrator as ResolvedAdaptiveOptions['integrator'],
    errorControl,
    accuracy,
    tolerances,
    minStep,
    maxStep,
    initialStep,
    safetyFactor: value(options, 'safetyFactor'),
    growthLimit: value(options, 'growthLimit'),
    shrinkLimit: value(options, 'shrinkLimit'),
    newtonFailureShrink: value(options, 'newtonFailureShrink'),
    onMinStep: value(options, 'onMinStep'),
    rayleighMass: value(options, 'rayleighMass'),
    precision,
    scheme: value(options, 'scheme'),
    extrapolate: value(options, 'extrapolate'),
    maxNewtonIterations: value(options, 'maxNewtonIterations'),
    reuseJacobian: value(options, 'reuseJacobian'),
    fullNewton: value(options, 'fullNewton'),
    newtonKappa: value(options, 'newtonKappa'),
    linearTolerance: value(options, 'linearTolerance', precision === 'f32' ? 1e-5 : 1e-10),
    linearMaxIterations: value(options, 'linearMaxIterations'),
    preconditioner: value(options, 'preconditioner'),
    jacobian: value(options, 'jacobian'),
  };
}

/** dt, r_m, r_k and the storage precision, checked against their rows (defaults filled in). */
export function resolveStepOptions(options: object): {
  dt: number;
  rayleighMass: number;
  rayleighStiffness: number;
  precision: 'f64' | 'f32';
} {
  return {
    dt: value(options, 'dt'),
    rayleighMass: value(options, 'rayleighMass'),
    rayleighStiffness: value(options, 'rayleighStiffness'),
    precision: value(options, 'precision'),
  };
}

/** The multistep integrators' corrector options with their defaults. */
export function resolveMultistepOptions(options: { integrator: string }): {
  dt: number;
  rayleighMass: number;
  precision: 'f64' | 'f32';
  correctorTolerance: number;
  maxCorrectorIterations: number;
} {
  const precision = value<'f64' | 'f32'>(options, 'precision');
  return {
    dt: value(options, 'dt'),
    rayleighMass: value(options, 'rayleighMass'),
    precision,
    // float32 cannot resolve changes much below 1e-6 of |y|: a tighter default would never converge.
    correctorTolerance: value(options, 'correctorTolerance', precision === 'f32' ? 1e-5 : 1e-10),
    maxCorrectorIterations: value(
      options,
      'maxCorrectorIterations',
      options.integrator === 'adams-moulton-pc' ? 1 : 50,
    ),
  };
}

/** The README's option table (between `<!-- options:start -->` and `<!-- options:end -->`). */
export function optionsMarkdown(): string {
  const rows = OPTIONS.map((row) => {
    const flag = row.flag ? `\`--${row.flag}\`` : '—';
    const unit = row.unit || '—';
    const values = (row.choices?.length ?? 0) > 8 ? 'an integrator name' : valuesText(row);
    return `| \`${row.name}\` | ${flag} | ${values} | ${unit} | ${defaultText(row)} | ${appliesText(row)} | ${row.help} |`;
  });
  return [
    '| option | CLI flag | values | unit | default | applies to | what it does |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
