/**
 * An error in what the caller gave Weft (a scene, an option, a size): it names the offending
 * field, and the index where there is one, so a person can find it. Thrown before anything
 * reaches the GPU. The CLI prints `message` alone (no stack trace) and exits with code 2.
 */
export class WeftInputError extends Error {
  /** Dotted path of the offending field, e.g. `springs.restLengths[12]` or `dt`. */
  readonly field: string;
  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = 'WeftInputError';
    this.field = field;
  }
}

/** The simulation produced NaN or Inf: reported, never rendered or returned as if it were a state. */
export class WeftDivergenceError extends Error {
  constructor(
    readonly step: number,
    readonly particle: number,
  ) {
    super(
      `simulation diverged: particle ${particle} is not finite at step ${step} (reduce dt, or use a more stable integrator)`,
    );
    this.name = 'WeftDivergenceError';
  }
}
