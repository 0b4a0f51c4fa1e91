/**
 * Every error Weft throws on purpose is a {@link WeftError}: it has a machine-readable `code`, the
 * offending `field` where there is one, and `details` with the numbers behind the message. The CLI
 * prints any WeftError as one line (`weft: <message>`) and exits with {@link exitCode}; anything
 * else is a bug in Weft and is reported as an internal error.
 */

/** What went wrong, one word a program can switch on. */
export type WeftErrorCode =
  | 'input'
  | 'webgpu-unavailable'
  | 'divergence'
  | 'step-size'
  | 'destroyed'
  | 'device-lost'
  | 'gpu-setup'
  | 'unconverged'
  | 'capacity'
  | 'interrupted';

/** CLI exit status of each code: 2 bad input, 3 no WebGPU (or lost), 4 the run failed numerically, 1 misuse, 130 Ctrl-C. */
const EXIT_CODES: Record<WeftErrorCode, number> = {
  input: 2,
  'webgpu-unavailable': 3,
  divergence: 4,
  'step-size': 4,
  destroyed: 1,
  'device-lost': 3,
  'gpu-setup': 1,
  unconverged: 4,
  capacity: 4,
  interrupted: 130,
};

/**
 * The base of every error Weft throws on purpose; `instanceof WeftError` separates them from bugs.
 * Switch on {@link WeftError.code}; {@link WeftError.field} names the offending input.
 */
export class WeftError extends Error {
  /** What went wrong (see {@link WeftErrorCode}). */
  readonly code: WeftErrorCode;
  /** Dotted path of the offending field, e.g. `springs.restLengths[12]` or `dt`; '' when none. */
  readonly field: string;
  /** The numbers behind the message (step, time, particle, …). */
  readonly details: Readonly<Record<string, number | string>>;
  constructor(
    code: WeftErrorCode,
    message: string,
    field = '',
    details: Readonly<Record<string, number | string>> = {},
  ) {
    super(message);
    this.name = 'WeftError';
    this.code = code;
    this.field = field;
    this.details = details;
  }
}

/** The CLI's exit status for an error: a {@link WeftError}'s code, 1 for anything else. */
export function exitCode(error: unknown): number {
  return error instanceof WeftError ? EXIT_CODES[error.code] : 1;
}

/**
 * An error in what the caller gave Weft (a scene, an option, a size): it names the offending
 * field, and the index where there is one, so a person can find it. Thrown before anything
 * reaches the GPU.
 */
export class WeftInputError extends WeftError {
  constructor(field: string, problem: string) {
    super('input', `${field}: ${problem}`, field);
    this.name = 'WeftInputError';
  }
}

/** Why no WebGPU adapter or device could be had, in words a user can act on. */
export class WebGpuUnavailableError extends WeftError {
  constructor(reason: string) {
    super('webgpu-unavailable', `WebGPU is not available: ${reason}`);
    this.name = 'WebGpuUnavailableError';
  }
}

/**
 * The simulation produced NaN or Inf (`particle` names the first), or a finite blow-up: its
 * mechanical energy rose past `energy.bound` (`particle` −1). Reported, never rendered or
 * returned as if it were a state.
 */
export class WeftDivergenceError extends WeftError {
  constructor(
    /** The step count at which the divergence was detected (where the state was read back). */
    readonly step: number,
    /** Index of the first particle whose position or velocity is not finite; −1 for an energy blow-up. */
    readonly particle: number,
    /** For a finite blow-up: the mechanical energy reached and the bound it passed, J. */
    readonly energy?: {
      /** Mechanical energy of the state read, J. */
      readonly value: number;
      /** E₀ + 1000 × the scene's energy scale, J. */
      readonly bound: number;
    },
  ) {
    const what = energy
      ? `its energy rose to ${energy.value.toExponential(3)} J at step ${step}, past ${energy.bound.toExponential(3)} J (the initial energy + ${ENERGY_GROWTH_LIMIT} × the scene's energy scale)`
      : `particle ${particle} is not finite at step ${step}`;
    super('divergence', `simulation diverged: ${what} (reduce dt, or use a more stable integrator)`, '', {
      step,
      particle,
      ...(energy ? { energy: energy.value, bound: energy.bound } : {}),
    });
    this.name = 'WeftDivergenceError';
  }
}

/**
 * How far a state's mechanical energy may rise above the initial energy, in units of the scene's
 * energy scale, before it counts as diverged (backends/common/state-check.ts). Gravity and the
 * springs are conservative and damping only dissipates: a physical run never gains energy, and a
 * scheme's own drift stays orders of magnitude below this.
 */
export const ENERGY_GROWTH_LIMIT = 1000;

/**
 * Why an adaptive integration could not go on. Thrown instead of returning a state that was not
 * computed to the requested accuracy where no smaller step is allowed, so that a caller never
 * mistakes it for a result.
 */
export class WeftStepSizeError extends WeftError {
  constructor(
    /** Simulated time reached, s (the state at this time is still readable). */
    readonly time: number,
    /** The step that failed, s. */
    readonly stepSize: number,
    /** What failed at the minimum step. */
    readonly reason: 'newton-failed' | 'non-finite' | 'accuracy',
  ) {
    const what = {
      'newton-failed': 'the Newton iteration failed to converge',
      'non-finite': 'the step produced NaN or Inf (the scheme is unstable at this step size)',
      accuracy: 'the error estimate is above the requested accuracy',
    }[reason];
    super(
      'step-size',
      `adaptive step at t = ${time} s: ${what} at the minimum step ${stepSize} s (loosen accuracy, lower minStep, or use velocity-implicit-euler for stiff systems)`,
      'minStep',
      { time, stepSize, reason },
    );
    this.name = 'WeftStepSizeError';
  }
}

/** A simulation used after its destroy(): nothing it would return could be trusted. */
export class WeftDestroyedError extends WeftError {
  constructor(what: string) {
    super('destroyed', `${what}: the simulation was destroyed (create a new one)`);
    this.name = 'WeftDestroyedError';
  }
}

/**
 * The GPUDevice was lost (destroyed by its owner, a driver reset, …): no state read after the loss
 * is real. `reason` and `message` are the device's GPUDeviceLostInfo.
 */
export class WeftDeviceLostError extends WeftError {
  constructor(
    what: string,
    /** GPUDeviceLostInfo.reason: 'destroyed' or 'unknown'. */
    readonly reason: string,
    /** GPUDeviceLostInfo.message, the driver's words ('' when it gave none). */
    readonly deviceMessage: string,
  ) {
    super(
      'device-lost',
      `${what}: the GPU device was lost (reason '${reason}'${deviceMessage ? `: ${deviceMessage}` : ''}); create a new simulation on a new device — the last state read before the loss is the last good one`,
      '',
      { reason },
    );
    this.name = 'WeftDeviceLostError';
  }
}

/**
 * A value as an error message shows it: short, and never a throw — a Symbol, an object without a
 * prototype, a cycle or an array nested 10⁵ deep are described, not converted or stringified.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case 'bigint':
      return `${value.toString()}n`;
    case 'symbol':
      return value.toString();
    case 'function':
      return 'a function';
    case 'object':
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        const short = value.length <= 8 && value.every((x) => typeof x !== 'object' || x === null);
        return short ? `[${value.map(describeValue).join(', ')}]` : `an array of ${value.length}`;
      }
      return 'an object';
    default:
      return String(value);
  }
}

/** A name as a message quotes it: 'rk4', cut after 40 characters; anything else as describeValue. */
export function describeName(value: unknown): string {
  if (typeof value !== 'string') return describeValue(value);
  const flat = value.replace(/\s+/g, ' ');
  return `'${flat.length > 40 ? `${flat.slice(0, 40)}…` : flat}'`;
}
